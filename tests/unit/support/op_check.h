/* Helpers of the CPU op tests: running one op on host tensors, reading and
 * writing elements as doubles, and comparing against float64 references
 * written in the tests. */
#ifndef KBV_TEST_OP_CHECK_H
#define KBV_TEST_OP_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/backend.h"

/* A CPU backend whose float values are dt (F32: fp32 mode, F64: fp64). */
kbv_backend *kbv_test_backend(kbv_dtype dt);
/* Runs op on args into out with the node attributes nd (may be NULL). */
kbv_status kbv_test_run_op(kbv_backend *be, kbv_op op, const kbv_node_def *nd,
                           const kbv_tensor *args, int n_args, kbv_tensor *out);
double kbv_test_get(const kbv_tensor *t, int64_t flat);    /* by flat index in shape order */
void kbv_test_set(kbv_tensor *t, int64_t flat, double v);
/* got == ref within tol relative (absolute below 1); NaN and infinities exactly. */
void kbv_test_assert_close(double got, double ref, double tol, const char *what, int64_t at);
/* The tolerance of a float32 result of a few roundings, or a float64 one. */
double kbv_test_tol(kbv_dtype dt);

#endif
