#include "eval/symbols.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vendor_libs.h"

static kbv_status list_push(kbv_symbol_list *l, const char *name)
{
    char **grown = realloc(l->names, (size_t)(l->n + 1) * sizeof *grown);
    if (!grown)
        return kbv_fail(KBV_ERR_NOMEM, "symbol list");
    l->names = grown;
    l->names[l->n] = strdup(name);
    if (!l->names[l->n])
        return kbv_fail(KBV_ERR_NOMEM, "symbol name");
    l->n++;
    return KBV_OK;
}

/* A function and its address (st_value). */
static kbv_status list_push_value(kbv_symbol_list *l, const char *name, uint64_t value)
{
    uint64_t *grown = realloc(l->values, (size_t)(l->n + 1) * sizeof *grown);
    if (!grown)
        return kbv_fail(KBV_ERR_NOMEM, "symbol list");
    l->values = grown;
    l->values[l->n] = value;
    return list_push(l, name);
}

static void list_free(kbv_symbol_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l->values);
    l->names = NULL;
    l->values = NULL;
    l->n = 0;
}

void kbv_symbols_free(kbv_symbols *s)
{
    list_free(&s->exports);
    list_free(&s->imports);
    list_free(&s->functions);
    list_free(&s->needed);
}

/* The DT_NEEDED names of the dynamic section scn. */
static kbv_status read_needed(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, kbv_symbol_list *out)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; data && i < count; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag != DT_NEEDED)
            continue;
        const char *name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
        if (name && *name)
            KBV_TRY(list_push(out, name));
    }
    return KBV_OK;
}

kbv_status kbv_symbols_read(const char *so_path, kbv_symbols *out)
{
    kbv_status st = KBV_OK;
    Elf *elf = NULL;
    memset(out, 0, sizeof *out);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "libelf: %s", elf_errmsg(-1));
    int fd = open(so_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return kbv_fail(KBV_ERR_IO, "cannot open %s", so_path);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s is not an ELF shared object", so_path);

    bool found = false;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC) {
            KBV_TRY_GOTO(read_needed(elf, scn, &sh, &out->needed), st, done);
            continue;
        }
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
            continue;
        const bool dynamic = sh.sh_type == SHT_DYNSYM;
        found = found || dynamic;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 1; data && i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, (int)i, &sym))
                continue;
            const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
            int bind = GELF_ST_BIND(sym.st_info);
            if (!name || !*name || GELF_ST_TYPE(sym.st_info) == STT_SECTION)
                continue;
            if (!dynamic) {
                /* every function the object defines, hidden ones too: a
                 * kernel's host stub carries the kernel's (mangled) name */
                if (sym.st_shndx != SHN_UNDEF && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
                    KBV_TRY_GOTO(list_push_value(&out->functions, name, sym.st_value), st, done);
                continue;
            }
            if (sym.st_shndx == SHN_UNDEF) {
                /* weak ones too: a weak reference binds like any other when
                 * the library is loaded (weak fopen is still fopen) */
                KBV_TRY_GOTO(list_push(&out->imports, name), st, done);
            } else if ((bind == STB_GLOBAL || bind == STB_WEAK) &&
                       GELF_ST_VISIBILITY(sym.st_other) == STV_DEFAULT) {
                KBV_TRY_GOTO(list_push(&out->exports, name), st, done);
            }
        }
    }
    if (!found)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s has no dynamic symbol table", so_path);
done:
    if (elf)
        elf_end(elf);
    close(fd);
    if (st != KBV_OK)
        kbv_symbols_free(out);
    return st;
}

/* What a candidate may export: the ABI's entry points, nothing else. */
static const char *const allowed_exports[] = {
    "kbv_forward", "kbv_prepare", "kbv_finish", "kbv_candidate_abi_version",
    /* ELF boilerplate some toolchains leave global */
    "_init", "_fini", "_edata", "_end", "__bss_start",
};

/* What a candidate may import (fnmatch patterns): kernel launch and
 * registration, error queries, function attributes, device properties,
 * async memset/memcpy on a given stream, cudaMalloc/cudaFree, math, and the
 * C/C++ runtime's own glue. Everything else -- streams, events, graphs,
 * device-wide synchronisation, limits, L2 persistence, other devices, driver
 * entry points, threads, files, sockets, processes, dlopen, mmap -- is not. */
