/* Building a candidate source into a shared object, content-addressed.
 *
 * A .cu source goes through nvcc, a .c source through cc, each with the
 * fixed flags of the candidate ABI (DESIGN section 1) plus flags the first
 * line may request from an allowlist:
 *
 *     // kbv: nvcc-flags=--use_fast_math -lineinfo
 *
 * The shared object is linked with -z defs, so a symbol nothing provides
 * (a vendor library the run does not allow) is a compile error, not a
 * load failure later. A run that allows vendor libraries offers them to the
 * linker (-Xlinker --as-needed -lcublas ...), which records the ones the
 * object calls; the command, and with it the cache key, says which. Results live in a cache keyed by SHA-256 of (source
 * bytes, candidate.h, the exact compiler argv, the compiler's version):
 *
 *     <cache>/build/<key[0:2]>/<key>/{candidate.so, compile.log, ok|failed}
 *
 * Each build happens in a private temporary directory that is renamed into
 * place, so concurrent kbv processes never see a half-written entry. While
 * one process builds an entry it holds <key>.lock beside it (flock), and a
 * second process that wants the same entry waits for that build instead of
 * repeating it (a compile-ahead pool and an evaluator, or two shards on one
 * cache); the lock only saves work, correctness never depends on it (a
 * lock file left by a killed process is taken over by the next build). A
 * failed compilation is cached too (the same source fails the same way); a
 * compiler timeout is not (it may be the machine's load), nor a build
 * stopped through `cancel`.
 *
 * A KernelBench-format .py file is kept in its entry as candidate.py, with
 * the extensions its load_inline calls build as ext/<key>.so (kbv-runner
 * --build-extensions, in the compilers' sandbox); so_path is candidate.py. */
#ifndef KBV_COMPILE_H
#define KBV_COMPILE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>

#include "core/status.h"

#define KBV_COMPILE_LOG_CAP (64 * 1024)
#define KBV_COMPILE_DEFAULT_ARCH "90a"
#define KBV_COMPILE_DEFAULT_TIMEOUT_S 300.0
/* Compilers run at the lowest CPU priority: measured on the H200, 20 busy loops at nice 0
 * turned a 0.35 ms baseline's mean of 100 into 0.50 +- 0.70 ms, at nice 19 0.347 +- 0.007;
 * a compile beside a timed candidate must never take its core. */
#define KBV_COMPILE_NICE 19

typedef struct kbv_compile_opts {
    const char *source;        /* path of the .cu or .c candidate */
    const char *arch;          /* "90a" -> sm_90a; NULL: KBV_COMPILE_DEFAULT_ARCH */
    const char *cache_dir;     /* NULL: kbv_cache_dir() */
    unsigned vendor_libs;      /* the vendor libraries the run allows (core/vendor_libs.h): they
                                  are linked where the object calls them; 0: none */
    double timeout_s;          /* 0: KBV_COMPILE_DEFAULT_TIMEOUT_S (3x for a KernelBench-format
                                  file's extension builds) */
    const char *nvcc;          /* NULL: $KBV_NVCC, else "nvcc" on PATH, else /usr/local/cuda/bin/nvcc */
    const char *cc;            /* NULL: $CC, else "cc" */
    /* When not NULL and it turns nonzero (a signal handler sets it), the
     * build stops at once: the compiler's process group is killed, the
     * temporary directory removed, nothing cached; r->ok is false. */
    const volatile sig_atomic_t *cancel;
} kbv_compile_opts;

typedef struct kbv_compile_result {
    bool ok;                   /* a shared object is at so_path */
    bool cached;               /* the result came from the cache */
    double seconds;            /* compiler wall time (of the original build when cached) */
    char so_path[PATH_MAX];
    char sha256[65];           /* of the source bytes, lowercase hex */
    char key[65];              /* the cache key */
    char log[KBV_COMPILE_LOG_CAP];  /* compiler output, or why the source was refused */
} kbv_compile_result;

/* Compiles o->source. A source that fails to compile, makes the compiler
 * time out or asks for a flag that is not allowed is the candidate's
 * failure, not kbv's: the call returns KBV_OK with r->ok == false and the
 * reason in r->log. Errors are an unreadable, empty or unrecognised source
 * file, a missing compiler and an unusable cache. */
kbv_status kbv_compile(const kbv_compile_opts *o, kbv_compile_result *r);

/* kbv's cache directory, created on first use: $KBV_CACHE_DIR, else
 * $XDG_CACHE_HOME/kbv, else $HOME/.cache/kbv. NULL if it cannot be created
 * (the reason is in kbv_last_error()). Computed once per process. */
const char *kbv_cache_dir(void);

/* The directory holding kbv/candidate.h: $KBV_INCLUDE_DIR, else the include
 * directory under kbv's share directory (core/paths.h). Valid in the calling
 * thread until its next call. */
const char *kbv_candidate_include_dir(void);

#endif
