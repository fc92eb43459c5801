/* Pulling the candidate's source out of a model's answer.
 *
 * The rule (docs/GENERATE.md): reasoning before a closing </think> is
 * dropped; fenced blocks are found as Markdown defines them (``` or ~~~,
 * closed by a fence of the same character at least as long); blocks whose
 * language is empty or C-family (cuda, cu, cuh, c, h, cpp, c++, cc, cxx,
 * hpp) are candidates; the answer is the LAST candidate block that defines
 * kbv_forward (a body, not a declaration) -- for a KernelBench-format
 * answer, the last python block that defines class ModelNew. Models that revise a draft put
 * the final version last. A fence left open at the end of the answer (cut at
 * the token limit) runs to the end and is marked unclosed. */
#ifndef KBV_GEN_EXTRACT_H
#define KBV_GEN_EXTRACT_H

#include <stdbool.h>

#include "core/status.h"

typedef struct kbv_extract_result {
    char *code;          /* the chosen block, '\n' line ends, ending in '\n'; NULL when none */
    int n_blocks;        /* fenced blocks of any language */
    int n_defining;      /* candidate blocks that define kbv_forward */
    bool unclosed;       /* the chosen block's fence was never closed */
    char language[32];   /* the chosen block's language word ("" when none) */
    char reason[160];    /* why code is NULL */
} kbv_extract_result;

/* What the answer is asked for: a kbv candidate (C-family blocks defining
 * kbv_forward), or a KernelBench-format file (blocks whose language is
 * empty, python or py, defining class ModelNew at the start of a line). */
typedef enum kbv_extract_kind {
    KBV_EXTRACT_CANDIDATE = 0,
    KBV_EXTRACT_KERNELBENCH = 1,
} kbv_extract_kind;

/* Fills *out (zeroed first). KBV_OK whether or not a block was found; look
 * at out->code. Fails only on bad arguments or memory. */
kbv_status kbv_extract_code(const char *answer, kbv_extract_result *out);
/* The same for either kind. */
kbv_status kbv_extract_code_kind(const char *answer, kbv_extract_kind kind,
                                 kbv_extract_result *out);

/* True when src defines class ModelNew ("class ModelNew" at a line's start,
 * then "(" or ":"). */
bool kbv_extract_defines_modelnew(const char *src, size_t len);
void kbv_extract_result_free(kbv_extract_result *r);

/* True when src contains a definition (not a declaration) of kbv_forward. */
bool kbv_extract_defines_forward(const char *src, size_t len);

#endif
