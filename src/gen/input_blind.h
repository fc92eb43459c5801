/* The paper's input-blind prompts: the model sees the computation and the
 * shapes it runs at, never how the inputs are drawn. The reference loses
 * get_inputs() and the size constants only it used, and forward() gains a
 * docstring that gives every input's and output's dtype and shape. */
#ifndef KBV_GEN_INPUT_BLIND_H
#define KBV_GEN_INPUT_BLIND_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "graph/problem_def.h"

/* Whether `def` is prompted input-blind unless told otherwise: the problems
 * whose inputs the paper hid (a table in input_blind.c). */
bool kbv_input_blind_default(const kbv_problem_def *def);

/* Writes the input-blind form of `rendered` (kbv_render_torch's text for
 * def at the full size) to out. */
kbv_status kbv_input_blind_reference(const kbv_problem_def *def, const char *rendered, FILE *out);

#endif
