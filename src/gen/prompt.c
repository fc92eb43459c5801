/* Single-turn prompts (see prompt.h). */
#include "gen/prompt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/vendor_libs.h"
#include "gen/atomic_file.h"
#include "gen/input_blind.h"
#include "graph/torch_render.h"

/* Worked examples: complete, correct candidates from the bundled demo runs
 * (.cu for CUDA, .c for the CPU backend). The first one that is not the
 * problem being asked is shown, so no prompt contains its own answer. */
static const struct worked_example {
    const char *key;
    const char *stem;  /* under the examples directory */
} worked_examples[] = {
    {"L1/19", "runs/demo-a/level_1_problem_19_sample_0"},  /* ReLU, vectorised */
    {"L1/21", "runs/demo-b/level_1_problem_21_sample_0"},  /* Sigmoid, vectorised */
};

/* ABI.md's sections: its own example, the command-line hints and the rules
 * of KernelBench-format files (another format, with how it is judged) are
 * left out of every prompt (the naive ReLU would hand L1/19 its answer, and
 * the prompt has a worked example); how candidates are judged is {judging}
 * alone, so that only a template that asks for it tells the model how it
 * will be tested. */
static const char abi_judging[] = "## How you are judged";
static const char *const abi_sections_left_out[] = {"## A complete example", "## Try it",
                                                    "## KernelBench's own format", abi_judging};
/* The section on vendor libraries goes only into the prompts of runs that
 * allow them, followed by the ones this run allows. */
static const char abi_vendor[] = "## Vendor libraries";

/* Today's task text: the informed template's {task}. */
static const char task_cuda[] =
    "Write a CUDA C implementation of the computation that the PyTorch reference below "
    "defines, as a kbv candidate: one `.cu` source file that includes `<kbv/candidate.h>` and "
    "defines `kbv_forward` (the interface and its rules follow). It must compute what the "
    "reference computes, for any input values and at other sizes too (read the shapes from "
    "the tensors), and run as fast as you can make it on the target GPU: faster than the "
    "reference in PyTorch. Answer with the complete source file in one ```cuda code block; "
    "when an answer holds several blocks, the last one that defines kbv_forward is taken.";

static const char task_cpu[] =
    "Write a C (C11) implementation of the computation that the PyTorch reference below "
    "defines, as a kbv candidate for kbv's CPU backend: one `.c` source file that includes "
    "`<kbv/candidate.h>` and defines `kbv_forward` (the interface and its rules follow; all "
    "tensors are in host memory and env->stream is NULL). It must compute what the reference "
    "computes, for any input values and at other sizes too (read the shapes from the "
    "tensors), and run as fast as you can make it on one CPU core: faster than the reference "
    "in PyTorch. Answer with the complete source file in one ```c code block; when an answer "
    "holds several blocks, the last one that defines kbv_forward is taken.";

static const char task_kernelbench[] =
    "Write a PyTorch module ModelNew with custom CUDA kernels (torch.utils.cpp_extension."
    "load_inline) that computes what the PyTorch reference below defines, faster, in "
    "KernelBench's format: one Python file. Answer with it in one ```python code block; when "
    "an answer holds several blocks, the last one that defines class ModelNew is taken.";

/* What differs between a CUDA candidate, a C one for the CPU backend and a
 * KernelBench-format file. */
static const struct target {
    const char *task;
    const char *language;   /* {language} */
    const char *kernels;    /* {kernels}: what the model writes */
    const char *fence;      /* {fence}: the code block's language */
    const char *gpu;        /* {gpu} unless --gpu */
    const char *ext;        /* the worked example's file */
} targets[] = {
    {task_cuda, "CUDA C", "CUDA kernels", "cuda", KBV_PROMPT_DEFAULT_GPU, "cu"},
    {task_cpu, "C11", "C code for kbv's CPU backend", "c",
     "one CPU core (kbv's CPU backend; threads are not allowed)", "c"},
    {task_kernelbench, "Python", "CUDA kernels", "python", KBV_PROMPT_DEFAULT_GPU, "py"},
};

/* KernelBench's own worked example (its src/prompts/), for the kernelbench format. */
static const char kernelbench_example_reference[] = "prompts/kernelbench/model_ex_add.py";
static const char kernelbench_example_candidate[] = "prompts/kernelbench/model_new_ex_add.py";

/* A growing in-memory text: open_memstream with one cleanup. */
typedef struct text {
    char *data;
    size_t len;
    FILE *f;
} text;

static kbv_status text_open(text *t)
{
    memset(t, 0, sizeof *t);
    t->f = open_memstream(&t->data, &t->len);
    if (!t->f)
        return kbv_fail(KBV_ERR_NOMEM, "prompt: open_memstream: %s", strerror(errno));
    return KBV_OK;
}

