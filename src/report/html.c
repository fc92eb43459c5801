#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kbv_build_config.h"
#include "report/figures.h"
#include "report/html_parts.h"
#include "report/report_tables.h"


static const char css[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;font-size:14px;color:#1a1a1a;"
    "background:#fafafa;margin:0;padding:0 14px 40px;max-width:1360px;box-sizing:border-box}"
    "h1{font-size:24px;margin:14px 0 4px}h2{font-size:19px;margin:26px 0 8px;padding-top:6px;"
    "border-top:2px solid #d0d0d0}h3{font-size:16px;margin:18px 0 6px}"
    "h4{font-size:14px;margin:0 0 4px}"
    "nav a{margin-right:14px}a{color:#0a58a8;text-decoration:none}a:hover{text-decoration:"
    "underline}"
    ".meta{color:#555;margin:2px 0 6px}.note{color:#444;max-width:1100px;margin:4px 0 10px}"
    "table{border-collapse:collapse;margin:6px 0 14px;background:#fff}"
    "th,td{border:1px solid #d4d4d4;padding:3px 7px;vertical-align:top}"
    "th{background:#eef1f5;font-weight:600}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums;white-space:nowrap}"
    "th.p0{background:#ececec}th.p1{background:#dce9f5}th.p2{background:#f8e3d6}"
    "tr.all td{font-weight:600;background:#f6f6f6}"
    ".ok{color:#17672c;font-weight:600}.bad{color:#a31c1c;font-weight:600}"
    ".muted{color:#888}"
    ".figs{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}"
    "figure{margin:0;background:#fff;border:1px solid #d4d4d4;padding:6px;width:min-content;"
    "max-width:100%}"
    "figure .plot{overflow-x:auto}figcaption{font-size:12.5px;color:#333;padding:4px 2px 0}"
    "figure svg{display:block}"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}"
    "pre{background:#f3f3f3;border:1px solid #ddd;padding:6px;white-space:pre-wrap;"
    "word-break:break-all;max-height:320px;overflow:auto}"
    ".sample{background:#fff;border:1px solid #d4d4d4;padding:8px 10px;margin:10px 0;"
    "overflow-x:auto}"
    ".sample:target{border:2px solid #0a58a8;background:#f5f9ff}"
    "td.reason{max-width:520px}"
    ".code2{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin:4px 0 8px}"
    "details.code{background:#fafafa;border:1px solid #ddd;padding:4px 6px;min-width:0}"
    "details.code pre{max-height:480px}th[data-col]:hover{background:#dde3ec}";

/* ---- small pieces ---------------------------------------------------------- */

/* ---- figures ------------------------------------------------------------------ */

static kbv_status write_figures(FILE *f, const kbv_report_data *d, kbv_protocol focus)
{
    kbv_figure figs[64];
    int n = kbv_figures_plan(d, focus, figs, 64);
    fputs("<section id=\"figures\"><h2>Figures</h2>\n<div class=\"figs\">\n", f);
    for (int i = 0; i < n; i++) {
        /* the heat map starts a row of its own */
        if (figs[i].kind == KBV_FIG_HEATMAP)
            fputs("</div>\n<div class=\"figs\">\n", f);
        fprintf(f, "<figure id=\"fig-%s\"><div class=\"plot\">\n", figs[i].name);
        KBV_TRY(kbv_figure_write(f, d, &figs[i], false));
        fputs("</div><figcaption><b>", f);
        esc(f, figs[i].title);
        fputs(".</b> ", f);
        esc(f, figs[i].caption);
        fputs("</figcaption></figure>\n", f);
    }
    fputs("</div>\n</section>\n", f);
    return KBV_OK;
}

/* Sorting, the page's one script: a click on a header sorts its table's
 * body by that column (a table of one header row: its position; of two:
 * the data-col the writer gives) (numbers by data-v or their text, else
 * alphabetically; cells without a number last), again to reverse; the query
 * ?sort=TABLE:COLUMN[:desc] sorts a table as the page opens. Without it the
 * page is whole: every table in its written order. */
