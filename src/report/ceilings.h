/* Measured ceilings of one NVIDIA H200 and the speed-of-light time they
 * imply (DESIGN section 5: SOL = max(FLOPs / peak rate, min bytes / bandwidth)).
 *
 * Source: shared/anchors/ceilings_h200.txt -- one H200 (132 SMs, 60 MB L2,
 * driver 580.159.04, CUDA 13.0, SM clock 1980 MHz), 10 timed repetitions
 * after warm-up with CUDA events:
 *   device-to-device copy of 4 GiB           4.30 TB/s (bytes read + written)
 *   cuBLAS SGEMM 8192^3, pedantic FP32       51.3 TFLOP/s
 *   cuBLAS SGEMM 8192^3, TF32 tensor cores  430.6 TFLOP/s
 *   cuBLAS DGEMM 4096^3                      62.0 TFLOP/s */
#ifndef KBV_CEILINGS_H
#define KBV_CEILINGS_H

#define KBV_H200_COPY_BYTES_PER_S 4.30e12
#define KBV_H200_FP32_FLOPS_PER_S 51.3e12
#define KBV_H200_TF32_FLOPS_PER_S 430.6e12
#define KBV_H200_FP64_FLOPS_PER_S 62.0e12

/* Speed-of-light seconds on an H200: the slower of doing the FLOPs at the
 * fastest rate the precision allows (TF32 tensor cores when allow_tf32,
 * else FP32) and moving the minimum bytes at copy bandwidth. */
double kbv_sol_seconds(double flops, double bytes, int allow_tf32);

#endif
