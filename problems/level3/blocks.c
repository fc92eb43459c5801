/* Level-3 blocks on the problem builder (blocks.h). */
#include "blocks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *l3_size(kbv_builder *b, int n) { return kbv_b_strf(b, "%d", n); }

/* prefix.leaf, or leaf alone under the model itself (prefix ""). */
static void name_of(char *buf, size_t cap, const char *prefix, const char *leaf)
{
    snprintf(buf, cap, "%s%s%s", prefix, *prefix ? "." : "", leaf);
}

void l3_linear_params(kbv_builder *b, const char *prefix, const char *in, const char *out)
{
    char w[160], c[160];
    name_of(w, sizeof w, prefix, "weight");
    name_of(c, sizeof c, prefix, "bias");
    kbv_b_paramf(b, w, KBV_INIT_UNIFORM_FAN_IN, false, "%s,%s", out, in);
    kbv_b_paramf(b, c, KBV_INIT_UNIFORM_FAN_IN, false, "%s", out);
}

const char *l3_linear(kbv_builder *b, const char *prefix, const char *x, const char *in,
                      const char *out, bool bias)
{
    char w[160], c[160];
    name_of(w, sizeof w, prefix, "weight");
    name_of(c, sizeof c, prefix, "bias");
    kbv_b_paramf(b, w, KBV_INIT_UNIFORM_FAN_IN, false, "%s,%s", out, in);
    if (bias)
        kbv_b_paramf(b, c, KBV_INIT_UNIFORM_FAN_IN, false, "%s", out);
    kbv_b_attrs none = {0};
    return bias ? kbv_b_op3(b, KBV_OP_LINEAR, NULL, none, x, w, c)
                : kbv_b_op2(b, KBV_OP_LINEAR, NULL, none, x, w);
}

const char *l3_mlp(kbv_builder *b, const char *prefix, const char *x, int n,
                   const char *const *sizes)
{
    if (n < 2) {
        kbv_b_fail(b, "an MLP needs at least an input and an output size, %d given", n);
        return NULL;
    }
    char name[160];
    for (int l = 0; l + 1 < n; l++) {
        snprintf(name, sizeof name, "%s%s%d", prefix, *prefix ? "." : "", 2 * l);
        x = l3_linear(b, name, x, sizes[l], sizes[l + 1], true);
        if (l + 2 < n)
            x = l3_relu(b, x, false);
    }
    return x;
}

const char *l3_conv2d(kbv_builder *b, const char *prefix, const char *x, l3_conv c)
{
    char w[160], bias[160];
    name_of(w, sizeof w, prefix, "weight");
    name_of(bias, sizeof bias, prefix, "bias");
    if (c.groups < 1)
        c.groups = 1;
    if (c.stride < 1)
        c.stride = 1;
    if (c.kaiming_fan_out) {
        /* gain sqrt(2) (leaky_relu, a = 0) over sqrt(fan_out), fan_out = cout * k * k */
        kbv_b_paramf(b, w, KBV_INIT_NORMAL, false, "%d,%d,%d,%d", c.cout, c.cin / c.groups, c.k,
                     c.k);
        kbv_b_param_value(b, sqrt(2.0 / ((double)c.cout * c.k * c.k)));
    } else {
        kbv_b_paramf(b, w, KBV_INIT_UNIFORM_FAN_IN, false, "%d,%d,%d,%d", c.cout,
                     c.cin / c.groups, c.k, c.k);
    }
    if (c.bias)
        kbv_b_paramf(b, bias, c.kaiming_fan_out ? KBV_INIT_ZEROS : KBV_INIT_UNIFORM_FAN_IN, false,
                     "%d", c.cout);
    kbv_b_attrs a = {.s = kbv_b_strf(b, "stride=%d, padding=%d, groups=%d", c.stride, c.pad,
                                     c.groups)};
    return c.bias ? kbv_b_op3(b, KBV_OP_CONV2D_BIAS, NULL, a, x, w, bias)
                  : kbv_b_op2(b, KBV_OP_CONV2D, NULL, a, x, w);
}

