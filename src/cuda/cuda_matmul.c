/* torch.matmul, torch.bmm and matmul-shaped torch.einsum, reduced to one
 * kbv_gemm each.
 *
 * As in PyTorch: an N-D x 2-D product folds the leading dims into M and runs
 * as one GEMM; batched products with broadcast batch dims run as strided-
 * batched GEMMs with stride 0 for the broadcast operand; 1-D operands are
 * promoted to a row (left) or a column (right) matrix. An operand that
 * cuBLAS cannot read in place (neither row- nor column-major), or whose batch
 * dims do not fold into one stride, is copied to contiguous scratch first, as
 * PyTorch's .contiguous() or reshape would. */
#include <ctype.h>
#include <string.h>

#include "cuda/cuda_blas.h"
#include "cuda/cuda_check.h"

/* Collapses dims (outermost first) into one of size *size and stride
 * *stride, if their strides nest; size-1 dims do not matter. */
static bool collapse_dims(int n, const int64_t *size, const int64_t *stride, int64_t *out_size,
                          int64_t *out_stride)
{
    int64_t total = 1, innermost = 1, expect = 0;
    bool have = false;
    for (int i = n - 1; i >= 0; i--) {
        if (size[i] == 1)
            continue;
        if (have && stride[i] != expect)
            return false;
        if (!have)
            innermost = stride[i];
        have = true;
        expect = stride[i] * size[i];
        total *= size[i];
    }
    *out_size = total;
    *out_stride = innermost;
    return true;
}

/* A matmul operand as batch dims and a matrix. */
typedef struct mm_operand {
    int nb;
    int64_t batch[KBV_MAX_DIMS], batch_stride[KBV_MAX_DIMS];
    int64_t rows, cols, rs, cs;
} mm_operand;

static void as_matrix(const kbv_tensor *t, bool left, mm_operand *o)
{
    memset(o, 0, sizeof *o);
    if (t->ndim == 1) { /* a row vector on the left, a column vector on the right */
        o->rows = left ? 1 : t->shape[0];
        o->cols = left ? t->shape[0] : 1;
        o->rs = left ? t->shape[0] * t->stride[0] : t->stride[0];
        o->cs = left ? t->stride[0] : 1;
        return;
    }
    o->nb = t->ndim - 2;
    for (int d = 0; d < o->nb; d++) {
        o->batch[d] = t->shape[d];
        o->batch_stride[d] = t->stride[d];
    }
    o->rows = t->shape[t->ndim - 2];
    o->cols = t->shape[t->ndim - 1];
    o->rs = t->stride[t->ndim - 2];
    o->cs = t->stride[t->ndim - 1];
}

static bool matrix_viewable(const kbv_tensor *t, bool left)
{
    mm_operand o;
    as_matrix(t, left, &o);
    return kbv_cuda_gemm_viewable(o.rows, o.cols, o.rs, o.cs);
}

/* Whether an operand's own batch dims fold into one stride, so that
 * torch.matmul's reshape to [batch, rows, cols] is a view. Where it is not
 * (q, k, v as views of one fused projection, [B, T, 3, H, D] permuted),
 * PyTorch's reshape copies the operand and runs one batched GEMM; kbv does
 * the same, where one GEMM per outer batch index ran Swin V2's and minGPT's
 * attention products as hundreds of small launches. */
static bool batch_foldable(const kbv_tensor *t)
{
    for (int d = 0; d < t->ndim - 2; d++)
        if (t->stride[d] == 0 && t->shape[d] > 1)
            return true; /* an expanded operand: read in place, not materialised */
    int64_t size, stride;
    return t->ndim <= 3 || collapse_dims(t->ndim - 2, t->shape, t->stride, &size, &stride);
}

