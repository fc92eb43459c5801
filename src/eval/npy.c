/* .npy format 1.0: magic "\x93NUMPY", version 1.0, a little-endian uint16
 * header length, then a Python dict literal padded with spaces and a
 * newline so the data starts on a 64-byte boundary, then the raw data. */
#include "eval/npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the .npy writer stores host memory as little-endian data");

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_HEADER_CAP 4096

const char *kbv_npy_descr(kbv_dtype dt)
{
    switch (dt) {
    case KBV_F32: return "<f4";
    case KBV_F64: return "<f8";
    case KBV_F16: return "<f2";
    case KBV_I64: return "<i8";
    case KBV_I32: return "<i4";
    case KBV_BOOL: return "|b1";
    default: return NULL;
    }
}

static kbv_status checked_numel(int ndim, const int64_t *shape, int64_t *numel)
{
    if (ndim < 0 || ndim > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "npy: %d dims (0..%d allowed)", ndim, KBV_MAX_DIMS);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0 || (shape[d] > 0 && n > INT64_MAX / shape[d]))
            return kbv_fail(KBV_ERR_INVALID, "npy: bad or overflowing shape (dim %d = %lld)", d,
                            (long long)shape[d]);
        n *= shape[d];
    }
    *numel = n;
    return KBV_OK;
}

/* The padded header dict; returns its length with the final newline. */
static size_t format_header(char *buf, size_t cap, const char *descr, int ndim,
                            const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                                descr);
    for (int d = 0; d < ndim; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "", (long long)shape[d]);
    n += (size_t)snprintf(buf + n, cap - n, "%s), }", ndim == 1 ? "," : "");
    size_t total = NPY_MAGIC_LEN + 2 + 2 + n + 1;
    size_t padded = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memset(buf + n, ' ', padded - total);
    n += padded - total;
    buf[n++] = '\n';
    return n;
}

static kbv_status write_all(FILE *f, const char *what, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    while (bytes > 0) {
        size_t chunk = bytes < ((size_t)1 << 26) ? bytes : ((size_t)1 << 26);
        if (fwrite(p, 1, chunk, f) != chunk)
            return kbv_fail(KBV_ERR_IO, "writing %s failed: %s", what, strerror(errno));
        p += chunk;
        bytes -= chunk;
    }
    return KBV_OK;
}

/* `what` names the destination in messages. */
static kbv_status write_stream(FILE *f, const char *what, kbv_dtype dt, int ndim,
                               const int64_t *shape, const void *data)
{
    const char *descr = kbv_npy_descr(dt);
    if (!descr)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: dtype %s has no .npy writer here", what,
                        kbv_dtype_name(dt));
    int64_t numel = 0;
    KBV_TRY(checked_numel(ndim, shape, &numel));
    if (numel > 0 && !data)
        return kbv_fail(KBV_ERR_INVALID, "%s: no data for %lld elements", what, (long long)numel);
    char header[NPY_HEADER_CAP];
    size_t hlen = format_header(header, sizeof header, descr, ndim, shape);
    unsigned char prefix[NPY_MAGIC_LEN + 4];
    memcpy(prefix, NPY_MAGIC, NPY_MAGIC_LEN);
    prefix[6] = 1;
    prefix[7] = 0;
    prefix[8] = (unsigned char)(hlen & 0xff);
    prefix[9] = (unsigned char)(hlen >> 8);
    KBV_TRY(write_all(f, what, prefix, sizeof prefix));
    KBV_TRY(write_all(f, what, header, hlen));
    KBV_TRY(write_all(f, what, data, (size_t)numel * kbv_dtype_size(dt)));
    if (fflush(f) != 0)
        return kbv_fail(KBV_ERR_IO, "writing %s failed: %s", what, strerror(errno));
    return KBV_OK;
}

kbv_status kbv_npy_fwrite(FILE *f, kbv_dtype dt, int ndim, const int64_t *shape,
                          const void *data)
{
    KBV_TRY(write_stream(f, "an .npy stream", dt, ndim, shape, data));
    return KBV_OK;
}

kbv_status kbv_npy_write(const char *path, kbv_dtype dt, int ndim, const int64_t *shape,
                         const void *data)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return kbv_fail(KBV_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    kbv_status st = write_stream(f, path, dt, ndim, shape, data);
    if (fclose(f) != 0 && st == KBV_OK)
        st = kbv_fail(KBV_ERR_IO, "closing %s failed: %s", path, strerror(errno));
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    return KBV_OK;
}

