/* NumPy .npy files, format version 1.0 (C order, little-endian): the
 * exchange format of `kbv dump`. The writer checks every write, so a full
 * disk is an error, not a short file; the reader serves the tests. */
#ifndef KBV_NPY_H
#define KBV_NPY_H

#include <stdint.h>
#include <stdio.h>

#include "core/status.h"
#include "kbv/candidate.h"

/* '<f4' '<f8' '<i8' '<i4' '|b1' for F32, F64, I64, I32, BOOL; NULL otherwise. */
const char *kbv_npy_descr(kbv_dtype dt);

/* Writes one array to an open stream (data: numel elements of dt, C order).
 * Checks every fwrite and the final fflush. */
kbv_status kbv_npy_fwrite(FILE *f, kbv_dtype dt, int ndim, const int64_t *shape,
                          const void *data);

/* Creates (or truncates) path and writes one array; checks fclose too. */
kbv_status kbv_npy_write(const char *path, kbv_dtype dt, int ndim, const int64_t *shape,
                         const void *data);

typedef struct kbv_npy_array {
    kbv_dtype dtype;
    int ndim;
    int64_t shape[KBV_MAX_DIMS];
    int64_t numel;
    void *data;                   /* malloc'd; kbv_npy_free */
} kbv_npy_array;

/* Reads a version 1.0 or 2.0 file holding one of the dtypes above in C order. */
kbv_status kbv_npy_read(const char *path, kbv_npy_array *out);
void kbv_npy_free(kbv_npy_array *a);

#endif
