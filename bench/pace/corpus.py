#!/usr/bin/env python3
"""Writes a run directory of honest level-1 candidates for a large evaluation:
the honest controls of tests/cheats (the manifest's rows that pass every protocol
and need no vendor library) and one plain elementwise kernel for each elementwise
problem below, copied into SAMPLES samples per problem. Each copy carries its
sample number in a comment, so that every sample is a source of its own (compiled
on its own) unless --same-source.

  bench/pace/corpus.py OUT_DIR [--kind cu|c] [--samples N] [--same-source]
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CHEATS = os.path.join(REPO, "tests", "cheats")

# problem id: y = f(v) of its one float input, as PyTorch defines it
ELEMENTWISE = {
    19: "fmaxf(v, 0.f)",
    20: "v > 0.f ? v : 0.01f * v",
    21: "1.f / (1.f + expf(-v))",
    22: "tanhf(v)",
    25: "v / (1.f + expf(-v))",
    26: "0.5f * v * (1.f + erff(v * 0.70710678118654752f))",
    27: "1.0507009873554805f * (v > 0.f ? v : 1.6732632423543772f * expm1f(v))",
    28: "fminf(fmaxf(v / 6.f + 0.5f, 0.f), 1.f)",
    29: "v > 20.f ? v : log1pf(expf(v))",
    30: "v / (1.f + fabsf(v))",
    31: "v > 0.f ? v : expm1f(v)",
    32: "fminf(fmaxf(v, -1.f), 1.f)",
    88: "0.5f * v * (1.f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)))",
}

CU = """// Honest elementwise candidate (L1/{pid}): y = {expr}, one pass, grid-stride.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

__global__ void elementwise(const float *__restrict__ x, float *__restrict__ y, long long n)
{{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {{
        float v = x[i];
        y[i] = {expr};
    }}
}}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 32)
        blocks = (long long)sms * 32;
    if (blocks < 1)
        blocks = 1;
    elementwise<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}}
"""

C = """// Honest elementwise candidate (L1/{pid}): y = {expr}, one pass.
#include <kbv/candidate.h>
#include <math.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {{
        float v = x[i];
        y[i] = {expr};
    }}
    return 0;
}}
"""


def honest_controls(kind):
    """(problem id, source text) of the manifest's honest controls of this kind."""
    out = []
    with open(os.path.join(CHEATS, "manifest.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if not row["case"].startswith("honest") or not row["file"].endswith("." + kind):
                continue
            if (row["standard"], row["verified"], row["strict"]) != ("PASS", "PASS", "PASS"):
                continue
            with open(os.path.join(CHEATS, row["file"])) as g:
                text = g.read()
            if "#include <cublas" in text or "#include <cudnn" in text:
                continue   # needs --allow-vendor-libs
            level, pid = row["problem"].lstrip("L").split("/")
            if level == "1":
                out.append((int(pid), text))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the run directory to write (made if missing)")
    ap.add_argument("--kind", choices=("cu", "c"), default="cu", help="GPU (.cu) or CPU (.c) candidates")
    ap.add_argument("--samples", type=int, default=5, help="samples per problem (default 5)")
    ap.add_argument("--same-source", action="store_true",
                    help="identical copies (the compile cache builds each problem's sources once)")
    a = ap.parse_args()
    sources = {}
    for pid, text in honest_controls(a.kind):
        sources.setdefault(pid, []).append(text)
    template = CU if a.kind == "cu" else C
    for pid, expr in ELEMENTWISE.items():
        sources.setdefault(pid, []).append(template.format(pid=pid, expr=expr))
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for pid in sorted(sources):
        for s in range(a.samples):
            text = sources[pid][s % len(sources[pid])]
            if not a.same_source:
                text = "// sample %d\n%s" % (s, text)
            with open(os.path.join(a.out, "level_1_problem_%d_sample_%d.%s" % (pid, s, a.kind)), "w") as f:
                f.write(text)
            n += 1
    print("%d candidates over %d problems in %s" % (n, len(sources), a.out))


if __name__ == "__main__":
    sys.exit(main())
