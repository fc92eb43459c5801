/* kbv merge: join results files (the shards of one run) into one, each
 * sample once. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "core/vendor_libs.h"
#include "report/metrics.h"
#include "record/results.h"
#include "report/table.h"

#define MAX_INPUTS 4096

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv merge RESULTS.jsonl... --out MERGED.jsonl [--summary FILE]\n\n"
            "Joins results files, such as the shards written by kbv eval --shard I/N\n"
            "(RESULTS.shard-I-of-N.jsonl), into one. Records are kept in the order read,\n"
            "files in the order given; a record of a sample already seen (same model,\n"
            "problem, sample, source_sha256, size, device, verified gate, precision and\n"
            "vendor libraries) is dropped.\n"
            "When the two disagree on a verdict (correct under some protocol) that is a\n"
            "conflict: it is reported on stderr and the first record kept. Lines that are\n"
            "not records (a record torn by a killed run) are counted and left out. Records\n"
            "of a later schema (written by a newer kbv) are kept whole, unread; records an\n"
            "earlier kbv wrote are read, with a note of what they lack.\n"
            "MERGED.jsonl is written whole or not at all (a temporary file renamed into\n"
            "place), so it may be one of the inputs; kbv merge holds it (as kbv eval holds\n"
            "its --out) from before the inputs are read until it ends, and refuses an\n"
            "existing MERGED.jsonl that another kbv process holds or that is not a kbv\n"
            "results file (lines that are not records, such as a CSV or notes: it is left\n"
            "as it is). Then, as kbv eval does, a table per model goes to stdout and the\n"
            "same numbers to the summary JSON; records of several devices, sizes, gates,\n"
            "precisions or vendor library sets get a table each and no summary (kbv report\n"
            "covers them).\n\n"
            "  --out FILE      the merged results file (required)\n"
            "  --summary FILE  the summary JSON (default: MERGED.jsonl.summary.json)\n"
            "  --help          this text\n\n"
            "Exit status: 0 when merged (conflicts included: they are on stderr), 1 when an\n"
            "input cannot be read or the output written (in use by another kbv process, or\n"
            "not a kbv results file), 2 on bad usage.\n");
}

/* A kept record: its identity, its verdicts, where it came from, its line. */
typedef struct kept {
    char *line;            /* the record's text as read, without the newline */
    char *id;              /* model \n problem \n sample \n sha \n size \n device */
    uint64_t hash;
    unsigned verdicts;     /* bit p: correct under protocol p */
    int input, lineno;
} kept;

typedef struct merge_state {
    kept *items;
    int n, cap;
    int *table;            /* open addressing over items, -1 empty */
    size_t table_cap;
    int duplicates, conflicts, malformed, newer;
    const char *const *inputs;
} merge_state;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static kbv_status grow_table(merge_state *m)
{
    size_t cap = m->table_cap ? m->table_cap * 2 : 1024;
    int *t = malloc(cap * sizeof *t);
    if (!t)
        return kbv_fail(KBV_ERR_NOMEM, "merging %d records", m->n);
    for (size_t i = 0; i < cap; i++)
        t[i] = -1;
    for (int k = 0; k < m->n; k++) {
        size_t i = (size_t)(m->items[k].hash & (cap - 1));
        while (t[i] >= 0)
            i = (i + 1) & (cap - 1);
        t[i] = k;
    }
    free(m->table);
    m->table = t;
    m->table_cap = cap;
    return KBV_OK;
}

/* The index of the kept record with this identity, or -1; *slot: where a
 * new one goes. */
static int find(const merge_state *m, const char *id, uint64_t hash, size_t *slot)
{
    size_t i = (size_t)(hash & (m->table_cap - 1));
    while (m->table[i] >= 0) {
        const kept *k = &m->items[m->table[i]];
        if (k->hash == hash && !strcmp(k->id, id))
            return m->table[i];
        i = (i + 1) & (m->table_cap - 1);
    }
    *slot = i;
    return -1;
}

static void verdict_text(unsigned v, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int p = 0; p < KBV_PROTO_COUNT && n < cap; p++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s %s", p ? ", " : "",
                              kbv_protocol_name((kbv_protocol)p), v >> p & 1 ? "PASS" : "FAIL");
}

/* The identity of a record of a later schema, from the fields schema 1 has
 * (a newer kbv keeps them: its records are copied whole, not read). */
