/* The single-turn prompt for one problem: a template whose placeholders are
 * filled with the task, the candidate ABI, the PyTorch reference, the target
 * and one worked example (docs/GENERATE.md lists them).
 *
 * Templates: "default", the paper's prompt adapted to kbv's ABI (the task,
 * the ABI, a worked example and the reference; nothing about how candidates
 * are tested), and "informed", which adds how they are judged. A bare name
 * is $KBV_PROMPTS_DIR/NAME.txt; anything else is a file of the user's.
 *
 * Files are read at run time: the ABI from $KBV_DOCS_DIR/ABI.md, the
 * templates from $KBV_PROMPTS_DIR and the example candidates from
 * $KBV_EXAMPLES_DIR, each by default under kbv's share directory (docs,
 * prompts, examples: core/paths.h), so that editing them needs no
 * rebuild. */
#ifndef KBV_GEN_PROMPT_H
#define KBV_GEN_PROMPT_H

#include <stdbool.h>

#include "core/status.h"
#include "graph/problem_def.h"
#include "record/precision.h"

#define KBV_PROMPT_DEFAULT_GPU "NVIDIA H200 (sm_90a, 132 SMs, 141 GB HBM3e, 4.8 TB/s)"
#define KBV_PROMPT_DEFAULT_TEMPLATE "default"
#define KBV_PROMPT_KERNELBENCH_TEMPLATE "kernelbench"   /* the default with kernelbench */

/* Files larger than this are not prompt material. */
#define KBV_PROMPT_MAX_FILE ((size_t)1 << 20)

typedef enum kbv_prompt_blind {
    KBV_BLIND_DEFAULT = -1,   /* the problem's default (kbv_input_blind_default) */
    KBV_BLIND_OFF = 0,
    KBV_BLIND_ON = 1,
} kbv_prompt_blind;

typedef struct kbv_prompt_options {
    bool cpu;                   /* a C candidate for the CPU backend instead of CUDA C */
    bool kernelbench;           /* KernelBench's own format instead: a Python ModelNew with
                                   load_inline, asked with the paper's prompt as it was (template
                                   "kernelbench", KernelBench's own worked example) */
    kbv_prompt_blind input_blind;
    const char *template_name;  /* NULL: KBV_PROMPT_DEFAULT_TEMPLATE; a bare name
                                   ([A-Za-z0-9_-]+): a bundled template; else a file */
    const char *gpu;            /* NULL: KBV_PROMPT_DEFAULT_GPU (or the CPU backend with cpu) */
    const char *precision;      /* NULL or "fp32": no note; "bf16": the paper's BF16 note
                                   ({precision_note}; record/precision.h) */
    unsigned vendor_libs;       /* vendor libraries the candidate may call (core/vendor_libs.h):
                                   the ABI's section on them, naming these, goes into {abi};
                                   0: left out, as it is of every prompt without them */
} kbv_prompt_options;

/* Builds the prompt for def into *out (malloc'd, NUL-terminated). */
kbv_status kbv_prompt_build(const kbv_problem_def *def, const kbv_prompt_options *opt,
                            char **out);

/* The template as records name it: the bundled template's name or the file. */
const char *kbv_prompt_template_label(const kbv_prompt_options *opt);

/* The precision the prompt asks for: opt->precision parsed (fp32 when NULL). */
kbv_status kbv_prompt_precision(const kbv_prompt_options *opt, kbv_precision *out);

/* Whether the prompt for def under opt is input-blind. */
bool kbv_prompt_is_input_blind(const kbv_problem_def *def, const kbv_prompt_options *opt);

/* Reads a whole text file (at most KBV_PROMPT_MAX_FILE bytes) into *out. */
kbv_status kbv_prompt_read_file(const char *path, char **out);

#endif
