/* Convolution and pooling ops: their attributes, shape rules and FLOP counts.
 *
 * A node of these ops carries PyTorch's own keyword arguments in its string
 * attribute s, e.g. "stride=(2, 3), padding=1, groups=4": the rendering
 * prints them verbatim into the F.conv2d / F.max_pool2d call, and every
 * backend reads them back through kbv_window_parse, so there is one source
 * for both. A value is a non-negative integer, a tuple of one integer per
 * spatial dim, or True/False for the pooling flags. Omitted keywords take
 * PyTorch's defaults (pooling stride: the kernel size). */
#ifndef KBV_OPS_CONV_H
#define KBV_OPS_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"

#define KBV_WINDOW_MAX_SPATIAL 3

typedef enum kbv_window_kind {
    KBV_WINDOW_CONV = 0,
    KBV_WINDOW_CONV_TRANSPOSE,
    KBV_WINDOW_MAX_POOL,
    KBV_WINDOW_AVG_POOL,
} kbv_window_kind;

/* One node's attributes. Arrays hold `spatial` entries; kernel is set for
 * pools only (convolutions take it from the weight). */
typedef struct kbv_window {
    kbv_window_kind kind;
    int spatial;              /* 1, 2 or 3 */
    bool has_bias;            /* the *_BIAS convolutions: a third operand */
    int64_t kernel[KBV_WINDOW_MAX_SPATIAL];
    int64_t stride[KBV_WINDOW_MAX_SPATIAL];
    int64_t padding[KBV_WINDOW_MAX_SPATIAL];
    int64_t dilation[KBV_WINDOW_MAX_SPATIAL];
    int64_t output_padding[KBV_WINDOW_MAX_SPATIAL];
    int64_t groups;
    bool ceil_mode;
    bool count_include_pad;
} kbv_window;

/* True when op is one of the convolution and pooling ops; then fills kind,
 * spatial and has_bias. */
bool kbv_window_op(kbv_op op, kbv_window_kind *kind, int *spatial, bool *has_bias);

/* Parses node attribute s for op into w (defaults first). Unknown or
 * repeated keywords, tuples of the wrong length, and values PyTorch rejects
 * (stride 0, negative padding, ...) fail with a message naming them. */
kbv_status kbv_window_parse(kbv_op op, const char *s, kbv_window *w);

/* Output extent along one spatial dim, PyTorch's formulas. */
int64_t kbv_conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil);
int64_t kbv_conv_transpose_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad,
                                    int64_t dil, int64_t out_pad);
int64_t kbv_pool_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil,
                          bool ceil_mode);

/* Shape rule and FLOP count of every convolution and pooling op (the op
 * table's rows in ops.c point here). */
kbv_status kbv_shape_window(const kbv_node_def *n, const kbv_value *const *args, kbv_value *out);
double kbv_flops_window(const kbv_graph *g, const kbv_node *n);

#endif