static bool newer_record(const json_t *o, kbv_record *rec)
{
    const json_t *model = json_object_get(o, "model"), *problem = json_object_get(o, "problem"),
                 *sample = json_object_get(o, "sample");
    if (!json_is_string(model) || !json_is_string(problem) || !json_is_integer(sample))
        return false;
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "%s", json_string_value(model));
    snprintf(rec->problem, sizeof rec->problem, "%s", json_string_value(problem));
    rec->sample = (int)json_integer_value(sample);
    static const struct {
        const char *key;
        size_t offset, cap;
    } text[] = {{"source_sha256", offsetof(kbv_record, source_sha256), 65},
                {"size", offsetof(kbv_record, size), 8},
                {"device", offsetof(kbv_record, device), 128}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        const char *v = json_string_value(json_object_get(o, text[i].key));
        snprintf((char *)rec + text[i].offset, text[i].cap, "%s", v ? v : "");
    }
    const char *gate = json_string_value(json_object_get(o, "gate"));
    if (gate && kbv_gate_parse(gate, &rec->gate) != KBV_OK) {
        kbv_clear_error();
        rec->gate = KBV_GATE_COUNT;   /* a gate this kbv does not know: its own identity */
    }
    const json_t *protos = json_object_get(o, "protocols");
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        rec->proto[p].correct = json_is_true(json_object_get(
            json_object_get(protos, kbv_protocol_name((kbv_protocol)p)), "correct"));
    return true;
}

/* One line of input `in`: kept, dropped as a duplicate, or counted malformed. */
static kbv_status take_line(merge_state *m, int in, int lineno, const char *line, size_t len,
                            kbv_record *rec)
{
    kbv_status st = KBV_OK;
    char *id = NULL;
    json_error_t jerr;
    json_t *o = json_loadb(line, len, 0, &jerr);
    kbv_status read = o ? kbv_record_from_json(o, rec) : KBV_ERR_PARSE;
    kbv_clear_error();
    if (read == KBV_ERR_UNSUPPORTED && newer_record(o, rec)) {
        /* a newer kbv's record: kept as it is, never dropped */
        if (m->newer++ == 0)
            fprintf(stderr, "kbv merge: %s line %d is a record of schema %lld, written by a "
                            "newer kbv: kept whole (this kbv reads schema %d)\n",
                    m->inputs[in], lineno, kbv_record_schema(o), KBV_RESULTS_SCHEMA);
        read = KBV_OK;
    }
    if (read != KBV_OK) {
        json_decref(o);
        if (m->malformed++ < 5)
            fprintf(stderr, "kbv merge: %s line %d is not a results record; left out\n",
                    m->inputs[in], lineno);
        return KBV_OK;
    }
    json_decref(o);
    /* the identity kbv_record_same_job compares */
    const char *gate = rec->gate < KBV_GATE_COUNT ? kbv_gate_get(rec->gate)->name : "?";
    const char *precision = kbv_precision_get(rec->precision)->name;
    size_t id_len = strlen(rec->model) + strlen(rec->problem) + strlen(rec->source_sha256) +
                    strlen(rec->size) + strlen(rec->device) + strlen(gate) + strlen(precision) +
                    48;
    id = malloc(id_len);
    if (!id)
        return kbv_fail(KBV_ERR_NOMEM, "merging records");
    snprintf(id, id_len, "%s\n%s\n%d\n%s\n%s\n%s\n%s\n%s\n%x", rec->model, rec->problem,
             rec->sample, rec->source_sha256, rec->size, rec->device, gate, precision,
             rec->vendor_libs);
    unsigned verdicts = 0;
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        verdicts |= (unsigned)rec->proto[p].correct << p;
    uint64_t hash = fnv1a(id);
    if ((size_t)(m->n + 1) * 2 > m->table_cap)
        KBV_TRY_GOTO(grow_table(m), st, done);
    size_t slot = 0;
    int seen = find(m, id, hash, &slot);
    if (seen >= 0) {
        const kept *k = &m->items[seen];
        if (k->verdicts != verdicts) {
            char a[96], b[96];
            verdict_text(k->verdicts, a, sizeof a);
            verdict_text(verdicts, b, sizeof b);
            fprintf(stderr, "kbv merge: conflict: %s %s sample %d (%s, %s): %s line %d says %s; "
                            "%s line %d says %s; the first is kept\n",
                    rec->model, rec->problem, rec->sample, rec->device, rec->size,
                    m->inputs[k->input], k->lineno, a, m->inputs[in], lineno, b);
            m->conflicts++;
        } else {
            m->duplicates++;
        }
        goto done;
    }
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 256;
        kept *items = realloc(m->items, (size_t)cap * sizeof *items);
        if (!items)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "merging %d records", cap);
        m->items = items;
        m->cap = cap;
    }
    char *copy = strndup(line, len);
    if (!copy)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "merging records");
    m->items[m->n] = (kept){.line = copy, .id = id, .hash = hash, .verdicts = verdicts,
                            .input = in, .lineno = lineno};
    m->table[slot] = m->n++;
    id = NULL;
