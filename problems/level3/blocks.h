/* The blocks level-3 models are made of, on the problem builder: each adds
 * its params under PyTorch's state_dict names (prefix + ".weight", ...) in
 * the module's registration order, with their PyTorch initialisers, and its
 * nodes; each returns the name of its output value. Sizes are shape entries:
 * dim names ("input_size") or decimal literals ("64"). */
#ifndef KBV_LEVEL3_BLOCKS_H
#define KBV_LEVEL3_BLOCKS_H

#include <stdbool.h>

#include "graph/problem_builder.h"

/* A size as a shape entry: decimal digits of n, kept by the builder. */
const char *l3_size(kbv_builder *b, int n);

/* nn.Linear(in, out) named prefix: its weight and bias alone (a module a
 * forward() never applies still has them in its state_dict). */
void l3_linear_params(kbv_builder *b, const char *prefix, const char *in, const char *out);

/* nn.Linear(in, out, bias) named prefix, applied to x. */
const char *l3_linear(kbv_builder *b, const char *prefix, const char *x, const char *in,
                      const char *out, bool bias);

/* nn.Sequential(Linear(sizes[0], sizes[1]), ReLU(), Linear(sizes[1], sizes[2]), ReLU(), ...,
 * Linear(sizes[n-2], sizes[n-1])) named prefix: n sizes, n - 1 Linear layers at
 * Sequential indices 0, 2, 4, ..., a ReLU after each but the last. */
const char *l3_mlp(kbv_builder *b, const char *prefix, const char *x, int n,
                   const char *const *sizes);

/* nn.Conv2d(cin, cout, k, stride, padding, groups, bias) named prefix; its
 * weight under PyTorch's default initialiser, or with kaiming_fan_out under
 * nn.init.kaiming_normal_(mode="fan_out") and its bias zeros (MobileNetV2's
 * _initialize_weights). */
typedef struct l3_conv {
    int cin, cout, k, stride, pad, groups;
    bool bias;
    bool kaiming_fan_out;
} l3_conv;
const char *l3_conv2d(kbv_builder *b, const char *prefix, const char *x, l3_conv c);

/* nn.BatchNorm2d(c) named prefix, in training mode (the module's default):
 * weight, bias, running_mean and running_var (num_batches_tracked is not
 * listed: it never affects the output). */
const char *l3_batch_norm2d(kbv_builder *b, const char *prefix, const char *x, int c);

/* ReLU; in_place as nn.ReLU(inplace=True) (x is dead after it). */
const char *l3_relu(kbv_builder *b, const char *x, bool in_place);

/* F.max_pool2d with kernel k, stride s, padding p. */
const char *l3_max_pool2d(kbv_builder *b, const char *x, int k, int s, int p);

/* conv (no bias) -> bn -> ReLU (in place) unless relu is false: ResNet's
 * "conv1/bn1" pattern, the conv named conv_prefix, the bn bn_prefix. */
const char *l3_conv_bn_act(kbv_builder *b, const char *conv_prefix, const char *bn_prefix,
                           const char *x, l3_conv c, bool relu);

/* out += identity, in place (out is dead after). */
const char *l3_add_in_place(kbv_builder *b, const char *out, const char *identity);

/* torchvision's BasicBlock named prefix: conv3x3(stride)-bn-relu-conv3x3-bn,
 * plus the input or, with downsample, conv1x1(stride)-bn of it under
 * prefix.downsample.0/1; then relu, in place as the module's. */
const char *l3_basic_block(kbv_builder *b, const char *prefix, const char *x, int cin, int cout,
                           int stride, bool downsample);

/* torchvision's Bottleneck (expansion 4) named prefix: conv1x1-bn-relu,
 * conv3x3(stride)-bn-relu, conv1x1(x4)-bn, plus the input or its
 * downsample (conv1x1(stride)-bn), then relu. */
const char *l3_bottleneck(kbv_builder *b, const char *prefix, const char *x, int cin, int width,
                          int stride, bool downsample);

