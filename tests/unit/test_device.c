/* Device facts through the backend interface: the CPU backend's own, the
 * names and architectures kbv derives from them (the strings records and
 * the baseline cache carry), and the CUDA backend's absence without CUDA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/cpu_backend.h"
#include "eval/device.h"

static void test_cpu_facts(void **state)
{
    (void)state;
    kbv_device_facts f;
    memset(&f, 0x5a, sizeof f);
    assert_int_equal(kbv_cpu_device_facts(&f), KBV_OK);
    assert_int_equal(f.device, -1);
    assert_string_equal(f.name, "cpu");
    assert_true(f.cache_bytes > 0);
    assert_true(f.cache_bytes == kbv_cpu_llc_bytes());
    assert_true(f.flush_bytes == 2 * f.cache_bytes);
    assert_true(f.flush_bytes == kbv_cpu_flush_bytes());
    /* what a CPU does not have is 0, not left over */
    assert_int_equal(f.sm_count, 0);
    assert_int_equal(f.cc_major, 0);
    assert_int_equal(f.sm_clock_khz, 0);
    assert_int_equal(f.driver_version, 0);
    assert_int_equal(f.runtime_version, 0);

    kbv_device_facts g;
    assert_int_equal(kbv_device_facts_get(-1, &g), KBV_OK);
    assert_memory_equal(&f, &g, sizeof f);
    char name[128];
    assert_int_equal(kbv_device_name(-1, name, sizeof name), KBV_OK);
    assert_string_equal(name, "cpu");
}

/* The strings of a GPU's facts, as records and the baseline cache have
 * always spelt them. */
static void test_gpu_strings(void **state)
{
    (void)state;
    kbv_device_facts f = {.device = 0, .name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0,
                          .runtime_version = 13000, .driver_version = 13000};
    char buf[128], slug[128];
    kbv_device_name_of(&f, buf, sizeof buf);
    assert_string_equal(buf, "NVIDIA H200 / CUDA 13.0");
    kbv_device_slug(buf, slug, sizeof slug);
    assert_string_equal(slug, "nvidia-h200-cuda-13-0");
    kbv_device_arch_of(&f, buf, sizeof buf);
    assert_string_equal(buf, "90a");
    f = (kbv_device_facts){.device = 1, .name = "NVIDIA A100-SXM4-80GB", .cc_major = 8,
                           .cc_minor = 0, .runtime_version = 12040};
    kbv_device_name_of(&f, buf, sizeof buf);
    assert_string_equal(buf, "NVIDIA A100-SXM4-80GB / CUDA 12.4");
    kbv_device_arch_of(&f, buf, sizeof buf);
    assert_string_equal(buf, "80");
    /* the CPU is "cpu" whatever else its facts hold */
    f = (kbv_device_facts){.device = -1, .name = "something else"};
    kbv_device_name_of(&f, buf, sizeof buf);
    assert_string_equal(buf, "cpu");
}

static void test_cuda_absent(void **state)
{
    (void)state;
#ifdef KBV_HAVE_CUDA
    skip();   /* built with CUDA: tests/gpu/test_device_facts.c checks the GPU's facts */
#else
    int n = -1;
    assert_int_equal(kbv_cuda_device_count(&n), KBV_OK);
    assert_int_equal(n, 0);
    kbv_device_facts f;
    assert_int_equal(kbv_cuda_device_facts(0, &f), KBV_ERR_UNSUPPORTED);
    kbv_clear_error();
    assert_int_equal(kbv_device_facts_get(0, &f), KBV_ERR_UNSUPPORTED);
    kbv_clear_error();
    char name[128];
    assert_int_equal(kbv_device_name(0, name, sizeof name), KBV_ERR_UNSUPPORTED);
    kbv_clear_error();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_facts),
        cmocka_unit_test(test_gpu_strings),
        cmocka_unit_test(test_cuda_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
