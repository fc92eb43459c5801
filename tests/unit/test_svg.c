/* The SVG writer: well-formed output (balanced tags, quoted attributes,
 * escaped text), escaping of hostile and broken text, log-axis ticks and
 * mapping, tick labels, and byte-identical output for identical calls. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/svg.h"

/* ---- a small XML well-formedness check ---------------------------------- */

/* Returns NULL when text is well-formed XML with one root element `root`,
 * else a description of the first problem. */
static const char *xml_check(const char *text, const char *root)
{
    static char why[160];
    char stack[64][32];
    int depth = 0, roots = 0;
    const char *p = text;
    while (*p) {
        if (*p == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
            int ok = 0;
            for (int i = 0; i < 5; i++)
                ok |= !strncmp(p, ents[i], strlen(ents[i]));
            if (!ok) {
                snprintf(why, sizeof why, "bare & at %.20s", p);
                return why;
            }
            p++;
            continue;
        }
        if (*p == '>') {
            snprintf(why, sizeof why, "bare > in text at offset %ld", (long)(p - text));
            return why;
        }
        if (*p != '<') {
            p++;
            continue;
        }
        if (!strncmp(p, "<?", 2)) {
            const char *e = strstr(p, "?>");
            if (!e)
                return "unterminated <?";
            p = e + 2;
            continue;
        }
        bool closing = p[1] == '/';
        p += closing ? 2 : 1;
        char name[32];
        int n = 0;
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
            if (n < 31)
                name[n++] = *p++;
            else
                p++;
        name[n] = '\0';
        if (n == 0) {
            snprintf(why, sizeof why, "bad tag name at %.20s", p);
            return why;
        }
        if (closing) {
            if (*p != '>')
                return "junk in a closing tag";
            p++;
            if (depth == 0 || strcmp(stack[depth - 1], name)) {
                snprintf(why, sizeof why, "</%s> closes <%s>", name,
                         depth ? stack[depth - 1] : "(nothing)");
                return why;
            }
            depth--;
            continue;
        }
        /* attributes: name="value" with no < or raw & inside */
        bool self = false;
        for (;;) {
            while (*p == ' ' || *p == '\n')
                p++;
            if (*p == '>') {
                p++;
                break;
            }
            if (p[0] == '/' && p[1] == '>') {
                self = true;
                p += 2;
                break;
            }
            const char *eq = strchr(p, '=');
            if (!eq || eq[1] != '"')
                return "attribute without a quoted value";
            const char *end = strchr(eq + 2, '"');
            if (!end)
                return "unterminated attribute value";
            for (const char *c = eq + 2; c < end; c++)
                if (*c == '<' || (*c == '&' && strncmp(c, "&amp;", 5) && strncmp(c, "&lt;", 4) &&
                                  strncmp(c, "&gt;", 4) && strncmp(c, "&quot;", 6) &&
                                  strncmp(c, "&#39;", 5)))
                    return "unescaped < or & in an attribute";
            p = end + 1;
        }
        if (depth == 0) {
            roots++;
            if (strcmp(name, root))
                return "wrong root element";
        }
        if (!self) {
            if (depth == 64)
                return "too deep";
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
        }
    }
    if (depth)
        return "unclosed element";
    if (roots != 1)
        return "not exactly one root element";
    return NULL;
}

/* The checker itself must catch what it is there to catch. */
static void test_checker_rejects_broken_markup(void **state)
{
    (void)state;
    assert_null(xml_check("<svg a=\"1\"><g><text>x &amp; y</text></g><rect/></svg>", "svg"));
    const char *bad[] = {
        "<svg><g></svg>",                       /* unbalanced */
        "<svg></g></svg>",                      /* stray close */
        "<svg><text>a < b</text></svg>",        /* raw < */
        "<svg><text>a & b</text></svg>",        /* raw & */
        "<svg a=1></svg>",                      /* unquoted attribute */
        "<svg a=\"<\"></svg>",                 /* < in an attribute */
        "<svg></svg><svg></svg>",               /* two roots */
        "<html></html>",                        /* wrong root */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!xml_check(bad[i], "svg"))
            fail_msg("accepted: %s", bad[i]);
}

