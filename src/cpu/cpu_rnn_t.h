/* nn.LSTM / nn.GRU on the CPU for one element type (cpu_template.h): layer by
 * layer, each direction over the sequence (the reverse one from the last
 * step), as PyTorch's CPU kernels run them: per step the input's product
 * x W_ih^T + b_ih and the state's h W_hh^T + b_hh, then the cell. Sums
 * accumulate in the element type, as a float32 GEMM does in float32.
 * Operands contiguous; the layer outputs are scratch [T, B, D*H]. */

static inline KBV_T KBV_FN(rnn_sigmoid)(KBV_T v) { return (KBV_T)1 / ((KBV_T)1 + KBV_MATH(exp)(-v)); }

/* out[g] = bias[g] + sum_k w[g][k] v[k], g < rows, k < cols */
static void KBV_FN(rnn_affine)(const KBV_T *w, const KBV_T *bias, const KBV_T *v, int64_t rows,
                               int64_t cols, KBV_T *out)
{
    for (int64_t g = 0; g < rows; g++) {
        const KBV_T *row = w + g * cols;
        KBV_T acc = 0;
        for (int64_t k = 0; k < cols; k++)
            acc += row[k] * v[k];
        out[g] = acc + bias[g];
    }
}

/* One direction of one layer over the whole sequence: in is [T, B, in_w]
 * (the layer's input, seq-major), h and c the state (c NULL for the GRU),
 * updated in place; the step outputs go to out_l[t][b][dir * H ...] of width
 * out_w. gi, gh are scratch of G*H each. */
static void KBV_FN(rnn_direction)(const kbv_rnn_dims *r, int dir, const KBV_T *in, int64_t in_w,
                                  const KBV_T *const *w, KBV_T *h, KBV_T *c, KBV_T *out_l,
                                  int64_t out_w, KBV_T *gi, KBV_T *gh)
{
    const int64_t H = r->hidden, GH = r->gates * H, T = r->seq, B = r->batch;
    for (int64_t s = 0; s < T; s++) {
        int64_t t = dir ? T - 1 - s : s;
        for (int64_t b = 0; b < B; b++) {
            KBV_T *hb = h + b * H;
            KBV_FN(rnn_affine)(w[0], w[2], in + (t * B + b) * in_w, GH, in_w, gi);
            KBV_FN(rnn_affine)(w[1], w[3], hb, GH, H, gh);
            if (r->is_lstm) {
                KBV_T *cb = c + b * H;
                for (int64_t j = 0; j < H; j++) {
                    KBV_T ig = KBV_FN(rnn_sigmoid)(gi[j] + gh[j]);
                    KBV_T fg = KBV_FN(rnn_sigmoid)(gi[H + j] + gh[H + j]);
                    KBV_T gg = KBV_MATH(tanh)(gi[2 * H + j] + gh[2 * H + j]);
                    KBV_T og = KBV_FN(rnn_sigmoid)(gi[3 * H + j] + gh[3 * H + j]);
                    cb[j] = fg * cb[j] + ig * gg;
                    hb[j] = og * KBV_MATH(tanh)(cb[j]);
                }
            } else {
                for (int64_t j = 0; j < H; j++) {
                    KBV_T rg = KBV_FN(rnn_sigmoid)(gi[j] + gh[j]);
                    KBV_T zg = KBV_FN(rnn_sigmoid)(gi[H + j] + gh[H + j]);
                    KBV_T ng = KBV_MATH(tanh)(gi[2 * H + j] + rg * gh[2 * H + j]);
                    hb[j] = ((KBV_T)1 - zg) * ng + zg * hb[j];
                }
            }
            for (int64_t j = 0; j < H; j++)
                out_l[(t * B + b) * out_w + dir * H + j] = hb[j];
        }
    }
}

/* The whole node: args as ops.h lists them, result r->result into out. */
static kbv_status KBV_FN(rnn_run)(const kbv_rnn_dims *r, const kbv_tensor *args, kbv_tensor *out)
{
    const int64_t H = r->hidden, T = r->seq, B = r->batch, D = r->dirs, LD = r->layers * D;
    const int64_t out_w = D * H, state = B * H;
    kbv_status st = KBV_OK;
    /* two layer buffers (this layer's output, the previous one's), the state
     * of every layer and direction (h, then c), gate scratch */
    size_t layer_n = (size_t)(T * B * out_w), states_n = (size_t)(LD * state);
    KBV_T *buf = malloc(sizeof(KBV_T) * (2 * layer_n + 2 * states_n + 2 * (size_t)(r->gates * H) + 1));
    if (!buf)
        return kbv_fail(KBV_ERR_NOMEM, "%s: scratch of %zu elements", r->is_lstm ? "lstm" : "gru",
                        2 * layer_n + 2 * states_n);
    KBV_T *layer[2] = {buf, buf + layer_n};
    KBV_T *hs = buf + 2 * layer_n, *cs = hs + states_n;
    KBV_T *gi = cs + states_n, *gh = gi + r->gates * H;
    memcpy(hs, args[1].data, sizeof(KBV_T) * states_n);
    if (r->is_lstm)
        memcpy(cs, args[2].data, sizeof(KBV_T) * states_n);

    /* the input seq-major: a batch-first x is transposed into layer[1] */
    const KBV_T *x = args[0].data;
    const KBV_T *in = x;
    int64_t in_w = r->input;
    KBV_T *xt = NULL;
    if (r->batch_first) {
        xt = malloc(sizeof(KBV_T) * (size_t)(T * B * in_w + 1));
        if (!xt)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "rnn: the input transposed");
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++)
                memcpy(xt + (t * B + b) * in_w, x + (b * T + t) * in_w, sizeof(KBV_T) * (size_t)in_w);
        in = xt;
    }
    for (int l = 0; l < r->layers; l++) {
        KBV_T *out_l = layer[l % 2];
        for (int d = 0; d < D; d++) {
            const KBV_T *w[4];
            for (int k = 0; k < 4; k++)
                w[k] = args[kbv_rnn_weight_arg(r, l, d, k)].data;
            int64_t sd = l * D + d;
            KBV_FN(rnn_direction)(r, d, in, in_w, w, hs + sd * state, cs + sd * state, out_l,
                                  out_w, gi, gh);
        }
        in = out_l;
        in_w = out_w;
    }
    KBV_T *o = out->data;
    if (r->result == 0) {
        const KBV_T *last = in;
        for (int64_t t = 0; t < T; t++)
            for (int64_t b = 0; b < B; b++)
                memcpy(o + (r->batch_first ? b * T + t : t * B + b) * out_w,
                       last + (t * B + b) * out_w, sizeof(KBV_T) * (size_t)out_w);
    } else {
        memcpy(o, r->result == 1 ? hs : cs, sizeof(KBV_T) * states_n);
    }
done:
    free(xt);
    free(buf);
    return st;
}
