/* .npy writer and reader: round trips per dtype, the exact header bytes
 * NumPy expects, and write failures reported rather than ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/npy.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_npy_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void test_round_trip_f32_2d(void **state)
{
    (void)state;
    int64_t shape[2] = {3, 5};
    float data[15];
    for (int i = 0; i < 15; i++)
        data[i] = (float)i * 0.25f - 1.0f;
    assert_int_equal(kbv_npy_write(path_of("a.npy"), KBV_F32, 2, shape, data), KBV_OK);
    kbv_npy_array a;
    assert_int_equal(kbv_npy_read(path_of("a.npy"), &a), KBV_OK);
    assert_int_equal(a.dtype, KBV_F32);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 3);
    assert_int_equal(a.shape[1], 5);
    assert_int_equal(a.numel, 15);
    assert_memory_equal(a.data, data, sizeof data);
    kbv_npy_free(&a);
}

static void test_round_trip_other_dtypes(void **state)
{
    (void)state;
    kbv_npy_array a;
    double scalar = 3.14;
    assert_int_equal(kbv_npy_write(path_of("s.npy"), KBV_F64, 0, NULL, &scalar), KBV_OK);
    assert_int_equal(kbv_npy_read(path_of("s.npy"), &a), KBV_OK);
    assert_int_equal(a.dtype, KBV_F64);
    assert_int_equal(a.ndim, 0);
    assert_int_equal(a.numel, 1);
    assert_true(*(double *)a.data == 3.14);
    kbv_npy_free(&a);

    int64_t n = 4, ints[4] = {-5, 0, 7, INT64_MAX};
    assert_int_equal(kbv_npy_write(path_of("i.npy"), KBV_I64, 1, &n, ints), KBV_OK);
    assert_int_equal(kbv_npy_read(path_of("i.npy"), &a), KBV_OK);
    assert_int_equal(a.dtype, KBV_I64);
    assert_int_equal(a.ndim, 1);
    assert_memory_equal(a.data, ints, sizeof ints);
    kbv_npy_free(&a);

    int64_t shape3[3] = {2, 1, 3};
    int32_t i32[6] = {1, 2, 3, 4, 5, -6};
    assert_int_equal(kbv_npy_write(path_of("j.npy"), KBV_I32, 3, shape3, i32), KBV_OK);
    assert_int_equal(kbv_npy_read(path_of("j.npy"), &a), KBV_OK);
    assert_int_equal(a.dtype, KBV_I32);
    assert_int_equal(a.ndim, 3);
    assert_int_equal(a.shape[1], 1);
    assert_memory_equal(a.data, i32, sizeof i32);
    kbv_npy_free(&a);

    unsigned char flags[3] = {1, 0, 1};
    int64_t three = 3;
    assert_int_equal(kbv_npy_write(path_of("b.npy"), KBV_BOOL, 1, &three, flags), KBV_OK);
    assert_int_equal(kbv_npy_read(path_of("b.npy"), &a), KBV_OK);
    assert_int_equal(a.dtype, KBV_BOOL);
    assert_memory_equal(a.data, flags, sizeof flags);
    kbv_npy_free(&a);
}

/* The bytes NumPy writes: magic, version 1.0, header length, the dict
 * padded with spaces to a 64-byte boundary and ended by a newline. */
static void test_header_bytes(void **state)
{
    (void)state;
    int64_t n = 2;
    float data[2] = {1.0f, 2.0f};
    assert_int_equal(kbv_npy_write(path_of("h.npy"), KBV_F32, 1, &n, data), KBV_OK);
    FILE *f = fopen(path_of("h.npy"), "rb");
    assert_non_null(f);
    unsigned char buf[256];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    size_t hlen = buf[8] | (size_t)buf[9] << 8;
    /* the smallest 64-byte multiple that holds prefix, dict and newline */
    assert_int_equal(10 + hlen, (10 + strlen(dict) + 1 + 63) / 64 * 64);
    assert_int_equal(got, 10 + hlen + sizeof data);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    assert_memory_equal(buf + 10, dict, strlen(dict));
    for (size_t i = 10 + strlen(dict); i < 10 + hlen - 1; i++)
        assert_int_equal(buf[i], ' ');
    assert_int_equal(buf[10 + hlen - 1], '\n');
    assert_memory_equal(buf + 10 + hlen, data, sizeof data);
}

static void test_write_failures_are_reported(void **state)
{
    (void)state;
    float x = 1.0f;
    int64_t n = 1;
    /* a full disk: the stream accepts the bytes, the flush fails */
    FILE *full = fopen("/dev/full", "wb");
    if (full) {
        assert_int_equal(kbv_npy_fwrite(full, KBV_F32, 1, &n, &x), KBV_ERR_IO);
        assert_non_null(strstr(kbv_last_error(), "No space left"));
        fclose(full);
    }
    assert_int_equal(kbv_npy_write(path_of("no/such/dir/x.npy"), KBV_F32, 1, &n, &x),
                     KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_error(), "no/such/dir/x.npy"));
    /* bfloat16 has no NumPy descr; float16 is '<f2' */
    assert_int_equal(kbv_npy_write(path_of("bf16.npy"), KBV_BF16, 1, &n, &x),
                     KBV_ERR_UNSUPPORTED);
    assert_null(kbv_npy_descr(KBV_BF16));
    assert_string_equal(kbv_npy_descr(KBV_F16), "<f2");
    assert_int_equal(kbv_npy_write(path_of("neg.npy"), KBV_F32, 1, (int64_t[]){-1}, &x),
                     KBV_ERR_INVALID);
}

static void test_read_rejects_garbage(void **state)
{
    (void)state;
    kbv_npy_array a;
    FILE *f = fopen(path_of("junk.npy"), "wb");
    assert_non_null(f);
    fputs("not an npy file at all", f);
    fclose(f);
    assert_int_equal(kbv_npy_read(path_of("junk.npy"), &a), KBV_ERR_PARSE);
    assert_null(a.data);

    /* a valid header whose data is cut short */
    int64_t n = 100;
    double big[100] = {0};
    assert_int_equal(kbv_npy_write(path_of("cut.npy"), KBV_F64, 1, &n, big), KBV_OK);
    assert_int_equal(truncate(path_of("cut.npy"), 64 + 80), 0);
    assert_int_equal(kbv_npy_read(path_of("cut.npy"), &a), KBV_ERR_PARSE);
    assert_null(a.data);

    assert_int_equal(kbv_npy_read(path_of("missing.npy"), &a), KBV_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_f32_2d),
        cmocka_unit_test(test_round_trip_other_dtypes),
        cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_write_failures_are_reported),
        cmocka_unit_test(test_read_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