/* Finishes t; t->data holds the text (or NULL on failure). */
static kbv_status text_close(text *t)
{
    if (!t->f)
        return KBV_OK;
    int bad = ferror(t->f);
    int rc = fclose(t->f);
    t->f = NULL;
    if (bad || rc != 0 || !t->data) {
        free(t->data);
        t->data = NULL;
        return kbv_fail(KBV_ERR_NOMEM, "prompt: building text failed");
    }
    return KBV_OK;
}

static void text_free(text *t)
{
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    free(t->data);
    t->data = NULL;
}

kbv_status kbv_prompt_read_file(const char *path, char **out)
{
    *out = NULL;
    kbv_status st = KBV_OK;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kbv_fail(errno == ENOENT ? KBV_ERR_NOT_FOUND : KBV_ERR_IO, "cannot open %s: %s",
                        path, strerror(errno));
    if (!(buf = malloc(KBV_PROMPT_MAX_FILE + 1)))
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "out of memory reading %s", path);
    size_t n = fread(buf, 1, KBV_PROMPT_MAX_FILE + 1, f);
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s failed", path);
    if (n > KBV_PROMPT_MAX_FILE)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is larger than %zu bytes", path,
                      (size_t)KBV_PROMPT_MAX_FILE);
    buf[n] = '\0';
    if (strlen(buf) != n)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is not text (holds a NUL byte)", path);
    *out = buf;
    buf = NULL;
done:
    free(buf);
    fclose(f);
    return st;
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* docs/ABI.md without the sections left out (only == NULL), or only its
 * section headed `only` (nothing when it has none). The vendor libraries'
 * section is in only when vendor_libs names some, and then says which. */
static void write_abi(const char *abi, const char *only, unsigned vendor_libs, FILE *out)
{
    bool skipping = only != NULL;
    for (const char *line = abi; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        bool vendor_heading = false;
        if (starts_with(line, "## ")) {
            if (only) {
                skipping = !starts_with(line, only);
            } else {
                skipping = false;
                size_t n = sizeof abi_sections_left_out / sizeof *abi_sections_left_out;
                for (size_t i = 0; i < n; i++)
                    skipping |= starts_with(line, abi_sections_left_out[i]);
                vendor_heading = starts_with(line, abi_vendor);
                skipping |= vendor_heading && !vendor_libs;
            }
        }
        if (!skipping)
            fwrite(line, 1, len, out);
        if (vendor_heading && !skipping) {
            fputs("\nThis run allows ", out);
            int n = 0;
            for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
                if (!(vendor_libs >> l & 1u))
                    continue;
                const kbv_vendor_info *v = kbv_vendor_get((kbv_vendor_lib)l);
                unsigned later = vendor_libs >> (l + 1);
                fprintf(out, "%s%s (`%s`)", n == 0 ? "" : later ? ", " : " and ", v->title,
                        v->header);
                n++;
            }
            fputs(", and no other library.\n", out);
        }
        line += len;
    }
}