/* Builds the gemm for torch.matmul(a, b) writing into out. */
static kbv_status matmul_gemm(const kbv_tensor *a, const kbv_tensor *b, int kind, void *c,
                              int64_t *out_numel, kbv_gemm *g)
{
    mm_operand A, B;
    as_matrix(a, true, &A);
    as_matrix(b, false, &B);
    if (A.cols != B.rows)
        return kbv_fail(KBV_ERR_INVALID, "matmul: shapes do not match (K %lld vs %lld)",
                        (long long)A.cols, (long long)B.rows);
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->c = c;

    /* N-D @ 2-D (or 1-D): fold the batch into M when the strides allow */
    if (A.nb > 0 && B.nb == 0) {
        int64_t size[KBV_MAX_DIMS + 1], stride[KBV_MAX_DIMS + 1];
        for (int d = 0; d < A.nb; d++) {
            size[d] = A.batch[d];
            stride[d] = A.batch_stride[d];
        }
        size[A.nb] = A.rows;
        stride[A.nb] = A.rs;
        int64_t m, rs;
        if (collapse_dims(A.nb + 1, size, stride, &m, &rs)
            && kbv_cuda_gemm_viewable(m, A.cols, rs, A.cs)) {
            A.nb = 0;
            A.rows = m;
            A.rs = rs;
        }
    }

    /* broadcast the batch dims, aligned from the right */
    int nb = A.nb > B.nb ? A.nb : B.nb;
    g->nb = nb;
    int64_t count = 1;
    for (int d = 0; d < nb; d++) {
        int da = d - (nb - A.nb), db = d - (nb - B.nb);
        int64_t sa = da >= 0 ? A.batch[da] : 1, sb = db >= 0 ? B.batch[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return kbv_fail(KBV_ERR_INVALID, "matmul: batch dims %lld and %lld do not broadcast",
                            (long long)sa, (long long)sb);
        g->batch[d] = sa > sb ? sa : sb;
        g->a.batch_stride[d] = sa == 1 ? 0 : A.batch_stride[da];
        g->b.batch_stride[d] = sb == 1 ? 0 : B.batch_stride[db];
        count *= g->batch[d];
    }
    g->a.data = a->data;
    g->a.rows = A.rows;
    g->a.cols = A.cols;
    g->a.rs = A.rs;
    g->a.cs = A.cs;
    g->b.data = b->data;
    g->b.rows = B.rows;
    g->b.cols = B.cols;
    g->b.rs = B.rs;
    g->b.cs = B.cs;
    *out_numel = count * A.rows * B.cols;
    return KBV_OK;
}

/* matmul and bmm (and linear without its bias): operands made readable by
 * cuBLAS, then one gemm. */
kbv_status kbv_cuda_matmul_into(kbv_backend *be, const kbv_tensor *a_in, const kbv_tensor *b_in,
                                kbv_tensor *out, const char *what)
{
    kbv_status st = KBV_OK;
    void *scratch_a = NULL, *scratch_b = NULL;
    kbv_tensor a = *a_in, b = *b_in;
    int kind, b_kind;
    KBV_TRY(kbv_cuda_float_kind(be, a_in, &kind));
    KBV_TRY(kbv_cuda_float_kind(be, b_in, &b_kind));
    if (kind != b_kind)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operands of two float types", what);
    if (a.ndim < 1 || b.ndim < 1)
        return kbv_fail(KBV_ERR_INVALID, "%s: 0-d operand", what);
    if (!matrix_viewable(a_in, true) || !batch_foldable(a_in))
        KBV_TRY_GOTO(kbv_cuda_contiguous(be, a_in, &a, &scratch_a), st, done);
    if (!matrix_viewable(b_in, false) || !batch_foldable(b_in))
        KBV_TRY_GOTO(kbv_cuda_contiguous(be, b_in, &b, &scratch_b), st, done);
    kbv_gemm g;
    int64_t n = 0;
    KBV_TRY_GOTO(matmul_gemm(&a, &b, kind, out->data, &n, &g), st, done);
    KBV_TRY_GOTO(kbv_cuda_check_out(out, n, a.dtype, what), st, done);
    KBV_TRY_GOTO(kbv_cuda_gemm(be, &g), st, done);
done:
    /* stream order makes releasing right after enqueueing safe */
    be->release(be, scratch_a);
    be->release(be, scratch_b);
    return st;
}

kbv_status kbv_cuda_op_matmul(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    (void)node;
    return kbv_cuda_matmul_into(be, &args[0], &args[1], out, "matmul");
}

kbv_status kbv_cuda_op_bmm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out)
{
    (void)node;
    const kbv_tensor *a = &args[0], *b = &args[1];
    if (a->ndim != 3 || b->ndim != 3 || a->shape[0] != b->shape[0])
        return kbv_fail(KBV_ERR_INVALID, "bmm: needs [B,M,K] and [B,K,N] with the same B");
    return kbv_cuda_matmul_into(be, a, b, out, "bmm");
}

