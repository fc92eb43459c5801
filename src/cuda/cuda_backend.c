/* The CUDA backend: one device, one precision mode, one non-blocking stream
 * that every piece of work is enqueued on, a caching allocator, and the
 * device-level services (arenas, copies, timers, cache flush). The input
 * generation and comparison services are in cuda_services.c, the ops in
 * cuda_ops.c and cuda_matmul.c.
 *
 * The backend's device is made current at creation (and again before
 * cuBLAS setup); callers keep it current on the thread that uses it. */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"

typedef struct kbv_cuda_backend {
    kbv_backend be;   /* first: a kbv_backend * is the whole allocation */
    kbv_cuda cu;
} kbv_cuda_backend;

_Static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(((kbv_arena *)0)->ipc),
               "kbv_arena.ipc holds a cudaIpcMemHandle_t");

bool kbv_cuda_available(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver or no device: not an error here */
        return false;
    }
    return n > 0;
}

static void mirror_stats(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    be->mem.current = cu->alloc.current;
    be->mem.peak = cu->alloc.peak;
}

static kbv_status cuda_alloc(kbv_backend *be, size_t bytes, void **ptr)
{
    kbv_status st = kbv_cuda_alloc_get(&kbv_cuda_of(be)->alloc, bytes, ptr);
    mirror_stats(be);
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    return KBV_OK;
}

static void cuda_release(kbv_backend *be, void *ptr)
{
    /* an unknown pointer leaves its failure in the error trace; the
     * interface has no status to return it through */
    (void)kbv_cuda_alloc_put(&kbv_cuda_of(be)->alloc, ptr);
    mirror_stats(be);
}

static void cuda_reset_peak(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    cu->alloc.peak = cu->alloc.current;
    mirror_stats(be);
}

static void cuda_trim(kbv_backend *be) { (void)kbv_cuda_alloc_trim(&kbv_cuda_of(be)->alloc); }

static kbv_status cuda_sync(kbv_backend *be)
{
    KBV_CUDA_TRY(cudaStreamSynchronize(kbv_cuda_of(be)->stream));
    return KBV_OK;
}

/* The arena: one physical allocation (VMM API, 2 MiB granularity), mapped
 * here and exported as a POSIX file descriptor for the candidate process,
 * which maps it with the same pages (see kbv_arena). */
static kbv_status cuda_arena_create(kbv_backend *be, size_t bytes, kbv_arena *arena)
{
    kbv_status st = KBV_OK;
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr ptr = 0;
    size_t size = 0;
    int fd = -1;
    bool mapped = false;
    memset(arena, 0, sizeof *arena);
    arena->fd = -1;
    if (bytes == 0)
        return kbv_fail(KBV_ERR_INVALID, "arena of 0 bytes");
    KBV_CUDA_TRY(cudaFree(NULL)); /* the runtime's context is the one the driver calls use */

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = be->device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    size_t gran = 0;
    KBV_CU_TRY_GOTO(cuMemGetAllocationGranularity(&gran, &prop,
                                                  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                    st, fail);
    size = (bytes + gran - 1) / gran * gran;
    KBV_CU_TRY_GOTO(cuMemCreate(&handle, size, &prop, 0), st, fail);
    KBV_CU_TRY_GOTO(cuMemAddressReserve(&ptr, size, gran, 0, 0), st, fail);
    KBV_CU_TRY_GOTO(cuMemMap(ptr, size, 0, handle, 0), st, fail);
    mapped = true;
    KBV_CU_TRY_GOTO(cuMemSetAccess(ptr, size, &access, 1), st, fail);
    KBV_CU_TRY_GOTO(cuMemExportToShareableHandle(&fd, handle,
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                    st, fail);
    arena->base = (void *)ptr;
    arena->bytes = size;
    arena->fd = fd;
    arena->handle = (uint64_t)handle;
    return KBV_OK;
fail:
    if (mapped)
        cuMemUnmap(ptr, size);
    if (ptr)
        cuMemAddressFree(ptr, size);
    if (handle)
        cuMemRelease(handle);
    return st;
}

static void cuda_arena_destroy(kbv_backend *be, kbv_arena *arena)
{
    if (arena->base) {
        cudaStreamSynchronize(kbv_cuda_of(be)->stream); /* nothing still uses it */
        cuMemUnmap((CUdeviceptr)arena->base, arena->bytes);
        cuMemAddressFree((CUdeviceptr)arena->base, arena->bytes);
        cuMemRelease((CUmemGenericAllocationHandle)arena->handle);
    }
    if (arena->fd >= 0)
        close(arena->fd);
    memset(arena, 0, sizeof *arena);
    arena->fd = -1;
}

static kbv_status copy_sync(kbv_backend *be, void *dst, const void *src, size_t bytes,
                            enum cudaMemcpyKind kind)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    if (bytes == 0)
        return KBV_OK;
    KBV_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, cu->stream));
    KBV_CUDA_TRY(cudaStreamSynchronize(cu->stream));
    return KBV_OK;
}