const char *l3_batch_norm2d(kbv_builder *b, const char *prefix, const char *x, int c)
{
    char w[160], bias[160], mean[160], var[160];
    name_of(w, sizeof w, prefix, "weight");
    name_of(bias, sizeof bias, prefix, "bias");
    name_of(mean, sizeof mean, prefix, "running_mean");
    name_of(var, sizeof var, prefix, "running_var");
    kbv_b_paramf(b, w, KBV_INIT_ONES, false, "%d", c);
    kbv_b_paramf(b, bias, KBV_INIT_ZEROS, false, "%d", c);
    kbv_b_paramf(b, mean, KBV_INIT_ZEROS, true, "%d", c);
    kbv_b_paramf(b, var, KBV_INIT_ONES, true, "%d", c);
    kbv_b_attrs a = {.f = {1e-5, 0.1}};
    return kbv_b_op3(b, KBV_OP_BATCH_NORM, NULL, a, x, w, bias);
}

const char *l3_relu(kbv_builder *b, const char *x, bool in_place)
{
    kbv_b_attrs a = {.in_place = in_place};
    return kbv_b_op1(b, KBV_OP_RELU, NULL, a, x);
}

const char *l3_max_pool2d(kbv_builder *b, const char *x, int k, int s, int p)
{
    kbv_b_attrs a = {.s = kbv_b_strf(b, "kernel_size=%d, stride=%d, padding=%d", k, s, p)};
    return kbv_b_op1(b, KBV_OP_MAX_POOL2D, NULL, a, x);
}

const char *l3_conv_bn_act(kbv_builder *b, const char *conv_prefix, const char *bn_prefix,
                           const char *x, l3_conv c, bool relu)
{
    c.bias = false;
    x = l3_conv2d(b, conv_prefix, x, c);
    x = l3_batch_norm2d(b, bn_prefix, x, c.cout);
    return relu ? l3_relu(b, x, true) : x;
}

const char *l3_add_in_place(kbv_builder *b, const char *out, const char *identity)
{
    kbv_b_attrs a = {.in_place = true};
    return kbv_b_op2(b, KBV_OP_ADD, NULL, a, out, identity);
}

/* prefix.downsample.0 (conv1x1, stride) and .1 (bn) of x, or x itself. */
static const char *identity_of(kbv_builder *b, const char *prefix, const char *x, int cin,
                               int cout, int stride, bool downsample)
{
    if (!downsample)
        return x;
    char conv[160], bn[160];
    name_of(conv, sizeof conv, prefix, "downsample.0");
    name_of(bn, sizeof bn, prefix, "downsample.1");
    l3_conv c = {.cin = cin, .cout = cout, .k = 1, .stride = stride};
    return l3_conv_bn_act(b, conv, bn, x, c, false);
}

const char *l3_basic_block(kbv_builder *b, const char *prefix, const char *x, int cin, int cout,
                           int stride, bool downsample)
{
    char conv[160], bn[160];
    name_of(conv, sizeof conv, prefix, "conv1");
    name_of(bn, sizeof bn, prefix, "bn1");
    const char *out = l3_conv_bn_act(b, conv, bn, x,
                                     (l3_conv){.cin = cin, .cout = cout, .k = 3, .stride = stride,
                                               .pad = 1},
                                     true);
    name_of(conv, sizeof conv, prefix, "conv2");
    name_of(bn, sizeof bn, prefix, "bn2");
    out = l3_conv_bn_act(b, conv, bn, out,
                         (l3_conv){.cin = cout, .cout = cout, .k = 3, .stride = 1, .pad = 1},
                         false);
    const char *identity = identity_of(b, prefix, x, cin, cout, stride, downsample);
    return l3_relu(b, l3_add_in_place(b, out, identity), true);
}

const char *l3_bottleneck(kbv_builder *b, const char *prefix, const char *x, int cin, int width,
                          int stride, bool downsample)
{
    char conv[160], bn[160];
    name_of(conv, sizeof conv, prefix, "conv1");
    name_of(bn, sizeof bn, prefix, "bn1");
    const char *out = l3_conv_bn_act(b, conv, bn, x,
                                     (l3_conv){.cin = cin, .cout = width, .k = 1}, true);
    name_of(conv, sizeof conv, prefix, "conv2");
    name_of(bn, sizeof bn, prefix, "bn2");
    out = l3_conv_bn_act(b, conv, bn, out,
                         (l3_conv){.cin = width, .cout = width, .k = 3, .stride = stride,
                                   .pad = 1},
                         true);
    name_of(conv, sizeof conv, prefix, "conv3");
    name_of(bn, sizeof bn, prefix, "bn3");
    out = l3_conv_bn_act(b, conv, bn, out,
                         (l3_conv){.cin = width, .cout = 4 * width, .k = 1}, false);
    const char *identity = identity_of(b, prefix, x, cin, 4 * width, stride, downsample);
    return l3_relu(b, l3_add_in_place(b, out, identity), true);
}

