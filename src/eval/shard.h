/* Shards: splitting one evaluation over N independent kbv processes (nodes,
 * Slurm tasks, MPI ranks) that share nothing but the run directories.
 *
 * A sample belongs to shard
 *
 *     splitmix64(fnv1a64(model "\n" "L<level>/<id>" "\n" sample)) mod N
 *
 * (decimal numbers, no padding), a pure function of the sample's identity:
 * every sample is in exactly one shard, whatever else the run directories
 * hold, whatever --problems selects and in whatever order files are listed,
 * so shards that scan the directories at different moments still agree and
 * each shard's resume finds its own samples again. The function is part of
 * the results contract: changing it would move samples between shards. */
#ifndef KBV_SHARD_H
#define KBV_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct kbv_shard {
    int index;               /* 0 .. count-1 */
    int count;               /* 1: the whole run, unsharded */
    char source[64];         /* "--shard", "SLURM_PROCID/SLURM_NTASKS", ... or "" */
} kbv_shard;

/* "I/N" with 0 <= I < N, decimal. */
kbv_status kbv_shard_parse(const char *s, kbv_shard *out);

/* The shard from the launcher's environment, first found of
 * SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE,
 * PMI_RANK/PMI_SIZE. *found is false (and *out 0/1) when none is set; a
 * pair with one half missing or a value that is not a rank below the size
 * is an error naming the variables. */
kbv_status kbv_shard_from_env(kbv_shard *out, bool *found);

/* --shard when given (explicit wins), else the environment, else 0/1. */
kbv_status kbv_shard_resolve(const char *option, kbv_shard *out);

/* The shard of a sample (see the top of this file). */
int kbv_shard_of(const char *model, int level, int problem_id, int sample, int count);
uint64_t kbv_shard_hash(const char *model, int level, int problem_id, int sample);

/* A shard's results file: "results.jsonl" -> "results.shard-I-of-N.jsonl";
 * a name without the .jsonl suffix gets ".shard-I-of-N" appended. An
 * unsharded run (count 1) keeps the name. */
kbv_status kbv_shard_out_path(const char *out, const kbv_shard *s, char *buf, size_t cap);

#endif