static kbv_status cuda_copy(kbv_backend *be, void *dst, const void *src, size_t bytes)
{
    KBV_TRY(copy_sync(be, dst, src, bytes, cudaMemcpyDeviceToDevice));
    return KBV_OK;
}

static kbv_status cuda_to_host(kbv_backend *be, void *host, const void *src, size_t bytes)
{
    KBV_TRY(copy_sync(be, host, src, bytes, cudaMemcpyDeviceToHost));
    return KBV_OK;
}

static kbv_status cuda_from_host(kbv_backend *be, void *dst, const void *host, size_t bytes)
{
    KBV_TRY(copy_sync(be, dst, host, bytes, cudaMemcpyHostToDevice));
    return KBV_OK;
}

static kbv_status cuda_timer_start(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    KBV_CUDA_TRY(cudaEventRecord(cu->ev_start, cu->stream));
    return KBV_OK;
}

static kbv_status cuda_timer_stop(kbv_backend *be, double *ms)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    float elapsed = 0.0f;
    KBV_CUDA_TRY(cudaEventRecord(cu->ev_stop, cu->stream));
    KBV_CUDA_TRY(cudaEventSynchronize(cu->ev_stop));
    KBV_CUDA_TRY(cudaEventElapsedTime(&elapsed, cu->ev_start, cu->ev_stop));
    *ms = elapsed;
    return KBV_OK;
}

static kbv_status cuda_sm_clock(kbv_backend *be, unsigned *mhz, unsigned *max_mhz)
{
    KBV_TRY(kbv_cuda_sm_clock(kbv_cuda_of(be)->clock_handle, mhz, max_mhz));
    return KBV_OK;
}

static kbv_status cuda_flush_cache(kbv_backend *be)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    if (!cu->flush_buf) {
        /* twice the L2, outside the allocator: harness memory, not the baseline's */
        size_t bytes = cu->l2_bytes ? 2 * cu->l2_bytes : (size_t)128 << 20;
        KBV_CUDA_TRY(cudaMalloc(&cu->flush_buf, bytes));
        cu->flush_bytes = bytes;
    }
    int value = (int)(cu->flush_count++ & 0xffu);
    KBV_CUDA_TRY(cudaMemsetAsync(cu->flush_buf, value, cu->flush_bytes, cu->stream));
    return KBV_OK;
}

static void cuda_destroy(kbv_backend *be)
{
    if (!be)
        return;
    kbv_cuda *cu = kbv_cuda_of(be);
    cudaSetDevice(cu->device);
    if (cu->stream)
        cudaStreamSynchronize(cu->stream);
    if (cu->blaslt)
        cublasLtDestroy(cu->blaslt);
    if (cu->blas)
        cublasDestroy(cu->blas);
    kbv_cuda_alloc_destroy(&cu->alloc); /* the cuBLAS workspace with it */
    if (cu->flush_buf)
        cudaFree(cu->flush_buf);
    if (cu->service)
        cudaFree(cu->service);
    if (cu->ev_start)
        cudaEventDestroy(cu->ev_start);
    if (cu->ev_stop)
        cudaEventDestroy(cu->ev_stop);
    if (cu->stream)
        cudaStreamDestroy(cu->stream);
    free((kbv_cuda_backend *)be);
}

