/* Compile-ahead: the pool builds every source into the cache, once each; it
 * passes over jobs already reached; stopping it stops the builds under way
 * (compilers killed, nothing left in the cache); a pool of nothing is inert. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/compile.h"
#include "eval/compile_ahead.h"
#include "eval/sandbox.h"

#define N_SOURCES 6

static char dir[256];
static char cc_log[320];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_ahead_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char path[400];
    snprintf(path, sizeof path, "%s/cache", dir);
    setenv("KBV_CACHE_DIR", path, 1);   /* before the first kbv_cache_dir() */
    setenv("KBV_INCLUDE_DIR", KBV_TEST_SOURCE_DIR "/include", 1);
    /* cc, each build's pid logged, slowed by $CC_SLEEP seconds */
    snprintf(path, sizeof path, "%s/cc-logged", dir);
    write_file(path, "#!/bin/sh\n"
                     "if [ \"$1\" != --version ]; then\n"
                     "    echo $$ >> \"$CC_LOG\"\n"
                     "    [ -n \"$CC_SLEEP\" ] && sleep \"$CC_SLEEP\"\n"
                     "fi\n"
                     "exec cc \"$@\"\n");
    if (chmod(path, 0755))
        return -1;
    setenv("CC", path, 1);
    snprintf(cc_log, sizeof cc_log, "%s/cc.log", dir);
    setenv("CC_LOG", cc_log, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return kbv_sandbox_remove_dir(dir) == KBV_OK ? 0 : -1;
}

/* N_SOURCES distinct candidates (tag makes them differ between tests). */
static void make_sources(const char *tag, char paths[N_SOURCES][400], const char *srcs[N_SOURCES])
{
    for (int i = 0; i < N_SOURCES; i++) {
        char text[600];
        snprintf(text, sizeof text,
                 "/* %s %d */\n#include <kbv/candidate.h>\n"
                 "KBV_EXPORT int kbv_forward(const kbv_env *e, void *s, const kbv_tensor *in,"
                 " int ni, const kbv_tensor *p, int np, kbv_tensor *out, int no)\n"
                 "{ (void)e; (void)s; (void)in; (void)ni; (void)p; (void)np; (void)out;"
                 " (void)no; return 0; }\n", tag, i);
        snprintf(paths[i], 400, "%s/%s_%d.c", dir, tag, i);
        write_file(paths[i], text);
        srcs[i] = paths[i];
    }
}

static int lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void reset_log(void)
{
    unlink(cc_log);
}

/* The number of finished builds under the cache (entries with ok or failed). */
static int entries(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "find %s/cache/build -name ok -o -name failed 2>/dev/null | wc -l",
             dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = 0;
        pclose(p);
    }
    return n;
}

static int leftovers(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "find %s/cache -name '.tmp-*' -o -name '*.lock' 2>/dev/null | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static bool wait_for(int (*count)(void), int want, double seconds)
{
    double deadline = now_s() + seconds;
    while (count() < want && now_s() < deadline)
        usleep(20 * 1000);
    return count() >= want;
}

static int logged(void)
{
    return lines(cc_log);
}

static bool process_running(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

static void test_builds_every_source_once(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("all", paths, srcs);
    reset_log();
    int before = entries();
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = N_SOURCES, .parallel = 2};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    assert_true(pool.pid > 0);
    assert_true(wait_for(entries, before + N_SOURCES, 60));
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&pool, &s);
    assert_int_equal(pool.pid, -1);
    assert_int_equal(s.built, N_SOURCES);
    assert_int_equal(s.failed + s.cached + s.passed + s.left, 0);
    assert_true(s.seconds > 0);
    assert_int_equal(logged(), N_SOURCES);
    /* what an evaluator then finds: each one cached, with its build's time */
    for (int i = 0; i < N_SOURCES; i++) {
        static kbv_compile_result r;
        kbv_compile_opts co = {.source = srcs[i]};
        assert_int_equal(kbv_compile(&co, &r), KBV_OK);
        assert_true(r.ok);
        assert_true(r.cached);
        assert_true(r.seconds > 0);
    }
    assert_int_equal(logged(), N_SOURCES);
    assert_int_equal(leftovers(), 0);
}

static void test_passes_over_reached_jobs(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("reached", paths, srcs);
    srcs[5] = NULL;   /* nothing to build (a generation failure) */
    reset_log();
    setenv("CC_SLEEP", "0.3", 1);
    int before = entries();
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = N_SOURCES, .parallel = 1};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    /* the pool starts job 0 before it reads anything; 1..3 are then passed */
    kbv_compile_ahead_reached(&pool, 3);
    assert_true(wait_for(entries, before + 2, 60));
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&pool, &s);
    unsetenv("CC_SLEEP");
    assert_int_equal(s.built, 2);      /* jobs 0 and 4 */
    assert_int_equal(s.passed, 3);
    assert_int_equal(s.left, 0);
    assert_int_equal(logged(), 2);
}

static void test_stop_ends_the_builds_under_way(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("stop", paths, srcs);
    reset_log();
    setenv("CC_SLEEP", "30", 1);
    int before = entries();
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = N_SOURCES, .parallel = 2};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    assert_true(wait_for(logged, 2, 30));
    double t0 = now_s();
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&pool, &s);
    unsetenv("CC_SLEEP");
    assert_true(now_s() - t0 < 5.0);
    assert_int_equal(s.left, 2);
    assert_int_equal(s.built, 0);
    assert_int_equal(entries(), before);
    assert_int_equal(leftovers(), 0);
    /* the compilers (still in their sleep) are gone with their process group */
    FILE *f = fopen(cc_log, "r");
    assert_non_null(f);
    int pid, n = 0;
    while (fscanf(f, "%d", &pid) == 1) {
        for (int i = 0; i < 200 && process_running(pid); i++)
            usleep(10 * 1000);
        assert_false(process_running(pid));
        n++;
    }
    fclose(f);
    assert_int_equal(n, 2);
}

static void test_no_pool(void **state)
{
    (void)state;
    const char *srcs[1] = {"/nonexistent.c"};
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = 1, .parallel = 0};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    assert_int_equal(pool.pid, -1);
    kbv_compile_ahead_reached(&pool, 0);
    kbv_compile_ahead_stats s = {.built = 7};
    kbv_compile_ahead_stop(&pool, &s);
    assert_int_equal(s.built, 0);
    assert_true(kbv_compile_ahead_default_parallel() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builds_every_source_once),
        cmocka_unit_test(test_passes_over_reached_jobs),
        cmocka_unit_test(test_stop_ends_the_builds_under_way),
        cmocka_unit_test(test_no_pool),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
