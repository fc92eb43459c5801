/* torch.einsum as aten contracts it (see einsum_pairwise.h, ops_einsum.h).
 *
 * Every term lives in the aligned dim order, a strided view of its memory.
 * One difference from PyTorch remains: aten returns the last step's result
 * as a view of the bmm's output, permuted (e.g. [b, c, h, l, p] memory read
 * as [b, c, l, h, p]), where kbv's node hands over a contiguous tensor; when
 * that view is not already in the result's order, the bmm writes to a
 * temporary that is then copied into the node's output (one result-sized
 * buffer more, for the copy's duration). An elementwise step's result is
 * laid out in memory as PyTorch's TensorIterator lays it out (following its
 * operands' strides), since the next step's reshape views or copies it by
 * that layout. */
#include "exec/einsum_pairwise.h"

#include <stdbool.h>
#include <string.h>

#include "exec/view.h"
#include "graph/ops_einsum.h"
#include "graph/ops_table.h"

/* A term of the contraction: a view in the aligned order, and the memory
 * it owns (NULL: an operand's, or the node's output). */
typedef struct term {
    kbv_tensor t;
    void *owned;
} term;

static const char *name_of(const kbv_node *node) { return kbv_op_table[node->op].name; }

static kbv_status run_op(kbv_backend *be, const kbv_node *node, kbv_op op, kbv_node_def *def,
                         const kbv_tensor *args, int n_args, kbv_tensor *out)
{
    kbv_op_fn fn = be->ops[op];
    if (!fn)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s needs %s, which %s does not implement",
                        name_of(node), kbv_op_table[op].name, be->name);
    def->op = op;
    def->n_args = n_args;
    kbv_node step = {.op = op, .n_args = n_args, .args = NULL, .out = node->out, .n_outs = 1,
                     .def = def};
    return fn(be, &step, args, out);
}

static void set_contiguous(kbv_tensor *t)
{
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->stride[d] = s;
        s *= t->shape[d];
    }
}

/* A new contiguous tensor of dtype and shape from the backend. */
static kbv_status new_tensor(kbv_backend *be, kbv_dtype dtype, int ndim, const int64_t *shape,
                             kbv_tensor *t, void **owned)
{
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->ndim = ndim;
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
    set_contiguous(t);
    size_t bytes = (size_t)kbv_tensor_numel(t) * kbv_dtype_size(dtype);
    KBV_TRY(be->alloc(be, bytes ? bytes : 1, owned));
    t->data = *owned;
    return KBV_OK;
}

static void release(kbv_backend *be, term *x)
{
    if (x->owned)
        be->release(be, x->owned);
    x->owned = NULL;
}

