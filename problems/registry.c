/* The problem registry: every level's problems in catalog order, and lookup
 * by key. Levels 1 and 2 are static definitions, one array each below,
 * converted to the counted form once; level 3 is built by code
 * (level3/level3.c lists its builders). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pthread.h>

#include "graph/problem_def.h"
#include "level3/level3.h"

extern const kbv_problem_def kbv_problem_l1_001;
extern const kbv_problem_def kbv_problem_l1_002;
extern const kbv_problem_def kbv_problem_l1_003;
extern const kbv_problem_def kbv_problem_l1_004;
extern const kbv_problem_def kbv_problem_l1_005;
extern const kbv_problem_def kbv_problem_l1_006;
extern const kbv_problem_def kbv_problem_l1_007;
extern const kbv_problem_def kbv_problem_l1_008;
extern const kbv_problem_def kbv_problem_l1_009;
extern const kbv_problem_def kbv_problem_l1_010;
extern const kbv_problem_def kbv_problem_l1_011;
extern const kbv_problem_def kbv_problem_l1_012;
extern const kbv_problem_def kbv_problem_l1_013;
extern const kbv_problem_def kbv_problem_l1_014;
extern const kbv_problem_def kbv_problem_l1_015;
extern const kbv_problem_def kbv_problem_l1_016;
extern const kbv_problem_def kbv_problem_l1_017;
extern const kbv_problem_def kbv_problem_l1_018;
extern const kbv_problem_def kbv_problem_l1_019;
extern const kbv_problem_def kbv_problem_l1_020;
extern const kbv_problem_def kbv_problem_l1_021;
extern const kbv_problem_def kbv_problem_l1_022;
extern const kbv_problem_def kbv_problem_l1_023;
extern const kbv_problem_def kbv_problem_l1_024;
extern const kbv_problem_def kbv_problem_l1_025;
extern const kbv_problem_def kbv_problem_l1_026;
extern const kbv_problem_def kbv_problem_l1_027;
extern const kbv_problem_def kbv_problem_l1_028;
extern const kbv_problem_def kbv_problem_l1_029;
extern const kbv_problem_def kbv_problem_l1_030;
extern const kbv_problem_def kbv_problem_l1_031;
extern const kbv_problem_def kbv_problem_l1_032;
extern const kbv_problem_def kbv_problem_l1_033;
extern const kbv_problem_def kbv_problem_l1_034;
extern const kbv_problem_def kbv_problem_l1_035;
extern const kbv_problem_def kbv_problem_l1_036;
extern const kbv_problem_def kbv_problem_l1_037;
extern const kbv_problem_def kbv_problem_l1_038;
extern const kbv_problem_def kbv_problem_l1_039;
extern const kbv_problem_def kbv_problem_l1_040;
extern const kbv_problem_def kbv_problem_l1_041;
extern const kbv_problem_def kbv_problem_l1_042;
extern const kbv_problem_def kbv_problem_l1_043;
extern const kbv_problem_def kbv_problem_l1_044;
extern const kbv_problem_def kbv_problem_l1_045;
extern const kbv_problem_def kbv_problem_l1_046;
extern const kbv_problem_def kbv_problem_l1_047;
extern const kbv_problem_def kbv_problem_l1_048;
extern const kbv_problem_def kbv_problem_l1_049;
extern const kbv_problem_def kbv_problem_l1_050;
extern const kbv_problem_def kbv_problem_l1_051;
extern const kbv_problem_def kbv_problem_l1_052;
extern const kbv_problem_def kbv_problem_l1_053;
extern const kbv_problem_def kbv_problem_l1_054;
extern const kbv_problem_def kbv_problem_l1_055;
extern const kbv_problem_def kbv_problem_l1_056;
extern const kbv_problem_def kbv_problem_l1_057;
extern const kbv_problem_def kbv_problem_l1_058;
extern const kbv_problem_def kbv_problem_l1_059;
extern const kbv_problem_def kbv_problem_l1_060;
extern const kbv_problem_def kbv_problem_l1_061;
extern const kbv_problem_def kbv_problem_l1_062;
extern const kbv_problem_def kbv_problem_l1_063;
extern const kbv_problem_def kbv_problem_l1_064;
extern const kbv_problem_def kbv_problem_l1_065;
extern const kbv_problem_def kbv_problem_l1_066;
extern const kbv_problem_def kbv_problem_l1_067;
extern const kbv_problem_def kbv_problem_l1_068;
extern const kbv_problem_def kbv_problem_l1_069;
extern const kbv_problem_def kbv_problem_l1_070;
extern const kbv_problem_def kbv_problem_l1_071;
extern const kbv_problem_def kbv_problem_l1_072;
extern const kbv_problem_def kbv_problem_l1_073;
extern const kbv_problem_def kbv_problem_l1_074;
extern const kbv_problem_def kbv_problem_l1_075;
extern const kbv_problem_def kbv_problem_l1_076;
extern const kbv_problem_def kbv_problem_l1_077;
extern const kbv_problem_def kbv_problem_l1_078;
extern const kbv_problem_def kbv_problem_l1_079;
extern const kbv_problem_def kbv_problem_l1_080;
extern const kbv_problem_def kbv_problem_l1_081;
extern const kbv_problem_def kbv_problem_l1_082;
extern const kbv_problem_def kbv_problem_l1_083;
extern const kbv_problem_def kbv_problem_l1_084;
extern const kbv_problem_def kbv_problem_l1_085;
extern const kbv_problem_def kbv_problem_l1_086;
extern const kbv_problem_def kbv_problem_l1_087;
extern const kbv_problem_def kbv_problem_l1_088;
extern const kbv_problem_def kbv_problem_l1_089;
extern const kbv_problem_def kbv_problem_l1_090;
extern const kbv_problem_def kbv_problem_l1_091;
extern const kbv_problem_def kbv_problem_l1_092;
extern const kbv_problem_def kbv_problem_l1_093;
extern const kbv_problem_def kbv_problem_l1_094;
extern const kbv_problem_def kbv_problem_l1_095;
extern const kbv_problem_def kbv_problem_l1_096;
extern const kbv_problem_def kbv_problem_l1_097;
extern const kbv_problem_def kbv_problem_l1_098;
extern const kbv_problem_def kbv_problem_l1_099;
extern const kbv_problem_def kbv_problem_l1_100;
/* (level 1, 33-100: one line per problem, in id order) */
extern const kbv_problem_def kbv_problem_l2_001;
extern const kbv_problem_def kbv_problem_l2_002;
extern const kbv_problem_def kbv_problem_l2_003;
extern const kbv_problem_def kbv_problem_l2_004;
extern const kbv_problem_def kbv_problem_l2_005;
extern const kbv_problem_def kbv_problem_l2_006;
extern const kbv_problem_def kbv_problem_l2_007;
extern const kbv_problem_def kbv_problem_l2_008;
extern const kbv_problem_def kbv_problem_l2_009;
extern const kbv_problem_def kbv_problem_l2_010;
extern const kbv_problem_def kbv_problem_l2_011;
extern const kbv_problem_def kbv_problem_l2_012;
extern const kbv_problem_def kbv_problem_l2_013;
extern const kbv_problem_def kbv_problem_l2_014;
extern const kbv_problem_def kbv_problem_l2_015;
extern const kbv_problem_def kbv_problem_l2_016;
extern const kbv_problem_def kbv_problem_l2_017;
extern const kbv_problem_def kbv_problem_l2_018;
extern const kbv_problem_def kbv_problem_l2_019;
extern const kbv_problem_def kbv_problem_l2_020;
extern const kbv_problem_def kbv_problem_l2_021;
extern const kbv_problem_def kbv_problem_l2_022;
extern const kbv_problem_def kbv_problem_l2_023;
extern const kbv_problem_def kbv_problem_l2_024;
extern const kbv_problem_def kbv_problem_l2_025;
extern const kbv_problem_def kbv_problem_l2_026;
extern const kbv_problem_def kbv_problem_l2_027;
extern const kbv_problem_def kbv_problem_l2_028;
extern const kbv_problem_def kbv_problem_l2_029;
extern const kbv_problem_def kbv_problem_l2_030;
extern const kbv_problem_def kbv_problem_l2_031;
extern const kbv_problem_def kbv_problem_l2_032;
extern const kbv_problem_def kbv_problem_l2_033;
extern const kbv_problem_def kbv_problem_l2_034;
extern const kbv_problem_def kbv_problem_l2_035;
extern const kbv_problem_def kbv_problem_l2_036;
extern const kbv_problem_def kbv_problem_l2_037;
extern const kbv_problem_def kbv_problem_l2_038;
extern const kbv_problem_def kbv_problem_l2_039;
extern const kbv_problem_def kbv_problem_l2_040;
extern const kbv_problem_def kbv_problem_l2_041;
extern const kbv_problem_def kbv_problem_l2_042;
extern const kbv_problem_def kbv_problem_l2_043;
extern const kbv_problem_def kbv_problem_l2_044;
extern const kbv_problem_def kbv_problem_l2_045;
extern const kbv_problem_def kbv_problem_l2_046;
extern const kbv_problem_def kbv_problem_l2_047;
extern const kbv_problem_def kbv_problem_l2_048;
extern const kbv_problem_def kbv_problem_l2_049;
extern const kbv_problem_def kbv_problem_l2_050;
extern const kbv_problem_def kbv_problem_l2_051;
extern const kbv_problem_def kbv_problem_l2_052;
extern const kbv_problem_def kbv_problem_l2_053;
extern const kbv_problem_def kbv_problem_l2_054;
extern const kbv_problem_def kbv_problem_l2_055;
extern const kbv_problem_def kbv_problem_l2_056;
extern const kbv_problem_def kbv_problem_l2_057;
extern const kbv_problem_def kbv_problem_l2_058;
extern const kbv_problem_def kbv_problem_l2_059;
extern const kbv_problem_def kbv_problem_l2_060;
extern const kbv_problem_def kbv_problem_l2_061;
extern const kbv_problem_def kbv_problem_l2_062;
extern const kbv_problem_def kbv_problem_l2_063;
extern const kbv_problem_def kbv_problem_l2_064;
extern const kbv_problem_def kbv_problem_l2_065;
extern const kbv_problem_def kbv_problem_l2_066;
extern const kbv_problem_def kbv_problem_l2_067;
extern const kbv_problem_def kbv_problem_l2_068;
extern const kbv_problem_def kbv_problem_l2_069;
extern const kbv_problem_def kbv_problem_l2_070;
extern const kbv_problem_def kbv_problem_l2_071;
extern const kbv_problem_def kbv_problem_l2_072;
extern const kbv_problem_def kbv_problem_l2_073;
extern const kbv_problem_def kbv_problem_l2_074;
extern const kbv_problem_def kbv_problem_l2_075;
extern const kbv_problem_def kbv_problem_l2_076;
extern const kbv_problem_def kbv_problem_l2_077;
extern const kbv_problem_def kbv_problem_l2_078;
extern const kbv_problem_def kbv_problem_l2_079;
extern const kbv_problem_def kbv_problem_l2_080;
extern const kbv_problem_def kbv_problem_l2_081;
extern const kbv_problem_def kbv_problem_l2_082;
extern const kbv_problem_def kbv_problem_l2_083;
extern const kbv_problem_def kbv_problem_l2_084;
extern const kbv_problem_def kbv_problem_l2_085;
extern const kbv_problem_def kbv_problem_l2_086;
extern const kbv_problem_def kbv_problem_l2_087;
extern const kbv_problem_def kbv_problem_l2_088;
extern const kbv_problem_def kbv_problem_l2_089;
extern const kbv_problem_def kbv_problem_l2_090;
extern const kbv_problem_def kbv_problem_l2_091;
extern const kbv_problem_def kbv_problem_l2_092;
extern const kbv_problem_def kbv_problem_l2_093;
extern const kbv_problem_def kbv_problem_l2_094;
extern const kbv_problem_def kbv_problem_l2_095;
extern const kbv_problem_def kbv_problem_l2_096;
extern const kbv_problem_def kbv_problem_l2_097;
extern const kbv_problem_def kbv_problem_l2_098;
extern const kbv_problem_def kbv_problem_l2_099;
extern const kbv_problem_def kbv_problem_l2_100;