static const char *const backend_names[KBV_MODE_COUNT] = {
    [KBV_MODE_FP32_STRICT] = "cuda-fp32-strict",
    [KBV_MODE_FP32] = "cuda-fp32",
    [KBV_MODE_TF32] = "cuda-tf32",
    [KBV_MODE_FP64] = "cuda-fp64",
    [KBV_MODE_BF16] = "cuda-bf16",
};

kbv_status kbv_cuda_backend_create(int device, kbv_mode mode, kbv_backend **out)
{
    kbv_status st = KBV_OK;
    *out = NULL;
    if ((unsigned)mode >= KBV_MODE_COUNT)
        return kbv_fail(KBV_ERR_INVALID, "unknown precision mode %d", (int)mode);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return KBV_CUDA_FAIL(err, "cudaGetDeviceCount(&count)");
    }
    if (device < 0 || device >= count)
        return kbv_fail(KBV_ERR_INVALID, "CUDA device %d does not exist (%d visible)", device,
                        count);

    kbv_cuda_backend *cb = calloc(1, sizeof *cb);
    if (!cb)
        return kbv_fail(KBV_ERR_NOMEM, "CUDA backend state");
    kbv_backend *be = &cb->be;
    kbv_cuda *cu = &cb->cu;
    be->impl = cu;
    cu->device = device;
    KBV_CUDA_TRY_GOTO(cudaSetDevice(device), st, fail);
    KBV_CUDA_TRY_GOTO(cudaDeviceGetAttribute(&cu->sms, cudaDevAttrMultiProcessorCount, device), st,
                      fail);
    int l2 = 0;
    KBV_CUDA_TRY_GOTO(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), st, fail);
    cu->l2_bytes = l2 > 0 ? (size_t)l2 : 0;
    KBV_CUDA_TRY_GOTO(cudaStreamCreateWithFlags(&cu->stream, cudaStreamNonBlocking), st, fail);
    KBV_CUDA_TRY_GOTO(cudaEventCreate(&cu->ev_start), st, fail);
    KBV_CUDA_TRY_GOTO(cudaEventCreate(&cu->ev_stop), st, fail);
    KBV_TRY_GOTO(kbv_cuda_clock_open(device, &cu->clock_handle), st, fail);

    be->name = backend_names[mode];
    be->mode = mode;
    be->tensor_math = true;
    be->float_dtype = mode == KBV_MODE_FP64 ? KBV_F64 : mode == KBV_MODE_BF16 ? KBV_BF16 : KBV_F32;
    be->device = device;
    be->ops = kbv_cuda_op_table();
    be->widens_f32 = mode == KBV_MODE_FP64 ? kbv_cuda_widens_f32 : NULL;
    be->alloc = cuda_alloc;
    be->release = cuda_release;
    be->reset_peak = cuda_reset_peak;
    be->trim = cuda_trim;
    be->sync = cuda_sync;
    be->arena_create = cuda_arena_create;
    be->arena_destroy = cuda_arena_destroy;
    be->copy = cuda_copy;
    be->to_host = cuda_to_host;
    be->from_host = cuda_from_host;
    be->timer_start = cuda_timer_start;
    be->timer_stop = cuda_timer_stop;
    be->sm_clock = cuda_sm_clock;
    be->flush_cache = cuda_flush_cache;
    be->destroy = cuda_destroy;
    kbv_cuda_install_services(be);
    *out = be;
    return KBV_OK;
fail:
    cuda_destroy(be);
    return st;
}
