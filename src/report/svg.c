#include "report/svg.h"

#include <math.h>
#include <string.h>

/* ---- escaping ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;    /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;                     /* no overlong forms */
        if (c == 0xED)
            hi = 0x9F;                     /* no UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;                     /* nothing above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

void kbv_xml_text_n(FILE *f, const char *s, size_t n)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n && p[i]) {
        unsigned char c = p[i];
        switch (c) {
        case '&': fputs("&amp;", f); i++; continue;
        case '<': fputs("&lt;", f); i++; continue;
        case '>': fputs("&gt;", f); i++; continue;
        case '"': fputs("&quot;", f); i++; continue;
        case '\'': fputs("&#39;", f); i++; continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            if (c == '\n' || c == '\t')
                fputc(c, f);
            i++;
            continue;
        }
        /* the sequence must also end before the n-byte limit and the NUL */
        size_t avail = 0;
        while (avail < 4 && i + avail < n && p[i + avail])
            avail++;
        size_t len = utf8_len(p + i, avail);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", f);
            i++;
            continue;
        }
        fwrite(p + i, 1, len, f);
        i += len;
    }
}

void kbv_xml_text(FILE *f, const char *s)
{
    if (s)
        kbv_xml_text_n(f, s, strlen(s));
}

/* ---- document ---------------------------------------------------------- */

void kbv_svg_begin(kbv_svg *s, FILE *f, double width, double height, const char *title,
                   const char *desc, bool standalone)
{
    s->f = f;
    s->width = width;
    s->height = height;
    s->open_groups = 0;
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<svg%s width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", width, height, width,
            height);
    if (title) {
        fputs("<title>", f);
        kbv_xml_text(f, title);
        fputs("</title>\n", f);
    }
    if (desc) {
        fputs("<desc>", f);
        kbv_xml_text(f, desc);
        fputs("</desc>\n", f);
    }
    /* a white background, so the figure reads the same on any page colour */
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width,
            height);
}

kbv_status kbv_svg_end(kbv_svg *s)
{
    while (s->open_groups > 0) {
        fputs("</a>\n", s->f);
        s->open_groups--;
    }
    fputs("</svg>\n", s->f);
    if (ferror(s->f))
        return kbv_fail(KBV_ERR_IO, "writing an SVG figure failed");
    return KBV_OK;
}

/* ---- axes ------------------------------------------------------------- */

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

double kbv_axis_map(const kbv_axis *a, double v)
{
    double t;
    if (a->log) {
        double l0 = log10(a->lo), l1 = log10(a->hi);
        double lv = v > 0 ? log10(v) : l0;
        t = l1 > l0 ? (lv - l0) / (l1 - l0) : 0.5;
    } else {
        t = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0.5;
    }
    if (!isfinite(t))
        t = v > 0 ? 1 : 0;
    t = clamp(t, 0, 1);
    return a->p0 + t * (a->p1 - a->p0);
}

