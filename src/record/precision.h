/* The precision a run evaluates in (kbv eval, check, baseline, prompt,
 * generate --precision): the paper's fp32, or its BF16 appendix -- the
 * reference model and every input cast to torch.bfloat16, the tolerance
 * relaxed to 1e-2, and a note in the prompt. One table holds what each is:
 * the option, the record's "precision", the prompt's note and --help read
 * it (docs/METHODOLOGY.md, "BF16"). */
#ifndef KBV_PRECISION_H
#define KBV_PRECISION_H

#include "core/status.h"
#include "kbv/candidate.h"

typedef enum kbv_precision {
    KBV_PRECISION_FP32 = 0,
    KBV_PRECISION_BF16,
    KBV_PRECISION_COUNT
} kbv_precision;

typedef struct kbv_precision_info {
    const char *name;          /* the option's value and the record's "precision" */
    const char *help;          /* for --help: lines of at most 52 columns */
    kbv_dtype float_dtype;     /* the dtype of every float tensor the candidate is given */
    /* the baseline mode of standard, verified and strict, as kbv_mode_name
     * spells it (eval/precision.c holds the modes; a unit test keeps the two equal) */
    const char *baseline[3];
    /* the paper's PRECISION_DISPLAY (src/prompt_constructor.py); NULL: no note,
     * as the paper adds none for fp32 */
    const char *prompt_display;
} kbv_precision_info;

const kbv_precision_info *kbv_precision_get(kbv_precision p);
kbv_status kbv_precision_parse(const char *name, kbv_precision *p);

#endif
