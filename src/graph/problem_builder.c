/* The problem builder: growable lists and a string store behind the
 * kbv_b_* calls, turned into one kbv_problem at the end. */
#include "graph/problem_builder.h"

#include "core/tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Strings live in chunks that are never moved, so pointers stay valid. */
typedef struct str_chunk {
    struct str_chunk *next;
    size_t used, cap;
    char data[];
} str_chunk;

/* A built problem and what it owns: kbv_builder_run returns &built->p. */
typedef struct built_problem {
    kbv_problem p;
    str_chunk *strings;
} built_problem;

struct kbv_builder {
    kbv_problem p;
    kbv_dim_def *dims;
    kbv_input_def *inputs;
    kbv_param_def *params;
    kbv_init_arg *init_args;
    kbv_node_def *nodes;
    const char **outputs;
    int cap_dims, cap_inputs, cap_params, cap_init_args, cap_nodes, cap_outputs;
    str_chunk *strings;
    int fresh;                 /* the next "tN" */
    kbv_status st;
    char where[160];           /* file:line of the first failure */
    char why[512];
};

void kbv_b_fail_at(kbv_builder *b, const char *file, int line, const char *fmt, ...)
{
    if (b->st != KBV_OK)
        return;
    b->st = KBV_ERR_INVALID;
    snprintf(b->where, sizeof b->where, "%s:%d", file, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->why, sizeof b->why, fmt, ap);
    va_end(ap);
}

kbv_status kbv_b_status(const kbv_builder *b) { return b->st; }

/* Grows *list (of `size` bytes per entry) to hold n + 1 entries. */
static bool grow(kbv_builder *b, void **list, int *cap, int n, size_t size)
{
    if (n < *cap)
        return true;
    int want = *cap ? 2 * *cap : 16;
    void *p = realloc(*list, (size_t)want * size);
    if (!p) {
        kbv_b_fail(b, "out of memory growing a list to %d entries", want);
        b->st = KBV_ERR_NOMEM;
        return false;
    }
    memset((char *)p + (size_t)*cap * size, 0, (size_t)(want - *cap) * size);
    *list = p;
    *cap = want;
    return true;
}

static const char *keep(kbv_builder *b, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    if (!b->strings || b->strings->used + n > b->strings->cap) {
        size_t cap = n > 16384 ? n : 16384;
        str_chunk *c = malloc(sizeof *c + cap);
        if (!c) {
            kbv_b_fail(b, "out of memory keeping a string");
            b->st = KBV_ERR_NOMEM;
            return NULL;
        }
        c->next = b->strings;
        c->used = 0;
        c->cap = cap;
        b->strings = c;
    }
    char *dst = b->strings->data + b->strings->used;
    memcpy(dst, s, n);
    b->strings->used += n;
    return dst;
}

const char *kbv_b_strf(kbv_builder *b, const char *fmt, ...)
{
    if (b->st != KBV_OK)
        return NULL;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        kbv_b_fail(b, "string longer than %zu bytes: %.40s...", sizeof buf, buf);
        return NULL;
    }
    return keep(b, buf);
}

void kbv_b_problem(kbv_builder *b, int level, int id, const char *name, const char *notes)
{
    b->p.level = level;
    b->p.id = id;
    b->p.name = keep(b, name);
    b->p.notes = keep(b, notes);
}

void kbv_b_dim(kbv_builder *b, const char *name, int64_t full, int64_t small)
{
    if (b->st != KBV_OK ||
        !grow(b, (void **)&b->dims, &b->cap_dims, b->p.n_dims, sizeof *b->dims))
        return;
    kbv_dim_def *d = &b->dims[b->p.n_dims++];
    d->name = keep(b, name);
    d->full = full;
    d->small = small;
}

/* "a,b,3" into shape entries (kept strings), NULL-terminated. */
static void parse_shape(kbv_builder *b, const char *owner, const char *text,
                        const char *shape[KBV_MAX_DIMS])
{
    memset(shape, 0, sizeof(const char *) * KBV_MAX_DIMS);
    int n = 0;
    for (const char *p = text; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= 64 || n >= KBV_MAX_DIMS - 1) {
            kbv_b_fail(b, "%s: shape '%s' has an empty, long or extra entry", owner, text);
            return;
        }
        char entry[64];
        memcpy(entry, p, len);
        entry[len] = '\0';
        shape[n++] = keep(b, entry);
        p = comma ? comma + 1 : p + len;
    }
}