static const char sort_script[] =
    "(function(){"
    "function num(c){var v=c.getAttribute('data-v');if(v!==null)return parseFloat(v);"
    "var m=c.textContent.trim().match(/^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?/i);"
    "return m?parseFloat(m[0]):NaN;}"
    "function sortBy(t,col,desc){var b=t.tBodies[0];if(!b)return;"
    "var rows=Array.prototype.slice.call(b.rows).map(function(r,i){return [r,i];});"
    "rows.sort(function(x,y){var a=x[0].cells[col],c=y[0].cells[col];"
    "if(!a||!c)return x[1]-y[1];var p=num(a),q=num(c),r;"
    "if(isNaN(p)&&isNaN(q))r=a.textContent.localeCompare(c.textContent);"
    "else if(isNaN(p))return 1;else if(isNaN(q))return -1;else r=p-q;"
    "if(desc)r=-r;return r||x[1]-y[1];});"
    "rows.forEach(function(x){b.appendChild(x[0]);});"
    "t.setAttribute('data-sorted',col+(desc?':desc':':asc'));}"
    "document.querySelectorAll('table.sortable').forEach(function(t){var h=t.tHead;"
    "if(h&&h.rows.length===1)Array.prototype.forEach.call(h.rows[0].cells,function(c,i){"
    "if(!c.hasAttribute('data-col'))c.setAttribute('data-col',i);});});"
    "document.querySelectorAll('table.sortable th[data-col]').forEach(function(h){"
    "h.style.cursor='pointer';h.title='sort by this column';"
    "h.addEventListener('click',function(){var t=h.closest('table'),col=+h.getAttribute("
    "'data-col');sortBy(t,col,t.getAttribute('data-sorted')===col+':asc');});});"
    "var q=new URLSearchParams(location.search).get('sort');"
    "if(q){var p=q.split(':'),t=document.getElementById(p[0]);"
    "if(t)sortBy(t,+p[1],p[2]==='desc');}"
    "})();";

/* ---- the page ---------------------------------------------------------------------- */

kbv_status kbv_html_write(FILE *f, const kbv_report_data *d, const kbv_html_opts *o)
{
    const char *title = o->title ? o->title : "kbv report";
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>",
          f);
    esc(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", css);
    esc(f, title);
    fputs("</h1>\n<p class=\"meta\">Results: ", f);
    for (int i = 0; i < o->n_inputs; i++) {
        if (i)
            fputs(", ", f);
        fputs("<code>", f);
        esc(f, o->inputs[i]);
        fputs("</code>", f);
    }
    fprintf(f, " &middot; %d records, %d samples, %d models, %d problems &middot; device ",
            d->records.n, d->n_samples, d->n_models, d->n_problems);
    esc(f, d->device);
    fputs(" &middot; size ", f);
    esc(f, d->size);
    fputs(" &middot; precision ", f);
    esc(f, d->precision);
    fputs(" &middot; vendor libraries ", f);
    esc(f, d->vendor_libs);
    fprintf(f, " &middot; kbv %s</p>\n", KBV_VERSION);
    if (d->malformed > d->newer) {
        fprintf(f, "<p class=\"bad\">%d malformed line%s skipped (first: ", d->malformed - d->newer,
                d->malformed - d->newer == 1 ? "" : "s");
        esc(f, d->malformed_where);
        fputs(").</p>\n", f);
    }
    if (d->newer) {
        fprintf(f, "<p class=\"bad\">%d record%s of schema %d, written by a newer kbv, not read "
                   "(this kbv reads schema %d; first: ", d->newer, d->newer == 1 ? "" : "s",
                d->newest_schema, KBV_RESULTS_SCHEMA);
        esc(f, d->newer_where);
        fputs("): a newer kbv reports them.</p>\n", f);
    }
    for (int k = 0; k < KBV_LEGACY_COUNT; k++)
        if (d->legacy[k]) {
            fprintf(f, "<p class=\"note\">Note: %d record%s ", d->legacy[k],
                    d->legacy[k] == 1 ? "" : "s");
            esc(f, kbv_legacy_note(k));
            fputs(".</p>\n", f);
        }
    fputs("<nav><a href=\"#summary\">Summary</a><a href=\"#figures\">Figures</a>"
          "<a href=\"#pooled\">Pooled</a><a href=\"#rank\">Ranks</a>"
          "<a href=\"#metrics\">All metrics</a><a href=\"#per-sample\">Per sample</a>"
          "<a href=\"#decomposition\">Decomposition</a><a href=\"#failures\">Failures and "
          "flags</a><a href=\"#problems\">Per problem</a><a href=\"#samples\">Samples</a>"
          "</nav>\n<p class=\"meta\">Click a column's header to sort its table (again to "
          "reverse); <code>?sort=TABLE:COLUMN:desc</code> in the address opens the page sorted."
          "</p>\n</header>\n",
          f);
    kbv_html_summary(f, d);
    KBV_TRY(write_figures(f, d, o->focus));
    kbv_html_metric_tables(f, d, o->focus);
    kbv_html_failures(f, d);
    kbv_html_problems(f, d);
    kbv_html_samples(f, d, o);
    fprintf(f, "<script>%s</script>\n", sort_script);
    fputs("</body>\n</html>\n", f);
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the HTML report failed");
    return KBV_OK;
}
