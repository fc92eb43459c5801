/* The vendor libraries a run may allow its candidates to call (kbv eval
 * --allow-vendor-libs): cuBLAS, cuBLASLt and cuDNN, as the paper's PyTorch
 * candidates could keep cuBLAS GEMMs and cuDNN convolutions and write only
 * the rest. One table, read by the option, the compile (what is linked),
 * the binary allowlist (which imports are admitted), the runner (what is
 * loaded before the sandbox closes every path), the records, the reports
 * and the prompt. A set of them is a mask, bit l for library l; 0 (none) is
 * what every run allowed before the option existed. */
#ifndef KBV_CORE_VENDOR_LIBS_H
#define KBV_CORE_VENDOR_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef enum kbv_vendor_lib {
    KBV_VENDOR_CUBLAS = 0,
    KBV_VENDOR_CUBLASLT,
    KBV_VENDOR_CUDNN,
    KBV_VENDOR_COUNT
} kbv_vendor_lib;

#define KBV_VENDOR_ALL ((1u << KBV_VENDOR_COUNT) - 1)
#define KBV_VENDOR_MAX_PARTS 10

/* A library the runner loads before the candidate runs because the vendor
 * library loads it on demand, by its file name: the stem, then ".so." and
 * the version that `version` says. */
typedef enum kbv_vendor_version {
    KBV_VERSION_LIBRARY,       /* the vendor library's own: "libcudnn_ops.so.9" beside libcudnn.so.9 */
    KBV_VERSION_CUDA_MAJOR,    /* the CUDA runtime's major: "libnvrtc.so.13" */
    KBV_VERSION_CUDA_MINOR,    /* major.minor: "libnvrtc-builtins.so.13.0" */
} kbv_vendor_version;

typedef struct kbv_vendor_part {
    const char *stem;          /* "libcudnn_ops"; NULL ends a list */
    kbv_vendor_version version;
} kbv_vendor_part;

typedef struct kbv_vendor_info {
    const char *name;          /* "cublas": the option's word and the record's */
    const char *title;         /* "cuBLAS", for people */
    const char *header;        /* "cublas_v2.h": what a candidate includes */
    const char *prefix;        /* "cublas": every entry point's name begins with it */
    const char *link;          /* "-lcublas": what the compile adds */
    const char *soname_stem;   /* "libcublas.so.": a DT_NEEDED name of the library */
    const char *create;        /* "cublasCreate_v2": makes a handle, int f(void **) */
    const char *destroy;       /* "cublasDestroy_v2": int f(void *) */
    /* entry points refused even where the library is allowed (fnmatch
     * patterns): other devices, threads and streams of its own, log files */
    const char *const *refused;
    /* what it loads on demand (see kbv_vendor_part) */
    kbv_vendor_part parts[KBV_VENDOR_MAX_PARTS];
    /* file names it probes for once the sandbox has closed every path
     * (basename prefixes): the runner answers those opens "no such file",
     * uncounted, and the loader then finds what was loaded before */
    const char *const *probes;
} kbv_vendor_info;

const kbv_vendor_info *kbv_vendor_get(kbv_vendor_lib l);

/* Parses "cublas,cudnn" (names of the table, comma-separated), "all" or
 * "none" into a mask. */
kbv_status kbv_vendor_parse(const char *list, unsigned *mask);
/* "cublas,cublasLt,cudnn" in table order, or "none"; into buf. */
const char *kbv_vendor_format(unsigned mask, char *buf, size_t cap);
/* "cuBLAS, cuBLASLt and cuDNN", or "none"; into buf. */
const char *kbv_vendor_titles(unsigned mask, char *buf, size_t cap);

/* The library an imported symbol belongs to (the longest prefix of the
 * table: cublasLtMatmul is cuBLASLt's, cublasSgemm_v2 cuBLAS's), or -1. */
int kbv_vendor_of_symbol(const char *name);
/* Whether an entry point of library l is refused even where l is allowed. */
bool kbv_vendor_refused(kbv_vendor_lib l, const char *name);
/* The library a DT_NEEDED name ("libcudnn.so.9") is, or -1. */
int kbv_vendor_of_needed(const char *soname);

#endif