static const kbv_problem_def *const level1[] = {
    &kbv_problem_l1_001,
    &kbv_problem_l1_002,
    &kbv_problem_l1_003,
    &kbv_problem_l1_004,
    &kbv_problem_l1_005,
    &kbv_problem_l1_006,
    &kbv_problem_l1_007,
    &kbv_problem_l1_008,
    &kbv_problem_l1_009,
    &kbv_problem_l1_010,
    &kbv_problem_l1_011,
    &kbv_problem_l1_012,
    &kbv_problem_l1_013,
    &kbv_problem_l1_014,
    &kbv_problem_l1_015,
    &kbv_problem_l1_016,
    &kbv_problem_l1_017,
    &kbv_problem_l1_018,
    &kbv_problem_l1_019,
    &kbv_problem_l1_020,
    &kbv_problem_l1_021,
    &kbv_problem_l1_022,
    &kbv_problem_l1_023,
    &kbv_problem_l1_024,
    &kbv_problem_l1_025,
    &kbv_problem_l1_026,
    &kbv_problem_l1_027,
    &kbv_problem_l1_028,
    &kbv_problem_l1_029,
    &kbv_problem_l1_030,
    &kbv_problem_l1_031,
    &kbv_problem_l1_032,
    &kbv_problem_l1_033,
    &kbv_problem_l1_034,
    &kbv_problem_l1_035,
    &kbv_problem_l1_036,
    &kbv_problem_l1_037,
    &kbv_problem_l1_038,
    &kbv_problem_l1_039,
    &kbv_problem_l1_040,
    &kbv_problem_l1_041,
    &kbv_problem_l1_042,
    &kbv_problem_l1_043,
    &kbv_problem_l1_044,
    &kbv_problem_l1_045,
    &kbv_problem_l1_046,
    &kbv_problem_l1_047,
    &kbv_problem_l1_048,
    &kbv_problem_l1_049,
    &kbv_problem_l1_050,
    &kbv_problem_l1_051,
    &kbv_problem_l1_052,
    &kbv_problem_l1_053,
    &kbv_problem_l1_054,
    &kbv_problem_l1_055,
    &kbv_problem_l1_056,
    &kbv_problem_l1_057,
    &kbv_problem_l1_058,
    &kbv_problem_l1_059,
    &kbv_problem_l1_060,
    &kbv_problem_l1_061,
    &kbv_problem_l1_062,
    &kbv_problem_l1_063,
    &kbv_problem_l1_064,
    &kbv_problem_l1_065,
    &kbv_problem_l1_066,
    &kbv_problem_l1_067,
    &kbv_problem_l1_068,
    &kbv_problem_l1_069,
    &kbv_problem_l1_070,
    &kbv_problem_l1_071,
    &kbv_problem_l1_072,
    &kbv_problem_l1_073,
    &kbv_problem_l1_074,
    &kbv_problem_l1_075,
    &kbv_problem_l1_076,
    &kbv_problem_l1_077,
    &kbv_problem_l1_078,
    &kbv_problem_l1_079,
    &kbv_problem_l1_080,
    &kbv_problem_l1_081,
    &kbv_problem_l1_082,
    &kbv_problem_l1_083,
    &kbv_problem_l1_084,
    &kbv_problem_l1_085,
    &kbv_problem_l1_086,
    &kbv_problem_l1_087,
    &kbv_problem_l1_088,
    &kbv_problem_l1_089,
    &kbv_problem_l1_090,
    &kbv_problem_l1_091,
    &kbv_problem_l1_092,
    &kbv_problem_l1_093,
    &kbv_problem_l1_094,
    &kbv_problem_l1_095,
    &kbv_problem_l1_096,
    &kbv_problem_l1_097,
    &kbv_problem_l1_098,
    &kbv_problem_l1_099,
    &kbv_problem_l1_100,
    /* (level 1, 33-100: one line per problem, in id order) */
};

