#include "core/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

kbv_status kbv_secret_path(char *buf, size_t cap)
{
    const char *env = getenv("KBV_SECRET_FILE");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, cap, "%s", env);
    else if (xdg && xdg[0] == '/')   /* the XDG spec ignores a relative one */
        n = snprintf(buf, cap, "%s/kbv/secret", xdg);
    else if (home && *home)
        n = snprintf(buf, cap, "%s/.config/kbv/secret", home);
    else
        return kbv_fail(KBV_ERR_NOT_FOUND, "no place for kbv's key file: set KBV_SECRET_FILE, "
                                           "XDG_CONFIG_HOME or HOME");
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "the path of kbv's key file is too long");
    return KBV_OK;
}

/* mkdir -p of the directory holding path; what it creates only the user may enter. */
static kbv_status make_parents(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "path too long: %s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return KBV_OK;
    *slash = '\0';
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return kbv_fail(KBV_ERR_IO, "cannot create %s for kbv's key file: %s", buf,
                            strerror(errno));
        *p = c;
        if (c == '\0')
            return KBV_OK;
    }
}

static kbv_status random_bytes(unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t got = getrandom(buf, len, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return kbv_fail(KBV_ERR_IO, "getrandom: %s", strerror(errno));
        }
        buf += got;
        len -= (size_t)got;
    }
    return KBV_OK;
}

/* Writes a fresh key into a private temporary file beside path and links it
 * into place: the key file appears whole or not at all, and a process that
 * loses the race to create it keeps the winner's. */
static kbv_status create_key(const char *path)
{
    kbv_status st = KBV_OK;
    unsigned char key[KBV_SECRET_BYTES];
    char tmp[PATH_MAX];
    int fd = -1;
    KBV_TRY(make_parents(path));
    if (snprintf(tmp, sizeof tmp, "%s.new-XXXXXX", path) >= (int)sizeof tmp)
        return kbv_fail(KBV_ERR_INVALID, "path too long: %s", path);
    fd = mkostemp(tmp, O_CLOEXEC);   /* O_EXCL, mode 0600 */
    if (fd < 0)
        return kbv_fail(KBV_ERR_IO, "cannot create kbv's key file %s: %s", tmp, strerror(errno));
    KBV_TRY_GOTO(random_bytes(key, sizeof key), st, done);
    if (write(fd, key, sizeof key) != (ssize_t)sizeof key || fsync(fd) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing kbv's key file %s: %s", tmp,
                      strerror(errno));
    if (link(tmp, path) != 0 && errno != EEXIST)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot create kbv's key file %s: %s", path,
                      strerror(errno));
done:
    OPENSSL_cleanse(key, sizeof key);
    close(fd);
    unlink(tmp);
    return st;
}

/* The key file must be this user's alone: anyone else who can read it can
 * forge entries, anyone who can write it can choose the key. */
static kbv_status check_key_file(const char *path, const struct stat *sb)
{
    if (!S_ISREG(sb->st_mode))
        return kbv_fail(KBV_ERR_INVALID, "kbv's key file %s is not a regular file; remove it "
                                         "and kbv makes a new key", path);
    if (sb->st_uid != geteuid())
        return kbv_fail(KBV_ERR_INVALID, "kbv's key file %s belongs to uid %u, not to this user "
                        "(uid %u): refusing to use it; remove it and kbv makes a new key", path,
                        (unsigned)sb->st_uid, (unsigned)geteuid());
    if (sb->st_mode & 077)
        return kbv_fail(KBV_ERR_INVALID, "kbv's key file %s is open to group or others (mode "
                        "%04o): refusing to use it; chmod 600 it, or remove it and kbv makes a "
                        "new key", path, (unsigned)(sb->st_mode & 07777));
    if (sb->st_size != KBV_SECRET_BYTES)
        return kbv_fail(KBV_ERR_INVALID, "kbv's key file %s holds %lld bytes, not %d: not a kbv "
                        "key; remove it and kbv makes a new one", path, (long long)sb->st_size,
                        KBV_SECRET_BYTES);
    return KBV_OK;
}

kbv_status kbv_secret_load_from(const char *path, kbv_secret *s)
{
    kbv_status st = KBV_OK;
    memset(s, 0, sizeof *s);
    if (snprintf(s->path, sizeof s->path, "%s", path) >= (int)sizeof s->path)
        return kbv_fail(KBV_ERR_INVALID, "the path of kbv's key file is too long: %s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) {
        KBV_TRY(create_key(path));
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    }
    if (fd < 0)
        return kbv_fail(KBV_ERR_IO, "cannot read kbv's key file %s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "stat %s: %s", path, strerror(errno));
    KBV_TRY_GOTO(check_key_file(path, &sb), st, done);
    errno = 0;
    if (pread(fd, s->key, sizeof s->key, 0) != (ssize_t)sizeof s->key)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading kbv's key file %s: %s", path,
                      errno ? strerror(errno) : "short read");
done:
    close(fd);
    if (st != KBV_OK)
        kbv_secret_wipe(s);
    return st;
}

/* path with symbolic links resolved as far as it exists, the rest appended. */
static bool resolve(const char *path, char out[PATH_MAX])
{
    char full[PATH_MAX], head[PATH_MAX];
    if (snprintf(full, sizeof full, "%s%s", path[0] == '/' ? "" : "./", path) >=
        (int)sizeof full)
        return false;
    memcpy(head, full, sizeof head);
    for (;;) {
        if (realpath(head, out)) {
            size_t n = strlen(out);
            const char *rest = full + strlen(head);
            return snprintf(out + n, PATH_MAX - n, "%s", rest) < (int)(PATH_MAX - n);
        }
        char *slash = strrchr(head, '/');
        if (errno != ENOENT || !slash || slash == head)
            return false;
        *slash = '\0';
    }
}

kbv_status kbv_secret_check_outside(const char *path, const char *dir)
{
    char key_real[PATH_MAX], dir_real[PATH_MAX];
    if (!resolve(path, key_real) || !realpath(dir, dir_real))
        return KBV_OK;   /* no existing directory on either side to be inside of */
    size_t n = strlen(dir_real);
    bool inside = !strncmp(key_real, dir_real, n) && (key_real[n] == '/' || key_real[n] == '\0' ||
                                                     n == 1);
    if (inside)
        return kbv_fail(KBV_ERR_INVALID, "kbv's key file %s is inside %s, which candidates may "
                        "be shown: keep it elsewhere (KBV_SECRET_FILE)", path, dir);
    return KBV_OK;
}

void kbv_secret_wipe(kbv_secret *s)
{
    OPENSSL_cleanse(s->key, sizeof s->key);
}

kbv_status kbv_mac(const kbv_secret *s, const void *data, size_t len,
                   char hex[KBV_MAC_HEX_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (!HMAC(EVP_sha256(), s->key, (int)sizeof s->key, data, len, md, &md_len) ||
        md_len * 2 != KBV_MAC_HEX_LEN)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "HMAC-SHA256 failed in OpenSSL");
    for (unsigned i = 0; i < md_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    hex[KBV_MAC_HEX_LEN] = '\0';
    return KBV_OK;
}

bool kbv_mac_verify(const kbv_secret *s, const void *data, size_t len, const char *hex)
{
    char want[KBV_MAC_HEX_LEN + 1];
    if (!hex || strlen(hex) != KBV_MAC_HEX_LEN)
        return false;
    if (kbv_mac(s, data, len, want) != KBV_OK) {
        kbv_clear_error();
        return false;
    }
    return CRYPTO_memcmp(want, hex, KBV_MAC_HEX_LEN) == 0;
}
