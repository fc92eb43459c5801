/* The per-user key file (made on first use, refused when others may touch
 * it) and the HMAC-SHA256 made with it. */
#include <errno.h>
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

#include "core/secret.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_secret_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void write_file(const char *path, const void *bytes, size_t n, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

static void assert_refused(const char *path, const char *words)
{
    kbv_secret s;
    assert_int_equal(kbv_secret_load_from(path, &s), KBV_ERR_INVALID);
    if (!strstr(kbv_last_error(), words))
        fail_msg("expected '%s' in: %s", words, kbv_last_error());
    kbv_clear_error();
}

static void test_absent_key_is_created(void **state)
{
    (void)state;
    char path[300], parent[300];
    path_of("config/kbv/secret", path, sizeof path);
    path_of("config/kbv", parent, sizeof parent);
    kbv_secret a, b;
    assert_int_equal(kbv_secret_load_from(path, &a), KBV_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(sb.st_size, KBV_SECRET_BYTES);
    assert_int_equal(stat(parent, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    assert_string_equal(a.path, path);
    /* read again: the same key, no temporary file left beside it */
    assert_int_equal(kbv_secret_load_from(path, &b), KBV_OK);
    assert_memory_equal(a.key, b.key, KBV_SECRET_BYTES);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", parent);
    assert_int_equal(system(cmd), 0);
    /* another key file, another key */
    char other[300];
    path_of("other-secret", other, sizeof other);
    assert_int_equal(kbv_secret_load_from(other, &b), KBV_OK);
    assert_memory_not_equal(a.key, b.key, KBV_SECRET_BYTES);
}

static void test_key_open_to_others_is_refused(void **state)
{
    (void)state;
    unsigned char key[KBV_SECRET_BYTES] = {1, 2, 3};
    char path[300];
    path_of("open-secret", path, sizeof path);
    const mode_t modes[] = {0640, 0604, 0620, 0660, 0644, 0606};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        write_file(path, key, sizeof key, modes[i]);
        assert_refused(path, "chmod 600");
    }
    assert_int_equal(chmod(path, 0600), 0);
    kbv_secret s;
    assert_int_equal(kbv_secret_load_from(path, &s), KBV_OK);
    assert_memory_equal(s.key, key, sizeof key);
    assert_int_equal(chmod(path, 0400), 0);   /* read-only to its owner is fine */
    assert_int_equal(kbv_secret_load_from(path, &s), KBV_OK);
}

static void test_key_of_another_user_is_refused(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();   /* only root can give a file away */
    unsigned char key[KBV_SECRET_BYTES] = {7};
    char path[300];
    path_of("foreign-secret", path, sizeof path);
    write_file(path, key, sizeof key, 0600);
    assert_int_equal(chown(path, 4242, (gid_t)-1), 0);
    assert_refused(path, "belongs to uid 4242");
}

static void test_key_of_wrong_size_or_kind_is_refused(void **state)
{
    (void)state;
    unsigned char key[KBV_SECRET_BYTES + 1] = {0};
    char path[300];
    path_of("short-secret", path, sizeof path);
    write_file(path, key, KBV_SECRET_BYTES - 1, 0600);
    assert_refused(path, "holds 31 bytes");
    write_file(path, key, KBV_SECRET_BYTES + 1, 0600);
    assert_refused(path, "holds 33 bytes");
    path_of("dir-secret", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_refused(path, "not a regular file");
}

static void test_path_from_the_environment(void **state)
{
    (void)state;
    char buf[1024];
    setenv("KBV_SECRET_FILE", "/x/y/key", 1);
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(kbv_secret_path(buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "/x/y/key");
    unsetenv("KBV_SECRET_FILE");
    assert_int_equal(kbv_secret_path(buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "/cfg/kbv/secret");
    setenv("XDG_CONFIG_HOME", "relative", 1);   /* ignored, as the XDG spec says */
    assert_int_equal(kbv_secret_path(buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "/home/u/.config/kbv/secret");
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("HOME");
    assert_int_equal(kbv_secret_path(buf, sizeof buf), KBV_ERR_NOT_FOUND);
    kbv_clear_error();
}

static void test_key_inside_a_shown_directory_is_refused(void **state)
{
    (void)state;
    char cache[300], inside[300], outside[300], link[300], via_link[300];
    path_of("cache", cache, sizeof cache);
    assert_int_equal(mkdir(cache, 0700), 0);
    path_of("cache/sub/secret", inside, sizeof inside);          /* not there yet */
    path_of("cache-secret", outside, sizeof outside);   /* shares a prefix, is not inside */
    path_of("to-cache", link, sizeof link);
    path_of("to-cache/secret", via_link, sizeof via_link);
    assert_int_equal(symlink(cache, link), 0);
    assert_int_equal(kbv_secret_check_outside(inside, cache), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "inside"));
    kbv_clear_error();
    assert_int_equal(kbv_secret_check_outside(via_link, cache), KBV_ERR_INVALID);
    kbv_clear_error();
    assert_int_equal(kbv_secret_check_outside(cache, cache), KBV_ERR_INVALID);
    kbv_clear_error();
    assert_int_equal(kbv_secret_check_outside(outside, cache), KBV_OK);
    assert_int_equal(access(inside, F_OK), -1);                  /* checking made nothing */
}

static void test_mac(void **state)
{
    (void)state;
    kbv_secret s, other;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < KBV_SECRET_BYTES; i++)
        s.key[i] = (unsigned char)i;
    other = s;
    other.key[31] ^= 1;
    static const char text[] = "kbv baseline 1\n";
    char hex[KBV_MAC_HEX_LEN + 1];
    assert_int_equal(kbv_mac(&s, text, strlen(text), hex), KBV_OK);
    /* HMAC-SHA256(key = bytes 0..31, text), as Python's hmac module computes it */
    assert_string_equal(hex, "2ef883b95d31188d914d72cc98e8775abc8ad094f87ab43a3493b75a5b865533");
    assert_true(kbv_mac_verify(&s, text, strlen(text), hex));
    assert_false(kbv_mac_verify(&other, text, strlen(text), hex));       /* another key */
    assert_false(kbv_mac_verify(&s, text, strlen(text) - 1, hex));       /* other data */
    assert_false(kbv_mac_verify(&s, text, strlen(text), NULL));
    assert_false(kbv_mac_verify(&s, text, strlen(text), "2ef883b9"));    /* cut short */
    char bad[KBV_MAC_HEX_LEN + 1];
    memcpy(bad, hex, sizeof bad);
    bad[10] = bad[10] == '0' ? '1' : '0';
    assert_false(kbv_mac_verify(&s, text, strlen(text), bad));
    for (int i = 0; hex[i]; i++)                                         /* lowercase only */
        bad[i] = (char)(hex[i] >= 'a' ? hex[i] - 32 : hex[i]);
    assert_false(kbv_mac_verify(&s, text, strlen(text), bad));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absent_key_is_created),
        cmocka_unit_test(test_key_open_to_others_is_refused),
        cmocka_unit_test(test_key_of_another_user_is_refused),
        cmocka_unit_test(test_key_of_wrong_size_or_kind_is_refused),
        cmocka_unit_test(test_path_from_the_environment),
        cmocka_unit_test(test_key_inside_a_shown_directory_is_refused),
        cmocka_unit_test(test_mac),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
