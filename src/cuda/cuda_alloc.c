/* A caching device allocator in the manner of PyTorch's.
 *
 * Freed blocks are kept and handed out again for a request of the same
 * rounded size, so a graph run repeated over the same shapes never calls
 * cudaMalloc after the first. All work runs on the backend's one stream, so
 * a block freed on the host can be reused at once: work enqueued later on
 * the same stream starts after the earlier users finish. Statistics count
 * rounded live bytes, as torch.cuda.memory_allocated does. Block counts are
 * small (live tensors of one graph), so plain arrays suffice.
 *
 * Each precision mode's backend has an allocator of its own on the same
 * device, and blocks are reused only at their exact size: a run over many
 * problems (kbv audit, kbv baseline) leaves each cache full of sizes no
 * later problem asks for. So a failed cudaMalloc trims every allocator of
 * the process, not just the one asking, before it tries again. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"

size_t kbv_cuda_round_bytes(size_t bytes)
{
    return (bytes + KBV_CUDA_ALLOC_ROUND - 1) / KBV_CUDA_ALLOC_ROUND * KBV_CUDA_ALLOC_ROUND;
}

static kbv_status push_block(kbv_cuda_block **arr, size_t *n, size_t *cap, kbv_cuda_block b)
{
    if (*n == *cap) {
        size_t cap2 = *cap ? *cap * 2 : 64;
        kbv_cuda_block *grown = realloc(*arr, cap2 * sizeof *grown);
        if (!grown)
            return kbv_fail(KBV_ERR_NOMEM, "allocator bookkeeping: %zu blocks", cap2);
        *arr = grown;
        *cap = cap2;
    }
    (*arr)[(*n)++] = b;
    return KBV_OK;
}

#define MAX_ALLOCATORS 64
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static kbv_cuda_alloc *registry[MAX_ALLOCATORS];
static size_t registry_n;

static void registry_add(kbv_cuda_alloc *a)
{
    pthread_mutex_lock(&registry_lock);
    if (!a->registered && registry_n < MAX_ALLOCATORS) {
        registry[registry_n++] = a;
        a->registered = true;
    }
    pthread_mutex_unlock(&registry_lock);
}

static void registry_remove(kbv_cuda_alloc *a)
{
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_n; i++)
        if (registry[i] == a) {
            registry[i] = registry[--registry_n];
            break;
        }
    a->registered = false;
    pthread_mutex_unlock(&registry_lock);
}

/* Every registered cache freed (a itself too, registered or not). */
static kbv_status trim_all(kbv_cuda_alloc *a)
{
    kbv_status st = kbv_cuda_alloc_trim(a);
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_n; i++) {
        kbv_status si = registry[i] == a ? KBV_OK : kbv_cuda_alloc_trim(registry[i]);
        if (st == KBV_OK)
            st = si;
    }
    pthread_mutex_unlock(&registry_lock);
    return st;
}

static kbv_status device_malloc(kbv_cuda_alloc *a, size_t bytes, void **ptr)
{
    cudaError_t err = cudaMalloc(ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it and try again with the caches freed */
        KBV_TRY(trim_all(a));
        err = cudaMalloc(ptr, bytes);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return kbv_fail(KBV_ERR_NOMEM,
                            "cudaMalloc of %zu bytes failed after freeing the caches "
                            "(%zu bytes in use by this allocator)",
                            bytes, a->current);
        }
    }
    if (err != cudaSuccess)
        return KBV_CUDA_FAIL(err, "cudaMalloc(ptr, bytes)");
    return KBV_OK;
}

kbv_status kbv_cuda_alloc_get(kbv_cuda_alloc *a, size_t bytes, void **ptr)
{
    *ptr = NULL;
    if (bytes == 0)
        return KBV_OK;
    size_t rounded = kbv_cuda_round_bytes(bytes);
    if (rounded < bytes)
        return kbv_fail(KBV_ERR_NOMEM, "allocation of %zu bytes overflows", bytes);

    kbv_cuda_block b = {NULL, rounded};
    if (!a->registered) /* once per allocator: no lock on the allocation path after that */
        registry_add(a);
    for (size_t i = a->n_cached; i-- > 0;) {
        if (a->cached[i].bytes == rounded) {
            b = a->cached[i];
            a->cached[i] = a->cached[--a->n_cached];
            a->cached_bytes -= rounded;
            break;
        }
    }
    if (!b.ptr)
        KBV_TRY(device_malloc(a, rounded, &b.ptr));
    kbv_status st = push_block(&a->live, &a->n_live, &a->cap_live, b);
    if (st != KBV_OK) {
        cudaFree(b.ptr);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    a->current += rounded;
    if (a->current > a->peak)
        a->peak = a->current;
    *ptr = b.ptr;
    return KBV_OK;
}

kbv_status kbv_cuda_alloc_put(kbv_cuda_alloc *a, void *ptr)
{
    if (!ptr)
        return KBV_OK;
    for (size_t i = a->n_live; i-- > 0;) {
        if (a->live[i].ptr != ptr)
            continue;
        kbv_cuda_block b = a->live[i];
        a->live[i] = a->live[--a->n_live];
        a->current -= b.bytes;
        kbv_status st = push_block(&a->cached, &a->n_cached, &a->cap_cached, b);
        if (st != KBV_OK) { /* cannot cache it: give it back to the device */
            cudaFree(b.ptr);
            return kbv_relay_at(__FILE__, __LINE__, st);
        }
        a->cached_bytes += b.bytes;
        return KBV_OK;
    }
    return kbv_fail(KBV_ERR_INVALID, "release of %p, which this allocator did not hand out", ptr);
}

kbv_status kbv_cuda_alloc_trim(kbv_cuda_alloc *a)
{
    kbv_status st = KBV_OK;
    for (size_t i = 0; i < a->n_cached; i++) {
        cudaError_t err = cudaFree(a->cached[i].ptr);
        if (err != cudaSuccess && st == KBV_OK)
            st = KBV_CUDA_FAIL(err, "cudaFree(cached block)");
    }
    a->n_cached = 0;
    a->cached_bytes = 0;
    return st;
}

void kbv_cuda_alloc_destroy(kbv_cuda_alloc *a)
{
    registry_remove(a);
    (void)kbv_cuda_alloc_trim(a);
    for (size_t i = 0; i < a->n_live; i++)
        cudaFree(a->live[i].ptr);
    free(a->live);
    free(a->cached);
    memset(a, 0, sizeof *a);
}
