r"""One forward of a problem on one side, PyTorch's module or kbv's baseline, so
that cuBLASLt's API log shows what each side asks of it (the heuristic's
preferences, the algorithm it returned, the workspace passed).

  CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE=lt_torch.log \
      python3 bench/probes/cublaslt_calls.py torch L3/34 build/kbv build/libkbv.so [fp32|tf32]
  CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE=lt_kbv.log \
      python3 bench/probes/cublaslt_calls.py kbv L3/34 build/kbv build/libkbv.so [fp32|tf32]

then, to compare the two: grep -E 'AlgoGetHeuristic\] Adesc|Trace\]\[cublasLtMatmul\]' on each
log, addresses stripped (sed 's/0[Xx][0-9A-Fa-f]*/P/g' | sort | uniq -c). One side per process:
cuBLASLt reads its log settings once. docs/PARITY.md ("fifth measurement") used it on L3/34.
"""
import ctypes, subprocess, sys, torch
side, key, kbv, libp = sys.argv[1:5]
mode = sys.argv[5] if len(sys.argv) > 5 else "fp32"
torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
torch.backends.cudnn.allow_tf32 = mode == "tf32"
src = subprocess.run([kbv, "show", key, "--torch"], check=True, capture_output=True, text=True).stdout
ns = {}
exec(compile(src, key, "exec"), ns)
with torch.device("meta"):
    meta = ns["get_inputs"]()
bufs = [torch.empty(x.shape, dtype=x.dtype, device="cuda") if isinstance(x, torch.Tensor)
        else torch.empty((), device="cuda") for x in meta]
lib = ctypes.CDLL(libp)
ptrs = (ctypes.c_void_p * len(bufs))(*[b.data_ptr() for b in bufs])
assert lib.kbv_bench_fill_inputs(key.encode(), 0, 0, 1, ptrs, len(bufs)) == 0
torch.cuda.synchronize()
print("=== start", side, flush=True)
if side == "torch":
    m = ns["Model"](*ns["get_init_inputs"]()).cuda()
    with torch.no_grad():
        m(*bufs)
else:
    ms = (ctypes.c_double * 1)()
    pk = ctypes.c_double(0)
    assert lib.kbv_bench_time_baseline(key.encode(), 0, mode.encode(), ptrs, len(bufs), 0, 1, ms,
                                       ctypes.byref(pk)) == 0
    print("kbv ms", ms[0])
torch.cuda.synchronize()
print("=== end", side, flush=True)