static const kbv_problem_def *const level2[] = {
    &kbv_problem_l2_001,
    &kbv_problem_l2_002,
    &kbv_problem_l2_003,
    &kbv_problem_l2_004,
    &kbv_problem_l2_005,
    &kbv_problem_l2_006,
    &kbv_problem_l2_007,
    &kbv_problem_l2_008,
    &kbv_problem_l2_009,
    &kbv_problem_l2_010,
    &kbv_problem_l2_011,
    &kbv_problem_l2_012,
    &kbv_problem_l2_013,
    &kbv_problem_l2_014,
    &kbv_problem_l2_015,
    &kbv_problem_l2_016,
    &kbv_problem_l2_017,
    &kbv_problem_l2_018,
    &kbv_problem_l2_019,
    &kbv_problem_l2_020,
    &kbv_problem_l2_021,
    &kbv_problem_l2_022,
    &kbv_problem_l2_023,
    &kbv_problem_l2_024,
    &kbv_problem_l2_025,
    &kbv_problem_l2_026,
    &kbv_problem_l2_027,
    &kbv_problem_l2_028,
    &kbv_problem_l2_029,
    &kbv_problem_l2_030,
    &kbv_problem_l2_031,
    &kbv_problem_l2_032,
    &kbv_problem_l2_033,
    &kbv_problem_l2_034,
    &kbv_problem_l2_035,
    &kbv_problem_l2_036,
    &kbv_problem_l2_037,
    &kbv_problem_l2_038,
    &kbv_problem_l2_039,
    &kbv_problem_l2_040,
    &kbv_problem_l2_041,
    &kbv_problem_l2_042,
    &kbv_problem_l2_043,
    &kbv_problem_l2_044,
    &kbv_problem_l2_045,
    &kbv_problem_l2_046,
    &kbv_problem_l2_047,
    &kbv_problem_l2_048,
    &kbv_problem_l2_049,
    &kbv_problem_l2_050,
    &kbv_problem_l2_051,
    &kbv_problem_l2_052,
    &kbv_problem_l2_053,
    &kbv_problem_l2_054,
    &kbv_problem_l2_055,
    &kbv_problem_l2_056,
    &kbv_problem_l2_057,
    &kbv_problem_l2_058,
    &kbv_problem_l2_059,
    &kbv_problem_l2_060,
    &kbv_problem_l2_061,
    &kbv_problem_l2_062,
    &kbv_problem_l2_063,
    &kbv_problem_l2_064,
    &kbv_problem_l2_065,
    &kbv_problem_l2_066,
    &kbv_problem_l2_067,
    &kbv_problem_l2_068,
    &kbv_problem_l2_069,
    &kbv_problem_l2_070,
    &kbv_problem_l2_071,
    &kbv_problem_l2_072,
    &kbv_problem_l2_073,
    &kbv_problem_l2_074,
    &kbv_problem_l2_075,
    &kbv_problem_l2_076,
    &kbv_problem_l2_077,
    &kbv_problem_l2_078,
    &kbv_problem_l2_079,
    &kbv_problem_l2_080,
    &kbv_problem_l2_081,
    &kbv_problem_l2_082,
    &kbv_problem_l2_083,
    &kbv_problem_l2_084,
    &kbv_problem_l2_085,
    &kbv_problem_l2_086,
    &kbv_problem_l2_087,
    &kbv_problem_l2_088,
    &kbv_problem_l2_089,
    &kbv_problem_l2_090,
    &kbv_problem_l2_091,
    &kbv_problem_l2_092,
    &kbv_problem_l2_093,
    &kbv_problem_l2_094,
    &kbv_problem_l2_095,
    &kbv_problem_l2_096,
    &kbv_problem_l2_097,
    &kbv_problem_l2_098,
    &kbv_problem_l2_099,
    &kbv_problem_l2_100,
};