static void trim_trailing_newlines(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* Closes t and trims its trailing newlines: a placeholder's value. */
static kbv_status text_finish(text *t)
{
    KBV_TRY(text_close(t));
    trim_trailing_newlines(t->data);
    return KBV_OK;
}

/* The PyTorch module, full size, input-blind when asked. */
static kbv_status write_reference(const kbv_problem_def *def, bool input_blind, FILE *out)
{
    kbv_status st = KBV_OK;
    text rendered;
    KBV_TRY(text_open(&rendered));
    KBV_TRY_GOTO(kbv_render_torch(def, KBV_SIZE_FULL, rendered.f), st, done);
    KBV_TRY_GOTO(text_close(&rendered), st, done);
    if (input_blind)
        KBV_TRY_GOTO(kbv_input_blind_reference(def, rendered.data, out), st, done);
    else
        fputs(rendered.data, out);
done:
    text_free(&rendered);
    return st;
}

/* The worked example: another problem's reference and its candidate source. */
typedef struct example {
    const char *key;
    const char *name;
    text reference;
    char *candidate;
} example;

/* KernelBench's example: its files as they are (element-wise addition is no
 * problem of the suite, so no prompt contains its own answer). */
static kbv_status example_load_kernelbench(example *ex)
{
    char path[4096];
    ex->key = "KernelBench example";
    ex->name = "elementwise_add";
    KBV_TRY(kbv_data_path("KBV_EXAMPLES_DIR", "examples", kernelbench_example_candidate, path,
                          sizeof path));
    KBV_TRY(kbv_prompt_read_file(path, &ex->candidate));
    trim_trailing_newlines(ex->candidate);
    char *reference = NULL;
    KBV_TRY(kbv_data_path("KBV_EXAMPLES_DIR", "examples", kernelbench_example_reference, path,
                          sizeof path));
    KBV_TRY(kbv_prompt_read_file(path, &reference));
    kbv_status st = text_open(&ex->reference);
    if (st == KBV_OK) {
        fputs(reference, ex->reference.f);
        st = text_finish(&ex->reference);
    }
    free(reference);
    return st;
}

static kbv_status example_load(const kbv_problem_def *def, const struct target *tg, example *ex)
{
    memset(ex, 0, sizeof *ex);
    if (tg == &targets[2])
        return example_load_kernelbench(ex);
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    const struct worked_example *we = NULL;
    for (size_t i = 0; i < sizeof worked_examples / sizeof worked_examples[0] && !we; i++)
        if (strcmp(worked_examples[i].key, key) != 0)
            we = &worked_examples[i];
    const kbv_problem_def *ex_def = we ? kbv_problem_find(we->key) : NULL;
    if (!ex_def)
        return kbv_fail(KBV_ERR_NOT_FOUND, "prompt: the worked example's problem is not defined");
    ex->key = we->key;
    ex->name = ex_def->name;

    char file[512], path[4096];
    snprintf(file, sizeof file, "%s.%s", we->stem, tg->ext);
    KBV_TRY(kbv_data_path("KBV_EXAMPLES_DIR", "examples", file, path, sizeof path));
    KBV_TRY(kbv_prompt_read_file(path, &ex->candidate));
    trim_trailing_newlines(ex->candidate);
    KBV_TRY(text_open(&ex->reference));
    KBV_TRY(write_reference(ex_def, false, ex->reference.f));
    return text_finish(&ex->reference);
}

static void example_free(example *ex)
{
    text_free(&ex->reference);
    free(ex->candidate);
    ex->candidate = NULL;
}

/* {example}: the informed template's framing of the worked example. */
static void write_example(const example *ex, const struct target *tg, FILE *out)
{
    fprintf(out,
            "Problem %s %s. The reference:\n\n```python\n%s\n```\n\n"
            "A complete, correct answer:\n\n```%s\n%s\n```",
            ex->key, ex->name, ex->reference.data, tg->fence, ex->candidate);
}

bool kbv_prompt_is_input_blind(const kbv_problem_def *def, const kbv_prompt_options *opt)
{
    if (opt->input_blind == KBV_BLIND_DEFAULT)
        return kbv_input_blind_default(def);
    return opt->input_blind == KBV_BLIND_ON;
}

const char *kbv_prompt_template_label(const kbv_prompt_options *opt)
{
    if (opt->template_name)
        return opt->template_name;
    return opt->kernelbench ? KBV_PROMPT_KERNELBENCH_TEMPLATE : KBV_PROMPT_DEFAULT_TEMPLATE;
}

/* A bundled template's name: letters, digits, '-' and '_'; anything else is
 * a path (./informed for a file of that name). */
static bool is_template_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return false;
    return true;
}

static kbv_status read_template(const kbv_prompt_options *opt, char **out)
{
    const char *name = kbv_prompt_template_label(opt);
    if (!is_template_name(name))
        return kbv_prompt_read_file(name, out);
    char file[256], path[4096];
    snprintf(file, sizeof file, "%s.txt", name);
    KBV_TRY(kbv_data_path("KBV_PROMPTS_DIR", "prompts", file, path, sizeof path));
    if (!kbv_file_exists(path)) {
        char dir[4096];
        KBV_TRY(kbv_data_path("KBV_PROMPTS_DIR", "prompts", NULL, dir, sizeof dir));
        return kbv_fail(KBV_ERR_NOT_FOUND,
                        "no template '%s' (the bundled ones are default, informed and kernelbench, the .txt "
                        "files in %s; a file of your own needs a path, e.g. ./%s)",
                        name, dir, name);
    }
    return kbv_prompt_read_file(path, out);
}

enum { PIECE_TASK, PIECE_ABI, PIECE_JUDGING, PIECE_REFERENCE, PIECE_GPU, PIECE_EXAMPLE,
       PIECE_EXAMPLE_REFERENCE, PIECE_EXAMPLE_CANDIDATE, PIECE_KEY, PIECE_NAME, PIECE_LANGUAGE,
       PIECE_KERNELS, PIECE_FENCE, PIECE_PRECISION_NOTE, PIECE_COUNT };
static const char *const placeholders[PIECE_COUNT] = {
    "{task}", "{abi}", "{judging}", "{reference}", "{gpu}", "{example}", "{example_reference}",
    "{example_candidate}", "{problem_key}", "{problem_name}", "{language}", "{kernels}",
    "{fence}", "{precision_note}",
};

kbv_status kbv_prompt_precision(const kbv_prompt_options *opt, kbv_precision *out)
{
    *out = KBV_PRECISION_FP32;
    return opt->precision ? kbv_precision_parse(opt->precision, out) : KBV_OK;
}

