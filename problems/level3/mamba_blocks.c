#include "mamba_blocks.h"

#include <math.h>

static const kbv_b_attrs none = {0};

/* The module's segsum(x): cumsum along the last dim, the pairwise
 * differences x_cumsum[..., :, None] - x_cumsum[..., None, :], -inf where
 * ~tril(ones(T, T)); then exp, as every call site applies it. */
static const char *exp_segsum(kbv_builder *b, const char *prefix, const char *x)
{
    const char *cs = kbv_b_op1(b, KBV_OP_CUMSUM, kbv_b_strf(b, "%s_cumsum", prefix),
                               (kbv_b_attrs){.i = {-1}}, x);
    const char *rows = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {-1}}, cs);
    const char *cols = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {-2}}, cs);
    const char *seg = kbv_b_op2(b, KBV_OP_SUB, kbv_b_strf(b, "%s_segsum", prefix), none, rows,
                                cols);
    const char *mask = kbv_b_op1(b, KBV_OP_SEGSUM_MASK, kbv_b_strf(b, "%s_mask", prefix), none,
                                 x);
    seg = kbv_b_op2(b, KBV_OP_MASKED_FILL, kbv_b_strf(b, "%s_masked", prefix),
                    (kbv_b_attrs){.f = {-INFINITY}}, seg, mask);
    return kbv_b_op1(b, KBV_OP_EXP, kbv_b_strf(b, "%s_exp", prefix), none, seg);
}

static const char *einsum(kbv_builder *b, const char *out, const char *eq, int n,
                          const char *const *args)
{
    return kbv_b_node(b, KBV_OP_EINSUM_N, out, (kbv_b_attrs){.s = eq}, n, args);
}

/* rearrange(x, "b (c l) ... -> b c l ...", l=block_len): a view of the
 * contiguous operand, as einops' reshape */
static const char *chunked(kbv_builder *b, const char *x, const char *rest)
{
    return kbv_b_op1(b, KBV_OP_RESHAPE, kbv_b_strf(b, "%s_blocks", x),
                     (kbv_b_attrs){.s = kbv_b_strf(b, "(batch_size, n_chunks, block_len%s)",
                                                   rest)},
                     x);
}