/* ------------------------------------------------------------------ reader */

static kbv_status parse_descr(const char *header, const char *path, kbv_dtype *dt)
{
    static const kbv_dtype known[] = {KBV_F32, KBV_F64, KBV_F16, KBV_I64, KBV_I32, KBV_BOOL};
    const char *p = strstr(header, "'descr':");
    if (!p)
        return kbv_fail(KBV_ERR_PARSE, "%s: npy header has no descr", path);
    p = strchr(p + 8, '\'');
    if (!p)
        return kbv_fail(KBV_ERR_PARSE, "%s: npy descr is not a string", path);
    p++;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        const char *d = kbv_npy_descr(known[k]);
        size_t len = strlen(d);
        if (!strncmp(p, d, len) && p[len] == '\'') {
            *dt = known[k];
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: npy dtype '%.8s' is not supported", path, p);
}

static kbv_status parse_shape(const char *header, const char *path, kbv_npy_array *a)
{
    const char *fo = strstr(header, "'fortran_order':");
    if (!fo || strncmp(fo + 16 + strspn(fo + 16, " "), "False", 5) != 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: only C-order npy files are read", path);
    const char *p = strstr(header, "'shape':");
    if (!p || !(p = strchr(p, '(')))
        return kbv_fail(KBV_ERR_PARSE, "%s: npy header has no shape tuple", path);
    p++;
    a->ndim = 0;
    for (;;) {
        p += strspn(p, " ");
        if (*p == ')')
            break;
        if (!isdigit((unsigned char)*p) || a->ndim == KBV_MAX_DIMS)
            return kbv_fail(KBV_ERR_PARSE, "%s: bad npy shape", path);
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno)
            return kbv_fail(KBV_ERR_PARSE, "%s: bad npy shape", path);
        a->shape[a->ndim++] = v;
        p = end + strspn(end, " ");
        if (*p == ',')
            p++;
        else if (*p != ')')
            return kbv_fail(KBV_ERR_PARSE, "%s: bad npy shape", path);
    }
    KBV_TRY(checked_numel(a->ndim, a->shape, &a->numel));
    return KBV_OK;
}

kbv_status kbv_npy_read(const char *path, kbv_npy_array *out)
{
    kbv_status st = KBV_OK;
    char *header = NULL;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return kbv_fail(KBV_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    unsigned char prefix[NPY_MAGIC_LEN + 2];
    if (fread(prefix, 1, sizeof prefix, f) != sizeof prefix ||
        memcmp(prefix, NPY_MAGIC, NPY_MAGIC_LEN) != 0 || (prefix[6] != 1 && prefix[6] != 2))
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "%s: not a version 1 or 2 .npy file", path);
    unsigned char len_bytes[4] = {0};
    size_t len_size = prefix[6] == 1 ? 2 : 4;
    if (fread(len_bytes, 1, len_size, f) != len_size)
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "%s: truncated npy header", path);
    size_t hlen = (size_t)len_bytes[0] | (size_t)len_bytes[1] << 8 | (size_t)len_bytes[2] << 16 |
                  (size_t)len_bytes[3] << 24;
    if (hlen == 0 || hlen > (1u << 20))
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "%s: npy header length %zu", path, hlen);
    header = malloc(hlen + 1);
    if (!header)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "npy header of %zu bytes", hlen);
    if (fread(header, 1, hlen, f) != hlen)
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "%s: truncated npy header", path);
    header[hlen] = '\0';
    KBV_TRY_GOTO(parse_descr(header, path, &out->dtype), st, done);
    KBV_TRY_GOTO(parse_shape(header, path, out), st, done);
    size_t bytes = (size_t)out->numel * kbv_dtype_size(out->dtype);
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "%s: %zu bytes of npy data", path, bytes);
    if (fread(out->data, 1, bytes, f) != bytes)
        KBV_FAIL_GOTO(st, done, KBV_ERR_PARSE, "%s: npy data is shorter than its shape", path);
done:
    free(header);
    fclose(f);
    if (st != KBV_OK)
        kbv_npy_free(out);
    return st;
}

void kbv_npy_free(kbv_npy_array *a)
{
    free(a->data);
    a->data = NULL;
}