static char *render(void (*draw)(kbv_svg *s), bool standalone)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    kbv_svg s;
    kbv_svg_begin(&s, f, 400, 300, "a <title> & \"more\"", "desc", standalone);
    draw(&s);
    assert_int_equal(kbv_svg_end(&s), KBV_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Every kind of shape, with text that tries to break out of the markup. */
static void draw_everything(kbv_svg *s)
{
    kbv_plot p = {.left = 60, .top = 40, .width = 300, .height = 200};
    p.x.log = true;
    p.x.lo = 0.3;
    p.x.hi = 30;
    p.x.label = "speedup (x, log)";
    p.x.tick_suffix = "\xC3\x97";
    p.y.lo = 0;
    p.y.hi = 100;
    p.y.label = "share <%>";
    kbv_axis_nice(&p.x);
    kbv_plot_layout(&p);
    kbv_svg_axes(s, &p, true);
    kbv_svg_plot_title(s, &p, "</svg><script>alert(1)</script>");
    double xs[] = {60, 100, 200}, ys[] = {240, 120, 40};
    kbv_svg_polyline(s, xs, ys, 3, "#0072b2", 2, false);
    kbv_svg_polyline(s, xs, ys, 1, "#0072b2", 2, false);   /* one point: nothing */
    kbv_svg_rect(s, 70, 50, -20, 30, "#cccccc", "#333333", "tip with \"quotes\" & <tags>");
    kbv_svg_link_begin(s, "#s-m0-L1-19-0\"onmouseover=\"x");
    for (int m = 0; m < KBV_MARKER_COUNT; m++)
        kbv_svg_marker(s, (kbv_marker)m, 100 + 20 * m, 100, 10, "#e69f00", m % 2 ? "tip" : NULL);
    kbv_svg_link_end(s);
    kbv_svg_line(s, 0, 0, 10, 10, "#000000", 1, true);
    kbv_legend_item items[] = {{"model <a>", "#0072b2", KBV_LEGEND_SWATCH, 0, false},
                               {"line & co", "#e69f00", KBV_LEGEND_LINE, 0, true},
                               {"L2", "#ffffff", KBV_LEGEND_MARKER, KBV_MARKER_SQUARE, false}};
    double h = kbv_svg_legend(s, 10, 10, 120, items, 3);
    assert_true(h >= 18);
    /* an <a> left open is closed by kbv_svg_end */
    kbv_svg_link_begin(s, "#open");
    kbv_svg_text(s, 5, 5, "bad utf-8 \xff\xfe and ctrl \x01 end", 10, KBV_START, 30, true, NULL);
}

static void test_well_formed_and_escaped(void **state)
{
    (void)state;
    for (int standalone = 0; standalone < 2; standalone++) {
        char *svg = render(draw_everything, standalone);
        const char *why = xml_check(svg, "svg");
        if (why)
            fail_msg("not well-formed: %s\n%s", why, svg);
        assert_null(strstr(svg, "<script"));
        assert_non_null(strstr(svg, "&lt;/svg&gt;&lt;script&gt;"));
        assert_non_null(strstr(svg, "tip with &quot;quotes&quot; &amp; &lt;tags&gt;"));
        assert_non_null(strstr(svg, "href=\"#s-m0-L1-19-0&quot;onmouseover=&quot;x\""));
        /* invalid bytes become U+FFFD, control characters vanish */
        assert_non_null(strstr(svg, "bad utf-8 \xEF\xBF\xBD\xEF\xBF\xBD and ctrl  end"));
        /* only a standalone figure names the SVG namespace */
        assert_int_equal(strstr(svg, "http://www.w3.org/2000/svg") != NULL, standalone);
        free(svg);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    char *a = render(draw_everything, false), *b = render(draw_everything, false);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static char *escape(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kbv_xml_text(f, s);
    fclose(f);
    return buf;
}

static void test_escape(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"a<b>&\"c'", "a&lt;b&gt;&amp;&quot;c&#39;"},
        {"tab\tnl\ncr\rbell\a", "tab\tnl\ncrbell"},
        {"1.5\xC3\x97 \xE2\x89\xA4 \xF0\x9F\x98\x80", "1.5\xC3\x97 \xE2\x89\xA4 \xF0\x9F\x98\x80"},
        {"cut \xC3", "cut \xEF\xBF\xBD"},                        /* truncated sequence */
        {"over \xC0\xAF long", "over \xEF\xBF\xBD\xEF\xBF\xBD long"}, /* overlong '/' */
        {"surrogate \xED\xA0\x80", "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = escape(cases[i].in);
        assert_string_equal(got, cases[i].out);
        free(got);
    }
    /* the n-byte form stops at n, and never splits a character into raw bytes */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    kbv_xml_text_n(f, "ab\xC3\x97", 3);
    fclose(f);
    assert_string_equal(buf, "ab\xEF\xBF\xBD");
    free(buf);
    char *null_text = escape(NULL);
    assert_string_equal(null_text, "");
    free(null_text);
}

static void assert_ticks(const kbv_axis *a, const double *want, int n)
{
    double got[64];
    int k = kbv_axis_ticks(a, got, 64);
    if (k != n) {
        for (int i = 0; i < k; i++)
            print_message("tick %g\n", got[i]);
        fail_msg("%d ticks, want %d", k, n);
    }
    for (int i = 0; i < n; i++)
        assert_true(fabs(got[i] - want[i]) <= 1e-9 * fabs(want[i]));
}

static void test_log_ticks(void **state)
{
    (void)state;
    kbv_axis a = {.log = true, .lo = 0.1, .hi = 100, .p0 = 0, .p1 = 300};
    assert_ticks(&a, (double[]){0.1, 1, 10, 100}, 4);
    /* exact powers of ten map to equal steps */
    assert_true(fabs(kbv_axis_map(&a, 1) - 100) < 1e-9);
    assert_true(fabs(kbv_axis_map(&a, 10) - 200) < 1e-9);
    /* out of range and non-positive values clamp to the ends */
    assert_true(kbv_axis_map(&a, 1e6) == 300);
    assert_true(kbv_axis_map(&a, 0) == 0);
    assert_true(kbv_axis_map(&a, -5) == 0);

    /* narrow ranges get 1-2-5 ticks */
    kbv_axis b = {.log = true, .lo = 0.5, .hi = 2};
    assert_ticks(&b, (double[]){0.5, 1, 2}, 3);
    kbv_axis c = {.log = true, .lo = 0.2, .hi = 5};
    assert_ticks(&c, (double[]){0.2, 0.5, 1, 2, 5}, 5);

    /* many decades: every other one, from an even exponent */
    kbv_axis d = {.log = true, .lo = 1e-3, .hi = 1e6};
    assert_ticks(&d, (double[]){1e-2, 1, 1e2, 1e4, 1e6}, 5);

    /* an inverted pixel range (y axes grow upwards) */
    kbv_axis y = {.log = true, .lo = 1, .hi = 100, .p0 = 200, .p1 = 0};
    assert_true(fabs(kbv_axis_map(&y, 10) - 100) < 1e-9);
    assert_true(kbv_axis_map(&y, 100) < kbv_axis_map(&y, 2));
}

static void test_nice_ranges(void **state)
{
    (void)state;
    kbv_axis a = {.log = true, .lo = 0.8, .hi = 1.6};
    kbv_axis_nice(&a);
    assert_true(fabs(a.lo - 0.5) < 1e-12 && fabs(a.hi - 2) < 1e-12);
    kbv_axis b = {.log = true, .lo = 0.03, .hi = 40};
    kbv_axis_nice(&b);
    assert_true(fabs(b.lo - 0.01) < 1e-12 && fabs(b.hi - 100) < 1e-9);
    /* a single value still gives a range around it */
    kbv_axis c = {.log = true, .lo = 1, .hi = 1};
    kbv_axis_nice(&c);
    assert_true(c.lo < 1 && c.hi > 1);
    /* nothing positive: a default decade */
    kbv_axis d = {.log = true, .lo = NAN, .hi = -1};
    kbv_axis_nice(&d);
    assert_true(d.lo > 0 && d.hi > d.lo);
    /* linear: multiples of the step, and a degenerate range widened */
    kbv_axis e = {.lo = 3, .hi = 97};
    kbv_axis_nice(&e);
    assert_true(e.lo == 0 && e.hi == 100);
    assert_ticks(&e, (double[]){0, 20, 40, 60, 80, 100}, 6);
    kbv_axis f = {.lo = 5, .hi = 5};
    kbv_axis_nice(&f);
    assert_true(f.lo < 5 && f.hi > 5);
}

static void test_tick_labels(void **state)
{
    (void)state;
    struct {
        double v;
        const char *s;
    } cases[] = {{0, "0"},          {1, "1"},           {0.5, "0.5"},  {20, "20"},
                 {1000, "1000"},    {0.001, "0.001"},   {1e-4, "0.0001"}, {2e-5, "2e-5"},
                 {3e6, "3e6"},      {0.1 + 0.2, "0.3"}, {-2, "-2"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        kbv_axis_format(cases[i].v, buf, sizeof buf);
        assert_string_equal(buf, cases[i].s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_rejects_broken_markup),
        cmocka_unit_test(test_well_formed_and_escaped),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_log_ticks),
        cmocka_unit_test(test_nice_ranges),
        cmocka_unit_test(test_tick_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
