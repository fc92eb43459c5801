/* Code block extraction from a model's answer; the rule is in extract.h. */
#include "gen/extract.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Languages whose blocks may hold a candidate; "" is a bare ``` fence. */
static const char *const candidate_languages[] = {
    "", "cuda", "cu", "cuh", "c", "h", "cpp", "c++", "cc", "cxx", "hpp",
};

typedef struct line_view {
    const char *start;
    size_t len;   /* without the '\n' and a '\r' before it */
    size_t next;  /* offset of the following line */
} line_view;

static line_view line_at(const char *text, size_t off, size_t total)
{
    line_view l = {text + off, 0, total};
    const char *nl = memchr(text + off, '\n', total - off);
    size_t end = nl ? (size_t)(nl - text) : total;
    l.next = nl ? end + 1 : total;
    l.len = end - off;
    if (l.len > 0 && l.start[l.len - 1] == '\r')
        l.len--;
    return l;
}

static size_t leading_blanks(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* An opening fence: returns its length (0 if not a fence) and sets the
 * fence character, indentation and first info word. */
static size_t parse_open_fence(line_view l, char *fence_char, size_t *indent, char *lang,
                               size_t lang_cap)
{
    size_t i = leading_blanks(l.start, l.len);
    if (i >= l.len || (l.start[i] != '`' && l.start[i] != '~'))
        return 0;
    char c = l.start[i];
    size_t run = 0;
    while (i + run < l.len && l.start[i + run] == c)
        run++;
    if (run < 3)
        return 0;
    const char *info = l.start + i + run;
    size_t info_len = l.len - i - run;
    if (c == '`' && memchr(info, '`', info_len))  /* inline code, not a fence */
        return 0;
    size_t k = leading_blanks(info, info_len), w = 0;
    while (k + w < info_len && !isspace((unsigned char)info[k + w]) && info[k + w] != '{' &&
           w + 1 < lang_cap) {
        lang[w] = (char)tolower((unsigned char)info[k + w]);
        w++;
    }
    lang[w] = '\0';
    *fence_char = c;
    *indent = i;
    return run;
}

static bool is_close_fence(line_view l, char fence_char, size_t open_len)
{
    size_t i = leading_blanks(l.start, l.len), run = 0;
    while (i + run < l.len && l.start[i + run] == fence_char)
        run++;
    if (run < open_len)
        return false;
    return leading_blanks(l.start + i + run, l.len - i - run) == l.len - i - run;
}

static bool is_candidate_language(const char *lang)
{
    for (size_t i = 0; i < sizeof candidate_languages / sizeof candidate_languages[0]; i++)
        if (!strcasecmp(lang, candidate_languages[i]))
            return true;
    return false;
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

bool kbv_extract_defines_forward(const char *src, size_t len)
{
    static const char name[] = "kbv_forward";
    const size_t name_len = sizeof name - 1;
    for (size_t i = 0; i + name_len <= len; i++) {
        if (memcmp(src + i, name, name_len) != 0)
            continue;
        if ((i > 0 && is_ident_char(src[i - 1])) ||
            (i + name_len < len && is_ident_char(src[i + name_len])))
            continue;
        size_t k = i + name_len;
        while (k < len && isspace((unsigned char)src[k]))
            k++;
        if (k >= len || src[k] != '(')
            continue;
        int depth = 0;
        for (; k < len; k++) {
            if (src[k] == '(')
                depth++;
            else if (src[k] == ')' && --depth == 0)
                break;
        }
        if (k >= len)
            continue;
        k++;
        while (k < len && isspace((unsigned char)src[k]))
            k++;
        if (k < len && src[k] == '{')  /* a body follows the parameter list */
            return true;
    }
    return false;
}

bool kbv_extract_defines_modelnew(const char *src, size_t len)
{
    static const char head[] = "class ModelNew";
    const size_t n = sizeof head - 1;
    for (size_t i = 0; i + n < len; i++) {
        if ((i > 0 && src[i - 1] != '\n') || memcmp(src + i, head, n) != 0)
            continue;
        size_t k = i + n;
        while (k < len && (src[k] == ' ' || src[k] == '\t'))
            k++;
        if (k < len && (src[k] == '(' || src[k] == ':'))
            return true;
    }
    return false;
}

static bool is_python_language(const char *lang)
{
    return !*lang || !strcasecmp(lang, "python") || !strcasecmp(lang, "py");
}

/* Where the answer proper starts: after the last </think>, if any. */
static size_t answer_start(const char *text)
{
    static const char tag[] = "</think>";
    size_t start = 0;
    for (const char *p = strstr(text, tag); p; p = strstr(p + 1, tag))
        start = (size_t)(p - text) + sizeof tag - 1;
    return start;
}

/* Copies a block's lines, dropping the fence's indentation from each. */
static char *copy_block(const char *text, size_t body, size_t body_end, size_t indent)
{
    char *out = malloc(body_end - body + 2);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t off = body; off < body_end;) {
        line_view l = line_at(text, off, body_end);
        size_t strip = leading_blanks(l.start, l.len);
        if (strip > indent)
            strip = indent;
        memcpy(out + n, l.start + strip, l.len - strip);
        n += l.len - strip;
        out[n++] = '\n';
        off = l.next;
    }
    out[n] = '\0';
    return out;
}

kbv_status kbv_extract_code(const char *answer, kbv_extract_result *out)
{
    return kbv_extract_code_kind(answer, KBV_EXTRACT_CANDIDATE, out);
}

kbv_status kbv_extract_code_kind(const char *answer, kbv_extract_kind kind,
                                 kbv_extract_result *out)
{
    if (!answer || !out)
        return kbv_fail(KBV_ERR_INVALID, "extract: no answer or no result");
    memset(out, 0, sizeof *out);
    const char *text = answer + answer_start(answer);
    size_t total = strlen(text);

    /* The chosen block, as offsets into text. */
    size_t best_body = 0, best_end = 0, best_indent = 0;
    bool have_best = false;

    for (size_t off = 0; off < total;) {
        line_view l = line_at(text, off, total);
        char fence_char, lang[32];
        size_t indent;
        size_t open_len = parse_open_fence(l, &fence_char, &indent, lang, sizeof lang);
        if (!open_len) {
            off = l.next;
            continue;
        }
        size_t body = l.next, body_end = total, after = total;
        bool closed = false;
        for (size_t p = body; p < total;) {
            line_view c = line_at(text, p, total);
            if (is_close_fence(c, fence_char, open_len)) {
                body_end = p;
                after = c.next;
                closed = true;
                break;
            }
            p = c.next;
        }
        out->n_blocks++;
        const bool defines =
            kind == KBV_EXTRACT_KERNELBENCH
                ? is_python_language(lang) &&
                      kbv_extract_defines_modelnew(text + body, body_end - body)
                : is_candidate_language(lang) &&
                      kbv_extract_defines_forward(text + body, body_end - body);
        if (defines) {
            out->n_defining++;
            have_best = true;
            best_body = body;
            best_end = body_end;
            best_indent = indent;
            out->unclosed = !closed;
            snprintf(out->language, sizeof out->language, "%s", lang);
        }
        off = after;
    }

    if (!have_best) {
        if (out->n_blocks == 0)
            snprintf(out->reason, sizeof out->reason, "no code block in the answer");
        else
            snprintf(out->reason, sizeof out->reason, "%d code block%s, none %s",
                     out->n_blocks, out->n_blocks == 1 ? "" : "s",
                     kind == KBV_EXTRACT_KERNELBENCH ? "in Python defining class ModelNew"
                                                     : "in C/C++/CUDA defining kbv_forward");
        return KBV_OK;
    }
    out->code = copy_block(text, best_body, best_end, best_indent);
    if (!out->code)
        return kbv_fail(KBV_ERR_NOMEM, "extract: out of memory copying a %zu-byte block",
                        best_end - best_body);
    return KBV_OK;
}

void kbv_extract_result_free(kbv_extract_result *r)
{
    if (!r)
        return;
    free(r->code);
    r->code = NULL;
}
