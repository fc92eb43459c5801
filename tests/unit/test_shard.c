/* Shards: --shard parsing, the launcher's environment, the assignment of
 * samples to shards and the shards' file names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/shard.h"

static const char *const env_vars[] = {"SLURM_PROCID", "SLURM_NTASKS", "OMPI_COMM_WORLD_RANK",
                                       "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE"};

static int clear_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++)
        unsetenv(env_vars[i]);
    kbv_clear_error();
    return 0;
}

static void test_parse(void **state)
{
    (void)state;
    kbv_shard s;
    assert_int_equal(kbv_shard_parse("0/1", &s), KBV_OK);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 1);
    assert_int_equal(kbv_shard_parse("2/3", &s), KBV_OK);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 3);
    assert_string_equal(s.source, "--shard");
    assert_int_equal(kbv_shard_parse("127/128", &s), KBV_OK);
    assert_int_equal(s.index, 127);

    const char *bad[] = {"3/3", "-1/3", "1/0", "0/0", "a/b", "1", "1/", "/3", " 1/3", "1/3x",
                         "1/+3", "1//3", "", "9999999999/3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(kbv_shard_parse(bad[i], &s), KBV_ERR_PARSE);
        assert_non_null(strstr(kbv_last_error(), "--shard"));
        kbv_clear_error();
    }
    assert_int_equal(kbv_shard_parse(NULL, &s), KBV_ERR_PARSE);
    kbv_clear_error();
}

static void test_env_absent(void **state)
{
    (void)state;
    kbv_shard s;
    bool found = true;
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_false(found);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 1);
    /* half a pair (a Slurm batch script without --ntasks) is not a launcher */
    setenv("SLURM_PROCID", "0", 1);
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_false(found);
    assert_int_equal(s.count, 1);
}

static void test_env_order(void **state)
{
    (void)state;
    kbv_shard s;
    bool found;
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "5", 1);
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_true(found);
    assert_int_equal(s.index, 1);
    assert_int_equal(s.count, 5);
    assert_string_equal(s.source, "PMI_RANK/PMI_SIZE");

    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 4);
    assert_string_equal(s.source, "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");

    setenv("SLURM_PROCID", "0", 1);    /* half a pair: passed over */
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_int_equal(s.count, 4);
    setenv("SLURM_NTASKS", "3", 1);
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_OK);
    assert_int_equal(s.index, 0);
    assert_int_equal(s.count, 3);
    assert_string_equal(s.source, "SLURM_PROCID/SLURM_NTASKS");

    /* an explicit --shard wins over every launcher */
    assert_int_equal(kbv_shard_resolve("1/2", &s), KBV_OK);
    assert_int_equal(s.index, 1);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.source, "--shard");
    assert_int_equal(kbv_shard_resolve(NULL, &s), KBV_OK);
    assert_int_equal(s.count, 3);
}

static void expect_env_error(const char *rank_var, const char *rank, const char *size_var,
                             const char *size, const char *mentions)
{
    kbv_shard s;
    bool found;
    clear_env(NULL);
    setenv(rank_var, rank, 1);
    setenv(size_var, size, 1);
    assert_int_equal(kbv_shard_from_env(&s, &found), KBV_ERR_PARSE);
    assert_non_null(strstr(kbv_last_error(), mentions));
    kbv_clear_error();
    assert_int_equal(kbv_shard_resolve(NULL, &s), KBV_ERR_PARSE);
    kbv_clear_error();
    /* --shard makes a broken environment irrelevant */
    assert_int_equal(kbv_shard_resolve("0/2", &s), KBV_OK);
}