/* A ResNet stage named prefix ("layer2"): `blocks` blocks, the first with
 * stride and a downsample where stride != 1 or the channels change, as
 * ResNet._make_layer; *cin is updated to the stage's output channels. */
const char *l3_resnet_layer(kbv_builder *b, const char *prefix, const char *x, int *cin,
                            int width, int blocks, int stride, bool bottleneck);

/* KernelBench's InceptionModule named prefix: branch1x1 (1x1), branch3x3
 * (1x1 to r3, 3x3 to o3), branch5x5 (1x1 to r5, 5x5 to o5), branch_pool
 * (maxpool 3/1/1, 1x1 to pp), all convs with bias and no activation, then
 * cat of the four along the channels. */
typedef struct l3_inception {
    int cin, o1, r3, o3, r5, o5, pp;
} l3_inception;
const char *l3_inception_module(kbv_builder *b, const char *prefix, const char *x,
                                l3_inception m);

/* BatchNorm2d(cin) named prefix.<first> - ReLU (in place): the pre-activation
 * of DenseNet's layers and transitions, the Sequential's index `first`. */
const char *l3_bn_relu(kbv_builder *b, const char *prefix, int first, const char *x, int cin);

/* KernelBench's DenseBlock named prefix: `layers` layers, layer i of prefix.layers.i =
 * Sequential(BatchNorm2d, ReLU(inplace), Conv2d 3x3 (no bias) to `growth`, Dropout(0)),
 * each reading the cat of the input and every earlier layer's output (cat along the
 * channels after each layer). *channels grows by layers * growth. */
const char *l3_dense_block(kbv_builder *b, const char *prefix, const char *x, int layers,
                           int *channels, int growth);

/* KernelBench's TransitionLayer named prefix: prefix.transition = Sequential(BatchNorm2d,
 * ReLU(inplace), Conv2d 1x1 (no bias) cin -> cout, AvgPool2d 2/2). */
const char *l3_transition(kbv_builder *b, const char *prefix, const char *x, int cin, int cout);

/* KernelBench's DenseNet (121: blocks {6, 12, 24, 16}; 201: {6, 12, 48, 32}) on
 * x [batch, 3, H, W] with growth rate 32: features (conv 7x7/2, bn, relu, maxpool),
 * dense blocks with transitions halving the channels between them, final_bn, relu,
 * adaptive average pool, classifier to `classes`. Params in the module's order. */
const char *l3_densenet(kbv_builder *b, const char *x, const int blocks[4], const char *classes);

/* SqueezeNet's fire module named prefix: squeeze (1x1 to sq) - ReLU, then
 * cat(expand1x1 (1x1 to e1) - ReLU, expand3x3 (3x3 to e3) - ReLU) along the
 * channels; convs with bias, ReLUs in place. */
const char *l3_fire_module(kbv_builder *b, const char *prefix, const char *x, int cin, int sq,
                           int e1, int e3);

/* KernelBench's VGG on x [batch, 3, 224, 224]: features = five blocks of convs[k]
 * conv 3x3 (padding 1, bias) - ReLU (in place) at widths 64, 128, 256, 512, 512,
 * each block ending in a max pool 2/2 (Sequential indices counted through them);
 * flatten; classifier = Linear(512 * 7 * 7, 4096) - ReLU - Dropout(0) - Linear(4096,
 * 4096) - ReLU - Dropout(0) - Linear(4096, classes). */
const char *l3_vgg(kbv_builder *b, const char *x, const int convs[5], const char *classes);

/* torchvision's ResNet on x [batch, 3, H, W]: conv1 7x7/2 - bn1 - relu -
 * maxpool 3/2 - layer1..layer4 of blocks[0..3] blocks (widths 64 to 512) -
 * adaptive average pool to 1x1 - flatten - fc to `classes` (a size). */
const char *l3_resnet(kbv_builder *b, const char *x, const int blocks[4], bool bottleneck,
                      const char *classes);

