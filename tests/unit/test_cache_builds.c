/* Builds under way in the compile cache (eval/cache_builds.h): a build's own
 * directory is locked and never swept, a dead build's directory and lock are
 * removed by the next build in their shard (a killed run's leftovers go with
 * the rerun), what another process holds stays until that process is gone,
 * nothing but .tmp- directories and .lock files is touched (never through a
 * symbolic link), a sweep of the whole cache reaches every shard, a published
 * directory outlives kbv_build_dir_end, and a process that waited on a lock
 * its holder removed ends up holding the lock file that is there, so no two
 * hold one entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/cache_builds.h"
#include "sandbox/workdir.h"

static const char key[] = "ae280f95c91ebf841ae8400be075bd192fcced78024e54d5c6891b9f2e363fa0";
static char shard[256];

static bool exists(const char *path)
{
    struct stat s;
    return lstat(path, &s) == 0;
}

static void make_dir(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", shard, name);
    assert_int_equal(mkdir(out, 0755), 0);
    char file[512];
    snprintf(file, sizeof file, "%s/candidate.c", out);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("int x;\n", f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(shard, sizeof shard, "/tmp/kbv_test_build_dir_XXXXXX");
    return mkdtemp(shard) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return kbv_sandbox_remove_dir(shard) == KBV_OK ? 0 : -1;
}

static void test_own_directory_is_locked_and_kept(void **state)
{
    (void)state;
    kbv_build_dir d;
    assert_int_equal(kbv_build_dir_make(shard, key, &d), KBV_OK);
    assert_true(d.fd >= 0);
    assert_non_null(strstr(d.path, "/.tmp-ae280f95c91ebf84-"));
    assert_true(exists(d.path));
    int removed = -1;
    kbv_build_sweep(shard, &removed);   /* a sweep by another build: ours is live */
    assert_int_equal(removed, 0);
    assert_true(exists(d.path));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", d.path);
    assert_int_equal(kbv_build_dir_end(&d), KBV_OK);
    assert_false(exists(path));
    assert_int_equal(d.fd, -1);
    assert_int_equal(kbv_build_dir_end(&d), KBV_OK);   /* a second end does nothing */
}

static void test_dead_build_is_swept_by_the_next(void **state)
{
    (void)state;
    char dead[512], entry[512], other[512];
    make_dir(".tmp-ae280f95c91ebf84-KILLED", dead, sizeof dead);   /* nobody holds it */
    make_dir("ae280f95c91ebf841ae8400be075bd192fcced78024e54d5c6891b9f2e363fa1", entry,
             sizeof entry);
    make_dir("tmp-not-ours", other, sizeof other);
    kbv_build_dir d;
    assert_int_equal(kbv_build_dir_make(shard, key, &d), KBV_OK);
    assert_false(exists(dead));
    assert_true(exists(entry));
    assert_true(exists(other));
    assert_true(exists(d.path));
    assert_int_equal(kbv_build_dir_end(&d), KBV_OK);
    kbv_sandbox_remove_dir(entry);
    kbv_sandbox_remove_dir(other);
}

/* A .tmp- or .lock name planted as a symbolic link (to a directory or file
 * outside the shard) is never followed: what it points to stays whole. */
static void test_sweep_never_follows_a_link(void **state)
{
    (void)state;
    char outside[512], victim[600], link_dir[512], link_lock[512], target_file[600];
    make_dir("outside", outside, sizeof outside);
    snprintf(victim, sizeof victim, "%s/candidate.c", outside);
    snprintf(target_file, sizeof target_file, "%s/keep.lock", outside);
    FILE *f = fopen(target_file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(link_dir, sizeof link_dir, "%s/.tmp-ae280f95c91ebf84-LINKED", shard);
    snprintf(link_lock, sizeof link_lock, "%s/%s.lock", shard, key);
    assert_int_equal(symlink(outside, link_dir), 0);
    assert_int_equal(symlink(target_file, link_lock), 0);
    int removed = -1;
    kbv_build_sweep(shard, &removed);
    assert_int_equal(removed, 0);
    assert_true(exists(victim));
    assert_true(exists(target_file));
}

static void test_held_directory_stays_until_its_holder_ends(void **state)
{
    (void)state;
    char held[512];
    make_dir(".tmp-0123456789abcdef-HELD00", held, sizeof held);
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {   /* another build's process, holding its directory */
        int fd = open(held, O_RDONLY | O_DIRECTORY);
        char c = 0;
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], "r", 1) != 1 ||
            read(go[0], &c, 1) < 0)
            _exit(1);
        _exit(0);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    int removed = -1;
    kbv_build_sweep(shard, &removed);
    assert_int_equal(removed, 0);
    assert_true(exists(held));
    assert_int_equal(write(go[1], "g", 1), 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    kbv_build_sweep(shard, &removed);   /* its process is gone: so is the build */
    assert_int_equal(removed, 1);
    assert_false(exists(held));
    close(go[0]);
    close(go[1]);
    close(ready[0]);
    close(ready[1]);
}

