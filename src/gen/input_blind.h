/* The paper's input-blind prompts (its stripped_prompts/): the model sees
 * the computation, never the sizes or how the inputs are drawn. The
 * reference keeps its imports and the Model class and loses everything
 * after it (size constants, get_inputs(), get_init_inputs()); forward()
 * gains a docstring that gives every input's and output's dtype and shape
 * in the definition's symbolic names, and what the values of a structured
 * input are (targets in {-1, +1}). */
#ifndef KBV_GEN_INPUT_BLIND_H
#define KBV_GEN_INPUT_BLIND_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "graph/problem.h"

/* Whether `def` is prompted input-blind unless told otherwise: the problems
 * whose inputs the paper hid (a table in input_blind.c). */
bool kbv_input_blind_default(const kbv_problem *def);

/* Writes the input-blind form of `rendered` (kbv_render_torch's text for
 * def at the full size) to out. */
kbv_status kbv_input_blind_reference(const kbv_problem *def, const char *rendered, FILE *out);

#endif
