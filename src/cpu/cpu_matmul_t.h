/* The matrix-product kernel for one element type (see cpu_template.h).
 *
 * C[M,N] = A[M,K] B[K,N] with arbitrary element strides. Each element of C
 * is accumulated in the element type (float for float32, like a plain FP32
 * GEMM; double for float64), over k in ascending order, starting from 0:
 * both loop orders below give bit-identical results. */

/* Cache blocking of the i-k-j order: a KBV_MM_KB x KBV_MM_JB panel of B
 * (512 KiB in float32) stays in cache while every row of A streams past. */
#ifndef KBV_MM_KB
#define KBV_MM_KB 256
#define KBV_MM_JB 512
#endif

/* c[0..n) += a * b[0..n). Fixed-length chunks vectorise even under -O2's
 * cheapest cost model; the remainder runs scalar. Same arithmetic either way. */
static inline void KBV_FN(axpy)(int64_t n, KBV_T a, const KBV_T *restrict b, KBV_T *restrict c)
{
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int u = 0; u < 16; u++)
            c[j + u] += a * b[j + u];
    for (; j < n; j++)
        c[j] += a * b[j];
}

/* panel: scratch of KBV_MM_KB * KBV_MM_JB elements, used when B's rows are
 * not contiguous (a transposed B): each block of B is packed once. */
static void KBV_FN(gemm)(int64_t M, int64_t N, int64_t K,
                         const KBV_T *A, int64_t sam, int64_t sak,
                         const KBV_T *B, int64_t sbk, int64_t sbn,
                         KBV_T *C, int64_t scm, int64_t scn, KBV_T *panel)
{
    if (scn == 1) {
        /* i-k-j over cache blocks: the inner loop runs along rows of B and C. */
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                C[i * scm + j] = 0;
        for (int64_t kk = 0; kk < K; kk += KBV_MM_KB) {
            int64_t kn = kk + KBV_MM_KB < K ? KBV_MM_KB : K - kk;
            for (int64_t jj = 0; jj < N; jj += KBV_MM_JB) {
                int64_t jn = jj + KBV_MM_JB < N ? KBV_MM_JB : N - jj;
                const KBV_T *bk = B + kk * sbk + jj;
                int64_t ldb = sbk;
                if (sbn != 1) {
                    for (int64_t k = 0; k < kn; k++)
                        for (int64_t j = 0; j < jn; j++)
                            panel[k * jn + j] = B[(kk + k) * sbk + (jj + j) * sbn];
                    bk = panel;
                    ldb = jn;
                }
                for (int64_t i = 0; i < M; i++) {
                    KBV_T *c = C + i * scm + jj;
                    const KBV_T *a = A + i * sam + kk * sak;
                    for (int64_t k = 0; k < kn; k++)
                        KBV_FN(axpy)(jn, a[k * sak], bk + k * ldb, c);
                }
            }
        }
        return;
    }
    /* A strided output (only when out is a view): one dot product per element. */
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            const KBV_T *a = A + i * sam;
            const KBV_T *b = B + j * sbn;
            KBV_T acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += a[k * sak] * b[k * sbk];
            C[i * scm + j * scn] = acc;
        }
    }
}
