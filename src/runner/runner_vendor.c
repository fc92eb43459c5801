#include "runner/runner_vendor.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "core/vendor_libs.h"
#include "runner/runner.h"

#ifdef KBV_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef int (*create_fn)(void **handle);
typedef int (*destroy_fn)(void *handle);

/* The loaded object whose file name starts with stem ("libcudnn.so."). */
typedef struct found_lib {
    const char *stem;
    char path[4096];
} found_lib;

static int find_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    found_lib *f = data;
    const char *name = info->dlpi_name;
    const char *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    if (!base || strncmp(base, f->stem, strlen(f->stem)) != 0)
        return 0;
    snprintf(f->path, sizeof f->path, "%s", name);
    return 1;
}

static kbv_child_fault find_library(const kbv_vendor_info *v, found_lib *f, char *reason)
{
    f->stem = v->soname_stem;
    f->path[0] = '\0';
    if (dl_iterate_phdr(find_loaded, f))
        return KBV_FAULT_NONE;
    snprintf(reason, RUNNER_REASON_CAP, "vendor library %s: the candidate links it, but it is "
             "not loaded", v->title);
    return KBV_FAULT_LOAD;
}

/* "9" of ".../libcudnn.so.9": what follows the stem. */
static const char *version_of(const char *path, const char *stem)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return base + strlen(stem);
}

/* Loads part p of the library at lib_path from the same directory, else from
 * the loader's search path. */
static void load_part(const kbv_vendor_part *p, const char *lib_path, const char *lib_version,
                      int cuda_version)
{
    char version[32];
    switch (p->version) {
    case KBV_VERSION_LIBRARY: snprintf(version, sizeof version, "%s", lib_version); break;
    case KBV_VERSION_CUDA_MAJOR: snprintf(version, sizeof version, "%d", cuda_version / 1000); break;
    case KBV_VERSION_CUDA_MINOR:
        snprintf(version, sizeof version, "%d.%d", cuda_version / 1000, cuda_version % 1000 / 10);
        break;
    }
    const char *slash = strrchr(lib_path, '/');
    int dir_len = slash ? (int)(slash - lib_path) : 0;
    char path[4096];
    if (dir_len > 0)
        snprintf(path, sizeof path, "%.*s/%s.so.%s", dir_len, lib_path, p->stem, version);
    else
        snprintf(path, sizeof path, "%s.so.%s", p->stem, version);
    /* lazily bound: relocating all of a 250 MB library now would cost every
     * sample its time; binding later needs no system call */
    if (!dlopen(path, RTLD_LAZY | RTLD_LOCAL)) {
        snprintf(path, sizeof path, "%s.so.%s", p->stem, version);
        (void)dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    }
}

kbv_child_fault runner_vendor_load_parts(unsigned mask, int cuda_version, char *reason)
{
    for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
        if (!(mask >> l & 1u))
            continue;
        const kbv_vendor_info *v = kbv_vendor_get((kbv_vendor_lib)l);
        found_lib f;
        kbv_child_fault fault = find_library(v, &f, reason);
        if (fault != KBV_FAULT_NONE)
            return fault;
        for (int i = 0; i < KBV_VENDOR_MAX_PARTS && v->parts[i].stem; i++)
            load_part(&v->parts[i], f.path, version_of(f.path, v->soname_stem), cuda_version);
    }
    return KBV_FAULT_NONE;
}

unsigned runner_vendor_loaded(void)
{
    unsigned mask = 0;
    for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
        found_lib f = {.stem = kbv_vendor_get((kbv_vendor_lib)l)->soname_stem};
        if (dl_iterate_phdr(find_loaded, &f))
            mask |= 1u << l;
    }
    return mask;
}

#ifdef KBV_HAVE_CUDA

#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define HAVE_CUDNN_H 1

/* cuDNN's entry points, looked up in the loaded library (the runner links none). */
#define DNN(name) __typeof__(name) *name
typedef struct dnn_api {
    DNN(cudnnCreateTensorDescriptor);
    DNN(cudnnDestroyTensorDescriptor);
    DNN(cudnnSetTensor4dDescriptor);
    DNN(cudnnCreateFilterDescriptor);
    DNN(cudnnDestroyFilterDescriptor);
    DNN(cudnnSetFilter4dDescriptor);
    DNN(cudnnCreateConvolutionDescriptor);
    DNN(cudnnDestroyConvolutionDescriptor);
    DNN(cudnnSetConvolution2dDescriptor);
    DNN(cudnnGetConvolutionForwardAlgorithm_v7);
    DNN(cudnnConvolutionForward);
} dnn_api;
#undef DNN

/* *fn = the function `name` of lib (through a copy: POSIX's dlsym rule). */
static bool look(void *lib, const char *name, void *fn)
{
    void *sym = dlsym(lib, name);
    memcpy(fn, &sym, sizeof sym);
    return sym != NULL;
}
#define LOOK(name) look(lib, #name, &a.name)

/* A convolution of 1 x 1 x 8 x 8 by 3 x 3 through cuDNN's legacy API, as a
 * candidate's would run: cuDNN's sub-libraries each carry a CUDA runtime of
 * their own, which reads /proc and /sys when first used, and the heuristics
 * and the engines are first used here. Best effort: whatever fails leaves a
 * candidate to meet it (and, if it is the sandbox, to name the path). */