/* ---- einsum ---- */

enum { IN_A = 1, IN_B = 2, IN_OUT = 4 };

typedef struct einsum_letters {
    int where[128];               /* IN_* bits per letter */
    int64_t size[128], stride_a[128], stride_b[128];
} einsum_letters;

static kbv_status read_operand(const char *spec, size_t len, const kbv_tensor *t, int bit,
                               einsum_letters *e, const char *eq)
{
    if ((int)len != t->ndim)
        return kbv_fail(KBV_ERR_INVALID, "einsum \"%s\": %zu letters for a %d-d operand", eq, len,
                        t->ndim);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)spec[i];
        if (!isalpha(ch))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": only letters are supported", eq);
        if (e->where[ch] & bit)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": repeated index '%c'", eq, ch);
        if ((e->where[ch] & (IN_A | IN_B)) && e->size[ch] != t->shape[i])
            return kbv_fail(KBV_ERR_INVALID, "einsum \"%s\": index '%c' has sizes %lld and %lld",
                            eq, ch, (long long)e->size[ch], (long long)t->shape[i]);
        e->where[ch] |= bit;
        e->size[ch] = t->shape[i];
        if (bit == IN_A)
            e->stride_a[ch] = t->stride[i];
        else
            e->stride_b[ch] = t->stride[i];
    }
    return KBV_OK;
}

/* Collapses a group of letters in one operand's strides. */
static bool collapse_letters(const einsum_letters *e, const char *letters, int n, bool in_a,
                             int64_t *size, int64_t *stride)
{
    int64_t sizes[KBV_MAX_DIMS] = {0}, strides[KBV_MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)letters[i];
        sizes[i] = e->size[ch];
        strides[i] = in_a ? e->stride_a[ch] : e->stride_b[ch];
    }
    return collapse_dims(n, sizes, strides, size, stride);
}

/* A contraction "batch m k, batch k n -> batch m n" (letters in any order
 * within the inputs; the output ordered batch, then m, then n). */
