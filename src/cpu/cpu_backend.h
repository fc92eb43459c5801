/* The CPU backend's internals, shared by its files (one file per op family
 * and per device service). The backend contract is exec/backend.h; the CUDA
 * backend implements the same semantics, so each op documents its own.
 *
 * Storage: float values are float32 in fp32-strict, fp32 and tf32 (all plain
 * IEEE float32 on the CPU: there are no tensor cores to round through),
 * float64 in fp64, bfloat16 in bf16 (cpu_bf16_ops.c). */
#ifndef KBV_CPU_BACKEND_H
#define KBV_CPU_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "exec/backend.h"

typedef struct kbv_cpu_impl {
    struct timespec timer_started;
    bool timer_running;
    unsigned char *flush_buf;   /* lazily allocated, 2x the last-level cache */
    size_t flush_bytes;
    kbv_op_fn bf16_ops[KBV_OP_COUNT];   /* the bf16 mode's table: kbv_cpu_bf16_op */
} kbv_cpu_impl;

/* The float32/float64 ops, one per kbv_op (NULL: not implemented). */
const kbv_op_fn *kbv_cpu_f32_ops(void);
/* Any op on bfloat16 tensors: its float32 kernel on widened operands, the
 * result rounded to bfloat16 once (cpu_bf16_ops.c). */
kbv_status kbv_cpu_bf16_op(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);

/* Ops (cpu_matmul.c, cpu_elementwise.c, cpu_softmax.c, cpu_layout.c). */
kbv_status kbv_cpu_matmul(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out);
kbv_status kbv_cpu_bmm(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out);
kbv_status kbv_cpu_einsum(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out);
kbv_status kbv_cpu_linear(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out);
kbv_status kbv_cpu_transpose(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                             kbv_tensor *out);
kbv_status kbv_cpu_diag(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out);
kbv_status kbv_cpu_triangle(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out);
kbv_status kbv_cpu_clone(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);
kbv_status kbv_cpu_binary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                          kbv_tensor *out);
kbv_status kbv_cpu_unary(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                         kbv_tensor *out);
kbv_status kbv_cpu_softmax(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out);

/* Device services (cpu_memory.c, cpu_fill.c, cpu_compare.c, cpu_hash.c, cpu_timing.c). */
kbv_status kbv_cpu_arena_create(kbv_backend *be, size_t bytes, kbv_arena *arena);
void kbv_cpu_arena_destroy(kbv_backend *be, kbv_arena *arena);
kbv_status kbv_cpu_copy(kbv_backend *be, void *dst, const void *src, size_t bytes);
kbv_status kbv_cpu_convert(kbv_backend *be, const kbv_tensor *src, kbv_tensor *dst);
kbv_status kbv_cpu_poison(kbv_backend *be, kbv_tensor *t);
kbv_status kbv_cpu_fill(kbv_backend *be, const kbv_input_def *in, int input_index,
                        const kbv_draw *draw, kbv_tensor *t);
kbv_status kbv_cpu_fill_param(kbv_backend *be, const kbv_graph *g, int param,
                              const kbv_draw *draw, kbv_tensor *t);
kbv_status kbv_cpu_compare(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *ref,
                           const kbv_tensor *oracle, const kbv_tensor *strict,
                           double atol, double rtol, kbv_compare_stats *out);
kbv_status kbv_cpu_compare_budget(kbv_backend *be, const kbv_tensor *cand,
                                  const kbv_tensor *budget, const kbv_tensor *ref,
                                  const kbv_tensor *oracle, const kbv_tensor *strict, double atol,
                                  double rtol, kbv_compare_stats *out,
                                  kbv_compare_stats *budget_out);
kbv_status kbv_cpu_hash(kbv_backend *be, const void *data, size_t bytes, uint64_t *out);
kbv_status kbv_cpu_timer_start(kbv_backend *be);
kbv_status kbv_cpu_timer_stop(kbv_backend *be, double *ms);
kbv_status kbv_cpu_flush_cache(kbv_backend *be);
/* The last-level cache in bytes (64 MiB if unknown), and the flush buffer: 2x that. */
size_t kbv_cpu_llc_bytes(void);
size_t kbv_cpu_flush_bytes(void);

/* Helpers shared by the ops. */

/* Name of the op a node runs, for messages. */
const char *kbv_cpu_op_name(const kbv_node *node);
/* OK when out and every arg are float tensors of one dtype (F32 or F64). */
kbv_status kbv_cpu_check_float(const kbv_node *node, const kbv_tensor *args, int n_args,
                               const kbv_tensor *out);

#endif
