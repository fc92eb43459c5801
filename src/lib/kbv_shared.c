/* libkbv.so: the whole library as one shared object, for callers outside C
 * (the PyTorch side-by-side benchmark loads it with ctypes). */
#include "kbv_build_config.h"

__attribute__((visibility("default"))) const char *kbv_library_version(void)
{
    return KBV_VERSION;
}