/* The linear tick step for a range: 1, 2 or 5 x 10^k, about 6 steps. */
static double linear_step(double range)
{
    double raw = range / 6;
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

static const double steps125[] = {1, 2, 5};

/* The largest 1-2-5 value <= v (down) or smallest >= v (up), v > 0. */
static double round125(double v, bool up)
{
    double mag = pow(10, floor(log10(v)));
    if (up) {
        for (int i = 0; i < 3; i++)
            if (steps125[i] * mag >= v * (1 - 1e-9))
                return steps125[i] * mag;
        return 10 * mag;
    }
    for (int i = 2; i >= 0; i--)
        if (steps125[i] * mag <= v * (1 + 1e-9))
            return steps125[i] * mag;
    return mag;
}

void kbv_axis_nice(kbv_axis *a)
{
    if (a->log) {
        if (!(a->lo > 0) || !isfinite(a->lo))
            a->lo = a->hi > 0 && isfinite(a->hi) ? a->hi / 10 : 1;
        if (!(a->hi > 0) || !isfinite(a->hi))
            a->hi = a->lo * 10;
        if (a->hi < a->lo) {
            double t = a->lo;
            a->lo = a->hi;
            a->hi = t;
        }
        if (log10(a->hi / a->lo) < 3) {
            a->lo = round125(a->lo, false);
            a->hi = round125(a->hi, true);
        } else {
            a->lo = pow(10, floor(log10(a->lo) + 1e-9));
            a->hi = pow(10, ceil(log10(a->hi) - 1e-9));
        }
        if (a->hi <= a->lo * (1 + 1e-9)) {
            a->lo = round125(a->lo * 0.99, false);
            a->hi = round125(a->hi * 1.01, true);
        }
        return;
    }
    if (!isfinite(a->lo) || !isfinite(a->hi)) {
        a->lo = 0;
        a->hi = 1;
    }
    if (a->hi < a->lo) {
        double t = a->lo;
        a->lo = a->hi;
        a->hi = t;
    }
    if (a->hi - a->lo <= 0) {
        double d = a->lo != 0 ? fabs(a->lo) * 0.5 : 1;
        a->lo -= d;
        a->hi += d;
    }
    double step = linear_step(a->hi - a->lo);
    a->lo = floor(a->lo / step + 1e-9) * step;
    a->hi = ceil(a->hi / step - 1e-9) * step;
}

int kbv_axis_ticks(const kbv_axis *a, double *ticks, int cap)
{
    int n = 0;
    if (a->log) {
        if (!(a->lo > 0) || !(a->hi > a->lo) || !isfinite(a->hi))
            return 0;
        double span = log10(a->hi / a->lo);
        int d0 = (int)floor(log10(a->lo) + 1e-9), d1 = (int)ceil(log10(a->hi) - 1e-9);
        int every = span > 8 ? (int)ceil(span / 8) : 1;
        for (int d = d0; d <= d1 && n < cap; d++) {
            for (int k = 0; k < 3 && n < cap; k++) {
                if (k > 0 && span > 2.5)
                    break;             /* wide ranges: decades only */
                if (k == 0 && every > 1 && ((d % every) + every) % every != 0)
                    continue;
                double v = steps125[k] * pow(10, d);
                if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
                    ticks[n++] = v;
            }
        }
        return n;
    }
    if (!(a->hi > a->lo))
        return 0;
    double step = linear_step(a->hi - a->lo);
    for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && n < cap;
         v += step)
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* "1e-05" -> "1e-5", "2.5e+06" -> "2.5e6". */
static void tidy_exponent(char *buf)
{
    char *e = strchr(buf, 'e');
    if (!e)
        return;
    char *src = e + 1, *dst = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        *dst++ = *src++;
    while (*src == '0' && src[1])
        src++;
    memmove(dst, src, strlen(src) + 1);
}

void kbv_axis_format(double v, char *buf, size_t cap)
{
    double m = fabs(v);
    if (m < 1e-300)
        snprintf(buf, cap, "0");
    else if (m >= 1e-3 && m < 1e5)
        snprintf(buf, cap, "%.4g", v);
    else
        snprintf(buf, cap, "%.2g", v);
    tidy_exponent(buf);
}

void kbv_plot_layout(kbv_plot *p)
{
    p->x.p0 = p->left;
    p->x.p1 = p->left + p->width;
    p->y.p0 = p->top + p->height;
    p->y.p1 = p->top;
}

void kbv_svg_axes(kbv_svg *s, const kbv_plot *p, bool x_ticks)
{
    double ticks[64];
    char label[48], text[64];
    double bottom = p->top + p->height, right = p->left + p->width;
    fputs("<g class=\"axes\">\n", s->f);
    int ny = kbv_axis_ticks(&p->y, ticks, 64);
    for (int i = 0; i < ny; i++) {
        double y = kbv_axis_map(&p->y, ticks[i]);
        kbv_svg_line(s, p->left, y, right, y, "#e3e3e3", 1, false);
        kbv_svg_line(s, p->left - 4, y, p->left, y, "#555555", 1, false);
        kbv_axis_format(ticks[i], label, sizeof label);
        snprintf(text, sizeof text, "%s%s", label, p->y.tick_suffix ? p->y.tick_suffix : "");
        kbv_svg_text(s, p->left - 7, y + 4, text, 11, KBV_END, 0, false, "#333333");
    }
    if (x_ticks) {
        int nx = kbv_axis_ticks(&p->x, ticks, 64);
        for (int i = 0; i < nx; i++) {
            double x = kbv_axis_map(&p->x, ticks[i]);
            kbv_svg_line(s, x, p->top, x, bottom, "#e3e3e3", 1, false);
            kbv_svg_line(s, x, bottom, x, bottom + 4, "#555555", 1, false);
            kbv_axis_format(ticks[i], label, sizeof label);
            snprintf(text, sizeof text, "%s%s", label, p->x.tick_suffix ? p->x.tick_suffix : "");
            kbv_svg_text(s, x, bottom + 17, text, 11, KBV_MIDDLE, 0, false, "#333333");
        }
    }
    kbv_svg_rect(s, p->left, p->top, p->width, p->height, "none", "#777777", NULL);
    if (p->x.label)
        kbv_svg_text(s, p->left + p->width / 2, bottom + (x_ticks ? 38 : 44), p->x.label, 12.5,
                     KBV_MIDDLE, 0, false, "#222222");
    if (p->y.label)
        kbv_svg_text(s, p->left - 46, p->top + p->height / 2, p->y.label, 12.5, KBV_MIDDLE, -90,
                     false, "#222222");
    fputs("</g>\n", s->f);
}

void kbv_svg_plot_title(kbv_svg *s, const kbv_plot *p, const char *title)
{
    kbv_svg_text(s, p->left + p->width / 2, p->top - 12, title, 14, KBV_MIDDLE, 0, true,
                 "#111111");
}

/* ---- shapes ----------------------------------------------------------- */

static void close_with_tip(kbv_svg *s, const char *tip)
{
    if (tip) {
        fputs("><title>", s->f);
        kbv_xml_text(s->f, tip);
        fputs("</title></", s->f);
    }
}

void kbv_svg_rect(kbv_svg *s, double x, double y, double w, double h, const char *fill,
                  const char *stroke, const char *tip)
{
    if (w < 0) {
        x += w;
        w = -w;
    }
    if (h < 0) {
        y += h;
        h = -h;
    }
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"", x, y, w, h);
    kbv_xml_text(s->f, fill ? fill : "none");
    fputc('"', s->f);
    if (stroke) {
        fputs(" stroke=\"", s->f);
        kbv_xml_text(s->f, stroke);
        fputs("\" stroke-width=\"1\"", s->f);
    }
    if (tip) {
        close_with_tip(s, tip);
        fputs("rect>\n", s->f);
    } else {
        fputs("/>\n", s->f);
    }
}

