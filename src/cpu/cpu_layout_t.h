/* Layout kernels for one element type (see cpu_template.h): they move
 * elements and write zeros, never compute, so every value (NaN and infinity
 * included) is kept or replaced by an exact 0. */

/* triu (upper) or tril of one R x C matrix, relative to diagonal `diag`. */
static void KBV_FN(triangle)(const KBV_T *a, int64_t sar, int64_t sac, KBV_T *o, int64_t sor,
                             int64_t soc, int64_t R, int64_t C, int64_t diag, bool upper)
{
    for (int64_t i = 0; i < R; i++) {
        for (int64_t j = 0; j < C; j++) {
            bool keep = upper ? j - i >= diag : j - i <= diag;
            o[i * sor + j * soc] = keep ? a[i * sar + j * sac] : (KBV_T)0;
        }
    }
}

/* torch.diag(a, diag) of a 1-D a: the square matrix with a on that diagonal. */
static void KBV_FN(diag_embed)(const KBV_T *a, int64_t sa, KBV_T *o, int64_t sor, int64_t soc,
                               int64_t n, int64_t diag)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            o[i * sor + j * soc] =
                j - i == diag ? a[(diag >= 0 ? i : j) * sa] : (KBV_T)0;
}

/* torch.diag(a, diag) of a 2-D a: that diagonal as a vector of length n. */
static void KBV_FN(diag_extract)(const KBV_T *a, int64_t sar, int64_t sac, KBV_T *o, int64_t so,
                                 int64_t n, int64_t diag)
{
    for (int64_t t = 0; t < n; t++) {
        int64_t i = diag >= 0 ? t : t - diag;
        int64_t j = diag >= 0 ? t + diag : t;
        o[t * so] = a[i * sar + j * sac];
    }
}
