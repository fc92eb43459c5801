/* The level-3 builders in catalog order. */
#include "level3.h"

#include <stdio.h>

typedef kbv_status (*level3_builder)(kbv_builder *b);

static const level3_builder builders[] = {
    kbv_l3_001,
    kbv_l3_002,
    kbv_l3_003,
    kbv_l3_004,
    kbv_l3_005,
    kbv_l3_006,
    kbv_l3_007,
    kbv_l3_008,
    kbv_l3_009,
    kbv_l3_010,
    kbv_l3_011,
    kbv_l3_012,
    kbv_l3_013,
    kbv_l3_014,
    kbv_l3_015,
    kbv_l3_016,
    kbv_l3_017,
    kbv_l3_018,
    kbv_l3_019,
    kbv_l3_020,
    kbv_l3_021,
    kbv_l3_022,
    kbv_l3_023,
    kbv_l3_024,
    kbv_l3_025,
    kbv_l3_026,
    kbv_l3_027,
    kbv_l3_028,
    kbv_l3_029,
    kbv_l3_030,
    kbv_l3_031,
    kbv_l3_032,
    kbv_l3_033,
    kbv_l3_034,
    kbv_l3_035,
    kbv_l3_036,
    kbv_l3_037,
    kbv_l3_038,
    kbv_l3_039,
    kbv_l3_040,
    kbv_l3_041,
    kbv_l3_042,
    kbv_l3_043,
    kbv_l3_044,
    kbv_l3_045,
    kbv_l3_046,
    kbv_l3_047,
    kbv_l3_048,
    kbv_l3_049,
    kbv_l3_050,
};

int kbv_level3_build_all(const kbv_problem **out, int cap)
{
    int n = 0;
    for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++) {
        if (n >= cap)
            break;
        const kbv_problem *p = NULL;
        if (kbv_builder_run(builders[i], &p) != KBV_OK) {
            fprintf(stderr, "kbv: level-3 problem #%zu does not build: %s\n", i + 1,
                    kbv_last_message());
            continue;
        }
        out[n++] = p;
    }
    return n;
}
