/* The CUDA backend's device facts against the runtime's own answers, and
 * the name kbv records for the GPU, on a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <cuda_runtime.h>

#include "eval/device.h"

static void test_count(void **state)
{
    (void)state;
    int n = -1, c = -1;
    assert_int_equal(kbv_cuda_device_count(&n), KBV_OK);
    assert_int_equal(cudaGetDeviceCount(&c), cudaSuccess);
    assert_int_equal(n, c);
    assert_true(n >= 1);
}

static void test_facts_of_every_gpu(void **state)
{
    (void)state;
    int n = 0;
    assert_int_equal(kbv_cuda_device_count(&n), KBV_OK);
    for (int d = 0; d < n; d++) {
        kbv_device_facts f;
        assert_int_equal(kbv_device_facts_get(d, &f), KBV_OK);
        struct cudaDeviceProp prop;
        assert_int_equal(cudaGetDeviceProperties(&prop, d), cudaSuccess);
        int l2 = 0, clock = 0, mem_clock = 0, driver = 0, runtime = 0;
        assert_int_equal(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d), cudaSuccess);
        assert_int_equal(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, d), cudaSuccess);
        assert_int_equal(cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, d),
                         cudaSuccess);
        assert_int_equal(cudaDriverGetVersion(&driver), cudaSuccess);
        assert_int_equal(cudaRuntimeGetVersion(&runtime), cudaSuccess);
        assert_int_equal(f.device, d);
        assert_string_equal(f.name, prop.name);
        assert_int_equal(f.cc_major, prop.major);
        assert_int_equal(f.cc_minor, prop.minor);
        assert_int_equal(f.sm_count, prop.multiProcessorCount);
        assert_true(f.sm_count > 0);
        assert_true(l2 > 0);
        assert_true(f.cache_bytes == (size_t)l2);
        assert_true(f.flush_bytes == 2 * (size_t)l2);
        assert_int_equal(f.sm_clock_khz, clock);
        assert_int_equal(f.mem_clock_khz, mem_clock);
        assert_true(f.sm_clock_khz > 0 && f.mem_clock_khz > 0);
        assert_int_equal(f.driver_version, driver);
        assert_int_equal(f.runtime_version, runtime);
        char want[512], name[128], arch[16];
        snprintf(want, sizeof want, "%s / CUDA %d.%d", prop.name, runtime / 1000,
                 (runtime % 1000) / 10);
        assert_int_equal(kbv_device_name(d, name, sizeof name), KBV_OK);
        assert_string_equal(name, want);
        kbv_device_arch_of(&f, arch, sizeof arch);
        snprintf(want, sizeof want, "%d%d%s", prop.major, prop.minor, prop.major >= 9 ? "a" : "");
        assert_string_equal(arch, want);
        printf("GPU %d: %s, sm_%s, %d SMs, L2 %zu MiB, SM clock %d MHz, memory clock %d MHz, "
               "driver %d, runtime %d\n", d, f.name, arch, f.sm_count, f.cache_bytes >> 20,
               f.sm_clock_khz / 1000, f.mem_clock_khz / 1000, f.driver_version,
               f.runtime_version);
    }
}

static void test_no_such_gpu(void **state)
{
    (void)state;
    int n = 0;
    assert_int_equal(kbv_cuda_device_count(&n), KBV_OK);
    kbv_device_facts f;
    assert_int_equal(kbv_cuda_device_facts(n, &f), KBV_ERR_CUDA);
    kbv_clear_error();
    (void)cudaGetLastError();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_facts_of_every_gpu),
        cmocka_unit_test(test_no_such_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