static const char *const allowed_imports[] = {
    /* nvcc's registration and launch glue */
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
    "__cudaRegisterSurface", "__cudaRegisterTexture", "__cudaInitModule",
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaGetKernel",
    "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
    /* the runtime API a kernel needs */
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaGetErrorString", "cudaGetErrorName", "cudaFuncSetAttribute", "cudaFuncGetAttributes",
    "cudaFuncSetCacheConfig", "cudaGetDevice", "cudaDeviceGetAttribute", "cudaGetDeviceProperties*",
    "cudaOccupancy*", "cudaMemsetAsync", "cudaMemcpyAsync", "cudaMemcpy2DAsync",
    "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress",
    "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync",
    "cudaStreamGetFlags", "cudaStreamQuery", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
    /* C and C++ runtime glue */
    "__cxa_atexit", "__cxa_finalize", "__cxa_guard_*", "__cxa_pure_virtual",
    "__gxx_personality_v0", "_Unwind_Resume", "__stack_chk_fail", "__assert_fail",
    "_Znwm", "_Znam", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZSt*throw*", "__cxa_begin_catch",
    "__cxa_end_catch", "__cxa_allocate_exception", "__cxa_throw", "__cxa_free_exception",
    "exit", "abort",
    /* the toolchain's optional hooks, weak references in every shared object */
    "__gmon_start__", "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable",
    /* memory and strings */
    "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "malloc", "calloc",
    "realloc", "free", "aligned_alloc", "posix_memalign",
    /* math */
    "sqrt*", "cbrt*", "exp*", "expm1*", "log*", "pow*", "sin*", "cos*", "tan*", "asin*", "acos*",
    "atan*", "sinh*", "cosh*", "tanh*", "asinh*", "acosh*", "atanh*", "erf*", "lgamma*", "tgamma*",
    "fabs*", "floor*", "ceil*", "round*", "lround*", "trunc*", "fmod*", "remainder*", "fma*",
    "fmax*", "fmin*", "hypot*", "ldexp*", "frexp*", "modf*", "copysign*", "nearbyint*", "rint*",
    "lrint*", "__isnan*", "__isinf*", "__finite*", "__fpclassify*", "__signbit*",
};

static bool matches(const char *name, const char *const *patterns, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(patterns[i], name, 0) == 0)
            return true;
    return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool kbv_symbols_allowed(const kbv_symbols *s, const kbv_symbol_policy *policy,
                         char *reason, size_t cap)
{
    for (int i = 0; i < s->exports.n; i++)
        if (!matches(s->exports.names[i], allowed_exports, COUNT(allowed_exports))) {
            snprintf(reason, cap, "exports '%s' (only the ABI's entry points may be exported)",
                     s->exports.names[i]);
            return false;
        }
    for (int i = 0; i < s->imports.n; i++) {
        const char *name = s->imports.names[i];
        if (matches(name, allowed_imports, COUNT(allowed_imports)))
            continue;
        int lib = kbv_vendor_of_symbol(name);
        const unsigned allowed = policy ? policy->vendor_libs : 0;
        if (lib >= 0 && (allowed >> lib & 1u) && !kbv_vendor_refused((kbv_vendor_lib)lib, name))
            continue;
        if (lib >= 0 && (allowed >> lib & 1u))
            snprintf(reason, cap, "imports '%s', an entry point of %s refused even where %s is "
                     "allowed (other devices, threads of its own or log files)", name,
                     kbv_vendor_get((kbv_vendor_lib)lib)->title,
                     kbv_vendor_get((kbv_vendor_lib)lib)->title);
        else if (lib >= 0)
            snprintf(reason, cap, "imports '%s': %s is not allowed in this run", name,
                     kbv_vendor_get((kbv_vendor_lib)lib)->title);
        else
            snprintf(reason, cap, "imports '%s', which is not on the candidate allowlist", name);
        return false;
    }
    return true;
}

void kbv_symbols_each_kernel(const kbv_symbols *s, void (*fn)(const char *name, uint64_t value,
                                                               void *ctx),
                             void *ctx)
{
    static const char stub[] = "__device_stub_";
    const kbv_symbol_list *f = &s->functions;
    for (int i = 0; i < f->n; i++) {
        const char *name = f->names[i];
        const char *at = strstr(name, stub);
        if (!at || strchr(name, '.'))
            continue;   /* not a stub, or a compiler's clone of one (".cold") */
        /* the stub's identifier: as long as the digits before it say (the
         * mangling's <source-name>), else the rest of the name */
        const char *digits = at;
        while (digits > name && digits[-1] >= '0' && digits[-1] <= '9')
            digits--;
        size_t len = digits < at ? strtoul(digits, NULL, 10) : strlen(at);
        if (len <= sizeof stub - 1 || len > strlen(at))
            continue;
        const char *kernel = at + sizeof stub - 1;
        size_t klen = len - (sizeof stub - 1);
        /* "_Z1kPf" of a C++ kernel; "k" of an extern "C" one ("__device_stub__k") */
        for (int pass = 0; pass < 2; pass++) {
            int found = -1;
            for (int j = 0; j < f->n && found < 0; j++)
                if (strlen(f->names[j]) == klen && !strncmp(f->names[j], kernel, klen))
                    found = j;
            if (found >= 0) {
                fn(f->names[found], f->values ? f->values[found] : 0, ctx);
                break;
            }
            if (*kernel != '_' || klen < 2)
                break;
            kernel++;
            klen--;
        }
    }
}

unsigned kbv_symbols_vendor_needed(const kbv_symbols *s)
{
    unsigned mask = 0;
    for (int i = 0; i < s->needed.n; i++) {
        int lib = kbv_vendor_of_needed(s->needed.names[i]);
        if (lib >= 0)
            mask |= 1u << lib;
    }
    return mask;
}
