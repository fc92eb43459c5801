/* The static authoring format of levels 1 and 2: one kbv_problem_def per
 * problem, in problems/levelN/pNNN_name.c, written as a designated
 * initialiser with fixed room per list (a list ends at its first empty
 * entry). It is converted once, by kbv_problem_of_def, into the counted
 * kbv_problem (graph/problem.h) that everything else reads; nothing
 * downstream sees this struct or its limits. Whole models (level 3) are
 * built by code instead (graph/problem_builder.h). */
#ifndef KBV_PROBLEM_DEF_H
#define KBV_PROBLEM_DEF_H

#include "graph/problem.h"

#define KBV_STATIC_MAX_DIMS 12
#define KBV_STATIC_MAX_INPUTS 8
#define KBV_STATIC_MAX_PARAMS 32
#define KBV_STATIC_MAX_NODES 64
#define KBV_STATIC_MAX_ARGS 4
#define KBV_STATIC_MAX_OUTS 8
#define KBV_STATIC_MAX_OUTPUTS 4
#define KBV_STATIC_MAX_INIT_ARGS 12

/* A node as written: operands NULL-terminated. */
typedef struct kbv_static_node {
    kbv_op op;
    const char *args[KBV_STATIC_MAX_ARGS];
    const char *out;
    const char *outs[KBV_STATIC_MAX_OUTS];   /* several outputs (split); NULL-terminated */
    double f[4];
    int64_t i[4];
    const char *s;
} kbv_static_node;

typedef struct kbv_problem_def {
    int level;
    int id;
    const char *name;                                   /* catalog name: "19_ReLU" */
    kbv_dim_def dims[KBV_STATIC_MAX_DIMS];              /* terminated by name == NULL */
    kbv_input_def inputs[KBV_STATIC_MAX_INPUTS];        /* forward() order; name == NULL ends */
    kbv_param_def params[KBV_STATIC_MAX_PARAMS];        /* state_dict order; name == NULL ends */
    kbv_init_arg init_args[KBV_STATIC_MAX_INIT_ARGS];   /* name == NULL ends */
    kbv_static_node nodes[KBV_STATIC_MAX_NODES];        /* op == KBV_OP_NONE ends */
    const char *outputs[KBV_STATIC_MAX_OUTPUTS];        /* NULL-terminated; empty: the last node */
    kbv_hidden_def hidden;                              /* zero: D1-D4, nothing else */
    const char *notes;                                  /* quirks and documented deviations */
} kbv_problem_def;

/* Room for the counted form of one static definition: the problem and its
 * nodes (operand lists point into the definition, which must outlive it). */
typedef struct kbv_static_problem {
    kbv_problem problem;
    kbv_node_def nodes[KBV_STATIC_MAX_NODES];
} kbv_static_problem;

/* Counts def's lists into room and returns &room->problem. */
const kbv_problem *kbv_problem_of_def(const kbv_problem_def *def, kbv_static_problem *room);

#endif