const char *l3_resnet_layer(kbv_builder *b, const char *prefix, const char *x, int *cin,
                            int width, int blocks, int stride, bool bottleneck)
{
    int cout = bottleneck ? 4 * width : width;
    char name[160];
    for (int k = 0; k < blocks; k++) {
        snprintf(name, sizeof name, "%s%s%d", prefix, *prefix ? "." : "", k);
        int s = k == 0 ? stride : 1;
        bool downsample = k == 0 && (stride != 1 || *cin != cout);
        x = bottleneck ? l3_bottleneck(b, name, x, *cin, width, s, downsample)
                       : l3_basic_block(b, name, x, *cin, cout, s, downsample);
        *cin = cout;
    }
    return x;
}

const char *l3_resnet(kbv_builder *b, const char *x, const int blocks[4], bool bottleneck,
                      const char *classes)
{
    x = l3_conv_bn_act(b, "conv1", "bn1", x,
                       (l3_conv){.cin = 3, .cout = 64, .k = 7, .stride = 2, .pad = 3}, true);
    x = l3_max_pool2d(b, x, 3, 2, 1);
    int cin = 64;
    static const char *const names[4] = {"layer1", "layer2", "layer3", "layer4"};
    for (int l = 0; l < 4; l++)
        x = l3_resnet_layer(b, names[l], x, &cin, 64 << l, blocks[l], l == 0 ? 1 : 2,
                            bottleneck);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, flat = {.i = {1, -1}};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    return l3_linear(b, "fc", x, l3_size(b, cin), classes, true);
}

const char *l3_inception_module(kbv_builder *b, const char *prefix, const char *x,
                                l3_inception m)
{
    char name[160];
    const char *branch[4];
    name_of(name, sizeof name, prefix, "branch1x1");
    branch[0] = l3_conv2d(b, name, x, (l3_conv){.cin = m.cin, .cout = m.o1, .k = 1, .bias = true});
    name_of(name, sizeof name, prefix, "branch3x3.0");
    const char *t = l3_conv2d(b, name, x,
                              (l3_conv){.cin = m.cin, .cout = m.r3, .k = 1, .bias = true});
    name_of(name, sizeof name, prefix, "branch3x3.1");
    branch[1] = l3_conv2d(b, name, t,
                          (l3_conv){.cin = m.r3, .cout = m.o3, .k = 3, .pad = 1, .bias = true});
    name_of(name, sizeof name, prefix, "branch5x5.0");
    t = l3_conv2d(b, name, x, (l3_conv){.cin = m.cin, .cout = m.r5, .k = 1, .bias = true});
    name_of(name, sizeof name, prefix, "branch5x5.1");
    branch[2] = l3_conv2d(b, name, t,
                          (l3_conv){.cin = m.r5, .cout = m.o5, .k = 5, .pad = 2, .bias = true});
    t = l3_max_pool2d(b, x, 3, 1, 1);
    name_of(name, sizeof name, prefix, "branch_pool.1");
    branch[3] = l3_conv2d(b, name, t,
                          (l3_conv){.cin = m.cin, .cout = m.pp, .k = 1, .bias = true});
    kbv_b_attrs channels = {.i = {1}};
    return kbv_b_node(b, KBV_OP_CAT, NULL, channels, 4, branch);
}

const char *l3_bn_relu(kbv_builder *b, const char *prefix, int first, const char *x, int cin)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%d", prefix, first);
    return l3_relu(b, l3_batch_norm2d(b, name, x, cin), true);
}

const char *l3_dense_block(kbv_builder *b, const char *prefix, const char *x, int layers,
                           int *channels, int growth)
{
    const char **features = calloc((size_t)layers + 1, sizeof *features);
    if (!features) {
        kbv_b_fail(b, "out of memory for %d dense layers", layers);
        return NULL;
    }
    char name[160];
    kbv_b_attrs drop = {.f = {0.0}, .i = {1}}, channels_dim = {.i = {1}};
    features[0] = x;
    for (int l = 0; l < layers; l++) {
        name_of(name, sizeof name, prefix, "layers");
        snprintf(name + strlen(name), sizeof name - strlen(name), ".%d", l);
        const char *t = l3_bn_relu(b, name, 0, x, *channels);
        snprintf(name + strlen(name), sizeof name - strlen(name), ".2");
        t = l3_conv2d(b, name, t,
                      (l3_conv){.cin = *channels, .cout = growth, .k = 3, .pad = 1});
        features[l + 1] = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, t);
        *channels += growth;
        x = kbv_b_node(b, KBV_OP_CAT, NULL, channels_dim, l + 2, features);
    }
    free(features);
    return x;
}

