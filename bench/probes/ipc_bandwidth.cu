// Does memory shared with another process run kernels at native speed?
// Times two streaming kernels on (a) the process's own cudaMalloc, (b) the
// same memory opened in a child through legacy CUDA IPC, (c) memory made with
// the VMM API (2 MiB granularity) and shared as a POSIX file descriptor.
//   ipc_bandwidth            (parent)   ipc_bandwidth child ...   (internal)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>
#include "kbv/candidate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#define N (4096LL * 393216LL)
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(e_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)

__global__ void relu_naive(const float *x, float *y, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
__global__ void relu_stride4(const float4 *x, float4 *y, long long n4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.f); v.y = fmaxf(v.y, 0.f); v.z = fmaxf(v.z, 0.f); v.w = fmaxf(v.w, 0.f);
        y[i] = v;
    }
}

static cudaStream_t g_stream = 0;
static long long g_n = N;

static void CUPTIAPI buf_request(uint8_t **buf, size_t *size, size_t *max)
{
    *size = 1 << 20;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max = 0;
}
static void CUPTIAPI buf_complete(CUcontext c, uint32_t id, uint8_t *buf, size_t size, size_t valid)
{
    (void)c; (void)id; (void)size; (void)valid;
    free(buf);
}

static void time_kernels(const char *label, float *x, float *y)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int k = 0; k < 2; k++) {
        float best = 1e9, sum = 0;
        for (int r = 0; r < 8; r++) {
            CK(cudaEventRecord(a, g_stream));
            if (k == 0) relu_naive<<<(unsigned)((g_n + 255) / 256), 256, 0, g_stream>>>(x, y, g_n);
            else relu_stride4<<<132 * 16, 256, 0, g_stream>>>((const float4 *)x, (float4 *)y, g_n / 4);
            CK(cudaEventRecord(b, g_stream)); CK(cudaStreamSynchronize(g_stream)); CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
            float ms; CK(cudaEventElapsedTime(&ms, a, b));
            if (r >= 2) { sum += ms; best = ms < best ? ms : best; }
        }
        printf("%-28s %-12s mean %7.3f ms  best %7.3f ms\n", label, k ? "stride-vec4" : "naive", sum / 6, best);
    }
}