/* x.sum(dims, keepdim=True) into a new term. */
static kbv_status pre_sum(kbv_backend *be, const kbv_node *node, term *x, unsigned mask)
{
    term r = {0};
    int64_t shape[KBV_MAX_DIMS];
    for (int d = 0; d < x->t.ndim; d++)
        shape[d] = mask >> d & 1 ? 1 : x->t.shape[d];
    KBV_TRY(new_tensor(be, x->t.dtype, x->t.ndim, shape, &r.t, &r.owned));
    kbv_node_def def = {.i = {(int64_t)mask, 1}};
    kbv_status st = run_op(be, node, KBV_OP_SUM_DIMS, &def, &x->t, 1, &r.t);
    if (st != KBV_OK) {
        release(be, &r);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    release(be, x);
    *x = r;
    return KBV_OK;
}

/* x permuted to `order` (n of its dims) and viewed as [s0, s1, s2], the
 * products of its sizes over the runs order[0 .. r0), [r0, r1), [r1, n):
 * reshape's view where the strides allow one, else a contiguous copy. */
static kbv_status as_batch_matrix(kbv_backend *be, const kbv_node *node, const kbv_tensor *x,
                                  const int *order, int n, int r0, int r1, kbv_tensor *m,
                                  void **copy)
{
    kbv_tensor p = *x;
    p.ndim = n;
    for (int j = 0; j < n; j++) {
        p.shape[j] = x->shape[order[j]];
        p.stride[j] = x->stride[order[j]];
    }
    int64_t s3[3] = {1, 1, 1};
    for (int j = 0; j < n; j++)
        s3[j < r0 ? 0 : j < r1 ? 1 : 2] *= p.shape[j];
    *m = p;
    m->ndim = 3;
    memcpy(m->shape, s3, sizeof s3);
    *copy = NULL;
    if (kbv_view_strides(p.ndim, p.shape, p.stride, 3, s3, m->stride))
        return KBV_OK;
    kbv_tensor c;
    KBV_TRY(new_tensor(be, x->dtype, p.ndim, p.shape, &c, copy));
    kbv_node_def def = {0};
    kbv_status st = run_op(be, node, KBV_OP_CLONE, &def, &p, 1, &c);
    if (st != KBV_OK) {
        be->release(be, *copy);
        *copy = NULL;
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    m->data = c.data;
    set_contiguous(m);
    return KBV_OK;
}

/* Whether the first n_out dims of t walk its memory in order. */
static bool in_result_order(const kbv_tensor *t, int n_out)
{
    kbv_tensor r = *t;
    r.ndim = n_out;
    return kbv_tensor_is_contiguous(&r);
}

/* aten's sumproduct_pair(a, b, sum, keepdim=True): permute, reshape, bmm,
 * and the bmm's output viewed back in the aligned order. The bmm writes to
 * out when that view is in the result's order and this is the last step. */
static kbv_status sumproduct(kbv_backend *be, const kbv_node *node, int n_dims, int n_out,
                             const term *a, const term *b, unsigned sum, kbv_tensor *out,
                             bool last, term *r)
{
    int lro[KBV_MAX_DIMS], lo[KBV_MAX_DIMS], ro[KBV_MAX_DIMS], sd[KBV_MAX_DIMS];
    int n_lro = 0, n_lo = 0, n_ro = 0, n_sum = 0;
    for (int d = 0; d < n_dims; d++) {
        bool sl = a->t.shape[d] != 1, sr = b->t.shape[d] != 1;
        if (sum >> d & 1)
            sd[n_sum++] = d;
        else if (sl && sr)
            lro[n_lro++] = d;
        else if (sl)
            lo[n_lo++] = d;
        else
            ro[n_ro++] = d;
    }
    /* left [lro, lo, sum, ro], right [lro, sum, ro, lo] */
    int lperm[KBV_MAX_DIMS], rperm[KBV_MAX_DIMS];
    memcpy(lperm, lro, sizeof(int) * (size_t)n_lro);
    memcpy(lperm + n_lro, lo, sizeof(int) * (size_t)n_lo);
    memcpy(lperm + n_lro + n_lo, sd, sizeof(int) * (size_t)n_sum);
    memcpy(lperm + n_lro + n_lo + n_sum, ro, sizeof(int) * (size_t)n_ro);
    memcpy(rperm, lro, sizeof(int) * (size_t)n_lro);
    memcpy(rperm + n_lro, sd, sizeof(int) * (size_t)n_sum);
    memcpy(rperm + n_lro + n_sum, ro, sizeof(int) * (size_t)n_ro);
    memcpy(rperm + n_lro + n_sum + n_ro, lo, sizeof(int) * (size_t)n_lo);

    kbv_status st = KBV_OK;
    void *lcopy = NULL, *rcopy = NULL;
    kbv_tensor left, right;
    KBV_TRY(as_batch_matrix(be, node, &a->t, lperm, n_dims, n_lro, n_lro + n_lo, &left, &lcopy));
    KBV_TRY_GOTO(as_batch_matrix(be, node, &b->t, rperm, n_dims, n_lro, n_lro + n_sum, &right,
                                 &rcopy), st, done);

    /* the bmm's output [lro, lo, 1 per summed dim, ro], viewed in the aligned order */
    memset(r, 0, sizeof *r);
    r->t.dtype = a->t.dtype;
    r->t.ndim = n_dims;
    int order[KBV_MAX_DIMS], no = 0;
    memcpy(order, lro, sizeof(int) * (size_t)n_lro);
    no += n_lro;
    memcpy(order + no, lo, sizeof(int) * (size_t)n_lo);
    no += n_lo;
    memcpy(order + no, sd, sizeof(int) * (size_t)n_sum);
    no += n_sum;
    memcpy(order + no, ro, sizeof(int) * (size_t)n_ro);
    int64_t s = 1;
    for (int j = n_dims - 1; j >= 0; j--) {
        int d = order[j];
        int64_t size = sum >> d & 1 ? 1 : a->t.shape[d] != 1 ? a->t.shape[d] : b->t.shape[d];
        r->t.shape[d] = size;
        r->t.stride[d] = s;
        s *= size;
    }
    kbv_tensor mm = {.dtype = a->t.dtype, .ndim = 3,
                     .shape = {left.shape[0], left.shape[1], right.shape[2]}};
    set_contiguous(&mm);
    if (last && in_result_order(&r->t, n_out)) {
        mm.data = out->data;
    } else {
        const size_t bytes = (size_t)kbv_tensor_numel(&mm) * kbv_dtype_size(mm.dtype);
        KBV_TRY_GOTO(be->alloc(be, bytes ? bytes : 1, &r->owned), st, done);
        mm.data = r->owned;
    }
    r->t.data = mm.data;
    kbv_tensor mm_args[2] = {left, right};
    kbv_node_def def = {0};
    st = run_op(be, node, KBV_OP_BMM, &def, mm_args, 2, &mm);
    if (st != KBV_OK) {
        kbv_relay_at(__FILE__, __LINE__, st);
        release(be, r);
    }
done:
    be->release(be, lcopy);
    be->release(be, rcopy);
    return st;
}

/* The memory order of an elementwise result, as PyTorch's TensorIterator
 * lays it out: dims outermost first, dim x before dim y where the first
 * operand that has both (size above 1) strides x wider, the next operand
 * deciding where it has either broadcast; undecided dims keep the aligned
 * order. perm[j] is the aligned dim at memory position j. */
static void elementwise_order(int n_dims, const kbv_tensor *a, const kbv_tensor *b, int *perm)
{
    const kbv_tensor *ops[2] = {a, b};
    for (int d = 0; d < n_dims; d++)
        perm[d] = d;
    for (int j = 1; j < n_dims; j++) /* insertion sort, stable */
        for (int k = j; k > 0; k--) {
            int x = perm[k - 1], y = perm[k], order = 0;
            for (int o = 0; o < 2 && !order; o++) {
                int64_t sx = ops[o]->shape[x] != 1 ? ops[o]->stride[x] : 0;
                int64_t sy = ops[o]->shape[y] != 1 ? ops[o]->stride[y] : 0;
                if (sx && sy && sx != sy)
                    order = sx < sy ? 1 : -1; /* 1: y goes outside x */
            }
            if (order <= 0)
                break;
            perm[k - 1] = y;
            perm[k] = x;
        }
}

/* a * b, broadcast, laid out as TensorIterator lays it out (above): the
 * backend's mul runs on the operands permuted to that order into a
 * contiguous buffer, viewed back in the aligned order. The last step
 * writes into out when that order is the result's (the contracted dims
 * are all 1 by then). */
static kbv_status product(kbv_backend *be, const kbv_node *node, int n_dims, int n_out,
                          const term *a, const term *b, kbv_tensor *out, bool last, term *r)
{
    memset(r, 0, sizeof *r);
    int perm[KBV_MAX_DIMS];
    elementwise_order(n_dims, &a->t, &b->t, perm);
    kbv_tensor pa = a->t, pb = b->t, po = {.dtype = a->t.dtype, .ndim = n_dims};
    for (int j = 0; j < n_dims; j++) {
        const int d = perm[j];
        pa.shape[j] = a->t.shape[d];
        pa.stride[j] = a->t.stride[d];
        pb.shape[j] = b->t.shape[d];
        pb.stride[j] = b->t.stride[d];
        po.shape[j] = a->t.shape[d] != 1 ? a->t.shape[d] : b->t.shape[d];
    }
    set_contiguous(&po);
    r->t = po;
    for (int j = 0; j < n_dims; j++) {
        r->t.shape[perm[j]] = po.shape[j];
        r->t.stride[perm[j]] = po.stride[j];
    }
    if (last && in_result_order(&r->t, n_out)) {
        po.data = out->data;
    } else {
        const size_t bytes = (size_t)kbv_tensor_numel(&po) * kbv_dtype_size(po.dtype);
        KBV_TRY(be->alloc(be, bytes ? bytes : 1, &r->owned));
        po.data = r->owned;
    }
    r->t.data = po.data;
    kbv_tensor ab[2] = {pa, pb};
    kbv_node_def def = {0};
    kbv_status st = run_op(be, node, KBV_OP_MUL, &def, ab, 2, &po);
    if (st != KBV_OK) {
        release(be, r);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    return KBV_OK;
}

/* The last term into the node's output: nothing when it is there already,
 * else a copy of its first n_out dims (the contracted ones are 1). */
static kbv_status hand_over(kbv_backend *be, const kbv_node *node, term *x, int n_out,
                            kbv_tensor *out)
{
    if (x->t.data == out->data)
        return KBV_OK;
    kbv_tensor v = x->t;
    v.ndim = n_out;
    kbv_node_def def = {0};
    kbv_tensor o = *out;
    set_contiguous(&o);
    return run_op(be, node, KBV_OP_CLONE, &def, &v, 1, &o);
}

kbv_status kbv_einsum_pairwise(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    if (!node->def || node->n_args < 1 || node->n_args > KBV_EINSUM_MAX_OPS)
        return kbv_fail(KBV_ERR_INVALID, "%s: no equation, or %d operands", name_of(node),
                        node->n_args);
    int ndim[KBV_EINSUM_MAX_OPS];
    for (int k = 0; k < node->n_args; k++)
        ndim[k] = args[k].ndim;
    kbv_einsum_eq eq;
    KBV_TRY(kbv_einsum_parse(node->def->s, node->n_args, ndim, &eq));

    /* every operand as a view in the aligned order */
    term ops[KBV_EINSUM_MAX_OPS];
    int counts[KBV_MAX_DIMS] = {0};
    for (int k = 0; k < node->n_args; k++) {
        memset(&ops[k], 0, sizeof ops[k]);
        ops[k].t = args[k];
        ops[k].t.ndim = eq.n_dims;
        for (int d = 0; d < eq.n_dims; d++) {
            int j = eq.op_dim[k][d];
            ops[k].t.shape[d] = j >= 0 ? args[k].shape[j] : 1;
            ops[k].t.stride[d] = j >= 0 ? args[k].stride[j] : 0;
            counts[d] += ops[k].t.shape[d] != 1;
        }
    }
    kbv_status st = KBV_OK;
    term acc = ops[0];
    if (node->n_args == 1) { /* the contracted labels summed out */
        unsigned mask = 0;
        for (int d = eq.n_out; d < eq.n_dims; d++)
            mask |= 1u << d;
        if (mask)
            KBV_TRY(pre_sum(be, node, &acc, mask));
    }
    for (int k = 1; k < node->n_args; k++) {
        term b = ops[k], r;
        kbv_einsum_pair p;
        kbv_einsum_pair_dims(&eq, counts, acc.t.shape, b.t.shape, &p);
        if (p.a_sum)
            KBV_TRY_GOTO(pre_sum(be, node, &acc, p.a_sum), st, done);
        if (p.b_sum)
            KBV_TRY_GOTO(pre_sum(be, node, &b, p.b_sum), st, done_b);
        const bool last = k == node->n_args - 1;
        if (p.sum)
            st = sumproduct(be, node, eq.n_dims, eq.n_out, &acc, &b, p.sum, out, last, &r);
        else
            st = product(be, node, eq.n_dims, eq.n_out, &acc, &b, out, last, &r);
    done_b:
        release(be, &b);
        if (st != KBV_OK)
            goto done;
        release(be, &acc);
        acc = r;
    }
    st = hand_over(be, node, &acc, eq.n_out, out);
done:
    release(be, &acc);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}
