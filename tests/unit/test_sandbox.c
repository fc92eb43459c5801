/* The sandbox's pieces: policies (link resolution, order, hiding) and
 * confined processes, in each confinement this machine allows (the jail,
 * Landlock alone): what a program started by kbv_sandbox_spawn can see,
 * write and hold. The programs are /bin/sh one-liners whose exit status
 * says which check failed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/landlock.h"
#include "sandbox/policy.h"
#include "sandbox/spawn_internal.h"
#include "sandbox/workdir.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_sandbox_XXXXXX");
    if (!mkdtemp(dir) || chmod(dir, 0755) != 0)
        return -1;
    setenv("TMPDIR", dir, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return kbv_sandbox_remove_dir(dir) == KBV_OK ? 0 : -1;
}

static void make_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const kbv_policy_entry *find(const kbv_policy *p, const char *path)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].path, path))
            return &p->v[i];
    return NULL;
}

/* A path through a link becomes the link (recreated in the jail) and its
 * resolved target. */
static void test_links_are_resolved(void **state)
{
    (void)state;
    char real[400], link[400], file[450], via[450];
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(file, sizeof file, "%s/file.txt", real);
    snprintf(via, sizeof via, "%s/file.txt", link);
    assert_int_equal(mkdir(real, 0755), 0);
    assert_int_equal(symlink("real", link), 0);
    make_file(file, "x\n");

    kbv_policy p = {0};
    assert_int_equal(kbv_policy_add(&p, via, KBV_ACCESS_READ), KBV_OK);
    kbv_policy_finish(&p);
    const kbv_policy_entry *l = find(&p, link), *f = find(&p, file);
    assert_non_null(l);
    assert_int_equal(l->kind, KBV_ENTRY_LINK);
    assert_string_equal(l->target, "real");
    assert_non_null(f);
    assert_int_equal(f->kind, KBV_ENTRY_FILE);
    assert_int_equal(f->access, KBV_ACCESS_READ);
    assert_int_equal(kbv_policy_add(&p, "/nonexistent/kbv", KBV_ACCESS_READ), KBV_ERR_NOT_FOUND);
    /* relative paths are taken from the current directory */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(kbv_policy_add(&p, "real/file.txt", KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_string_equal(p.v[p.n - 1].path, file);
    assert_int_equal(kbv_policy_add_if_present(&p, "/nonexistent/kbv", KBV_ACCESS_READ), KBV_OK);
    kbv_policy_free(&p);
}

/* Parents before what lies beneath them (so bind mounts stack), duplicates
 * merged, a hide winning over an exposure of the same path. */
static void test_order_and_merging(void **state)
{
    (void)state;
    kbv_policy p = {0};
    assert_int_equal(kbv_policy_add(&p, "/usr/bin", KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(kbv_policy_add(&p, dir, KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(kbv_policy_add(&p, "/usr", KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(kbv_policy_add(&p, "/usr", KBV_ACCESS_EXEC), KBV_OK);
    assert_int_equal(kbv_policy_hide(&p, dir), KBV_OK);
    kbv_policy_finish(&p);
    int usr = -1, bin = -1;
    for (int i = 0; i < p.n; i++) {
        if (!strcmp(p.v[i].path, "/usr"))
            usr = i;
        if (!strcmp(p.v[i].path, "/usr/bin"))
            bin = i;
    }
    assert_true(usr >= 0 && bin > usr);
    assert_int_equal(p.v[usr].access, KBV_ACCESS_READ | KBV_ACCESS_EXEC);
    const kbv_policy_entry *d = find(&p, dir);
    assert_non_null(d);
    assert_int_equal(d->kind, KBV_ENTRY_HIDE);
    for (int i = 1; i < p.n; i++)
        assert_true(strcmp(p.v[i - 1].path, p.v[i].path) != 0);
    kbv_policy_free(&p);
}

/* Runs `sh -c script` confined by plan under policy p; returns its exit
 * status, or -1 when it could not be started (the reason printed). */
static int run_sh(kbv_spawn_plan *plan, const kbv_policy *p, const char *script)
{
    const char *sh = access("/usr/bin/sh", X_OK) == 0 ? "/usr/bin/sh" : "/bin/sh";
    char *const argv[] = {(char *)sh, "-c", (char *)script, NULL};
    char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
    kbv_spawn s = {.path = sh, .argv = argv, .envp = envp, .policy = p, .cwd = "/",
                   .own_group = true, .limit_nofile = 64};
    pid_t pid = -1;
    if (kbv_spawn_with_plan(&s, plan, &pid) != KBV_OK) {
        fprintf(stderr, "%s\n", kbv_last_error());
        kbv_clear_error();
        return -1;
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* run_sh under the system's policy plus `writable` (may be NULL). */
static int run_confined(kbv_spawn_plan *plan, const char *writable, const char *script)
{
    kbv_policy p = {.proc = true, .proc_task_writable = true};
    assert_int_equal(kbv_policy_add_system(&p), KBV_OK);
    assert_int_equal(kbv_policy_add_devices(&p, false), KBV_OK);
    if (writable)
        assert_int_equal(kbv_policy_add(&p, writable, KBV_ACCESS_READ | KBV_ACCESS_WRITE), KBV_OK);
    kbv_policy_finish(&p);
    int rc = run_sh(plan, &p, script);
    kbv_policy_free(&p);
    return rc;
}

/* What every confinement must hold, checked from inside: a secret file of
 * the evaluator's cannot be read, the system can, nothing outside the one
 * writable directory can be written, no capability is left, no_new_privs
 * is set, the file limit holds; its own threads can be named (the CUDA
 * driver needs it), and no sysctl can be written (uid 0 inside may be uid 0
 * outside). */
static void check_confinement(kbv_spawn_plan *plan, const char *what)
{
    char secret[400], out_dir[400], script[4096];
    snprintf(secret, sizeof secret, "%s/secret-%s.txt", dir, what);
    snprintf(out_dir, sizeof out_dir, "%s/out-%s", dir, what);
    make_file(secret, "kbv-sandbox-secret\n");
    assert_int_equal(mkdir(out_dir, 0755), 0);
    snprintf(script, sizeof script,
             "cat '%s' 2>/dev/null && exit 10; "
             "test -r /usr/bin/true || exit 11; "
             "echo x > '%s/escaped' 2>/dev/null && exit 12; "
             "echo x > '%s/inside' || exit 13; "
             "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || exit 14; "
             "grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status || exit 15; "
             "test \"$(ulimit -n)\" -le 64 || exit 16; "
             "echo kbv-named > /proc/self/task/$$/comm || exit 17; "
             "echo 0 > /proc/sys/kernel/printk_ratelimit 2>/dev/null && exit 18; "
             "exit 0", secret, dir, out_dir);
    int rc = run_confined(plan, out_dir, script);
    if (rc != 0)
        fprintf(stderr, "%s: the confined shell exited with %d\n", what, rc);
    assert_int_equal(rc, 0);
    char path[500];
    snprintf(path, sizeof path, "%s/escaped", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/inside", out_dir);
    assert_int_equal(access(path, F_OK), 0);
}

static void test_jail(void **state)
{
    (void)state;
    kbv_spawn_plan plan = {.namespaces = true, .user_ns = true};
    if (run_confined(&plan, NULL, "exit 0") != 0) {
        plan.user_ns = false;   /* root on a kernel without user namespaces */
        if (geteuid() != 0 || run_confined(&plan, NULL, "exit 0") != 0) {
            fprintf(stderr, "no namespaces on this machine: the jail is not tested\n");
            skip();
        }
    }
    check_confinement(&plan, "jail");
    /* the jail's own PID namespace: the shell is its first process, and the
     * evaluator's processes do not exist there */
    char script[128];
    snprintf(script, sizeof script, "test $$ -eq 1 || exit 20; test ! -e /proc/%d || exit 21",
             (int)getpid());
    assert_int_equal(run_confined(&plan, NULL, script), 0);
}

/* A hidden directory inside an exposed one shows nothing but what the
 * policy places beneath it. */
static void test_hidden_inside_exposed(void **state)
{
    (void)state;
    kbv_spawn_plan plan = {.namespaces = true, .user_ns = true};
    if (run_confined(&plan, NULL, "exit 0") != 0) {
        plan.user_ns = false;
        if (geteuid() != 0 || run_confined(&plan, NULL, "exit 0") != 0)
            skip();
    }
    char top[400], hidden[450], secret[500], placed[500];
    snprintf(top, sizeof top, "%s/exposed", dir);
    snprintf(hidden, sizeof hidden, "%s/cache", top);
    snprintf(secret, sizeof secret, "%s/baseline.jsonl", hidden);
    snprintf(placed, sizeof placed, "%s/placed.txt", hidden);
    assert_int_equal(mkdir(top, 0755), 0);
    assert_int_equal(mkdir(hidden, 0755), 0);
    make_file(secret, "secret\n");
    make_file(placed, "placed\n");
    kbv_policy p = {.proc = true};
    assert_int_equal(kbv_policy_add_system(&p), KBV_OK);
    assert_int_equal(kbv_policy_add(&p, top, KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(kbv_policy_add(&p, placed, KBV_ACCESS_READ), KBV_OK);
    assert_int_equal(kbv_policy_hide(&p, hidden), KBV_OK);
    kbv_policy_finish(&p);
    char script[2048];
    snprintf(script, sizeof script,
             "test -d '%s' || exit 30; test -e '%s' && exit 31; test -r '%s' || exit 32; "
             "touch '%s/new' 2>/dev/null && exit 33; exit 0", top, secret, placed, hidden);
    assert_int_equal(run_sh(&plan, &p, script), 0);
    kbv_policy_free(&p);
}

/* The directories the system's policy takes from a path list (the
 * libraries kbv was started with, LD_LIBRARY_PATH; the hosted interpreter's
 * trees, KBV_PYTHON_TREES, go through the same list): readable, never
 * writable. */
static void test_path_list_read_only(void **state)
{
    (void)state;
    kbv_spawn_plan plan = {.namespaces = true, .user_ns = true};
    if (run_confined(&plan, NULL, "exit 0") != 0) {
        plan.user_ns = false;
        if (geteuid() != 0 || run_confined(&plan, NULL, "exit 0") != 0)
            skip();
    }
    char libs[400], lib[450], script[2048];
    snprintf(libs, sizeof libs, "%s/listed-libs", dir);
    snprintf(lib, sizeof lib, "%s/libexample.so", libs);
    assert_int_equal(mkdir(libs, 0755), 0);
    make_file(lib, "not a library\n");
    const char *was = getenv("LD_LIBRARY_PATH");
    char *saved = was ? strdup(was) : NULL;
    assert_int_equal(setenv("LD_LIBRARY_PATH", libs, 1), 0);
    snprintf(script, sizeof script,
             "test -r '%s' || exit 40; echo x > '%s' 2>/dev/null && exit 41; "
             "touch '%s/new' 2>/dev/null && exit 42; exit 0", lib, lib, libs);
    int rc = run_confined(&plan, NULL, script);
    if (saved) {
        setenv("LD_LIBRARY_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("LD_LIBRARY_PATH");
    }
    assert_int_equal(rc, 0);
}

static void test_landlock_alone(void **state)
{
    (void)state;
    int abi = kbv_landlock_abi();
    if (abi < 1) {
        fprintf(stderr, "no Landlock in this kernel: not tested\n");
        skip();
    }
    kbv_spawn_plan plan = {.landlock_abi = abi};
    check_confinement(&plan, "landlock");
}

/* A step that fails is reported with what it was; the program never runs. */
static void test_failures_are_described(void **state)
{
    (void)state;
    kbv_policy p = {0};
    assert_int_equal(kbv_policy_add_system(&p), KBV_OK);
    kbv_policy_finish(&p);
    char *const argv[] = {"/nonexistent/program", NULL};
    char *const envp[] = {NULL};
    kbv_spawn s = {.path = "/nonexistent/program", .argv = argv, .envp = envp, .policy = &p,
                   .cwd = "/"};
    kbv_spawn_plan plan = {.landlock_abi = kbv_landlock_abi()};
    pid_t pid = -1;
    assert_int_equal(kbv_spawn_with_plan(&s, &plan, &pid), KBV_ERR_CHILD);
    assert_non_null(strstr(kbv_last_error(), "executing the program"));
    assert_non_null(strstr(kbv_last_error(), "/nonexistent/program"));
    kbv_clear_error();
    kbv_policy_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links_are_resolved),
        cmocka_unit_test(test_order_and_merging),
        cmocka_unit_test(test_jail),
        cmocka_unit_test(test_hidden_inside_exposed),
        cmocka_unit_test(test_path_list_read_only),
        cmocka_unit_test(test_landlock_alone),
        cmocka_unit_test(test_failures_are_described),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
