/* Ceilings of one NVIDIA H200 and the speed-of-light times they imply
 * (DESIGN section 5: SOL = max(FLOPs / peak rate, min bytes / bandwidth)).
 *
 * Two sets, for two uses:
 *
 * The SOL fraction reported for every protocol uses rates measured on one
 * H200 (shared/anchors/ceilings_h200.txt: 132 SMs, 60 MB L2, driver
 * 580.159.04, CUDA 13.0, SM clock 1980 MHz, 10 timed repetitions after
 * warm-up with CUDA events):
 *   device-to-device copy of 4 GiB           4.30 TB/s (bytes read + written)
 *   cuBLAS SGEMM 8192^3, pedantic FP32       51.3 TFLOP/s
 *   cuBLAS SGEMM 8192^3, TF32 tensor cores  430.6 TFLOP/s
 *   cuBLAS DGEMM 4096^3                      62.0 TFLOP/s
 *
 * The strict protocol's below-sol failure (a time below 0.9 x the floor is
 * impossible) must rest on the fastest rate any honest kernel reaches, and
 * those are higher: a read-only stream runs faster than a copy (an honest
 * matrix-vector product reached SOL fraction 1.03 on L1/4), and a kernel can
 * beat cuBLAS's rate. The floor takes:
 *   bandwidth  4.8 TB/s, the H200's HBM3e peak as NVIDIA states it -- a
 *              conservative stand-in until bench/probes/bandwidth_patterns.cu
 *              runs on an H200: the fastest of its lines (the read-only
 *              stream, if reads outrun copies as they should) replaces it
 *   compute    1070 TFLOP/s, the dense FP16/BF16 tensor-core peak at the SM
 *              clock of 1980 MHz (132 SMs x 4096 FLOP per clock): a GEMM on
 *              FP16 tensor cores with FP32 accumulation is as accurate as
 *              TF32 on kbv's inputs and passes strict's error budget. */
#ifndef KBV_CEILINGS_H
#define KBV_CEILINGS_H

#define KBV_H200_COPY_BYTES_PER_S 4.30e12
#define KBV_H200_FP32_FLOPS_PER_S 51.3e12
#define KBV_H200_TF32_FLOPS_PER_S 430.6e12
#define KBV_H200_FP64_FLOPS_PER_S 62.0e12

#define KBV_H200_FLOOR_BYTES_PER_S 4.8e12
#define KBV_H200_FLOOR_FLOPS_PER_S (132.0 * 4096.0 * 1.98e9)

/* Speed-of-light seconds on an H200 for the SOL fraction: the slower of
 * doing the FLOPs at the fastest rate the precision allows (TF32 tensor
 * cores when allow_tf32, else FP32) and moving the minimum bytes at copy
 * bandwidth. */
double kbv_sol_seconds(double flops, double bytes, int allow_tf32);

/* The same for a bf16 run: the FLOPs at the dense BF16 tensor-core peak
 * (the floor's compute rate: no cuBLAS BF16 rate was measured with the
 * anchors) and the minimum bytes (2-byte floats) at copy bandwidth. */
double kbv_sol_seconds_bf16(double flops, double bytes);

/* The floor no honest kernel goes below: the FLOPs at the floor's compute
 * rate or the minimum bytes at its bandwidth, whichever takes longer. At
 * most kbv_sol_seconds for any precision. */
double kbv_sol_floor_seconds(double flops, double bytes);

#endif