static void exercise_cudnn(void *lib, void *handle)
{
    dnn_api a;
    if (!(LOOK(cudnnCreateTensorDescriptor) && LOOK(cudnnDestroyTensorDescriptor) &&
          LOOK(cudnnSetTensor4dDescriptor) && LOOK(cudnnCreateFilterDescriptor) &&
          LOOK(cudnnDestroyFilterDescriptor) && LOOK(cudnnSetFilter4dDescriptor) &&
          LOOK(cudnnCreateConvolutionDescriptor) && LOOK(cudnnDestroyConvolutionDescriptor) &&
          LOOK(cudnnSetConvolution2dDescriptor) && LOOK(cudnnGetConvolutionForwardAlgorithm_v7) &&
          LOOK(cudnnConvolutionForward)))
        return;
    cudnnTensorDescriptor_t x = NULL, y = NULL;
    cudnnFilterDescriptor_t w = NULL;
    cudnnConvolutionDescriptor_t conv = NULL;
    float *buf = NULL;
    void *ws = NULL;
    const cudnnHandle_t h = handle;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    if (a.cudnnCreateTensorDescriptor(&x) || a.cudnnCreateTensorDescriptor(&y) ||
        a.cudnnCreateFilterDescriptor(&w) || a.cudnnCreateConvolutionDescriptor(&conv) ||
        a.cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 8, 8) ||
        a.cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 6, 6) ||
        a.cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3) ||
        a.cudnnSetConvolution2dDescriptor(conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT) ||
        a.cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                 &found, perf) ||
        cudaMalloc((void **)&buf, (64 + 9 + 36) * sizeof(float)) != cudaSuccess)
        goto done;
    for (int i = 0; i < found; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > ((size_t)64 << 20))
            continue;
        if (perf[i].memory && cudaMalloc(&ws, perf[i].memory) != cudaSuccess)
            break;
        const float one = 1.f, zero = 0.f;
        (void)a.cudnnConvolutionForward(h, &one, x, buf, w, buf + 64, conv, perf[i].algo, ws,
                                        perf[i].memory, &zero, y, buf + 73);
        (void)cudaDeviceSynchronize();
        break;
    }
done:
    if (ws)
        cudaFree(ws);
    if (buf)
        cudaFree(buf);
    if (conv)
        a.cudnnDestroyConvolutionDescriptor(conv);
    if (w)
        a.cudnnDestroyFilterDescriptor(w);
    if (y)
        a.cudnnDestroyTensorDescriptor(y);
    if (x)
        a.cudnnDestroyTensorDescriptor(x);
}
#endif /* __has_include(<cudnn.h>) */

/* One handle of library l made and destroyed: its one-time set-up, now. */
static kbv_child_fault make_handle(kbv_vendor_lib l, char *reason)
{
    const kbv_vendor_info *v = kbv_vendor_get(l);
    found_lib f;
    kbv_child_fault fault = find_library(v, &f, reason);
    if (fault != KBV_FAULT_NONE)
        return fault;
    void *lib = dlopen(f.path, RTLD_NOW | RTLD_NOLOAD);
    void *c = lib ? dlsym(lib, v->create) : NULL;
    void *d = lib ? dlsym(lib, v->destroy) : NULL;
    if (!c || !d) {
        snprintf(reason, RUNNER_REASON_CAP, "vendor library %s (%.300s): no %s or %s", v->title,
                 f.path, v->create, v->destroy);
        return KBV_FAULT_LOAD;
    }
    create_fn create;
    destroy_fn destroy;
    memcpy(&create, &c, sizeof c);
    memcpy(&destroy, &d, sizeof d);
    void *handle = NULL;
    int status = create(&handle);
    if (status != 0) {
        snprintf(reason, RUNNER_REASON_CAP, "vendor library %s: %s failed with status %d "
                 "before the candidate ran", v->title, v->create, status);
        return KBV_FAULT_LOAD;
    }
#ifdef HAVE_CUDNN_H
    if (l == KBV_VENDOR_CUDNN)
        exercise_cudnn(lib, handle);
#endif
    destroy(handle);
    (void)cudaGetLastError();   /* nothing of this is the candidate's first error */
    return KBV_FAULT_NONE;
}

kbv_child_fault runner_vendor_prepare(unsigned mask, char *reason)
{
    int rt = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = CUDART_VERSION;
    kbv_child_fault f = runner_vendor_load_parts(mask, rt, reason);
    for (int l = 0; l < KBV_VENDOR_COUNT && f == KBV_FAULT_NONE; l++)
        if (mask >> l & 1u)
            f = make_handle((kbv_vendor_lib)l, reason);
    return f;
}

#else /* !KBV_HAVE_CUDA */

kbv_child_fault runner_vendor_prepare(unsigned mask, char *reason)
{
    if (!mask)
        return KBV_FAULT_NONE;
    snprintf(reason, RUNNER_REASON_CAP, "this kbv-runner was built without CUDA: no vendor "
             "libraries");
    return KBV_FAULT_LOAD;
}

#endif /* KBV_HAVE_CUDA */