void kbv_b_input(kbv_builder *b, const char *name, kbv_gen gen, const char *shape)
{
    if (b->st != KBV_OK ||
        !grow(b, (void **)&b->inputs, &b->cap_inputs, b->p.n_inputs, sizeof *b->inputs))
        return;
    kbv_input_def *in = &b->inputs[b->p.n_inputs++];
    in->name = keep(b, name);
    in->dtype = KBV_F32;
    in->gen = gen;
    parse_shape(b, name, shape, in->shape);
}

void kbv_b_param(kbv_builder *b, const char *name, kbv_init init, const char *shape,
                 bool is_buffer)
{
    if (b->st != KBV_OK ||
        !grow(b, (void **)&b->params, &b->cap_params, b->p.n_params, sizeof *b->params))
        return;
    kbv_param_def *pd = &b->params[b->p.n_params++];
    pd->name = keep(b, name);
    pd->dtype = KBV_F32;
    pd->init = init;
    pd->is_buffer = is_buffer;
    parse_shape(b, name, shape, pd->shape);
}

void kbv_b_paramf(kbv_builder *b, const char *name, kbv_init init, bool is_buffer,
                  const char *shape_fmt, ...)
{
    char shape[256];
    va_list ap;
    va_start(ap, shape_fmt);
    vsnprintf(shape, sizeof shape, shape_fmt, ap);
    va_end(ap);
    kbv_b_param(b, name, init, shape, is_buffer);
}

void kbv_b_param_value(kbv_builder *b, double value)
{
    if (b->st != KBV_OK)
        return;
    if (b->p.n_params == 0) {
        kbv_b_fail(b, "a param value (%g) before any param", value);
        return;
    }
    b->params[b->p.n_params - 1].value = value;
}

void kbv_b_param_dtype(kbv_builder *b, kbv_dtype dtype)
{
    if (b->st != KBV_OK)
        return;
    if (b->p.n_params == 0) {
        kbv_b_fail(b, "a param dtype (%s) before any param", kbv_dtype_name(dtype));
        return;
    }
    b->params[b->p.n_params - 1].dtype = dtype;
}

void kbv_b_init_arg(kbv_builder *b, const char *name, const char *value)
{
    if (b->st != KBV_OK || !grow(b, (void **)&b->init_args, &b->cap_init_args,
                                 b->p.n_init_args, sizeof *b->init_args))
        return;
    kbv_init_arg *a = &b->init_args[b->p.n_init_args++];
    a->name = keep(b, name);
    a->value = keep(b, value);
}

const char *kbv_b_node(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                       int n_args, const char *const *args)
{
    if (b->st != KBV_OK)
        return NULL;
    for (int a = 0; a < n_args; a++)
        if (!args[a]) {
            kbv_b_fail(b, "node %s: operand %d is missing", out ? out : "(fresh)", a);
            return NULL;
        }
    if (!grow(b, (void **)&b->nodes, &b->cap_nodes, b->p.n_nodes, sizeof *b->nodes))
        return NULL;
    const char **kept = calloc((size_t)n_args + 1, sizeof *kept);
    if (!kept) {
        kbv_b_fail(b, "out of memory for %d operands", n_args);
        b->st = KBV_ERR_NOMEM;
        return NULL;
    }
    for (int a = 0; a < n_args; a++)
        kept[a] = keep(b, args[a]);
    kbv_node_def *nd = &b->nodes[b->p.n_nodes++];
    nd->op = op;
    nd->n_args = n_args;
    nd->args = kept;
    nd->out = out ? keep(b, out) : kbv_b_strf(b, "t%d", b->fresh++);
    memcpy(nd->f, attrs.f, sizeof nd->f);
    memcpy(nd->i, attrs.i, sizeof nd->i);
    nd->s = keep(b, attrs.s);
    nd->in_place = attrs.in_place;
    return nd->out;
}

void kbv_b_node_outs(kbv_builder *b, kbv_op op, kbv_b_attrs attrs, const char *a, int n_outs,
                     const char *const *outs)
{
    if (b->st != KBV_OK)
        return;
    if (n_outs < 1) {
        kbv_b_fail(b, "a node with several outputs needs their names, %d given", n_outs);
        return;
    }
    for (int j = 0; j < n_outs; j++)
        if (!outs[j]) {
            kbv_b_fail(b, "output %d of a node with several outputs is missing", j);
            return;
        }
    const char **kept = calloc((size_t)n_outs + 1, sizeof *kept);
    if (!kept) {
        kbv_b_fail(b, "out of memory for %d outputs", n_outs);
        b->st = KBV_ERR_NOMEM;
        return;
    }
    for (int j = 0; j < n_outs; j++)
        kept[j] = keep(b, outs[j]);
    if (!kbv_b_op1(b, op, kept[0], attrs, a)) {
        free(kept);
        return;
    }
    kbv_node_def *nd = &b->nodes[b->p.n_nodes - 1];
    nd->out = NULL;
    nd->n_outs = n_outs;
    nd->outs = kept;
}

