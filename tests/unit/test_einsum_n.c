/* torch.einsum of any number of operands (einsum_n) on the CPU backend,
 * float32 and float64, against a naive float64 sum over every label
 * assignment: Mamba-2's four equations, strided operands, a label summed
 * out of one operand first, an implicit output, broadcast size-1 labels and
 * one operand; the shape rule's refusals; and the temporaries aten's
 * pairwise steps allocate (reshape's copies, the bmm's output), counted by
 * the backend's allocator. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/cpu_backend.h"
#include "exec/backend.h"
#include "graph/ops_einsum.h"
#include "graph/ops_table.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static uint64_t rng_state = 1;

static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void fill(kbv_tensor *t)
{
    for (int64_t i = 0; i < kbv_test_numel(t); i++)
        kbv_test_set(t, i, uniform(-1, 1));
}

/* The sizes of the labels used, a-z. */
typedef struct sizes {
    int64_t of[26];
} sizes;

/* The naive reference: every assignment of the labels, the operands'
 * product added into the output element. */
static void reference(const char *eq, int n_ops, const kbv_tensor *ops, const sizes *sz,
                      double *ref, int64_t ref_n)
{
    char in[KBV_EINSUM_MAX_OPS][KBV_MAX_DIMS + 1] = {{0}}, outl[KBV_MAX_DIMS + 1] = {0};
    int k = 0, j = 0;
    const char *p = eq;
    for (; *p && *p != '-'; p++) {
        if (*p == ',') {
            in[k][j] = 0;
            k++;
            j = 0;
        } else {
            in[k][j++] = *p;
        }
    }
    j = 0;
    for (p += 2; *p; p++)
        outl[j++] = *p;
    char used[27] = {0};
    int n_used = 0;
    for (int c = 0; c < 26; c++)
        if (strchr(eq, 'a' + c))
            used[n_used++] = (char)('a' + c);
    memset(ref, 0, sizeof(double) * (size_t)ref_n);
    int64_t val[26] = {0};
    for (;;) {
        double prod = 1.0;
        for (int o = 0; o < n_ops; o++) {
            int64_t flat = 0;
            for (const char *l = in[o]; *l; l++) {
                int64_t size = ops[o].shape[l - in[o]];
                flat = flat * size + (size == 1 ? 0 : val[*l - 'a']);
            }
            prod *= kbv_test_get(&ops[o], flat);
        }
        int64_t at = 0;
        for (const char *l = outl; *l; l++)
            at = at * sz->of[*l - 'a'] + val[*l - 'a'];
        ref[at] += prod;
        int u = n_used - 1;
        for (; u >= 0; u--) {
            int c = used[u] - 'a';
            if (++val[c] < sz->of[c])
                break;
            val[c] = 0;
        }
        if (u < 0)
            break;
    }
}

/* A tensor over labels `labels` with the sizes sz (a size given as 1 by
 * `ones` stays 1: a broadcast dim). */
static kbv_tensor labelled(kbv_dtype dt, const char *labels, const sizes *sz, const char *ones)
{
    int64_t shape[KBV_MAX_DIMS];
    int n = 0;
    for (const char *l = labels; *l; l++)
        shape[n++] = ones && strchr(ones, *l) ? 1 : sz->of[*l - 'a'];
    kbv_tensor t = kbv_test_tensor(dt, n, shape);
    fill(&t);
    return t;
}

static kbv_status run_einsum(kbv_backend *be, const char *eq, const kbv_tensor *ops, int n_ops,
                             kbv_tensor *out)
{
    kbv_node_def nd = {.op = KBV_OP_EINSUM_N, .n_args = n_ops, .s = eq};
    return kbv_test_run_op(be, KBV_OP_EINSUM_N, &nd, ops, n_ops, out);
}

/* Runs eq (explicit output, labels a-z) on operands over the labels in
 * eq, fresh random values, and compares with the reference; operand 0's
 * labels in `ones` have size 1 (broadcast). */
