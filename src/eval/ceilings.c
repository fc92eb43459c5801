#include "eval/ceilings.h"

static double slower(double a, double b) { return a > b ? a : b; }

double kbv_sol_seconds(double flops, double bytes, int allow_tf32)
{
    double rate = allow_tf32 ? KBV_H200_TF32_FLOPS_PER_S : KBV_H200_FP32_FLOPS_PER_S;
    return slower(flops / rate, bytes / KBV_H200_COPY_BYTES_PER_S);
}

double kbv_sol_seconds_bf16(double flops, double bytes)
{
    return slower(flops / KBV_H200_FLOOR_FLOPS_PER_S, bytes / KBV_H200_COPY_BYTES_PER_S);
}

double kbv_sol_floor_seconds(double flops, double bytes)
{
    return slower(flops / KBV_H200_FLOOR_FLOPS_PER_S, bytes / KBV_H200_FLOOR_BYTES_PER_S);
}