/* {precision_note}: the paper's (src/prompt_constructor.py,
 * prompt_generate_custom_cuda) for a precision other than fp32, its blank
 * lines around it included; "" for fp32, where the paper adds none. */
static void write_precision_note(kbv_precision p, FILE *out)
{
    const char *display = kbv_precision_get(p)->prompt_display;
    if (display)
        fprintf(out, "\nNote: The kernels should be optimized for %s precision.\n", display);
}

/* One pass: text substituted in is never scanned again, so braces in code
 * or a placeholder's name inside ABI.md stay as they are. */
static void expand(const char *tmpl, const char *const *values, FILE *out)
{
    for (const char *p = tmpl; *p; p++) {
        int hit = -1;
        if (*p == '{')
            for (int i = 0; i < PIECE_COUNT && hit < 0; i++)
                if (starts_with(p, placeholders[i]))
                    hit = i;
        if (hit < 0) {
            fputc(*p, out);
            continue;
        }
        fputs(values[hit], out);
        p += strlen(placeholders[hit]) - 1;
    }
}

kbv_status kbv_prompt_build(const kbv_problem_def *def, const kbv_prompt_options *opt,
                            char **out)
{
    if (!def || !opt || !out)
        return kbv_fail(KBV_ERR_INTERNAL, "prompt: no problem, options or output");
    *out = NULL;
    kbv_status st = KBV_OK;
    if (opt->cpu && opt->kernelbench)
        return kbv_fail(KBV_ERR_INVALID, "prompt: KernelBench's format asks for CUDA kernels: "
                        "--kernelbench goes without --cpu (its files run on either device)");
    const struct target *tg = &targets[opt->kernelbench ? 2 : opt->cpu];
    char *tmpl = NULL, *abi_md = NULL, key[32], path[4096];
    text abi = {0}, judging = {0}, ref = {0}, ex_text = {0}, prompt = {0}, note = {0};
    example ex = {0};

    kbv_precision precision;
    KBV_TRY_GOTO(kbv_prompt_precision(opt, &precision), st, done);
    KBV_TRY_GOTO(text_open(&note), st, done);
    write_precision_note(precision, note.f);
    KBV_TRY_GOTO(text_close(&note), st, done);
    KBV_TRY_GOTO(read_template(opt, &tmpl), st, done);
    KBV_TRY_GOTO(kbv_data_path("KBV_DOCS_DIR", "docs", "ABI.md", path, sizeof path), st, done);
    KBV_TRY_GOTO(kbv_prompt_read_file(path, &abi_md), st, done);
    KBV_TRY_GOTO(text_open(&abi), st, done);
    write_abi(abi_md, NULL, opt->vendor_libs, abi.f);
    KBV_TRY_GOTO(text_finish(&abi), st, done);
    KBV_TRY_GOTO(text_open(&judging), st, done);
    write_abi(abi_md, abi_judging, 0, judging.f);
    KBV_TRY_GOTO(text_finish(&judging), st, done);

    KBV_TRY_GOTO(text_open(&ref), st, done);
    KBV_TRY_GOTO(write_reference(def, kbv_prompt_is_input_blind(def, opt), ref.f), st, done);
    KBV_TRY_GOTO(text_finish(&ref), st, done);

    KBV_TRY_GOTO(example_load(def, tg, &ex), st, done);
    KBV_TRY_GOTO(text_open(&ex_text), st, done);
    write_example(&ex, tg, ex_text.f);
    KBV_TRY_GOTO(text_close(&ex_text), st, done);

    kbv_problem_key(def, key, sizeof key);
    const char *values[PIECE_COUNT] = {
        [PIECE_TASK] = tg->task,
        [PIECE_ABI] = abi.data,
        [PIECE_JUDGING] = judging.data,
        [PIECE_REFERENCE] = ref.data,
        [PIECE_GPU] = opt->gpu ? opt->gpu : tg->gpu,
        [PIECE_EXAMPLE] = ex_text.data,
        [PIECE_EXAMPLE_REFERENCE] = ex.reference.data,
        [PIECE_EXAMPLE_CANDIDATE] = ex.candidate,
        [PIECE_KEY] = key,
        [PIECE_NAME] = def->name,
        [PIECE_LANGUAGE] = tg->language,
        [PIECE_KERNELS] = tg->kernels,
        [PIECE_FENCE] = tg->fence,
        [PIECE_PRECISION_NOTE] = note.data,
    };
    KBV_TRY_GOTO(text_open(&prompt), st, done);
    expand(tmpl, values, prompt.f);
    KBV_TRY_GOTO(text_close(&prompt), st, done);
    *out = prompt.data;
    prompt.data = NULL;
done:
    free(tmpl);
    free(abi_md);
    text_free(&abi);
    text_free(&judging);
    text_free(&ref);
    text_free(&ex_text);
    text_free(&prompt);
    text_free(&note);
    example_free(&ex);
    return st;
}