static void check(kbv_dtype dt, const char *eq, const sizes *sz, const char *ones)
{
    kbv_backend *be = kbv_test_backend(dt);
    kbv_tensor ops[KBV_EINSUM_MAX_OPS];
    int n_ops = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", eq);
    for (char *tok = strtok(buf, ",-"); tok; tok = strtok(NULL, ",-")) {
        if (*tok == '>')
            break;
        ops[n_ops] = labelled(dt, tok, sz, n_ops == 0 ? ones : NULL);
        n_ops++;
    }
    const char *res = strstr(eq, "->") + 2;
    int64_t shape[KBV_MAX_DIMS], n = 1;
    int nd = 0;
    for (const char *l = res; *l; l++) {
        shape[nd++] = sz->of[*l - 'a'];
        n *= sz->of[*l - 'a'];
    }
    kbv_tensor out = kbv_test_tensor(dt, nd, shape);
    assert_int_equal(run_einsum(be, eq, ops, n_ops, &out), KBV_OK);
    double *ref = malloc(sizeof(double) * (size_t)n);
    reference(eq, n_ops, ops, sz, ref, n);
    for (int64_t i = 0; i < n; i++)
        kbv_test_assert_close(kbv_test_get(&out, i), ref[i], kbv_test_tol(dt) * 8, eq, i);
    assert_int_equal(be->mem.current, 0);
    free(ref);
    free(out.data);
    for (int k = 0; k < n_ops; k++)
        free(ops[k].data);
    kbv_backend_destroy(be);
}

static sizes mamba_sizes(void)
{
    sizes s = {{0}};
    const char *l = "bchlnpsz";
    const int64_t v[] = {2, 3, 2, 5, 4, 3, 5, 4}; /* s = l: the block length */
    for (int i = 0; l[i]; i++)
        s.of[l[i] - 'a'] = v[i];
    return s;
}

static void test_mamba_equations(void **state)
{
    (void)state;
    sizes s = mamba_sizes();
    const kbv_dtype both[2] = {KBV_F32, KBV_F64};
    for (int t = 0; t < 2; t++) {
        check(both[t], "bclhn,bcshn,bhcls,bcshp->bclhp", &s, NULL);
        check(both[t], "bclhn,bhcl,bclhp->bchpn", &s, NULL);
        check(both[t], "bhzc,bchpn->bzhpn", &s, NULL);
        check(both[t], "bclhn,bchpn,bhcl->bclhp", &s, NULL);
    }
}

static void test_other_equations(void **state)
{
    (void)state;
    sizes s = mamba_sizes();
    /* a label in one operand only, summed out first; a plain matmul; an outer
     * product (no label contracted); a label broadcast from size 1 */
    check(KBV_F64, "bcl,ch->bh", &s, NULL);
    check(KBV_F64, "bl,lh->bh", &s, NULL);
    check(KBV_F64, "bc,hl->bchl", &s, NULL);
    check(KBV_F64, "bcl,bch->blh", &s, "c");
    check(KBV_F32, "bcl,clh,hn->bn", &s, NULL);
    /* one operand: a transpose (a copy into the result) and a sum */
    check(KBV_F64, "bc->cb", &s, NULL);
    check(KBV_F64, "bcl->lb", &s, NULL);
}

/* Operands that are views: a transposed matrix, read where it lies. */
static void test_strided_operands(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    int64_t s_ab[2] = {4, 3}, s_bc[2] = {3, 5}, s_out[2] = {3, 5};
    kbv_tensor a = kbv_test_tensor(KBV_F64, 2, s_ab), b = kbv_test_tensor(KBV_F64, 2, s_bc);
    fill(&a);
    fill(&b);
    kbv_tensor at = a; /* a.T: [3, 4] */
    at.shape[0] = 3;
    at.shape[1] = 4;
    at.stride[0] = 1;
    at.stride[1] = 3;
    kbv_tensor ops[2] = {at, b};
    int64_t s_ij[2] = {4, 5};
    kbv_tensor out = kbv_test_tensor(KBV_F64, 2, s_ij);
    /* "ji,jk->ik" over a.T [j=3, i=4]: out[i][k] = sum_j a[i][j] b[j][k] */
    assert_int_equal(run_einsum(be, "ji,jk->ik", ops, 2, &out), KBV_OK);
    for (int64_t i = 0; i < 4; i++)
        for (int64_t k = 0; k < 5; k++) {
            double want = 0;
            for (int64_t j = 0; j < 3; j++)
                want += kbv_test_get(&a, i * 3 + j) * kbv_test_get(&b, j * 5 + k);
            kbv_test_assert_close(kbv_test_get(&out, i * 5 + k), want, 1e-14, "strided", i);
        }
    (void)s_out;
    free(a.data);
    free(b.data);
    free(out.data);
    kbv_backend_destroy(be);
}

static size_t counted(size_t bytes) { return (bytes + 511) / 512 * 512; }

/* "bhzc,bchpn->bzhpn" (Mamba-2's chunk recurrence) over contiguous operands:
 * decay [b, h, z, c] is viewed as [b*h, z, c]; states [b, c, h, p, n]
 * permuted to [b, h, c, p*n] cannot be, so reshape copies it; the bmm
 * writes [b*h, z, p*n], which read as [b, z, h, p, n] is not in order, so it
 * goes to a temporary copied into the result. Peak: the copy and the bmm's
 * output; nothing is left allocated. */
