/* Level 3: whole models, built by code (graph/problem_builder.h), one
 * builder per problem in problems/level3/pNNN_name.c. */
#ifndef KBV_LEVEL3_H
#define KBV_LEVEL3_H

#include "graph/problem_builder.h"

#define KBV_LEVEL3_MAX 64

/* Builds every level-3 problem into out (catalog order); returns how many.
 * They live as long as the process. */
int kbv_level3_build_all(const kbv_problem **out, int cap);

/* The builders, kbv_l3_NNN for problem L3/NNN. */
kbv_status kbv_l3_001(kbv_builder *b);
kbv_status kbv_l3_002(kbv_builder *b);
kbv_status kbv_l3_003(kbv_builder *b);
kbv_status kbv_l3_004(kbv_builder *b);
kbv_status kbv_l3_005(kbv_builder *b);
kbv_status kbv_l3_006(kbv_builder *b);
kbv_status kbv_l3_007(kbv_builder *b);
kbv_status kbv_l3_008(kbv_builder *b);
kbv_status kbv_l3_009(kbv_builder *b);
kbv_status kbv_l3_010(kbv_builder *b);
kbv_status kbv_l3_011(kbv_builder *b);
kbv_status kbv_l3_012(kbv_builder *b);
kbv_status kbv_l3_013(kbv_builder *b);
kbv_status kbv_l3_014(kbv_builder *b);
kbv_status kbv_l3_015(kbv_builder *b);
kbv_status kbv_l3_016(kbv_builder *b);
kbv_status kbv_l3_017(kbv_builder *b);
kbv_status kbv_l3_018(kbv_builder *b);
kbv_status kbv_l3_019(kbv_builder *b);
kbv_status kbv_l3_020(kbv_builder *b);
kbv_status kbv_l3_021(kbv_builder *b);
kbv_status kbv_l3_022(kbv_builder *b);
kbv_status kbv_l3_023(kbv_builder *b);
kbv_status kbv_l3_024(kbv_builder *b);
kbv_status kbv_l3_025(kbv_builder *b);
kbv_status kbv_l3_026(kbv_builder *b);
kbv_status kbv_l3_027(kbv_builder *b);
kbv_status kbv_l3_028(kbv_builder *b);
kbv_status kbv_l3_029(kbv_builder *b);
kbv_status kbv_l3_030(kbv_builder *b);
kbv_status kbv_l3_031(kbv_builder *b);
kbv_status kbv_l3_032(kbv_builder *b);
kbv_status kbv_l3_033(kbv_builder *b);
kbv_status kbv_l3_034(kbv_builder *b);
kbv_status kbv_l3_035(kbv_builder *b);
kbv_status kbv_l3_036(kbv_builder *b);
kbv_status kbv_l3_037(kbv_builder *b);
kbv_status kbv_l3_038(kbv_builder *b);
kbv_status kbv_l3_039(kbv_builder *b);
kbv_status kbv_l3_040(kbv_builder *b);
kbv_status kbv_l3_041(kbv_builder *b);
kbv_status kbv_l3_042(kbv_builder *b);
kbv_status kbv_l3_043(kbv_builder *b);
kbv_status kbv_l3_044(kbv_builder *b);
kbv_status kbv_l3_045(kbv_builder *b);
kbv_status kbv_l3_046(kbv_builder *b);
kbv_status kbv_l3_047(kbv_builder *b);
kbv_status kbv_l3_048(kbv_builder *b);
kbv_status kbv_l3_049(kbv_builder *b);
kbv_status kbv_l3_050(kbv_builder *b);

#endif