const char *l3_transition(kbv_builder *b, const char *prefix, const char *x, int cin, int cout)
{
    char seq[160], name[192];
    name_of(seq, sizeof seq, prefix, "transition");
    x = l3_bn_relu(b, seq, 0, x, cin);
    snprintf(name, sizeof name, "%s.2", seq);
    x = l3_conv2d(b, name, x, (l3_conv){.cin = cin, .cout = cout, .k = 1});
    kbv_b_attrs pool = {.s = "kernel_size=2, stride=2"};
    return kbv_b_op1(b, KBV_OP_AVG_POOL2D, NULL, pool, x);
}

const char *l3_densenet(kbv_builder *b, const char *x, const int blocks[4], const char *classes)
{
    x = l3_conv_bn_act(b, "features.0", "features.1", x,
                       (l3_conv){.cin = 3, .cout = 64, .k = 7, .stride = 2, .pad = 3}, true);
    x = l3_max_pool2d(b, x, 3, 2, 1);
    int channels = 64;
    char name[64];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "dense_blocks.%d", k);
        x = l3_dense_block(b, name, x, blocks[k], &channels, 32);
        if (k < 3) {
            snprintf(name, sizeof name, "transition_layers.%d", k);
            x = l3_transition(b, name, x, channels, channels / 2);
            channels /= 2;
        }
    }
    x = l3_relu(b, l3_batch_norm2d(b, "final_bn", x, channels), true);
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, view = {.s = "(batch_size, -1)"};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, view, x);
    x = l3_linear(b, "classifier", x, l3_size(b, channels), classes, true);
    static const char *const children[] = {"features", "dense_blocks", "transition_layers",
                                           "final_bn", "classifier"};
    kbv_b_order_params(b, 5, children);
    return x;
}

const char *l3_fire_module(kbv_builder *b, const char *prefix, const char *x, int cin, int sq,
                           int e1, int e3)
{
    char name[160];
    name_of(name, sizeof name, prefix, "squeeze");
    x = l3_relu(b, l3_conv2d(b, name, x, (l3_conv){.cin = cin, .cout = sq, .k = 1, .bias = true}),
                true);
    const char *expand[2];
    name_of(name, sizeof name, prefix, "expand1x1");
    expand[0] = l3_relu(
        b, l3_conv2d(b, name, x, (l3_conv){.cin = sq, .cout = e1, .k = 1, .bias = true}), true);
    name_of(name, sizeof name, prefix, "expand3x3");
    expand[1] = l3_relu(
        b, l3_conv2d(b, name, x, (l3_conv){.cin = sq, .cout = e3, .k = 3, .pad = 1, .bias = true}),
        true);
    kbv_b_attrs channels = {.i = {1}};
    return kbv_b_node(b, KBV_OP_CAT, NULL, channels, 2, expand);
}

const char *l3_channel_shuffle(kbv_builder *b, const char *x, int channels, int groups)
{
    if (groups < 1 || channels % groups != 0) {
        kbv_b_fail(b, "channel shuffle: %d channels in %d groups", channels, groups);
        return NULL;
    }
    kbv_b_attrs split = {.s = kbv_b_strf(b, "(size(0), %d, %d, size(2), size(3))", groups,
                                         channels / groups)};
    kbv_b_attrs swap = {.i = {1, 2}}, merge = {.s = "(size(0), -1, size(3), size(4))"},
                none = {0};
    x = kbv_b_op1(b, KBV_OP_VIEW, NULL, split, x);
    x = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, NULL, swap, x);
    x = kbv_b_op1(b, KBV_OP_CONTIGUOUS, NULL, none, x);
    return kbv_b_op1(b, KBV_OP_VIEW, NULL, merge, x);
}