void l3_mamba2(kbv_builder *b, int64_t batch, int64_t seq, int64_t block_len, bool final_state)
{
    kbv_b_dim(b, "batch_size", batch, 2);
    kbv_b_dim(b, "seq_length", seq, 16);
    kbv_b_dim(b, "n_heads", 8, 2);
    kbv_b_dim(b, "d_head", 64, 4);
    kbv_b_dim(b, "d_state", 16, 3);
    kbv_b_dim(b, "block_len", block_len, 8);
    kbv_b_dim(b, "n_chunks", seq / block_len, 2);
    if (seq / block_len != 2 || seq % block_len)
        kbv_b_fail(b, "mamba2: seq_length is two blocks");
    kbv_b_input(b, "X", KBV_GEN_RAND, "batch_size,seq_length,n_heads,d_head");
    kbv_b_param(b, "A", KBV_INIT_RANDN, "batch_size,seq_length,n_heads", false);
    kbv_b_param(b, "B", KBV_INIT_RANDN, "batch_size,seq_length,n_heads,d_state", false);
    kbv_b_param(b, "C", KBV_INIT_RANDN, "batch_size,seq_length,n_heads,d_state", false);

    const char *x_blocks = chunked(b, "X", ", n_heads, d_head");
    const char *a_blocks = chunked(b, "A", ", n_heads");
    const char *b_blocks = chunked(b, "B", ", n_heads, d_state");
    const char *c_blocks = final_state ? NULL : chunked(b, "C", ", n_heads, d_state");
    /* rearrange(A_blocks, "b c l h -> b h c l") */
    a_blocks = kbv_b_op1(b, KBV_OP_PERMUTE, "A_bhcl", (kbv_b_attrs){.s = "(0, 3, 1, 2)"},
                         a_blocks);
    const char *a_cumsum = kbv_b_op1(b, KBV_OP_CUMSUM, "A_cumsum", (kbv_b_attrs){.i = {-1}},
                                     a_blocks);

    /* 1. the diagonal blocks' outputs (L3/48 only: L3/49's forward computes
     * them too, but never reads them -- a dead value the graph leaves out) */
    const char *y_diag = NULL;
    if (!final_state) {
        const char *l = exp_segsum(b, "L", a_blocks);
        const char *args[4] = {c_blocks, b_blocks, l, x_blocks};
        y_diag = einsum(b, "Y_diag", "bclhn,bcshn,bhcls,bcshp->bclhp", 4, args);
    }

    /* 2. the intra-chunk states; A_cumsum[:, :, :, -1:] as a select and an
     * unsqueeze (the same view) */
    const char *last = kbv_b_op1(b, KBV_OP_SELECT, "A_cumsum_last", (kbv_b_attrs){.i = {-1, -1}},
                                 a_cumsum);
    const char *last_k = kbv_b_op1(b, KBV_OP_UNSQUEEZE, NULL, (kbv_b_attrs){.i = {-1}}, last);
    const char *dd = kbv_b_op2(b, KBV_OP_SUB, NULL, none, last_k, a_cumsum);
    const char *decay_states = kbv_b_op1(b, KBV_OP_EXP, "decay_states", none, dd);
    const char *st_args[3] = {b_blocks, decay_states, x_blocks};
    const char *states = einsum(b, "states", "bclhn,bhcl,bclhp->bchpn", 3, st_args);

    /* 3. the inter-chunk recurrence from zero initial states (torch.zeros_like
     * of a slice, then a cat) and F.pad(A_cumsum[:, :, :, -1], (1, 0)) */
    const char *init = kbv_b_op1(b, KBV_OP_ZEROS_SLICE, "initial_states", (kbv_b_attrs){.i = {1}},
                                 states);
    states = kbv_b_op2(b, KBV_OP_CAT, "states_all", (kbv_b_attrs){.i = {1}}, init, states);
    const char *padded = kbv_b_op1(b, KBV_OP_PAD, "A_last_padded", (kbv_b_attrs){.s = "[1, 0]"},
                                   last);
    const char *decay_chunk = exp_segsum(b, "decay_chunk", padded);
    const char *nc_args[2] = {decay_chunk, states};
    const char *new_states = einsum(b, "new_states", "bhzc,bchpn->bzhpn", 2, nc_args);

    if (final_state) {
        kbv_b_op1(b, KBV_OP_SELECT, "final_state", (kbv_b_attrs){.i = {1, -1}}, new_states);
    } else {
        /* 4. the states' contribution to the outputs */
        const char *prev = kbv_b_op1(b, KBV_OP_NARROW, "states_prev",
                                     (kbv_b_attrs){.i = {1, 0, 2}}, new_states);
        const char *decay_out = kbv_b_op1(b, KBV_OP_EXP, "state_decay_out", none, a_cumsum);
        const char *off_args[3] = {c_blocks, prev, decay_out};
        const char *y_off = einsum(b, "Y_off", "bclhn,bchpn,bhcl->bclhp", 3, off_args);
        const char *y = kbv_b_op2(b, KBV_OP_ADD, "Y_sum", none, y_diag, y_off);
        /* rearrange(..., "b c l h p -> b (c l) h p") */
        kbv_b_op1(b, KBV_OP_RESHAPE, "Y",
                  (kbv_b_attrs){.s = "(batch_size, seq_length, n_heads, d_head)"}, y);
    }
    kbv_b_init_arg(b, "batch_size", "batch_size");
    kbv_b_init_arg(b, "seq_length", "seq_length");
    kbv_b_init_arg(b, "n_heads", "n_heads");
    kbv_b_init_arg(b, "d_head", "d_head");
    kbv_b_init_arg(b, "d_state", "d_state");
    kbv_b_init_arg(b, "block_len", "block_len");
}