static void test_published_directory_outlives_end(void **state)
{
    (void)state;
    kbv_build_dir d;
    assert_int_equal(kbv_build_dir_make(shard, key, &d), KBV_OK);
    char entry[512];
    snprintf(entry, sizeof entry, "%s/%s", shard, key);
    assert_int_equal(kbv_build_dir_publish(&d, entry), KBV_OK);
    assert_string_equal(d.path, "");
    assert_int_equal(kbv_build_dir_end(&d), KBV_OK);
    assert_true(exists(entry));

    /* a second build of the same bytes finds the entry published: its own
     * directory is left for end to remove, and the entry stays */
    char file[PATH_MAX + 8];
    snprintf(file, sizeof file, "%s/ok", entry);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    kbv_build_dir e;
    assert_int_equal(kbv_build_dir_make(shard, key, &e), KBV_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", e.path);
    snprintf(file, sizeof file, "%s/ok", path);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(kbv_build_dir_publish(&e, entry), KBV_OK);
    assert_string_not_equal(e.path, "");
    assert_int_equal(kbv_build_dir_end(&e), KBV_OK);
    assert_false(exists(path));
    assert_true(exists(entry));
    kbv_sandbox_remove_dir(entry);
}

/* The first build of a process sweeps every shard (here the fixture's
 * directory stands for the cache's build/ and holds two shards and a file). */
static void test_sweep_all_covers_every_shard(void **state)
{
    (void)state;
    char a[512], b[512], dead_a[600], dead_b[600], keep[600], file[512];
    make_dir("ae", a, sizeof a);
    make_dir("0f", b, sizeof b);
    snprintf(dead_a, sizeof dead_a, "%s/.tmp-ae00000000000000-DEAD01", a);
    snprintf(dead_b, sizeof dead_b, "%s/.tmp-0f00000000000000-DEAD02", b);
    snprintf(keep, sizeof keep, "%s/0f00000000000000000000000000000000", b);
    assert_int_equal(mkdir(dead_a, 0755), 0);
    assert_int_equal(mkdir(dead_b, 0755), 0);
    assert_int_equal(mkdir(keep, 0755), 0);
    snprintf(file, sizeof file, "%s/not-a-shard", shard);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    int removed = -1;
    kbv_build_sweep_all(shard, &removed);
    assert_int_equal(removed, 2);
    assert_false(exists(dead_a));
    assert_false(exists(dead_b));
    assert_true(exists(keep));
    assert_true(exists(file));
}

static void test_missing_shard_is_an_io_error(void **state)
{
    (void)state;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/shard", shard);
    int removed = -1;
    kbv_build_sweep(missing, &removed);
    assert_int_equal(removed, 0);
    kbv_build_dir d;
    assert_int_equal(kbv_build_dir_make(missing, key, &d), KBV_ERR_IO);
    assert_string_equal(d.path, "");
    assert_int_equal(d.fd, -1);
    assert_int_equal(kbv_build_dir_end(&d), KBV_OK);
}

static void test_lock_is_exclusive_and_its_file_goes_with_unlock(void **state)
{
    (void)state;
    char lock[512];
    snprintf(lock, sizeof lock, "%s/%s.lock", shard, key);
    int fd = kbv_build_lock(lock, 1.0, NULL);
    assert_true(fd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {   /* another process's build of the same entry gives up after its wait */
        int other = kbv_build_lock(lock, 0.05, NULL);
        _exit(other < 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    int removed = -1;
    kbv_build_sweep(shard, &removed);   /* held: not a dead build's */
    assert_int_equal(removed, 0);
    assert_true(exists(lock));
    kbv_build_unlock(lock, fd);
    assert_false(exists(lock));
    kbv_build_unlock(lock, -1);   /* nothing held: nothing done */
    volatile sig_atomic_t stop = 1;
    fd = kbv_build_lock(lock, 5.0, &stop);   /* free: taken at once, stop or not */
    assert_true(fd >= 0);
    kbv_build_unlock(lock, fd);
}

static void test_dead_builds_lock_is_swept(void **state)
{
    (void)state;
    char lock[512];
    snprintf(lock, sizeof lock, "%s/%s.lock", shard, key);
    FILE *f = fopen(lock, "w");   /* a killed build's: nobody holds it */
    assert_non_null(f);
    fclose(f);
    int removed = -1;
    kbv_build_sweep(shard, &removed);
    assert_int_equal(removed, 1);
    assert_false(exists(lock));
}

/* One process holds the lock; another waits for it. When the holder lets go
 * (removing the file), the waiter must end up holding the file at the path,
 * not the removed one, or a third process could lock a new file beside it. */
static void test_waiter_holds_the_lock_that_is_there(void **state)
{
    (void)state;
    char lock[512];
    snprintf(lock, sizeof lock, "%s/%s.lock", shard, key);
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) {
        char c = 0;
        int fd = kbv_build_lock(lock, 1.0, NULL);
        if (fd < 0 || write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
            _exit(1);
        kbv_build_unlock(lock, fd);
        _exit(0);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    pid_t waiter = fork();
    assert_true(waiter >= 0);
    if (waiter == 0) {
        int fd = kbv_build_lock(lock, 10.0, NULL);
        struct stat a, b;
        bool there = fd >= 0 && fstat(fd, &a) == 0 && stat(lock, &b) == 0 &&
                     a.st_ino == b.st_ino && a.st_dev == b.st_dev;
        _exit(there ? 0 : 1);
    }
    usleep(100 * 1000);   /* the waiter has opened the file and polls it */
    assert_int_equal(write(go[1], "g", 1), 1);
    int status;
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(waitpid(waiter, &status, 0), waiter);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(go[0]);
    close(go[1]);
    close(ready[0]);
    close(ready[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_own_directory_is_locked_and_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_build_is_swept_by_the_next, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_never_follows_a_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_held_directory_stays_until_its_holder_ends, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_published_directory_outlives_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sweep_all_covers_every_shard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_shard_is_an_io_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_is_exclusive_and_its_file_goes_with_unlock,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_builds_lock_is_swept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_waiter_holds_the_lock_that_is_there, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