/* The static levels, converted once (kbv_problem_of_def) on first use. */
typedef struct static_level {
    int level;
    const kbv_problem_def *const *defs;
    int count;
} static_level;

static const static_level static_levels[] = {
    {1, level1, (int)(sizeof level1 / sizeof level1[0])},
    {2, level2, (int)(sizeof level2 / sizeof level2[0])},
};

#define N_STATIC_LEVELS ((int)(sizeof static_levels / sizeof static_levels[0]))
#define N_STATIC ((int)(sizeof level1 / sizeof level1[0] + sizeof level2 / sizeof level2[0]))

static kbv_static_problem static_rooms[N_STATIC];
/* Level 3 is built by code (problems/level3/level3.h); a build that fails
 * is kbv's bug, reported once on stderr, and leaves the problem out. */
static const kbv_problem *level3[KBV_LEVEL3_MAX];
static int n_level3;
static const kbv_problem *all[N_STATIC + KBV_LEVEL3_MAX];
static int n_all;
static pthread_once_t converted = PTHREAD_ONCE_INIT;

static void convert_all(void)
{
    for (int l = 0; l < N_STATIC_LEVELS; l++)
        for (int i = 0; i < static_levels[l].count; i++) {
            all[n_all] = kbv_problem_of_def(static_levels[l].defs[i], &static_rooms[n_all]);
            n_all++;
        }
    n_level3 = kbv_level3_build_all(level3, KBV_LEVEL3_MAX);
    for (int i = 0; i < n_level3; i++)
        all[n_all++] = level3[i];
}