/* ShuffleNet's ChannelShuffle of x [N, channels, H, W] in `groups` groups:
 * x.view(N, groups, channels / groups, H, W).transpose(1, 2).contiguous()
 * .view(N, -1, H, W), the sizes read from x as the module reads them. The
 * contiguous copy is the one allocation. */
const char *l3_channel_shuffle(kbv_builder *b, const char *x, int channels, int groups);

/* KernelBench's ShuffleNetUnit named prefix: conv1 (1x1, groups) - bn1 - ReLU,
 * conv2 (3x3 depthwise over cout / 4) - bn2, channel shuffle, conv3 (1x1,
 * groups) - bn3 - ReLU, then += the input or, when cin != cout, its
 * shortcut (prefix.shortcut.0 conv 1x1, .1 bn). Convs without bias, ReLUs
 * out of place (F.relu), the += in place. */
const char *l3_shufflenet_unit(kbv_builder *b, const char *prefix, const char *x, int cin,
                               int cout, int groups);

/* KernelBench's DoubleConv of L3/45 named prefix: prefix.double_conv =
 * Sequential(Conv2d 3x3 (pad 1, bias) cin -> cout, BatchNorm2d, Softmax(dim=-1),
 * Conv2d 3x3 cout -> cout, BatchNorm2d, Softmax(dim=-1)). */
const char *l3_double_conv_softmax(kbv_builder *b, const char *prefix, const char *x, int cin,
                                   int cout);

/* The activations of the MobileNets and EfficientNets, in place as their
 * modules' nn.ReLU(inplace=True) and nn.ReLU6(inplace=True) (which is
 * F.hardtanh(x, 0, 6, inplace=True)); L3_ACT_NONE returns x. */
typedef enum l3_act { L3_ACT_NONE = 0, L3_ACT_RELU, L3_ACT_RELU6 } l3_act;
const char *l3_act_in_place(kbv_builder *b, const char *x, l3_act act);

/* conv - bn - act as a Sequential's children: the conv at prefix.<*index>, the
 * bn at the next index and the act (if any) at the one after; *index is
 * advanced past them. */
const char *l3_seq_conv_bn(kbv_builder *b, const char *prefix, int *index, const char *x,
                           l3_conv c, l3_act act);

/* MobileNetV1's conv_dw named prefix: depthwise conv 3x3 (stride, padding 1) -
 * bn - ReLU, conv 1x1 to cout - bn - ReLU, no biases, ReLUs in place. */
const char *l3_depthwise_separable(kbv_builder *b, const char *prefix, const char *x, int cin,
                                   int cout, int stride);

/* An inverted bottleneck as one flat Sequential named prefix (MobileNetV2's
 * _inverted_residual_block, EfficientNet-B1's and B2's _make_mbconv_block):
 * [conv 1x1 to hidden - bn - act] when expand, depthwise conv k x k (stride,
 * padding (k - 1) / 2) - bn - act, [EfficientNet-B2's squeeze: adaptive average
 * pool to 1x1 - conv 1x1 to hidden / 4 - ReLU (in place) - conv 1x1 to hidden -
 * sigmoid, applied in sequence, not as a gate] when squeeze, conv 1x1 to cout -
 * bn. No biases; none of these modules adds the residual. */
typedef struct l3_inverted {
    int cin, cout, hidden, k, stride;
    bool expand, squeeze, kaiming_fan_out;
    l3_act act;
} l3_inverted;
const char *l3_inverted_bottleneck(kbv_builder *b, const char *prefix, const char *x,
                                   l3_inverted m);

/* KernelBench's MBConv named prefix (L3/21, EfficientNet-B0's blocks):
 * expand_conv (conv 1x1 to cin * expand - bn - ReLU6, absent when expand is 1),
 * depthwise_conv (conv k x k, stride, padding (k - 1) / 2, groups hidden - bn -
 * ReLU6), project_conv (conv 1x1 to cout - bn), then x += identity in place when
 * stride is 1 and cin == cout. */
const char *l3_mbconv(kbv_builder *b, const char *prefix, const char *x, int cin, int cout, int k,
                      int stride, int expand);

#endif