const char *kbv_b_op1(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a)
{
    const char *args[] = {a};
    return kbv_b_node(b, op, out, attrs, 1, args);
}

const char *kbv_b_op2(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a, const char *c)
{
    const char *args[] = {a, c};
    return kbv_b_node(b, op, out, attrs, 2, args);
}

const char *kbv_b_op3(kbv_builder *b, kbv_op op, const char *out, kbv_b_attrs attrs,
                      const char *a, const char *c, const char *d)
{
    const char *args[] = {a, c, d};
    return kbv_b_node(b, op, out, attrs, 3, args);
}

void kbv_b_output(kbv_builder *b, const char *name)
{
    if (b->st != KBV_OK ||
        !grow(b, (void **)&b->outputs, &b->cap_outputs, b->p.n_outputs, sizeof *b->outputs))
        return;
    b->outputs[b->p.n_outputs++] = keep(b, name);
}

/* The position of name's first component among children; -1 if absent. */
static int child_of(const char *name, int n, const char *const *children)
{
    size_t len = strcspn(name, ".");
    for (int c = 0; c < n; c++)
        if (strlen(children[c]) == len && !strncmp(children[c], name, len))
            return c;
    return -1;
}

void kbv_b_order_params(kbv_builder *b, int n, const char *const *children)
{
    if (b->st != KBV_OK)
        return;
    int count = b->p.n_params;
    kbv_param_def *sorted = calloc((size_t)count + 1, sizeof *sorted);
    if (!sorted) {
        kbv_b_fail(b, "out of memory ordering %d params", count);
        b->st = KBV_ERR_NOMEM;
        return;
    }
    int at = 0;
    for (int c = 0; c < n; c++)
        for (int p = 0; p < count; p++)
            if (child_of(b->params[p].name, n, children) == c)
                sorted[at++] = b->params[p];
    if (at != count) {
        for (int p = 0; p < count; p++)
            if (child_of(b->params[p].name, n, children) < 0) {
                kbv_b_fail(b, "param '%s' belongs to none of the children listed",
                           b->params[p].name);
                break;
            }
        free(sorted);
        return;
    }
    memcpy(b->params, sorted, sizeof *sorted * (size_t)count);
    free(sorted);
}

/* Frees the lists of p and the strings chunks holds. */
static void lists_free(const kbv_problem *p, str_chunk *chunks)
{
    for (int n = 0; n < p->n_nodes; n++) {
        free((void *)p->nodes[n].args);
        free((void *)p->nodes[n].outs);
    }
    free((void *)p->dims);
    free((void *)p->inputs);
    free((void *)p->params);
    free((void *)p->init_args);
    free((void *)p->nodes);
    free((void *)p->outputs);
    while (chunks) {
        str_chunk *next = chunks->next;
        free(chunks);
        chunks = next;
    }
}

static void builder_free(kbv_builder *b)
{
    kbv_problem lists = b->p;
    lists.dims = b->dims;
    lists.inputs = b->inputs;
    lists.params = b->params;
    lists.init_args = b->init_args;
    lists.nodes = b->nodes;
    lists.outputs = b->outputs;
    lists_free(&lists, b->strings);
    free(b);
}

void kbv_built_problem_free(const kbv_problem *p)
{
    if (!p)
        return;
    built_problem *owner = (built_problem *)p;   /* p is its first member */
    lists_free(p, owner->strings);
    free(owner);
}

kbv_status kbv_builder_run(kbv_status (*build)(kbv_builder *b), const kbv_problem **out)
{
    *out = NULL;
    kbv_builder *b = calloc(1, sizeof *b);
    built_problem *p = calloc(1, sizeof *p);
    if (!b || !p) {
        free(b);
        free(p);
        return kbv_fail(KBV_ERR_NOMEM, "problem builder");
    }
    kbv_status st = build(b);
    if (st == KBV_OK)
        st = b->st;
    if (st != KBV_OK) {
        kbv_status why = b->st != KBV_OK
                             ? kbv_fail(b->st, "L%d/%d: %s: %s", b->p.level, b->p.id, b->where,
                                        b->why)
                             : kbv_relay_at(__FILE__, __LINE__, st);
        builder_free(b);
        free(p);
        return why;
    }
    p->p = b->p;
    p->p.dims = b->dims;
    p->p.inputs = b->inputs;
    p->p.params = b->params;
    p->p.init_args = b->init_args;
    p->p.nodes = b->nodes;
    p->p.outputs = b->outputs;
    p->strings = b->strings;   /* the lists and strings now belong to p */
    free(b);
    *out = &p->p;
    return KBV_OK;
}
