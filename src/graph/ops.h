/* The op set. Each op is one PyTorch call; its semantics are PyTorch's.
 * The table in ops.c (one row per op, checked against KBV_OP_COUNT at
 * compile time) holds its shape rule, FLOP count and PyTorch rendering;
 * every backend holds one implementation per op in the same order.
 *
 * Attributes: f[] floats, i[] integers, s a string; listed per op. */
#ifndef KBV_OPS_H
#define KBV_OPS_H

typedef enum kbv_op {
    KBV_OP_NONE = 0,      /* terminates a node list */

    /* linear algebra */
    KBV_OP_MATMUL,        /* torch.matmul(a, b): 1-D/2-D/N-D, batch dims broadcast */
    KBV_OP_BMM,           /* torch.bmm(a, b) */
    KBV_OP_EINSUM,        /* torch.einsum(s, a, b) for contractions that are a matmul ("bijl,lk->bijk") */
    KBV_OP_TRANSPOSE,     /* a.T of a 2-D tensor: a view, no copy */
    KBV_OP_DIAG,          /* torch.diag(a): 1-D -> materialised N x N */
    KBV_OP_TRIU,          /* torch.triu(a, diagonal=i[0]) */
    KBV_OP_TRIL,          /* torch.tril(a, diagonal=i[0]) */

    /* elementwise binary, with broadcasting (a 0-dim operand included) */
    KBV_OP_ADD,           /* a + b */
    KBV_OP_SUB,           /* a - b */
    KBV_OP_MUL,           /* a * b */
    KBV_OP_DIV,           /* a / b */

    /* elementwise with a Python-number constant f[0] */
    KBV_OP_ADD_SCALAR,    /* f[0] + a */
    KBV_OP_MUL_SCALAR,    /* a * f[0] */

    /* elementwise unary */
    KBV_OP_ABS,
    KBV_OP_RELU,          /* torch.relu */
    KBV_OP_LEAKY_RELU,    /* F.leaky_relu(a, negative_slope=f[0]) */
    KBV_OP_SIGMOID,
    KBV_OP_TANH,
    KBV_OP_GELU,          /* F.gelu(a): exact, erf form */
    KBV_OP_SELU,
    KBV_OP_HARDSIGMOID,   /* F.hardsigmoid: relu6(x + 3) / 6 */
    KBV_OP_SOFTPLUS,      /* F.softplus(a): beta 1, threshold 20 */
    KBV_OP_ELU,           /* F.elu(a, alpha=f[0]) */
    KBV_OP_HARDTANH,      /* F.hardtanh(a, min_val=f[0], max_val=f[1]) */

    /* along one dim i[0] (negative counts from the end) */
    KBV_OP_SOFTMAX,       /* torch.softmax(a, dim=i[0]) */
    KBV_OP_LOG_SOFTMAX,   /* torch.log_softmax(a, dim=i[0]) */

    /* normalisation, reduction, scan, loss and attention ops */
    /* (end of normalisation ... attention ops) */

    /* convolution and pooling ops */
    /* (end of convolution and pooling ops) */

    KBV_OP_COUNT
} kbv_op;

#endif
