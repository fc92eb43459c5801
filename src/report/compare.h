/* `kbv report --compare A.jsonl B.jsonl`: per problem, what changed between
 * two runs (one model twice, or two models): the verdict, and the kernel
 * time of each run's chosen sample (its fastest correct one) with that
 * time's noise from the records -- the standard deviation (standard,
 * verified) or the IQR (strict, converted to a standard deviation as
 * IQR / 1.349). A difference within the combined noise,
 * |tA - tB| <= 2 sqrt(sA^2 + sB^2), is "no change", never faster or slower. */
#ifndef KBV_COMPARE_H
#define KBV_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "report/report_data.h"

typedef enum kbv_change {
    KBV_CHANGE_SAME = 0,      /* both correct, times within the noise */
    KBV_CHANGE_FASTER,        /* both correct, B faster beyond the noise */
    KBV_CHANGE_SLOWER,        /* both correct, B slower beyond the noise */
    KBV_CHANGE_UNTIMED,       /* both correct, a time is missing */
    KBV_CHANGE_FIXED,         /* wrong in A, correct in B */
    KBV_CHANGE_BROKEN,        /* correct in A, wrong in B */
    KBV_CHANGE_BOTH_WRONG,
    KBV_CHANGE_ONLY_A,        /* B has no sample of the problem */
    KBV_CHANGE_ONLY_B,
    KBV_CHANGE_COUNT
} kbv_change;

const char *kbv_change_name(kbv_change c);   /* "no change", "faster", ... */

/* The noise rule alone: how B's time compares with A's. `noise_known` is
 * false when a spread is missing (then any difference counts). */
kbv_change kbv_compare_times(double t_a, double sigma_a, double t_b, double sigma_b,
                             bool *noise_known);

/* A recorded spread as a standard deviation: sd as is, IQR / 1.349. */
double kbv_compare_sigma(const kbv_proto_result *r, kbv_protocol p);

/* One side of one problem. */
typedef struct kbv_compare_side {
    const kbv_report_sample *sample;   /* chosen (or shown failing) sample; NULL: absent */
    bool correct;
    double t_ms, spread_ms, sigma_ms, speedup;
} kbv_compare_side;

typedef struct kbv_compare_row {
    int level, id;
    char key[16];
    kbv_compare_side a, b;
    kbv_change change;
    bool noise_known;
} kbv_compare_row;

typedef struct kbv_comparison {
    kbv_report_data a, b;
    const char *path_a, *path_b;
    int model_a, model_b;     /* indices into a.models and b.models */
    int n_rows;
    kbv_compare_row *rows[KBV_PROTO_COUNT];   /* [n_rows] each, by level and id */
    int counts[KBV_PROTO_COUNT][KBV_CHANGE_COUNT];
} kbv_comparison;

/* Reads both files and compares. model_a / model_b choose a model in a file
 * that holds several (NULL: the file must hold exactly one). */
kbv_status kbv_compare_load(const char *path_a, const char *path_b, const char *model_a,
                            const char *model_b, kbv_comparison *c);
/* Builds the rows from c->a and c->b (loaded by the caller) and the models. */
kbv_status kbv_compare_build(kbv_comparison *c);
void kbv_compare_free(kbv_comparison *c);

/* One protocol as a terminal table, and all three as Markdown. */
void kbv_compare_print(FILE *f, const kbv_comparison *c, kbv_protocol p);
kbv_status kbv_compare_markdown(FILE *f, const kbv_comparison *c);

#endif
