#include "eval/shard.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal integer of at most 9 digits, nothing else (no sign, no spaces). */
static bool parse_count(const char *s, size_t len, int *out)
{
    if (len == 0 || len > 9)
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

kbv_status kbv_shard_parse(const char *s, kbv_shard *out)
{
    memset(out, 0, sizeof *out);
    const char *slash = s ? strchr(s, '/') : NULL;
    int index, count;
    if (!slash || !parse_count(s, (size_t)(slash - s), &index) ||
        !parse_count(slash + 1, strlen(slash + 1), &count))
        return kbv_fail(KBV_ERR_PARSE, "--shard '%s': expected I/N, e.g. 0/4 (shards are "
                                       "numbered from 0)", s ? s : "");
    if (count < 1 || index >= count)
        return kbv_fail(KBV_ERR_PARSE, "--shard '%s': the shard index must be in 0..N-1 and "
                                       "N at least 1", s);
    out->index = index;
    out->count = count;
    snprintf(out->source, sizeof out->source, "--shard");
    return KBV_OK;
}

typedef struct launcher_vars {
    const char *rank, *size;
} launcher_vars;

static const launcher_vars launchers[] = {
    {"SLURM_PROCID", "SLURM_NTASKS"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
};

kbv_status kbv_shard_from_env(kbv_shard *out, bool *found)
{
    memset(out, 0, sizeof *out);
    out->count = 1;
    *found = false;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const launcher_vars *l = &launchers[i];
        const char *rank = getenv(l->rank), *size = getenv(l->size);
        /* Both halves or nothing: a Slurm batch script has SLURM_PROCID=0
         * without SLURM_NTASKS unless --ntasks was given. */
        if (!rank || !size)
            continue;
        int index, count;
        if (!parse_count(rank, strlen(rank), &index))
            return kbv_fail(KBV_ERR_PARSE, "%s='%s' is not a rank (a number from 0); set it "
                                           "right or pass --shard I/N", l->rank, rank);
        if (!parse_count(size, strlen(size), &count) || count < 1)
            return kbv_fail(KBV_ERR_PARSE, "%s='%s' is not a number of tasks (1 or more); set "
                                           "it right or pass --shard I/N", l->size, size);
        if (index >= count)
            return kbv_fail(KBV_ERR_PARSE, "%s=%d is not below %s=%d; pass --shard I/N",
                            l->rank, index, l->size, count);
        out->index = index;
        out->count = count;
        snprintf(out->source, sizeof out->source, "%s/%s", l->rank, l->size);
        *found = true;
        return KBV_OK;
    }
    return KBV_OK;
}

kbv_status kbv_shard_resolve(const char *option, kbv_shard *out)
{
    if (option)
        return kbv_shard_parse(option, out);
    bool found;
    KBV_TRY(kbv_shard_from_env(out, &found));
    return KBV_OK;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t kbv_shard_hash(const char *model, int level, int problem_id, int sample)
{
    char rest[64];
    snprintf(rest, sizeof rest, "\nL%d/%d\n%d", level, problem_id, sample);
    uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ULL, model), rest);
    /* splitmix64's finaliser: FNV's low bits alone spread poorly mod small N */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

int kbv_shard_of(const char *model, int level, int problem_id, int sample, int count)
{
    if (count <= 1)
        return 0;
    return (int)(kbv_shard_hash(model, level, problem_id, sample) % (uint64_t)count);
}

kbv_status kbv_shard_out_path(const char *out, const kbv_shard *s, char *buf, size_t cap)
{
    size_t len = strlen(out);
    int n;
    if (s->count <= 1)
        n = snprintf(buf, cap, "%s", out);
    else if (len > 6 && !strcmp(out + len - 6, ".jsonl"))
        n = snprintf(buf, cap, "%.*s.shard-%d-of-%d.jsonl", (int)(len - 6), out, s->index,
                     s->count);
    else
        n = snprintf(buf, cap, "%s.shard-%d-of-%d", out, s->index, s->count);
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "results path too long: %s", out);
    return KBV_OK;
}
