/* What a compiled candidate exports and imports, read from its dynamic
 * symbol table (libelf), and the allowlist it is held to (DESIGN section 4,
 * "binary symbol allowlist"). The source is not inspected: token pasting and
 * macros defeat that; the linker's view cannot be disguised. Candidates are
 * built with the CUDA runtime shared (-cudart shared), so every runtime call
 * they make is an import by name. */
#ifndef KBV_SYMBOLS_H
#define KBV_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct kbv_symbol_list {
    int n;
    char **names;
    uint64_t *values;          /* functions: each one's address in the object (st_value);
                                  NULL in the other lists */
} kbv_symbol_list;

typedef struct kbv_symbols {
    kbv_symbol_list exports;   /* defined, global or weak, default visibility */
    kbv_symbol_list imports;   /* undefined, weak ones included */
    kbv_symbol_list functions; /* functions defined in the object (.symtab), any visibility */
    kbv_symbol_list needed;    /* the shared libraries it names (DT_NEEDED), in order */
} kbv_symbols;

kbv_status kbv_symbols_read(const char *so_path, kbv_symbols *out);
void kbv_symbols_free(kbv_symbols *s);

typedef struct kbv_symbol_policy {
    unsigned vendor_libs;      /* the vendor libraries whose entry points may be imported
                                  (core/vendor_libs.h; their refused ones excepted); 0: none */
} kbv_symbol_policy;

/* Checks s against the allowlist. On a violation writes a readable reason
 * ("imports cudaStreamCreate (creates a stream)") and returns false. */
bool kbv_symbols_allowed(const kbv_symbols *s, const kbv_symbol_policy *policy,
                         char *reason, size_t cap);

/* The kernels among s's functions: for each kernel nvcc defines a launch
 * stub, a C++ function whose name is "__device_stub_" followed by the
 * kernel's own (mangled: "_Z20__device_stub__Z1kPfPf" is the stub of
 * "_Z1kPf"); the kernel's host function is the function of that name.
 * Calls fn for each, with its address in the object (st_value). */
void kbv_symbols_each_kernel(const kbv_symbols *s, void (*fn)(const char *name, uint64_t value,
                                                               void *ctx),
                             void *ctx);

/* The vendor libraries (mask) among the ones s names in DT_NEEDED: what
 * its process loads besides the CUDA runtime and the C libraries. */
unsigned kbv_symbols_vendor_needed(const kbv_symbols *s);

#endif
