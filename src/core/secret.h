/* kbv's per-user secret key, and the keyed MACs that prove a file's entry was
 * written by kbv itself.
 *
 * A file that only kbv's trusted processes write, but that a candidate which
 * escaped its sandbox could append to (the baseline cache), carries with each
 * entry an HMAC-SHA256 of the entry's canonical content under this key. The
 * key is 32 random bytes in a file only the user may read:
 *
 *   $KBV_SECRET_FILE, else $XDG_CONFIG_HOME/kbv/secret, else $HOME/.config/kbv/secret
 *
 * created on first use (mode 0600, its directory 0700) and refused when it
 * is not a regular file of 32 bytes owned by the user, or when group or
 * others may read or write it. It must live outside the cache directory:
 * candidates are given neither. */
#ifndef KBV_SECRET_H
#define KBV_SECRET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

#define KBV_SECRET_BYTES 32
#define KBV_MAC_HEX_LEN 64   /* HMAC-SHA256 in lowercase hex, without the NUL */

typedef struct kbv_secret {
    unsigned char key[KBV_SECRET_BYTES];
    char path[1024];          /* the key file it was read from */
} kbv_secret;

/* Where this user's key file is (from the environment, as above). */
kbv_status kbv_secret_path(char *buf, size_t cap);

/* Refuses a key file path inside dir (a directory candidates may see),
 * symbolic links resolved; path need not exist yet. */
kbv_status kbv_secret_check_outside(const char *path, const char *dir);
/* Reads the key at path, creating it first when there is none (atomically:
 * a process racing to create it reads the winner's key). */
kbv_status kbv_secret_load_from(const char *path, kbv_secret *s);
/* Overwrites the key in memory. */
void kbv_secret_wipe(kbv_secret *s);

/* HMAC-SHA256 of data under the key, as lowercase hex. */
kbv_status kbv_mac(const kbv_secret *s, const void *data, size_t len,
                   char hex[KBV_MAC_HEX_LEN + 1]);
/* Whether hex is the MAC of data under the key (compared in constant time). */
bool kbv_mac_verify(const kbv_secret *s, const void *data, size_t len, const char *hex);

#endif