static void test_env_bad_values(void **state)
{
    (void)state;
    expect_env_error("SLURM_PROCID", "x", "SLURM_NTASKS", "3", "SLURM_PROCID='x'");
    expect_env_error("SLURM_PROCID", "3", "SLURM_NTASKS", "3", "SLURM_PROCID=3 is not below");
    expect_env_error("SLURM_PROCID", "0", "SLURM_NTASKS", "0", "SLURM_NTASKS='0'");
    expect_env_error("SLURM_PROCID", "-1", "SLURM_NTASKS", "2", "SLURM_PROCID");
    expect_env_error("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "", "OMPI_COMM_WORLD_SIZE");
    expect_env_error("PMI_RANK", " 1", "PMI_SIZE", "2", "PMI_RANK");
}

/* The assignment exactly as shard.h documents it, written out again. */
static uint64_t documented_hash(const char *model, int level, int id, int sample)
{
    char text[256];
    snprintf(text, sizeof text, "%s\nL%d/%d\n%d", model, level, id, sample);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = text; *p; p++) {
        h ^= (unsigned char)*p;
        h *= 0x100000001b3ULL;
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

static void test_assignment(void **state)
{
    (void)state;
    const char *models[] = {"demo-a", "demo-b", "gpt-x", "a-model-with-a-long-name"};
    for (int count = 1; count <= 9; count++) {
        int per[9] = {0}, n = 0;
        for (size_t m = 0; m < 4; m++)
            for (int id = 1; id <= 100; id++)
                for (int sample = 0; sample < 5; sample++) {
                    int s = kbv_shard_of(models[m], 1, id, sample, count);
                    assert_true(s >= 0 && s < count);
                    assert_int_equal((uint64_t)s, documented_hash(models[m], 1, id, sample) %
                                                      (uint64_t)count);
                    /* the same sample, asked again, lands in the same shard */
                    assert_int_equal(s, kbv_shard_of(models[m], 1, id, sample, count));
                    per[s]++;
                    n++;
                }
        /* 2000 samples: every shard gets its share, within 20% */
        for (int s = 0; s < count; s++)
            assert_true(per[s] > 0.8 * n / count && per[s] < 1.2 * n / count);
    }
    /* pinned: moving samples between shards would break every shard's resume */
    assert_int_equal(kbv_shard_hash("demo-a", 1, 19, 0), documented_hash("demo-a", 1, 19, 0));
    assert_int_equal(kbv_shard_of("demo-a", 1, 19, 0, 1), 0);
    assert_int_equal(kbv_shard_of("demo-a", 1, 19, 0, 0), 0);
    /* identity matters, and the fields do not run into each other */
    assert_true(kbv_shard_hash("m", 1, 19, 0) != kbv_shard_hash("m", 1, 19, 1));
    assert_true(kbv_shard_hash("m", 1, 1, 90) != kbv_shard_hash("m", 1, 19, 0));
    assert_true(kbv_shard_hash("m1", 1, 9, 0) != kbv_shard_hash("m", 11, 9, 0));
}

static void test_out_path(void **state)
{
    (void)state;
    char buf[64];
    kbv_shard s = {.index = 1, .count = 3};
    assert_int_equal(kbv_shard_out_path("results.jsonl", &s, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "results.shard-1-of-3.jsonl");
    assert_int_equal(kbv_shard_out_path("out/a.b.jsonl", &s, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "out/a.b.shard-1-of-3.jsonl");
    assert_int_equal(kbv_shard_out_path("results", &s, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "results.shard-1-of-3");
    assert_int_equal(kbv_shard_out_path(".jsonl", &s, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, ".jsonl.shard-1-of-3");
    kbv_shard one = {.index = 0, .count = 1};
    assert_int_equal(kbv_shard_out_path("results.jsonl", &one, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "results.jsonl");
    char small[20];
    assert_int_equal(kbv_shard_out_path("results.jsonl", &s, small, sizeof small),
                     KBV_ERR_INVALID);
    kbv_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_parse, clear_env),
        cmocka_unit_test_setup(test_env_absent, clear_env),
        cmocka_unit_test_setup(test_env_order, clear_env),
        cmocka_unit_test_setup(test_env_bad_values, clear_env),
        cmocka_unit_test(test_assignment),
        cmocka_unit_test(test_out_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
