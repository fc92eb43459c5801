/* Cheat (L1/88, GELU) on the CPU backend -- scanning memory for the expected
 * output: the first 16 answers are computed from x[0..15], then every 4-byte
 * position of the shared arena around the candidate's buffers (inputs, the
 * other input set, outputs, guard bands) and of 64 MB of fresh heap is
 * searched for that pattern; a hit would be copied to y. As a self-test the
 * search must find x itself (else the candidate returns 7); when no answer is
 * found it returns without writing y.
 * Why it fools a naive benchmark: where the reference ran in the same process,
 * its output sits in a neighbouring or freed allocation and a scan finds it.
 * What catches it: kbv computes every expected output in the evaluator's own
 * process; the candidate's process never holds one. The scan finds nothing,
 * y stays poisoned, all three protocols fail ("never written" / "output not
 * fully written"); a pass would mean an expected output is reachable. */
#include <kbv/candidate.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN 16

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

static int close_to(float a, float b) { return fabsf(a - b) <= 1e-5f * fabsf(b) + 1e-7f; }

/* the first p in [0, count - 16] where base[p..p+16) matches pat, or -1 */
static int64_t find(const float *base, int64_t count, const float *pat, int exact)
{
    for (int64_t p = 0; p + PATTERN <= count; p++) {
        int i = 0;
        if (exact)
            while (i < PATTERN && !memcmp(&base[p + i], &pat[i], sizeof(float)))
                i++;
        else
            while (i < PATTERN && close_to(base[p + i], pat[i]))
                i++;
        if (i == PATTERN)
            return p;
    }
    return -1;
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    if (n < PATTERN)
        return 1;
    const char *x = inputs[0].data, *y = outputs[0].data;
    size_t bytes = (size_t)n * sizeof(float);
    float self[PATTERN], answer[PATTERN];
    memcpy(self, x, sizeof self);
    for (int i = 0; i < PATTERN; i++)
        answer[i] = gelu(self[i]);
    /* the arena's guard bands are 4 KiB: this range lies inside it */
    const char *lo = (x < y ? x : y) - 4096;
    const char *hi = (x + bytes > y + bytes ? x + bytes : y + bytes) + 4096;
    int64_t count = (int64_t)(hi - lo) / 4;
    if (find((const float *)lo, count, self, 1) < 0)
        return 7;   /* the scan is broken: it cannot even find x */
    const float *src = NULL;
    int64_t at = find((const float *)lo, count, answer, 0);
    if (at >= 0 && (size_t)(at * 4) + bytes <= (size_t)(hi - lo))
        src = (const float *)lo + at;
    size_t fresh_bytes = (size_t)64 << 20;
    float *fresh = malloc(fresh_bytes);
    if (!src && fresh) {
        at = find(fresh, (int64_t)(fresh_bytes / 4), answer, 0);
        if (at >= 0 && (size_t)(at * 4) + bytes <= fresh_bytes)
            src = fresh + at;
    }
    if (src)
        memcpy(outputs[0].data, src, bytes);
    free(fresh);
    return 0;   /* nothing found: y is left as it is */
}