static void test_temporaries(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    sizes s = mamba_sizes();
    kbv_tensor ops[2] = {labelled(KBV_F64, "bhzc", &s, NULL), labelled(KBV_F64, "bchpn", &s, NULL)};
    int64_t shape[5] = {2, 4, 2, 3, 4}; /* b z h p n */
    kbv_tensor out = kbv_test_tensor(KBV_F64, 5, shape);
    be->reset_peak(be);
    assert_int_equal(run_einsum(be, "bhzc,bchpn->bzhpn", ops, 2, &out), KBV_OK);
    const size_t states = 2 * 3 * 2 * 3 * 4 * sizeof(double);  /* b c h p n */
    const size_t bmm_out = 2 * 2 * 4 * 3 * 4 * sizeof(double); /* b h z p n */
    assert_int_equal(be->mem.peak, counted(states) + counted(bmm_out));
    assert_int_equal(be->mem.current, 0);

    /* Mamba-2's diagonal blocks, "bclhn,bcshn,bhcls,bcshp->bclhp": C and B
     * copied for their reshapes beside the bmm's CB [b*c*h, l, s] (the peak);
     * CB * L laid out as CB is (TensorIterator's order, b c h l s), so the
     * third step's reshape views it rather than copying it again */
    be->reset_peak(be);
    kbv_tensor d4[4] = {labelled(KBV_F64, "bclhn", &s, NULL), labelled(KBV_F64, "bcshn", &s, NULL),
                        labelled(KBV_F64, "bhcls", &s, NULL), labelled(KBV_F64, "bcshp", &s, NULL)};
    int64_t s4[5] = {2, 3, 5, 2, 3};
    kbv_tensor out4 = kbv_test_tensor(KBV_F64, 5, s4);
    assert_int_equal(run_einsum(be, "bclhn,bcshn,bhcls,bcshp->bclhp", d4, 4, &out4), KBV_OK);
    const size_t c_copy = 2 * 3 * 5 * 2 * 4 * sizeof(double), cb = 2 * 3 * 2 * 5 * 5 * sizeof(double);
    assert_int_equal(be->mem.peak, 2 * counted(c_copy) + counted(cb));
    assert_int_equal(be->mem.current, 0);
    for (int k = 0; k < 4; k++)
        free(d4[k].data);
    free(out4.data);

    /* "bl,lh->bh": the bmm's output is the result, written in place */
    be->reset_peak(be);
    kbv_tensor mm[2] = {labelled(KBV_F64, "bl", &s, NULL), labelled(KBV_F64, "lh", &s, NULL)};
    int64_t s2[2] = {2, 3};
    kbv_tensor out2 = kbv_test_tensor(KBV_F64, 2, s2);
    assert_int_equal(run_einsum(be, "bl,lh->bh", mm, 2, &out2), KBV_OK);
    assert_int_equal(be->mem.peak, 0);
    for (int k = 0; k < 2; k++) {
        free(ops[k].data);
        free(mm[k].data);
    }
    free(out.data);
    free(out2.data);
    kbv_backend_destroy(be);
}

static void test_refusals(void **state)
{
    (void)state;
    kbv_einsum_eq eq;
    int nd2[2] = {2, 2}, nd1[1] = {2};
    assert_int_equal(kbv_einsum_parse("ij,jk->ik", 2, nd2, &eq), KBV_OK);
    assert_int_equal(eq.n_out, 2);
    assert_int_equal(eq.n_dims, 3);
    assert_int_equal(eq.label[2], 'j');
    /* implicit output: the labels seen once, in order */
    assert_int_equal(kbv_einsum_parse("kj,ji", 2, nd2, &eq), KBV_OK);
    assert_int_equal(eq.n_out, 2);
    assert_int_equal(eq.label[0], 'i');
    assert_int_equal(eq.label[1], 'k');
    assert_int_equal(kbv_einsum_parse("ii->i", 1, nd1, &eq), KBV_ERR_UNSUPPORTED);
    assert_int_equal(kbv_einsum_parse("...j,jk->k", 2, nd2, &eq), KBV_ERR_UNSUPPORTED);
    assert_int_equal(kbv_einsum_parse("ij,jk->iq", 2, nd2, &eq), KBV_ERR_INVALID);
    assert_int_equal(kbv_einsum_parse("ij,jk,kl->il", 2, nd2, &eq), KBV_ERR_INVALID);
    assert_int_equal(kbv_einsum_parse("ijk,jk->i", 2, nd2, &eq), KBV_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mamba_equations),
        cmocka_unit_test(test_other_equations),
        cmocka_unit_test(test_strided_operands),
        cmocka_unit_test(test_temporaries),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
