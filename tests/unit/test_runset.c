/* Run directories and problem selections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/runset.h"

static char root[256];

static int make_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/kbv_test_runset_XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void touch(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("int x;\n", f);
    fclose(f);
}

static void test_name_parse(void **state)
{
    (void)state;
    int l, p, s;
    kbv_cand_kind k;
    assert_true(kbv_candidate_name_parse("level_1_problem_19_sample_0.cu", &l, &p, &s, &k));
    assert_int_equal(l, 1);
    assert_int_equal(p, 19);
    assert_int_equal(s, 0);
    assert_int_equal(k, KBV_CAND_CUDA);
    assert_true(kbv_candidate_name_parse("level_3_problem_100_sample_12.c", &l, &p, &s, &k));
    assert_int_equal(p, 100);
    assert_int_equal(s, 12);
    assert_int_equal(k, KBV_CAND_C);
    /* a sample kbv generate could not produce is a failed sample, not a stray file */
    assert_true(kbv_candidate_name_parse("level_1_problem_20_sample_3.failed.json", &l, &p, &s,
                                         &k));
    assert_int_equal(p, 20);
    assert_int_equal(s, 3);
    assert_int_equal(k, KBV_CAND_GEN_FAILED);
    assert_false(kbv_candidate_name_parse("level_1_problem_20_sample_3.response.json", &l, &p,
                                          &s, &k));
    /* KernelBench's own Python candidates are recognised, to be reported as such */
    assert_true(kbv_candidate_name_parse("level_1_problem_19_sample_0_kernel.py", &l, &p, &s,
                                         &k));
    assert_int_equal(k, KBV_CAND_KERNELBENCH_PY);
    assert_int_equal(p, 19);
    assert_true(kbv_candidate_name_parse("level_2_problem_7_sample_4.py", &l, &p, &s, &k));
    assert_int_equal(k, KBV_CAND_KERNELBENCH_PY);
    assert_int_equal(s, 4);
    assert_false(kbv_candidate_name_parse("level_1_problem_19_sample_0_kernel.pyc", &l, &p, &s,
                                          &k));
    const char *bad[] = {"level_1_problem_19_sample_0.cpp", "level_1_problem_19_sample_.cu",
                         "level_1_problem_19.cu", "level_-1_problem_19_sample_0.cu",
                         "xlevel_1_problem_19_sample_0.cu", "level_1_problem_19_sample_0.cu~",
                         "level_ 1_problem_19_sample_0.cu", "level_1_problem_19_sample_0",
                         "README.md", "level_1234567890_problem_1_sample_0.cu"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(kbv_candidate_name_parse(bad[i], &l, &p, &s, &k));
}

static void test_scan_orders_and_filters(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/model-a", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    touch(dir, "level_1_problem_19_sample_1.c");
    touch(dir, "level_1_problem_2_sample_0.c");
    touch(dir, "level_1_problem_19_sample_0.c");
    touch(dir, "level_1_problem_19_sample_0.cu");
    touch(dir, "notes.txt");
    kbv_runset rs;
    memset(&rs, 0, sizeof rs);
    char withslash[320];
    snprintf(withslash, sizeof withslash, "%s/", dir);
    FILE *notes = tmpfile();
    assert_int_equal(kbv_runset_scan(withslash, KBV_CAND_C, &rs, notes), KBV_OK);
    assert_int_equal(rs.n, 3);
    assert_string_equal(rs.jobs[0].model, "model-a");
    assert_int_equal(rs.jobs[0].problem_id, 2);
    assert_int_equal(rs.jobs[1].problem_id, 19);
    assert_int_equal(rs.jobs[1].sample, 0);
    assert_int_equal(rs.jobs[2].sample, 1);
    assert_int_equal(rs.jobs[2].kind, KBV_CAND_C);
    assert_non_null(strstr(rs.jobs[2].path, "level_1_problem_19_sample_1.c"));
    assert_int_equal(rs.other_device, 1);
    assert_int_equal(rs.not_candidates, 1);
    assert_int_equal(rs.n_dirs, 1);
    char buf[2048] = "";
    rewind(notes);
    size_t got = fread(buf, 1, sizeof buf - 1, notes);
    buf[got] = '\0';
    fclose(notes);
    assert_non_null(strstr(buf, "notes.txt"));
    assert_non_null(strstr(buf, "skipping 1 .cu file (this run is on the CPU)"));

    /* the GPU run takes the .cu file only */
    kbv_runset gpu;
    memset(&gpu, 0, sizeof gpu);
    assert_int_equal(kbv_runset_scan(dir, KBV_CAND_CUDA, &gpu, NULL), KBV_OK);
    assert_int_equal(gpu.n, 1);
    assert_int_equal(gpu.other_device, 3);
    kbv_runset_free(&gpu);
    kbv_runset_free(&rs);
}

