/* Reading candidate files: the rule (regular files only, never through a
 * link), each defect, the identity and the reasons. */
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

#include "record/candidate_file.h"
#include "record/results.h"

static char root[256];

static int make_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/kbv_test_candidate_file_XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", root, root);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", root, name);
    return path;
}

static const char *write_bytes(const char *name, const void *data, size_t len)
{
    const char *path = path_of(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

static void test_source_is_read_with_its_hash(void **state)
{
    (void)state;
    static const char text[] = "int kbv_forward(void);\n";
    const char *path = write_bytes("good.c", text, sizeof text - 1);
    kbv_candidate_file f;
    assert_int_equal(kbv_candidate_file_read(path, &f), KBV_OK);
    assert_int_equal(f.defect, KBV_CANDIDATE_OK);
    assert_int_equal(f.len, sizeof text - 1);
    assert_string_equal(f.bytes, text);
    assert_string_equal(f.detail, "");
    char hex[65];
    assert_int_equal(kbv_file_sha256(path, hex), KBV_OK);
    assert_string_equal(f.identity, hex);
    kbv_candidate_file_free(&f);
    assert_null(f.bytes);
}

static void test_empty_and_binary_are_read_and_hashed(void **state)
{
    (void)state;
    kbv_candidate_file f;
    assert_int_equal(kbv_candidate_file_read(write_bytes("empty.c", "", 0), &f), KBV_OK);
    assert_int_equal(f.defect, KBV_CANDIDATE_EMPTY);
    assert_string_equal(f.identity,
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_non_null(strstr(f.detail, "is empty"));
    kbv_candidate_file_free(&f);

    static const char elf[] = "\177ELF\002\001\001\000\000\000";
    const char *path = write_bytes("binary.c", elf, sizeof elf - 1);
    assert_int_equal(kbv_candidate_file_read(path, &f), KBV_OK);
    assert_int_equal(f.defect, KBV_CANDIDATE_BINARY);
    assert_non_null(strstr(f.detail, "NUL byte at offset 7"));
    char hex[65];
    assert_int_equal(kbv_file_sha256(path, hex), KBV_OK);
    assert_string_equal(f.identity, hex);
    kbv_candidate_file_free(&f);
}

static void test_too_large_is_not_read(void **state)
{
    (void)state;
    const char *path = write_bytes("large.c", "int x;\n", 7);
    assert_int_equal(truncate(path, (off_t)KBV_CANDIDATE_MAX_BYTES + 1), 0);
    kbv_candidate_file f;
    assert_int_equal(kbv_candidate_file_read(path, &f), KBV_OK);
    assert_int_equal(f.defect, KBV_CANDIDATE_TOO_LARGE);
    assert_null(f.bytes);
    assert_string_equal(f.identity, "unread:too-large");
    assert_non_null(strstr(f.detail, "4194305 bytes, at most 4194304"));
    kbv_candidate_file_free(&f);
}

static void test_links_are_never_followed(void **state)
{
    (void)state;
    write_bytes("secret.txt", "SECRET-PASSWORD\n", 16);
    char target[512];
    snprintf(target, sizeof target, "%s", path_of("secret.txt"));
    const char *links[] = {"link.c", "dangling.c"};
    assert_int_equal(symlink(target, path_of("link.c")), 0);
    assert_int_equal(symlink("/nonexistent/kbv-target", path_of("dangling.c")), 0);
    for (size_t i = 0; i < 2; i++) {
        kbv_candidate_file f;
        assert_int_equal(kbv_candidate_file_read(path_of(links[i]), &f), KBV_OK);
        assert_int_equal(f.defect, KBV_CANDIDATE_SYMLINK);
        assert_null(f.bytes);
        assert_string_equal(f.identity, "unread:symlink");
        assert_non_null(strstr(f.detail, "symbolic link, not followed"));
        assert_null(strstr(f.detail, "SECRET"));
        kbv_candidate_file_free(&f);
    }
}

static void test_special_files_are_not_opened(void **state)
{
    (void)state;
    assert_int_equal(mkdir(path_of("dir.c"), 0755), 0);
    assert_int_equal(mkfifo(path_of("fifo.c"), 0644), 0);
    const char *names[] = {"dir.c", "fifo.c"}, *kinds[] = {"a directory", "a fifo"};
    alarm(20);   /* opening the fifo for reading would block with no writer */
    for (size_t i = 0; i < 2; i++) {
        kbv_candidate_file f;
        assert_int_equal(kbv_candidate_file_read(path_of(names[i]), &f), KBV_OK);
        assert_int_equal(f.defect, KBV_CANDIDATE_NOT_REGULAR);
        assert_string_equal(f.identity, "unread:not-regular");
        assert_non_null(strstr(f.detail, kinds[i]));
        kbv_candidate_file_free(&f);
    }
    alarm(0);
}

static void test_gone_and_unreadable(void **state)
{
    (void)state;
    kbv_candidate_file f;
    assert_int_equal(kbv_candidate_file_read(path_of("never-there.c"), &f), KBV_OK);
    assert_int_equal(f.defect, KBV_CANDIDATE_MISSING);
    assert_string_equal(f.identity, "unread:missing");
    kbv_candidate_file_free(&f);

    const char *path = write_bytes("locked.c", "int x;\n", 7);
    assert_int_equal(chmod(path, 0), 0);
    assert_int_equal(kbv_candidate_file_read(path, &f), KBV_OK);
    if (geteuid() == 0) {
        /* root reads it anyway: a plain candidate */
        assert_int_equal(f.defect, KBV_CANDIDATE_OK);
    } else {
        assert_int_equal(f.defect, KBV_CANDIDATE_UNREADABLE);
        assert_string_equal(f.identity, "unread:unreadable");
        assert_non_null(strstr(f.detail, "Permission denied"));
    }
    kbv_candidate_file_free(&f);
}

static void test_reasons_name_their_defect(void **state)
{
    (void)state;
    for (int d = 1; d < KBV_CANDIDATE_DEFECT_COUNT; d++) {
        kbv_candidate_file f = {.defect = (kbv_candidate_defect)d};
        snprintf(f.detail, sizeof f.detail, "detail %d", d);
        char reason[384];
        kbv_candidate_defect_reason(&f, reason, sizeof reason);
        assert_int_equal(strncmp(reason, "unusable candidate file (", 25), 0);
        assert_non_null(strstr(reason, f.detail));
        assert_int_equal(kbv_candidate_defect_of_reason(reason), d);
    }
    assert_int_equal(kbv_candidate_defect_of_reason("compile error: x"), KBV_CANDIDATE_OK);
    assert_int_equal(kbv_candidate_defect_of_reason("unusable candidate file (odd): x"),
                     KBV_CANDIDATE_OK);
    assert_int_equal(kbv_candidate_defect_of_reason("unusable candidate file (empty"),
                     KBV_CANDIDATE_OK);
    assert_string_equal(kbv_candidate_defect_words(KBV_CANDIDATE_SYMLINK, 1), "symbolic link");
    assert_string_equal(kbv_candidate_defect_words(KBV_CANDIDATE_SYMLINK, 2), "symbolic links");
    assert_string_equal(kbv_candidate_defect_name(KBV_CANDIDATE_NOT_REGULAR), "not-regular");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_is_read_with_its_hash),
        cmocka_unit_test(test_empty_and_binary_are_read_and_hashed),
        cmocka_unit_test(test_too_large_is_not_read),
        cmocka_unit_test(test_links_are_never_followed),
        cmocka_unit_test(test_special_files_are_not_opened),
        cmocka_unit_test(test_gone_and_unreadable),
        cmocka_unit_test(test_reasons_name_their_defect),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
