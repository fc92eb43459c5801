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

#include "support/processes.h"

#include "eval/compile.h"
#include "eval/compile_ahead.h"
#include "sandbox/workdir.h"

#define N_SOURCES 6

static char dir[256];

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

/* CC for the builds that follow: one of the scripts setup wrote. */
static void use_cc(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    setenv("CC", path, 1);
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
    /* cc that says it built (into the build's compile.log, the one channel
     * out of the compiler's sandbox), plain, slowed, or hanging */
    static const char *const scripts[][2] = {
        {"cc-logged", ""}, {"cc-slow", "sleep 0.3\n"}, {"cc-hang", "sleep 30.0423\n"}};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "#!/bin/sh\n"
                 "if [ \"$1\" != --version ]; then\n"
                 "    echo kbv-test-built >&2\n"
                 "    %s"
                 "fi\n"
                 "exec cc \"$@\"\n", scripts[i][1]);
        snprintf(path, sizeof path, "%s/%s", dir, scripts[i][0]);
        write_file(path, text);
        if (chmod(path, 0755))
            return -1;
    }
    use_cc("cc-logged");
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

/* Compiler runs that finished a build: entries whose log says so. */
static int logged(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "grep -rl kbv-test-built %s/cache/build --include=compile.log 2>/dev/null | wc -l",
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

static void test_builds_every_source_once(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("all", paths, srcs);
    int before = entries(), before_logged = logged();
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
    assert_int_equal(logged() - before_logged, N_SOURCES);
    /* what an evaluator then finds: each one cached, with its build's time */
    for (int i = 0; i < N_SOURCES; i++) {
        static kbv_compile_result r;
        kbv_compile_opts co = {.source = srcs[i]};
        assert_int_equal(kbv_compile(&co, &r), KBV_OK);
        assert_true(r.ok);
        assert_true(r.cached);
        assert_true(r.seconds > 0);
    }
    assert_int_equal(logged() - before_logged, N_SOURCES);
    assert_int_equal(leftovers(), 0);
}

static void test_passes_over_reached_jobs(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("reached", paths, srcs);
    srcs[5] = NULL;   /* nothing to build (a generation failure) */
    use_cc("cc-slow");
    int before = entries(), before_logged = logged();
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = N_SOURCES, .parallel = 1};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    /* the pool starts job 0 before it reads anything; 1..3 are then passed */
    kbv_compile_ahead_reached(&pool, 3);
    assert_true(wait_for(entries, before + 2, 60));
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&pool, &s);
    use_cc("cc-logged");
    assert_int_equal(s.built, 2);      /* jobs 0 and 4 */
    assert_int_equal(s.passed, 3);
    assert_int_equal(s.left, 0);
    assert_int_equal(logged() - before_logged, 2);
}

/* 2 once the hanging compiler is seen running (the pool runs two at a
 * time), else 0. */
static int hanging_two(void)
{
    return kbv_test_process_with_arg("30.0423") ? 2 : 0;
}

static void test_stop_ends_the_builds_under_way(void **state)
{
    (void)state;
    char paths[N_SOURCES][400];
    const char *srcs[N_SOURCES];
    make_sources("stop", paths, srcs);
    use_cc("cc-hang");
    int before = entries();
    kbv_compile_ahead pool;
    kbv_compile_ahead_opts o = {.sources = srcs, .n = N_SOURCES, .parallel = 2};
    assert_int_equal(kbv_compile_ahead_start(&o, &pool), KBV_OK);
    assert_true(wait_for(hanging_two, 2, 30));
    double t0 = now_s();
    kbv_compile_ahead_stats s;
    kbv_compile_ahead_stop(&pool, &s);
    use_cc("cc-logged");
    assert_true(now_s() - t0 < 5.0);
    assert_int_equal(s.left, 2);
    assert_int_equal(s.built, 0);
    assert_int_equal(entries(), before);
    assert_int_equal(leftovers(), 0);
    /* the compilers (still in their sleep) are gone with their process group */
    assert_true(kbv_test_gone_soon("30.0423"));
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