void kbv_svg_line(kbv_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
                  double width, bool dashed)
{
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"", x1, y1, x2,
            y2);
    kbv_xml_text(s->f, stroke);
    fprintf(s->f, "\" stroke-width=\"%.1f\"%s/>\n", width,
            dashed ? " stroke-dasharray=\"5 4\"" : "");
}

void kbv_svg_polyline(kbv_svg *s, const double *xs, const double *ys, int n, const char *stroke,
                      double width, bool dashed)
{
    if (n < 2)
        return;
    fputs("<polyline fill=\"none\" stroke=\"", s->f);
    kbv_xml_text(s->f, stroke);
    fprintf(s->f, "\" stroke-width=\"%.1f\"%s points=\"", width,
            dashed ? " stroke-dasharray=\"6 4\"" : "");
    for (int i = 0; i < n; i++)
        fprintf(s->f, "%s%.1f,%.1f", i ? " " : "", xs[i], ys[i]);
    fputs("\"/>\n", s->f);
}

void kbv_svg_marker(kbv_svg *s, kbv_marker m, double x, double y, double size, const char *fill,
                    const char *tip)
{
    double r = size / 2;
    const char *tag;
    switch (m) {
    case KBV_MARKER_SQUARE:
        tag = "rect";
        fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x - r * 0.9,
                y - r * 0.9, r * 1.8, r * 1.8);
        break;
    case KBV_MARKER_TRIANGLE:
        tag = "polygon";
        fprintf(s->f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - r * 1.15,
                x + r * 1.05, y + r * 0.75, x - r * 1.05, y + r * 0.75);
        break;
    case KBV_MARKER_DIAMOND:
        tag = "polygon";
        fprintf(s->f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\"", x, y - r * 1.2,
                x + r * 1.2, y, x, y + r * 1.2, x - r * 1.2, y);
        break;
    default:
        tag = "circle";
        fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", x, y, r);
        break;
    }
    fputs(" fill=\"", s->f);
    kbv_xml_text(s->f, fill);
    fputs("\" fill-opacity=\"0.8\" stroke=\"#222222\" stroke-width=\"0.6\"", s->f);
    if (tip) {
        close_with_tip(s, tip);
        fprintf(s->f, "%s>\n", tag);
    } else {
        fputs("/>\n", s->f);
    }
}

