/* The GPU's SM clock, as nvbench watches it to find throttled measurements:
 * read through NVML, the driver's management library, loaded at run time
 * (libnvidia-ml.so.1 ships with the driver, as libcuda does; kbv builds and
 * runs without it, and then simply records no clock). The few entry points
 * are declared here: NVML's C ABI is stable and the toolkit may lack nvml.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_impl.h"

typedef int nvml_return;                 /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device *nvml_device; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1 };              /* nvmlClockType_t */

static struct {
    nvml_return (*init)(void);
    nvml_return (*by_pci)(const char *bus_id, nvml_device *dev);
    nvml_return (*clock)(nvml_device dev, int type, unsigned *mhz);
    nvml_return (*max_clock)(nvml_device dev, int type, unsigned *mhz);
    int ok;
} nvml;

static void nvml_load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    *(void **)&nvml.init = dlsym(h, "nvmlInit_v2");
    *(void **)&nvml.by_pci = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.clock = dlsym(h, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.max_clock = dlsym(h, "nvmlDeviceGetMaxClockInfo");
    nvml.ok = nvml.init && nvml.by_pci && nvml.clock && nvml.max_clock && nvml.init() == 0;
}

/* The NVML handle of CUDA device `device` (CUDA_VISIBLE_DEVICES renumbers
 * CUDA's devices but not NVML's: the PCI bus id is what both know). */
kbv_status kbv_cuda_clock_open(int device, void **handle)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, nvml_load);
    *handle = NULL;
    char bus[32];
    nvml_device dev;
    if (nvml.ok && cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) == cudaSuccess &&
        nvml.by_pci(bus, &dev) == 0)
        *handle = dev;
    (void)cudaGetLastError();
    return KBV_OK;
}

kbv_status kbv_cuda_sm_clock(void *handle, unsigned *mhz, unsigned *max_mhz)
{
    *mhz = *max_mhz = 0;
    if (!handle)
        return KBV_OK;
    if (nvml.clock(handle, NVML_CLOCK_SM, mhz) != 0 ||
        nvml.max_clock(handle, NVML_CLOCK_SM, max_mhz) != 0)
        *mhz = *max_mhz = 0;
    return KBV_OK;
}