const char *l3_shufflenet_unit(kbv_builder *b, const char *prefix, const char *x, int cin,
                               int cout, int groups)
{
    char conv[160], bn[160];
    int mid = cout / 4;
    const char *in = x;
    name_of(conv, sizeof conv, prefix, "conv1");
    name_of(bn, sizeof bn, prefix, "bn1");
    x = l3_conv2d(b, conv, x, (l3_conv){.cin = cin, .cout = mid, .k = 1, .groups = groups});
    x = l3_relu(b, l3_batch_norm2d(b, bn, x, mid), false);
    name_of(conv, sizeof conv, prefix, "conv2");
    name_of(bn, sizeof bn, prefix, "bn2");
    x = l3_conv2d(b, conv, x, (l3_conv){.cin = mid, .cout = mid, .k = 3, .pad = 1, .groups = mid});
    x = l3_batch_norm2d(b, bn, x, mid);
    x = l3_channel_shuffle(b, x, mid, groups);
    name_of(conv, sizeof conv, prefix, "conv3");
    name_of(bn, sizeof bn, prefix, "bn3");
    x = l3_conv2d(b, conv, x, (l3_conv){.cin = mid, .cout = cout, .k = 1, .groups = groups});
    x = l3_relu(b, l3_batch_norm2d(b, bn, x, cout), false);
    const char *shortcut = in;
    if (cin != cout) {
        name_of(conv, sizeof conv, prefix, "shortcut.0");
        name_of(bn, sizeof bn, prefix, "shortcut.1");
        shortcut = l3_conv_bn_act(b, conv, bn, in, (l3_conv){.cin = cin, .cout = cout, .k = 1},
                                  false);
    }
    return l3_add_in_place(b, x, shortcut);
}

const char *l3_double_conv_softmax(kbv_builder *b, const char *prefix, const char *x, int cin,
                                   int cout)
{
    char name[160];
    kbv_b_attrs last_dim = {.i = {-1}};
    for (int half = 0; half < 2; half++) {
        snprintf(name, sizeof name, "%s.double_conv.%d", prefix, 3 * half);
        x = l3_conv2d(b, name, x, (l3_conv){.cin = half ? cout : cin, .cout = cout, .k = 3,
                                            .pad = 1, .bias = true});
        snprintf(name, sizeof name, "%s.double_conv.%d", prefix, 3 * half + 1);
        x = l3_batch_norm2d(b, name, x, cout);
        x = kbv_b_op1(b, KBV_OP_SOFTMAX, NULL, last_dim, x);
    }
    return x;
}

const char *l3_vgg(kbv_builder *b, const char *x, const int convs[5], const char *classes)
{
    static const int widths[5] = {64, 128, 256, 512, 512};
    char name[32];
    int index = 0, cin = 3;
    for (int k = 0; k < 5; k++) {
        for (int c = 0; c < convs[k]; c++) {
            snprintf(name, sizeof name, "features.%d", index);
            x = l3_conv2d(b, name, x,
                          (l3_conv){.cin = cin, .cout = widths[k], .k = 3, .pad = 1,
                                    .bias = true});
            x = l3_relu(b, x, true);
            cin = widths[k];
            index += 2;
        }
        x = l3_max_pool2d(b, x, 2, 2, 0);
        index++;
    }
    kbv_b_attrs flat = {.i = {1, -1}}, drop = {.f = {0.0}, .i = {1}};
    x = kbv_b_op1(b, KBV_OP_FLATTEN, NULL, flat, x);
    x = l3_relu(b, l3_linear(b, "classifier.0", x, "25088", "4096", true), true);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    x = l3_relu(b, l3_linear(b, "classifier.3", x, "4096", "4096", true), true);
    x = kbv_b_op1(b, KBV_OP_DROPOUT, NULL, drop, x);
    return l3_linear(b, "classifier.6", x, "4096", classes, true);
}

const char *l3_act_in_place(kbv_builder *b, const char *x, l3_act act)
{
    kbv_b_attrs relu6 = {.f = {0.0, 6.0}, .in_place = true};
    switch (act) {
    case L3_ACT_RELU: return l3_relu(b, x, true);
    case L3_ACT_RELU6: return kbv_b_op1(b, KBV_OP_HARDTANH, NULL, relu6, x);
    case L3_ACT_NONE: break;
    }
    return x;
}