void kbv_svg_text(kbv_svg *s, double x, double y, const char *text, double size,
                  kbv_anchor anchor, double rotate, bool bold, const char *fill)
{
    static const char *const anchors[] = {"start", "middle", "end"};
    fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.1f\" text-anchor=\"%s\"", x, y,
            size, anchors[anchor]);
    if (rotate != 0)
        fprintf(s->f, " transform=\"rotate(%.0f %.1f %.1f)\"", rotate, x, y);
    if (bold)
        fputs(" font-weight=\"bold\"", s->f);
    if (fill) {
        fputs(" fill=\"", s->f);
        kbv_xml_text(s->f, fill);
        fputc('"', s->f);
    }
    fputc('>', s->f);
    kbv_xml_text(s->f, text);
    fputs("</text>\n", s->f);
}

void kbv_svg_link_begin(kbv_svg *s, const char *href)
{
    fputs("<a href=\"", s->f);
    kbv_xml_text(s->f, href);
    fputs("\">\n", s->f);
    s->open_groups++;
}

void kbv_svg_link_end(kbv_svg *s)
{
    if (s->open_groups <= 0)
        return;
    fputs("</a>\n", s->f);
    s->open_groups--;
}

/* ---- legends ---------------------------------------------------------- */

double kbv_svg_text_width(const char *text, double size)
{
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)text; p && *p; p++)
        if ((*p & 0xC0) != 0x80)
            chars++;
    return (double)chars * size * 0.58;
}

double kbv_svg_legend(kbv_svg *s, double x, double y, double max_width,
                      const kbv_legend_item *items, int n)
{
    const double size = 12, row = 18, key = 22;
    double cx = x, cy = y;
    for (int i = 0; i < n; i++) {
        double w = key + kbv_svg_text_width(items[i].label, size) + 16;
        if (cx > x && cx + w > x + max_width) {
            cx = x;
            cy += row;
        }
        double my = cy + row / 2;
        switch (items[i].kind) {
        case KBV_LEGEND_LINE:
            kbv_svg_line(s, cx, my, cx + 16, my, items[i].color, 2.5, items[i].dashed);
            break;
        case KBV_LEGEND_MARKER:
            kbv_svg_marker(s, items[i].marker, cx + 8, my, 9, items[i].color, NULL);
            break;
        default:
            kbv_svg_rect(s, cx + 2, my - 6, 12, 12, items[i].color, "#444444", NULL);
            break;
        }
        kbv_svg_text(s, cx + key, my + 4, items[i].label, size, KBV_START, 0, false, "#222222");
        cx += w;
    }
    return n > 0 ? cy + row - y : 0;
}
