#include "core/vendor_libs.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* cuBLASXt drives several devices from threads and streams of its own; the
 * loggers open files, which the sandbox refuses anyway: refused by name, so
 * the reason says what the call is. */
static const char *const cublas_refused[] = {"cublasXt*", "cublasLoggerConfigure", NULL};
static const char *const cublaslt_refused[] = {"cublasLtLoggerOpenFile", "cublasLtLoggerSetFile",
                                               NULL};
static const char *const none[] = {NULL};
/* cuDNN 9's libcudnn.so is a shim that loads its sub-libraries on first use,
 * trying "<name>.so.9.x.y", "<name>.so.9.x", "<name>.so.9" in turn; the
 * graph library loads the heuristics, the engines and (for runtime-compiled
 * engines) NVRTC, and looks for the driver as libcuda.so. */
static const char *const cudnn_probes[] = {"libcudnn", "libnvrtc", "libcuda.so", NULL};

static const kbv_vendor_info table[KBV_VENDOR_COUNT] = {
    [KBV_VENDOR_CUBLAS] = {
        .name = "cublas", .title = "cuBLAS", .header = "cublas_v2.h", .prefix = "cublas",
        .link = "-lcublas", .soname_stem = "libcublas.so.",
        .create = "cublasCreate_v2", .destroy = "cublasDestroy_v2", .refused = cublas_refused,
        .parts = {{NULL, 0}}, .probes = none,
    },
    [KBV_VENDOR_CUBLASLT] = {
        .name = "cublasLt", .title = "cuBLASLt", .header = "cublasLt.h", .prefix = "cublasLt",
        .link = "-lcublasLt", .soname_stem = "libcublasLt.so.",
        .create = "cublasLtCreate", .destroy = "cublasLtDestroy", .refused = cublaslt_refused,
        .parts = {{NULL, 0}}, .probes = none,
    },
    [KBV_VENDOR_CUDNN] = {
        .name = "cudnn", .title = "cuDNN", .header = "cudnn.h", .prefix = "cudnn",
        .link = "-lcudnn", .soname_stem = "libcudnn.so.",
        .create = "cudnnCreate", .destroy = "cudnnDestroy", .refused = none,
        .parts = {{"libcudnn_graph", KBV_VERSION_LIBRARY},
                  {"libcudnn_ops", KBV_VERSION_LIBRARY},
                  {"libcudnn_cnn", KBV_VERSION_LIBRARY},
                  {"libcudnn_adv", KBV_VERSION_LIBRARY},
                  {"libcudnn_heuristic", KBV_VERSION_LIBRARY},
                  {"libcudnn_engines_precompiled", KBV_VERSION_LIBRARY},
                  {"libcudnn_engines_runtime_compiled", KBV_VERSION_LIBRARY},
                  {"libnvrtc", KBV_VERSION_CUDA_MAJOR},
                  {"libnvrtc-builtins", KBV_VERSION_CUDA_MINOR},
                  {NULL, 0}},
        .probes = cudnn_probes,
    },
};

const kbv_vendor_info *kbv_vendor_get(kbv_vendor_lib l)
{
    return (unsigned)l < KBV_VENDOR_COUNT ? &table[l] : NULL;
}

kbv_status kbv_vendor_parse(const char *list, unsigned *mask)
{
    *mask = 0;
    if (!list || !*list)
        return kbv_fail(KBV_ERR_PARSE, "an empty list of vendor libraries");
    if (!strcmp(list, "all")) {
        *mask = KBV_VENDOR_ALL;
        return KBV_OK;
    }
    if (!strcmp(list, "none"))
        return KBV_OK;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int found = -1;
        for (int l = 0; l < KBV_VENDOR_COUNT && found < 0; l++)
            if (strlen(table[l].name) == len && !strncmp(p, table[l].name, len))
                found = l;
        if (found < 0)
            return kbv_fail(KBV_ERR_PARSE, "vendor library '%.*s': expected cublas, cublasLt, "
                            "cudnn (comma-separated), all or none", (int)len, p);
        *mask |= 1u << found;
        p += len;
        if (*p == ',' && !*++p)
            return kbv_fail(KBV_ERR_PARSE, "a list of vendor libraries ending in ','");
    }
    return KBV_OK;
}

/* Names (or titles) of the mask, joined by `sep` and, before the last, `last`. */
static const char *join(unsigned mask, bool titles, const char *sep, const char *last, char *buf,
                        size_t cap)
{
    int n = 0, total = 0;
    for (int l = 0; l < KBV_VENDOR_COUNT; l++)
        total += (int)(mask >> l & 1u);
    size_t used = 0;
    buf[0] = '\0';
    for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
        if (!(mask >> l & 1u))
            continue;
        const char *between = n == 0 ? "" : n + 1 == total ? last : sep;
        int w = snprintf(buf + used, cap - used, "%s%s", between,
                         titles ? table[l].title : table[l].name);
        if (w < 0 || (size_t)w >= cap - used)
            break;
        used += (size_t)w;
        n++;
    }
    if (n == 0)
        snprintf(buf, cap, "none");
    return buf;
}

const char *kbv_vendor_format(unsigned mask, char *buf, size_t cap)
{
    return join(mask, false, ",", ",", buf, cap);
}

const char *kbv_vendor_titles(unsigned mask, char *buf, size_t cap)
{
    return join(mask, true, ", ", " and ", buf, cap);
}

int kbv_vendor_of_symbol(const char *name)
{
    int best = -1;
    size_t best_len = 0;
    for (int l = 0; l < KBV_VENDOR_COUNT; l++) {
        size_t len = strlen(table[l].prefix);
        if (len > best_len && !strncmp(name, table[l].prefix, len)) {
            best = l;
            best_len = len;
        }
    }
    return best;
}

bool kbv_vendor_refused(kbv_vendor_lib l, const char *name)
{
    const kbv_vendor_info *v = kbv_vendor_get(l);
    for (int i = 0; v && v->refused[i]; i++)
        if (fnmatch(v->refused[i], name, 0) == 0)
            return true;
    return false;
}

int kbv_vendor_of_needed(const char *soname)
{
    for (int l = 0; l < KBV_VENDOR_COUNT; l++)
        if (!strncmp(soname, table[l].soname_stem, strlen(table[l].soname_stem)))
            return l;
    return -1;
}