static char *read_notes(FILE *notes, char *buf, size_t cap)
{
    rewind(notes);
    size_t got = fread(buf, 1, cap - 1, notes);
    buf[got] = '\0';
    return buf;
}

/* Every entry lands in one count; entries named like a candidate are jobs
 * whatever they are (the read decides), and nothing is opened: a fifo
 * named like a candidate would block an open. */
static void test_scan_accounts_for_every_entry(void **state)
{
    (void)state;
    char dir[300], path[700];
    snprintf(dir, sizeof dir, "%s/model-b", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    touch(dir, "level_1_problem_19_sample_0.c");
    touch(dir, "level_1_problem_19_sample_1.failed.json");
    touch(dir, "level_1_problem_19_sample_2.cu");
    touch(dir, "level_1_problem_19_sample_3_kernel.py");
    touch(dir, "level_1_problem_19_sample_4.py");
    touch(dir, "level_1_problem_19_sample_0.response.json");
    touch(dir, ".hidden");
    const char *others[] = {"README", "a.out", "notes.md", "x.cpp", "bad\033[31mname"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        touch(dir, others[i]);
    snprintf(path, sizeof path, "%s/logs", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/level_1_problem_19_sample_5.c", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/level_1_problem_19_sample_6.c", dir);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    snprintf(path, sizeof path, "%s/level_1_problem_19_sample_7.c", dir);
    assert_int_equal(mkfifo(path, 0644), 0);

    alarm(20);   /* a scan that opens the fifo blocks: fail instead of hanging */
    kbv_runset rs;
    memset(&rs, 0, sizeof rs);
    FILE *notes = tmpfile();
    assert_int_equal(kbv_runset_scan(dir, KBV_CAND_C, &rs, notes), KBV_OK);
    alarm(0);
    assert_int_equal(rs.n, 5);   /* samples 0, 1 (.failed.json), 5, 6, 7 */
    assert_int_equal(rs.jobs[1].kind, KBV_CAND_GEN_FAILED);
    assert_int_equal(rs.jobs[2].sample, 5);
    assert_int_equal(rs.jobs[4].sample, 7);
    assert_int_equal(rs.other_device, 1);
    assert_int_equal(rs.kernelbench_py, 2);
    assert_int_equal(rs.not_candidates, 6);   /* the five files and logs/ */
    assert_int_equal(rs.responses, 1);
    assert_int_equal(rs.hidden, 1);
    char buf[4096];
    read_notes(notes, buf, sizeof buf);
    fclose(notes);
    assert_non_null(strstr(buf, "skipping 1 .cu file (this run is on the CPU)"));
    assert_non_null(strstr(buf, "2 KernelBench Python candidates not evaluated"));
    assert_non_null(strstr(buf, "level_1_problem_19_sample_3_kernel.py"));
    assert_non_null(strstr(buf, "does not evaluate KernelBench's Python format"));
    assert_non_null(strstr(buf, "6 entries not evaluated, not named like a candidate"));
    assert_non_null(strstr(buf, " and 2 more\n"));
    assert_null(strchr(buf, '\033'));   /* names are printable */
    assert_null(strstr(buf, ".hidden"));
    assert_null(strstr(buf, "response.json"));
    kbv_runset_free(&rs);
}

/* Where the runner hosts Python, KernelBench-format files are jobs of
 * either device, not counted aside. */
static void test_scan_takes_python(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/model-kb", root);
    assert_int_equal(mkdir(dir, 0755), 0);
    touch(dir, "level_1_problem_19_sample_0_kernel.py");
    touch(dir, "level_1_problem_19_sample_1.py");
    touch(dir, "level_1_problem_19_sample_2.c");
    touch(dir, "level_1_problem_19_sample_3.cu");
    for (int gpu = 0; gpu < 2; gpu++) {
        kbv_runset rs;
        memset(&rs, 0, sizeof rs);
        rs.take_python = true;
        FILE *notes = tmpfile();
        assert_int_equal(kbv_runset_scan(dir, gpu ? KBV_CAND_CUDA : KBV_CAND_C, &rs, notes),
                         KBV_OK);
        assert_int_equal(rs.n, 3);
        assert_int_equal(rs.kernelbench_py, 0);
        assert_int_equal(rs.other_device, 1);
        assert_int_equal(rs.jobs[0].kind, KBV_CAND_KERNELBENCH_PY);
        assert_int_equal(rs.jobs[1].kind, KBV_CAND_KERNELBENCH_PY);
        assert_int_equal(rs.jobs[2].kind, gpu ? KBV_CAND_CUDA : KBV_CAND_C);
        assert_int_equal(rs.jobs[2].sample, gpu ? 3 : 2);
        char buf[2048];
        read_notes(notes, buf, sizeof buf);
        fclose(notes);
        assert_null(strstr(buf, "KernelBench"));
        kbv_runset_free(&rs);
    }
}

static void test_name_list(void **state)
{
    (void)state;
    kbv_name_list l = {0};
    char buf[512];
    FILE *f = tmpfile();
    kbv_name_list_add(&l, "a", NULL);
    kbv_name_list_print(f, &l);
    fputc('|', f);
    kbv_name_list_add(&l, "b\nc", " (a fifo)");
    kbv_name_list_print(f, &l);
    fputc('|', f);
    for (int i = 0; i < 5; i++)
        kbv_name_list_add(&l, "x", NULL);
    kbv_name_list_print(f, &l);
    assert_string_equal(read_notes(f, buf, sizeof buf),
                        "a|a and b?c (a fifo)|a, b?c (a fifo), x, x and 3 more");
    fclose(f);
    assert_int_equal(l.n, 7);
}

static void test_scan_unreadable_dir(void **state)
{
    (void)state;
    kbv_runset rs;
    memset(&rs, 0, sizeof rs);
    assert_int_equal(kbv_runset_scan("/nonexistent/model-q", KBV_CAND_C, &rs, NULL), KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_error(), "cannot read run directory /nonexistent/model-q"));
    assert_int_equal(kbv_runset_scan("/", KBV_CAND_C, &rs, NULL), KBV_ERR_INVALID);
    kbv_clear_error();
    kbv_runset_free(&rs);
}

static void test_problem_set_parse(void **state)
{
    (void)state;
    kbv_problem_set set;
    assert_int_equal(kbv_problem_set_parse("L1/1-32", &set), KBV_OK);
    assert_int_equal(set.n, 1);
    assert_true(kbv_problem_set_contains(&set, 1, 1));
    assert_true(kbv_problem_set_contains(&set, 1, 32));
    assert_false(kbv_problem_set_contains(&set, 1, 33));
    assert_false(kbv_problem_set_contains(&set, 2, 5));

    assert_int_equal(kbv_problem_set_parse("L1/1,l1/5,2/7", &set), KBV_OK);
    assert_int_equal(set.n, 3);
    assert_true(kbv_problem_set_contains(&set, 1, 5));
    assert_false(kbv_problem_set_contains(&set, 1, 4));
    assert_true(kbv_problem_set_contains(&set, 2, 7));

    assert_int_equal(kbv_problem_set_parse("L2", &set), KBV_OK);
    assert_true(kbv_problem_set_contains(&set, 2, 100));
    assert_false(kbv_problem_set_contains(&set, 1, 1));

    const char *bad[] = {"", "L1/", "L1/5-2", "L1/x", "L1/1,", "M1/1", "L1/1-", "L1/1 ,L1/2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(kbv_problem_set_parse(bad[i], &set), KBV_ERR_PARSE);
    kbv_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_parse),
        cmocka_unit_test(test_scan_orders_and_filters),
        cmocka_unit_test(test_scan_accounts_for_every_entry),
        cmocka_unit_test(test_scan_takes_python),
        cmocka_unit_test(test_name_list),
        cmocka_unit_test(test_scan_unreadable_dir),
        cmocka_unit_test(test_problem_set_parse),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
