/* Host-memory services: shared arenas, copies, dtype conversion, poison. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu/cpu_backend.h"
#include "core/bf16.h"
#include "cpu/cpu_half.h"

/* A memfd mapped MAP_SHARED: the candidate process maps the same pages from
 * arena->fd. The fd is close-on-exec, so it reaches a child only where the
 * child starter passes it on deliberately (dup2 clears the flag). The size is
 * rounded up to whole pages (at least one); arena->bytes is the mapped size. */
kbv_status kbv_cpu_arena_create(kbv_backend *be, size_t bytes, kbv_arena *arena)
{
    (void)be;
    memset(arena, 0, sizeof *arena);
    arena->fd = -1;
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096;
    if (bytes > SIZE_MAX - pg)
        return kbv_fail(KBV_ERR_NOMEM, "arena of %zu bytes is too large", bytes);
    size_t size = bytes == 0 ? pg : (bytes + pg - 1) / pg * pg;
    kbv_status st = KBV_OK;
    int fd = memfd_create("kbv-arena", MFD_CLOEXEC);
    if (fd < 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "memfd_create: %s", strerror(errno));
    if (ftruncate(fd, (off_t)size) != 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_NOMEM, "ftruncate arena to %zu bytes: %s", size,
                      strerror(errno));
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_NOMEM, "mmap arena of %zu bytes: %s", size,
                      strerror(errno));
    arena->base = base;
    arena->bytes = size;
    arena->fd = fd;
    return KBV_OK;
fail:
    if (fd >= 0)
        close(fd);
    return st;
}

void kbv_cpu_arena_destroy(kbv_backend *be, kbv_arena *arena)
{
    (void)be;
    if (!arena)
        return;
    if (arena->base)
        munmap(arena->base, arena->bytes);
    if (arena->fd >= 0)
        close(arena->fd);
    memset(arena, 0, sizeof *arena);
    arena->fd = -1;
}

/* Host and device memory are the same on the CPU; regions may overlap. */
kbv_status kbv_cpu_copy(kbv_backend *be, void *dst, const void *src, size_t bytes)
{
    (void)be;
    if (bytes == 0)
        return KBV_OK;
    if (!dst || !src)
        return kbv_fail(KBV_ERR_INVALID, "copy of %zu bytes with a NULL pointer", bytes);
    memmove(dst, src, bytes);
    return KBV_OK;
}

/* Elementwise between float32, float64, float16 and bfloat16 (or a plain
 * copy for equal dtypes), both contiguous with the same element count.
 * Narrowing rounds to nearest even, as Tensor.float(), .half() and
 * .bfloat16() do (from the source value, with no double rounding). */
static double load_float(const kbv_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case KBV_F16: return kbv_half_to_double(((const uint16_t *)t->data)[i]);
    case KBV_BF16: return kbv_bf16_to_double(((const uint16_t *)t->data)[i]);
    case KBV_F32: return (double)((const float *)t->data)[i];
    default: return ((const double *)t->data)[i];
    }
}

static void store_float(kbv_tensor *t, int64_t i, double v)
{
    switch (t->dtype) {
    case KBV_F16: ((uint16_t *)t->data)[i] = kbv_half_from_double(v); break;
    case KBV_BF16: ((uint16_t *)t->data)[i] = kbv_bf16_from_double(v); break;
    case KBV_F32: ((float *)t->data)[i] = (float)v; break;
    default: ((double *)t->data)[i] = v; break;
    }
}

static bool convertible(kbv_dtype dt)
{
    return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16 || dt == KBV_BF16;
}

kbv_status kbv_cpu_convert(kbv_backend *be, const kbv_tensor *src, kbv_tensor *dst)
{
    (void)be;
    int64_t n = kbv_tensor_numel(src);
    if (kbv_tensor_numel(dst) != n)
        return kbv_fail(KBV_ERR_INVALID, "convert: %lld elements into %lld", (long long)n,
                        (long long)kbv_tensor_numel(dst));
    if (!convertible(src->dtype) || !convertible(dst->dtype))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "convert: %s to %s (float32/float64/float16/bfloat16 only)",
                        kbv_dtype_name(src->dtype), kbv_dtype_name(dst->dtype));
    if (n == 0)
        return KBV_OK;
    if (src->dtype == dst->dtype) {
        memmove(dst->data, src->data, (size_t)n * kbv_dtype_size(src->dtype));
        return KBV_OK;
    }
    if (src->dtype == KBV_F32 && dst->dtype == KBV_F64) {
        const float *s = src->data;
        double *d = dst->data;
        for (int64_t i = 0; i < n; i++)
            d[i] = (double)s[i];
        return KBV_OK;
    }
    /* a double holds every value of the other types exactly */
    for (int64_t i = 0; i < n; i++)
        store_float(dst, i, load_float(src, i));
    return KBV_OK;
}

/* Every 4-byte word becomes kbv_poison_word(dtype): KBV_POISON_F32 (a float64
 * then reads as the NaN 0x7FF0DEAD7FF0DEAD), or for 2-byte floats a NaN in
 * every element; a tail shorter than a word gets the word's first bytes. */
kbv_status kbv_cpu_poison(kbv_backend *be, kbv_tensor *t)
{
    (void)be;
    int64_t n = kbv_tensor_numel(t);
    size_t bytes = (size_t)n * kbv_dtype_size(t->dtype);
    if (bytes == 0)
        return KBV_OK;
    if (!t->data)
        return kbv_fail(KBV_ERR_INVALID, "poison: tensor without memory");
    const uint32_t word = kbv_poison_word(t->dtype);
    unsigned char *p = t->data;
    size_t words = bytes / 4;
    for (size_t i = 0; i < words; i++)
        memcpy(p + 4 * i, &word, 4);
    memcpy(p + 4 * words, &word, bytes % 4);
    return KBV_OK;
}