static kbv_status einsum_gemm(const char *eq, const kbv_tensor *a, const kbv_tensor *b, int kind,
                              void *c, int64_t *out_numel, kbv_gemm *g)
{
    char buf[64];
    size_t j = 0;
    for (const char *p = eq; *p; p++)
        if (!isspace((unsigned char)*p) && j + 1 < sizeof buf)
            buf[j++] = *p;
    buf[j] = '\0';
    char *comma = strchr(buf, ','), *arrow = strstr(buf, "->");
    if (!comma || !arrow || arrow < comma || strchr(comma + 1, ','))
        return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": expected \"A,B->C\"", eq);

    einsum_letters e;
    memset(&e, 0, sizeof e);
    KBV_TRY(read_operand(buf, (size_t)(comma - buf), a, IN_A, &e, eq));
    KBV_TRY(read_operand(comma + 1, (size_t)(arrow - comma - 1), b, IN_B, &e, eq));
    const char *outs = arrow + 2;

    char batch[KBV_MAX_DIMS], ms[KBV_MAX_DIMS], ns[KBV_MAX_DIMS], ks[KBV_MAX_DIMS];
    int n_batch = 0, n_m = 0, n_n = 0, n_k = 0, phase = 0;
    for (const char *p = outs; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (!isalpha(ch) || !(e.where[ch] & (IN_A | IN_B)) || (e.where[ch] & IN_OUT))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": bad output index '%c'", eq, ch);
        e.where[ch] |= IN_OUT;
        int w = e.where[ch];
        int ph = (w & IN_A) && (w & IN_B) ? 0 : (w & IN_A) ? 1 : 2;
        if (ph < phase || n_batch + n_m + n_n >= KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_UNSUPPORTED,
                            "einsum \"%s\": output must list batch, then A's, then B's indices", eq);
        phase = ph;
        if (ph == 0)
            batch[n_batch++] = (char)ch;
        else if (ph == 1)
            ms[n_m++] = (char)ch;
        else
            ns[n_n++] = (char)ch;
    }
    for (const char *p = buf; p < comma; p++) { /* contracted: in A and B, not in the output */
        int w = e.where[(unsigned char)*p];
        if (!(w & IN_OUT) && !(w & IN_B))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": '%c' is summed over one operand",
                            eq, *p);
        if (!(w & IN_OUT))
            ks[n_k++] = *p;
    }
    for (const char *p = comma + 1; p < arrow; p++)
        if (!(e.where[(unsigned char)*p] & (IN_OUT | IN_A)))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum \"%s\": '%c' is summed over one operand",
                            eq, *p);

    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->c = c;
    g->a.data = a->data;
    g->b.data = b->data;
    int64_t kb;
    if (!collapse_letters(&e, ms, n_m, true, &g->a.rows, &g->a.rs)
        || !collapse_letters(&e, ks, n_k, true, &g->a.cols, &g->a.cs)
        || !collapse_letters(&e, ks, n_k, false, &kb, &g->b.rs)
        || !collapse_letters(&e, ns, n_n, false, &g->b.cols, &g->b.cs))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "einsum \"%s\": index groups do not form matrices in the operands' strides",
                        eq);
    g->b.rows = kb;
    g->nb = n_batch;
    int64_t count = 1;
    for (int d = 0; d < n_batch; d++) {
        unsigned char ch = (unsigned char)batch[d];
        g->batch[d] = e.size[ch];
        g->a.batch_stride[d] = e.size[ch] == 1 ? 0 : e.stride_a[ch];
        g->b.batch_stride[d] = e.size[ch] == 1 ? 0 : e.stride_b[ch];
        count *= e.size[ch];
    }
    *out_numel = count * g->a.rows * g->b.cols;
    return KBV_OK;
}

kbv_status kbv_cuda_op_einsum(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_status st = KBV_OK;
    void *scratch_a = NULL, *scratch_b = NULL;
    const char *eq = node->def ? node->def->s : NULL;
    if (!eq)
        return kbv_fail(KBV_ERR_INVALID, "einsum: no equation");
    int kind, b_kind;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &kind));
    KBV_TRY(kbv_cuda_float_kind(be, &args[1], &b_kind));
    if (kind != b_kind)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "einsum: operands of two float types");
    kbv_gemm g;
    int64_t n = 0;
    st = einsum_gemm(eq, &args[0], &args[1], kind, out->data, &n, &g);
    if (st == KBV_ERR_UNSUPPORTED || (st == KBV_OK && !(kbv_cuda_gemm_viewable(g.a.rows, g.a.cols,
                                                                                 g.a.rs, g.a.cs)
                                                       && kbv_cuda_gemm_viewable(
                                                           g.b.rows, g.b.cols, g.b.rs, g.b.cs)))) {
        /* retry on contiguous copies, whose strides always nest */
        kbv_tensor a, b;
        KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[0], &a, &scratch_a), st, done);
        KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[1], &b, &scratch_b), st, done);
        st = einsum_gemm(eq, &a, &b, kind, out->data, &n, &g);
    }
    if (st != KBV_OK) {
        kbv_relay_at(__FILE__, __LINE__, st);
        goto done;
    }
    KBV_TRY_GOTO(kbv_cuda_check_out(out, n, args[0].dtype, "einsum"), st, done);
    KBV_TRY_GOTO(kbv_cuda_gemm(be, &g), st, done);
done:
    be->release(be, scratch_a);
    be->release(be, scratch_b);
    return st;
}