int kbv_problem_count(void)
{
    pthread_once(&converted, convert_all);
    return n_all;
}

const kbv_problem *kbv_problem_at(int index)
{
    pthread_once(&converted, convert_all);
    if (index < 0 || index >= n_all)
        return NULL;
    return all[index];
}

/* A decimal number without sign or spaces; *end after it. */
static bool parse_number(const char *s, const char **end, long *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    char *e = NULL;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (errno || v <= 0)
        return false;
    *end = e;
    *out = v;
    return true;
}

/* "L1/19", "l1/19", "1/19", or with the catalog name: "L1/19_ReLU" (the
 * name part compared without regard to case). */
const kbv_problem *kbv_problem_find(const char *key)
{
    if (!key)
        return NULL;
    const char *p = key;
    if (*p == 'L' || *p == 'l')
        p++;
    long level = 0, id = 0;
    if (!parse_number(p, &p, &level) || *p != '/')
        return NULL;
    const char *id_start = p + 1;
    if (!parse_number(id_start, &p, &id))
        return NULL;
    if (*p != '\0' && *p != '_')
        return NULL;
    for (int i = 0, n = kbv_problem_count(); i < n; i++) {
        const kbv_problem *def = kbv_problem_at(i);
        if (def->level != level || def->id != id)
            continue;
        if (*p == '_') {
            const char *name_rest = strchr(def->name, '_');
            if (!name_rest || strcasecmp(name_rest, p) != 0)
                return NULL;
        }
        return def;
    }
    return NULL;
}

const char *kbv_problem_key(const kbv_problem *def, char *buf, size_t cap)
{
    snprintf(buf, cap, "L%d/%d", def->level, def->id);
    return buf;
}