static CUdeviceptr vmm_alloc(size_t bytes, int *fd_out)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran;
    DK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    bytes = (bytes + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h;
    DK(cuMemCreate(&h, bytes, &prop, 0));
    CUdeviceptr p;
    DK(cuMemAddressReserve(&p, bytes, gran, 0, 0));
    DK(cuMemMap(p, bytes, 0, h, 0));
    CUmemAccessDesc acc;
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DK(cuMemSetAccess(p, bytes, &acc, 1));
    DK(cuMemExportToShareableHandle(fd_out, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    printf("vmm granularity %zu\n", gran);
    return p;
}

static CUdeviceptr vmm_import(int fd, size_t bytes)
{
    CUmemGenericAllocationHandle h;
    DK(cuMemImportFromShareableHandle(&h, (void *)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUmemAllocationProp prop;
    DK(cuMemGetAllocationPropertiesFromHandle(&prop, h));
    size_t gran;
    DK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    bytes = (bytes + gran - 1) / gran * gran;
    CUdeviceptr p;
    DK(cuMemAddressReserve(&p, bytes, gran, 0, 0));
    DK(cuMemMap(p, bytes, 0, h, 0));
    CUmemAccessDesc acc;
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DK(cuMemSetAccess(p, bytes, &acc, 1));
    return p;
}

int main(int argc, char **argv)
{
    size_t bytes = N * sizeof(float);
    if (argc > 1 && !strcmp(argv[1], "child")) {
        CK(cudaSetDevice(0)); CK(cudaFree(0));
        float *x, *y;
        if (!strcmp(argv[2], "arena")) {
            cudaIpcMemHandle_t ha;
            for (int i = 0; i < 64; i++) sscanf(argv[3] + 2 * i, "%2hhx", &((unsigned char *)&ha)[i]);
            char *base;
            CK(cudaIpcOpenMemHandle((void **)&base, ha, cudaIpcMemLazyEnablePeerAccess));
            size_t ox = strtoull(argv[4], NULL, 10), oy = strtoull(argv[5], NULL, 10);
            if (argc > 6) g_n = strtoll(argv[6], NULL, 10);
            char label[64]; snprintf(label, sizeof label, "child, arena off %zu", ox);
            time_kernels(label, (float *)(base + ox), (float *)(base + oy));
            return 0;
        }
        if (!strcmp(argv[2], "ipc")) {
            cudaIpcMemHandle_t hx, hy;
            for (int i = 0; i < 64; i++) { sscanf(argv[3] + 2 * i, "%2hhx", &((unsigned char *)&hx)[i]); sscanf(argv[4] + 2 * i, "%2hhx", &((unsigned char *)&hy)[i]); }
            CK(cudaIpcOpenMemHandle((void **)&x, hx, cudaIpcMemLazyEnablePeerAccess));
            CK(cudaIpcOpenMemHandle((void **)&y, hy, cudaIpcMemLazyEnablePeerAccess));
            time_kernels("child, legacy IPC", x, y);
            CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
            time_kernels("child, IPC, nonblocking", x, y);
            if (cuptiActivityRegisterCallbacks(buf_request, buf_complete) != CUPTI_SUCCESS ||
                cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2) != CUPTI_SUCCESS) { printf("cupti failed\n"); return 1; }
            time_kernels("child, IPC, nonbl, CUPTI", x, y);
            float *z; CK(cudaMalloc(&z, 1 << 20)); CK(cudaFree(z));
            time_kernels("child, IPC, nonbl, CUPTI2", x, y);
            for (int c = 5; c < argc; c++) {
                void *h = dlopen(argv[c], RTLD_NOW | RTLD_LOCAL);
                if (!h) { printf("dlopen %s: %s\n", argv[c], dlerror()); continue; }
                typedef int (*fwd_t)(const kbv_env *, void *, const kbv_tensor *, int, const kbv_tensor *, int, kbv_tensor *, int);
                fwd_t fwd = (fwd_t)dlsym(h, "kbv_forward");
                kbv_env env; memset(&env, 0, sizeof env);
                env.abi_version = 1; env.device = 0; env.stream = g_stream;
                kbv_tensor in, out; memset(&in, 0, sizeof in); memset(&out, 0, sizeof out);
                in.data = x; in.dtype = KBV_F32; in.ndim = 2; in.shape[0] = 4096; in.shape[1] = 393216; in.stride[0] = 393216; in.stride[1] = 1;
                out = in; out.data = y;
                cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
                float sum = 0;
                for (int r = 0; r < 8; r++) {
                    CK(cudaEventRecord(a, g_stream));
                    int rc = fwd(&env, NULL, &in, 1, NULL, 0, &out, 1);
                    CK(cudaEventRecord(b, g_stream)); CK(cudaStreamSynchronize(g_stream));
                    float ms; CK(cudaEventElapsedTime(&ms, a, b));
                    if (r >= 2) sum += ms;
                    if (rc) printf("rc %d\n", rc);
                }
                printf("child, dlopen %-40s mean %7.3f ms\n", argv[c], sum / 6);
            }
        } else {
            char *vb = (char *)vmm_import(atoi(argv[3]), 3 * bytes);
            x = (float *)vb;
            y = (float *)(vb + 2 * bytes);
            time_kernels("child, VMM fd", x, y);
        }
        return 0;
    }
    float *x, *y;
    CK(cudaMalloc(&x, bytes)); CK(cudaMalloc(&y, bytes));
    CK(cudaMemset(x, 0x3f, bytes));
    time_kernels("parent, own cudaMalloc", x, y);
    cudaIpcMemHandle_t hx, hy;
    CK(cudaIpcGetMemHandle(&hx, x)); CK(cudaIpcGetMemHandle(&hy, y));
    char sx[129], sy[129];
    for (int i = 0; i < 64; i++) { sprintf(sx + 2 * i, "%02x", ((unsigned char *)&hx)[i]); sprintf(sy + 2 * i, "%02x", ((unsigned char *)&hy)[i]); }
    pid_t p = fork();
    if (p == 0) {
        char *args[16] = {argv[0], (char *)"child", (char *)"ipc", sx, sy};
        int k = 5;
        for (int c = 1; c < argc && k < 15; c++) args[k++] = argv[c];
        args[k] = NULL;
        execv(argv[0], args);
        _exit(127);
    }
    waitpid(p, NULL, 0);
    CK(cudaFree(x)); CK(cudaFree(y));
    {
        for (size_t gb = 8; gb <= 12; gb += 4) {
            size_t big = gb << 30;
            char *al; CK(cudaMalloc(&al, big));
            cudaIpcMemHandle_t hb; CK(cudaIpcGetMemHandle(&hb, al));
            char sb[129], s1[32], s2[32];
            for (int i = 0; i < 64; i++) sprintf(sb + 2 * i, "%02x", ((unsigned char *)&hb)[i]);
            /* x at 0, y right after: both inside one allocation of gb GiB */
            size_t half = (big / 2) / 256 * 256;
            snprintf(s1, sizeof s1, "%zu", (size_t)0); snprintf(s2, sizeof s2, "%zu", half);
            printf("legacy IPC, one allocation of %zu GiB (x, y %zu bytes each, kernels on N elements clipped)\n", gb, half);
            pid_t q = fork();
            char s3[32]; snprintf(s3, sizeof s3, "%zu", half / 4);
            if (q == 0) { execl(argv[0], argv[0], "child", "arena", sb, s1, s2, s3, (char *)NULL); _exit(127); }
            waitpid(q, NULL, 0);
            CK(cudaFree(al));
        }
        size_t g = 4096, sz = 3 * (bytes + 2 * g) + g;
        char *arena; CK(cudaMalloc(&arena, sz));
        CK(cudaMemset(arena, 0x3f, sz));
        size_t offs[2][2] = {{g, g + bytes + g + 256 - ((g + bytes + g) % 256)}, {0, bytes}};
        for (int v = 0; v < 2; v++) {
            size_t ox = offs[v][0], oy = 2 * (bytes + 2 * g) + g;
            char label[64]; snprintf(label, sizeof label, "parent, arena off %zu", ox);
            time_kernels(label, (float *)(arena + ox), (float *)(arena + oy));
            cudaIpcMemHandle_t ha; CK(cudaIpcGetMemHandle(&ha, arena));
            char sa[129], so1[32], so2[32];
            for (int i = 0; i < 64; i++) sprintf(sa + 2 * i, "%02x", ((unsigned char *)&ha)[i]);
            snprintf(so1, sizeof so1, "%zu", ox); snprintf(so2, sizeof so2, "%zu", oy);
            pid_t q = fork();
            if (q == 0) { execl(argv[0], argv[0], "child", "arena", sa, so1, so2, (char *)NULL); _exit(127); }
            waitpid(q, NULL, 0);
        }
        CK(cudaFree(arena));
    }
    int fx, fy;
    /* one 3x-sized VMM allocation, like kbv's arena, y at 2x offset */
    CUdeviceptr vx = vmm_alloc(3 * bytes, &fx), vy = vx + 2 * bytes;
    fy = dup(fx);
    fcntl(fx, F_SETFD, 0); fcntl(fy, F_SETFD, 0);
    CK(cudaMemset((void *)vx, 0x3f, bytes));
    time_kernels("parent, own VMM", (float *)vx, (float *)vy);
    char ax[16], ay[16];
    snprintf(ax, sizeof ax, "%d", fx); snprintf(ay, sizeof ay, "%d", fy);
    p = fork();
    if (p == 0) { execl(argv[0], argv[0], "child", "vmm", ax, ay, (char *)NULL); _exit(127); }
    waitpid(p, NULL, 0);
    return 0;
}
