/* kbv_problem_of_def: the one place a static definition (levels 1 and 2,
 * and the tests' own problems) becomes the counted form. */
#include "graph/problem_def.h"

#include <string.h>

const kbv_problem *kbv_problem_of_def(const kbv_problem_def *def, kbv_static_problem *room)
{
    memset(room, 0, sizeof *room);
    kbv_problem *p = &room->problem;
    p->level = def->level;
    p->id = def->id;
    p->name = def->name;
    p->hidden = def->hidden;
    p->notes = def->notes;
    p->dims = def->dims;
    while (p->n_dims < KBV_STATIC_MAX_DIMS && def->dims[p->n_dims].name)
        p->n_dims++;
    p->inputs = def->inputs;
    while (p->n_inputs < KBV_STATIC_MAX_INPUTS && def->inputs[p->n_inputs].name)
        p->n_inputs++;
    p->params = def->params;
    while (p->n_params < KBV_STATIC_MAX_PARAMS && def->params[p->n_params].name)
        p->n_params++;
    p->init_args = def->init_args;
    while (p->n_init_args < KBV_STATIC_MAX_INIT_ARGS && def->init_args[p->n_init_args].name)
        p->n_init_args++;
    p->outputs = def->outputs;
    while (p->n_outputs < KBV_STATIC_MAX_OUTPUTS && def->outputs[p->n_outputs])
        p->n_outputs++;
    p->nodes = room->nodes;
    for (int n = 0; n < KBV_STATIC_MAX_NODES && def->nodes[n].op != KBV_OP_NONE; n++) {
        const kbv_static_node *s = &def->nodes[n];
        kbv_node_def *d = &room->nodes[n];
        d->op = s->op;
        d->args = s->args;
        while (d->n_args < KBV_STATIC_MAX_ARGS && s->args[d->n_args])
            d->n_args++;
        d->out = s->out;
        d->outs = s->outs;
        while (d->n_outs < KBV_STATIC_MAX_OUTS && s->outs[d->n_outs])
            d->n_outs++;
        memcpy(d->f, s->f, sizeof d->f);
        memcpy(d->i, s->i, sizeof d->i);
        d->s = s->s;
        p->n_nodes++;
    }
    return p;
}