done:
    free(id);
    return st;
}

static kbv_status read_input(merge_state *m, int in)
{
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    kbv_record *rec = malloc(sizeof *rec);
    FILE *f = fopen(m->inputs[in], "r");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot read %s: %s", m->inputs[in],
                      strerror(errno));
    if (!rec)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "reading %s", m->inputs[in]);
    ssize_t len;
    int lineno = 0;
    errno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        size_t lead = strspn(line, " \t");
        if ((size_t)len == lead)
            continue;
        KBV_TRY_GOTO(take_line(m, in, lineno, line, (size_t)len, rec), st, done);
    }
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s: %s", m->inputs[in], strerror(errno));
done:
    if (f)
        fclose(f);
    free(line);
    free(rec);
    return st;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The kept lines into a temporary file beside path, fsync'd and renamed
 * over it; the directory is fsync'd so the rename itself survives a crash. */
static kbv_status write_merged(const merge_state *m, const char *path)
{
    kbv_status st = KBV_OK;
    char tmp[1200], dir[1100];
    int fd = -1;
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir ||
        snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp)
        return kbv_fail(KBV_ERR_INVALID, "output path too long: %s", path);
    fd = mkstemp(tmp);
    if (fd < 0)   /* the temporary file beside path, renamed over it once written */
        return kbv_fail(KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    for (int i = 0; i < m->n; i++)
        if (write_all(fd, m->items[i].line, strlen(m->items[i].line)) || write_all(fd, "\n", 1))
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (fchmod(fd, 0644) || fsync(fd))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (close(fd)) {
        fd = -1;
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    fd = -1;
    if (rename(tmp, path))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
    int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return KBV_OK;
done:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return st;
}

/* Records summarised together: one device, size, verified gate, precision and set of vendor
 * libraries. */
static bool same_group(const kbv_record *a, const kbv_record *b)
{
    return !strcmp(a->device, b->device) && !strcmp(a->size, b->size) && a->gate == b->gate &&
           a->precision == b->precision && a->vendor_libs == b->vendor_libs;
}

/* The metrics of the merged file: a table per (device, size, gate, precision), and the
 * summary when there is only one. */
static int report(const char *out, const char *summary)
{
    int status = 1;
    kbv_record_list all, group;
    memset(&group, 0, sizeof group);
    kbv_metrics m;
    memset(&m, 0, sizeof m);
    bool *done = NULL;
    if (kbv_records_load(out, &all) != KBV_OK) {
        kbv_cli_error("kbv merge", "reading the merged file back");
        return 1;
    }
    done = calloc((size_t)all.n + 1, sizeof *done);
    if (!done) {
        fprintf(stderr, "kbv merge: out of memory\n");
        goto end;
    }
    for (int k = 0; k < KBV_LEGACY_COUNT; k++) {
        int n = 0;
        for (int i = 0; i < all.n; i++)
            n += (all.items[i].legacy >> k) & 1;
        if (n)
            fprintf(stderr, "kbv merge: note: %d record%s %s\n", n, n == 1 ? "" : "s",
                    kbv_legacy_note(k));
    }
    int groups = 0;
    for (int i = 0; i < all.n; i++)
        if (!done[i]) {
            groups++;
            for (int j = i; j < all.n; j++)
                if (same_group(&all.items[j], &all.items[i]))
                    done[j] = true;
        }
    memset(done, 0, (size_t)all.n * sizeof *done);
    for (int i = 0; i < all.n; i++) {
        if (done[i])
            continue;
        const kbv_record *first = &all.items[i];
        group.n = 0;
        for (int j = i; j < all.n; j++) {
            if (!same_group(&all.items[j], first))
                continue;
            done[j] = true;
            if (kbv_record_list_push(&group, &all.items[j]) != KBV_OK) {
                kbv_cli_error("kbv merge", "collecting records");
                goto end;
            }
        }
        kbv_metrics_free(&m);
        memset(&m, 0, sizeof m);
        if (kbv_metrics_compute(group.items, group.n, &m) != KBV_OK) {
            kbv_cli_error("kbv merge", "computing the metrics");
            goto end;
        }
        char libs[64];
        kbv_summary_info info = {.results_path = out, .device = first->device,
                                 .size = first->size, .n_records = group.n,
                                 .gate = kbv_gate_get(first->gate)->name,
                                 .precision = kbv_precision_get(first->precision)->name,
                                 .vendor_libs = kbv_vendor_format(first->vendor_libs, libs,
                                                                  sizeof libs)};
        kbv_table_print(stdout, &m, &info);
        if (groups == 1) {
            if (kbv_summary_write(summary, &m, &info) != KBV_OK) {
                kbv_cli_error("kbv merge", "writing the summary");
                goto end;
            }
            fprintf(stderr, "kbv merge: summary in %s\n", summary);
        }
    }
    if (groups > 1)
        fprintf(stderr, "kbv merge: records of %d devices, sizes, verified gates, precisions or "
                        "vendor library sets: a table each, no summary (kbv report covers "
                        "them)\n", groups);
    status = 0;
end:
    free(done);
    kbv_metrics_free(&m);
    kbv_record_list_free(&group);
    kbv_record_list_free(&all);
    return status;
}

int kbv_cmd_merge(int argc, char **argv)
{
    const char *inputs[MAX_INPUTS];
    int n_inputs = 0;
    const char *out = NULL, *summary = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--out") && a + 1 < argc) {
            out = argv[++a];
        } else if (!strcmp(arg, "--summary") && a + 1 < argc) {
            summary = argv[++a];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "kbv merge: unknown or incomplete option '%s' (see kbv merge "
                            "--help)\n", arg);
            return 2;
        } else if (n_inputs < MAX_INPUTS) {
            inputs[n_inputs++] = arg;
        } else {
            fprintf(stderr, "kbv merge: more than %d input files\n", MAX_INPUTS);
            return 2;
        }
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (n_inputs == 0 || !out) {
        fprintf(stderr, "kbv merge: %s (see kbv merge --help)\n",
                n_inputs == 0 ? "no results file given" : "--out MERGED.jsonl is required");
        return 2;
    }
    char summary_buf[1100];
    if (!summary) {
        snprintf(summary_buf, sizeof summary_buf, "%s.summary.json", out);
        summary = summary_buf;
    }
    int status = 1;
    bool written = false;
    merge_state m = {.inputs = inputs};
    /* held before the inputs are read: an eval still appending to MERGED.jsonl
     * (perhaps one of them) would lose what it writes after the reading */
    kbv_results held;
    if (kbv_results_claim(out, &held) != KBV_OK) {
        kbv_cli_error("kbv merge", NULL);   /* the message names the file and what to do */
        return 1;
    }
    for (int i = 0; i < n_inputs; i++)
        if (read_input(&m, i) != KBV_OK) {
            kbv_cli_error("kbv merge", NULL);   /* names the file */
            goto done;
        }
    if (m.malformed)
        fprintf(stderr, "kbv merge: %d line%s left out (not a results record)\n", m.malformed,
                m.malformed == 1 ? "" : "s");
    if (write_merged(&m, out) != KBV_OK) {
        kbv_cli_error("kbv merge", NULL);
        goto done;
    }
    written = true;
    fprintf(stderr, "kbv merge: %d record%s from %d file%s into %s; dropped: %d duplicate%s, "
                    "%d conflicting\n", m.n, m.n == 1 ? "" : "s", n_inputs,
            n_inputs == 1 ? "" : "s", out, m.duplicates, m.duplicates == 1 ? "" : "s",
            m.conflicts);
    if (m.newer)
        fprintf(stderr, "kbv merge: %d of them of a newer schema, kept whole and left out of the "
                        "table (a newer kbv reports them)\n", m.newer);
    status = report(out, summary);
done:
    if (!written && held.created)
        unlink(out);   /* made empty to be held, then nothing was written */
    kbv_results_close(&held);
    for (int i = 0; i < m.n; i++) {
        free(m.items[i].line);
        free(m.items[i].id);
    }
    free(m.items);
    free(m.table);
    return status;
}
