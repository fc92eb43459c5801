#include "report/ceilings.h"

double kbv_sol_seconds(double flops, double bytes, int allow_tf32)
{
    double rate = allow_tf32 ? KBV_H200_TF32_FLOPS_PER_S : KBV_H200_FP32_FLOPS_PER_S;
    double compute = flops / rate, memory = bytes / KBV_H200_COPY_BYTES_PER_S;
    return compute > memory ? compute : memory;
}