const char *l3_seq_conv_bn(kbv_builder *b, const char *prefix, int *index, const char *x,
                           l3_conv c, l3_act act)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%d", prefix, (*index)++);
    x = l3_conv2d(b, name, x, c);
    snprintf(name, sizeof name, "%s.%d", prefix, (*index)++);
    x = l3_batch_norm2d(b, name, x, c.cout);
    if (act != L3_ACT_NONE)
        (*index)++;
    return l3_act_in_place(b, x, act);
}

const char *l3_depthwise_separable(kbv_builder *b, const char *prefix, const char *x, int cin,
                                   int cout, int stride)
{
    int index = 0;
    x = l3_seq_conv_bn(b, prefix, &index, x,
                       (l3_conv){.cin = cin, .cout = cin, .k = 3, .stride = stride, .pad = 1,
                                 .groups = cin},
                       L3_ACT_RELU);
    return l3_seq_conv_bn(b, prefix, &index, x, (l3_conv){.cin = cin, .cout = cout, .k = 1},
                          L3_ACT_RELU);
}

/* EfficientNet-B2's squeeze at prefix.<*index>: the pool, conv, ReLU, conv and
 * sigmoid are five children of the Sequential. */
static const char *squeeze_in_sequence(kbv_builder *b, const char *prefix, int *index,
                                       const char *x, int hidden)
{
    char name[160];
    kbv_b_attrs pool = {.s = "output_size=(1, 1)"}, none = {0};
    x = kbv_b_op1(b, KBV_OP_ADAPTIVE_AVG_POOL2D, NULL, pool, x);
    (*index)++;
    snprintf(name, sizeof name, "%s.%d", prefix, (*index)++);
    x = l3_relu(b, l3_conv2d(b, name, x, (l3_conv){.cin = hidden, .cout = hidden / 4, .k = 1}),
                true);
    (*index)++;
    snprintf(name, sizeof name, "%s.%d", prefix, (*index)++);
    x = l3_conv2d(b, name, x, (l3_conv){.cin = hidden / 4, .cout = hidden, .k = 1});
    (*index)++;
    return kbv_b_op1(b, KBV_OP_SIGMOID, NULL, none, x);
}

const char *l3_inverted_bottleneck(kbv_builder *b, const char *prefix, const char *x,
                                   l3_inverted m)
{
    int index = 0;
    if (m.expand)
        x = l3_seq_conv_bn(b, prefix, &index, x,
                           (l3_conv){.cin = m.cin, .cout = m.hidden, .k = 1,
                                     .kaiming_fan_out = m.kaiming_fan_out},
                           m.act);
    x = l3_seq_conv_bn(b, prefix, &index, x,
                       (l3_conv){.cin = m.hidden, .cout = m.hidden, .k = m.k, .stride = m.stride,
                                 .pad = (m.k - 1) / 2, .groups = m.hidden,
                                 .kaiming_fan_out = m.kaiming_fan_out},
                       m.act);
    if (m.squeeze)
        x = squeeze_in_sequence(b, prefix, &index, x, m.hidden);
    return l3_seq_conv_bn(b, prefix, &index, x,
                          (l3_conv){.cin = m.hidden, .cout = m.cout, .k = 1,
                                    .kaiming_fan_out = m.kaiming_fan_out},
                          L3_ACT_NONE);
}

const char *l3_mbconv(kbv_builder *b, const char *prefix, const char *x, int cin, int cout, int k,
                      int stride, int expand)
{
    char seq[160];
    const char *identity = x;
    const int hidden = cin * expand;
    int index = 0;
    if (expand != 1) {
        name_of(seq, sizeof seq, prefix, "expand_conv");
        x = l3_seq_conv_bn(b, seq, &index, x, (l3_conv){.cin = cin, .cout = hidden, .k = 1},
                           L3_ACT_RELU6);
    }
    index = 0;
    name_of(seq, sizeof seq, prefix, "depthwise_conv");
    x = l3_seq_conv_bn(b, seq, &index, x,
                       (l3_conv){.cin = hidden, .cout = hidden, .k = k, .stride = stride,
                                 .pad = (k - 1) / 2, .groups = hidden},
                       L3_ACT_RELU6);
    index = 0;
    name_of(seq, sizeof seq, prefix, "project_conv");
    x = l3_seq_conv_bn(b, seq, &index, x, (l3_conv){.cin = hidden, .cout = cout, .k = 1},
                       L3_ACT_NONE);
    return stride == 1 && cin == cout ? l3_add_in_place(b, x, identity) : x;
}
