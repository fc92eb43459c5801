/* A 64-bit content hash of host memory, for integrity checks (inputs and
 * parameters unchanged by a call). Not cryptographic; fast and position-
 * dependent: four lanes each absorb every fourth 8-byte word in order
 * (h = rotl(h ^ w * P1, 31) * P2), the tail is read as one zero-padded word,
 * then the lanes and the length are folded and finalised with splitmix64's
 * mixer. Two buffers with the same bytes always hash the same; swapping
 * words or changing any bit changes the hash. */
#include <string.h>

#include "cpu/cpu_backend.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t absorb(uint64_t h, uint64_t w) { return rotl64(h ^ (w * P1), 31) * P2; }

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

kbv_status kbv_cpu_hash(kbv_backend *be, const void *data, size_t bytes, uint64_t *out)
{
    (void)be;
    if (!data && bytes > 0)
        return kbv_fail(KBV_ERR_INVALID, "hash of %zu bytes at NULL", bytes);
    const unsigned char *p = data;
    uint64_t lane[4] = {P1, P2, P1 ^ P2, P1 + P2};
    size_t words = bytes / 8, i = 0;
    for (; i + 4 <= words; i += 4) {
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + 8 * (i + (size_t)k), 8);
            lane[k] = absorb(lane[k], w);
        }
    }
    for (; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        lane[i % 4] = absorb(lane[i % 4], w);
    }
    if (bytes % 8) {
        uint64_t w = 0;
        memcpy(&w, p + 8 * words, bytes % 8);
        lane[0] = absorb(lane[0], w ^ 0xFFull << 56);
    }
    uint64_t h = (uint64_t)bytes * P1;
    for (int k = 0; k < 4; k++)
        h = absorb(h, mix64(lane[k]));
    *out = mix64(h);
    return KBV_OK;
}
