#!/usr/bin/env python3
"""Samples evaluated the way KernelBench evaluates them, timed by phase.

The throughput benchmark (bench/throughput/run.sh) runs `build` once for a batch of
samples (KernelBench's build_cache over num_cpu_workers processes), then `eval` once per
sample, each time in a fresh Python process, to compare kbv's cost per evaluation with
KernelBench's at its best on the same KernelBench-format files.

What is followed, from ScalingIntelligence/KernelBench:
  src/eval.py
    eval_kernel_against_ref         torch.cuda.set_device; the reference source
                                    exec'd (load_original_model_and_inputs);
                                    set_seed, get_init_inputs, Model(*init_inputs)
                                    under no_grad; the custom source exec'd with
                                    TORCH_EXTENSIONS_DIR set to the sample's build
                                    directory and TORCH_USE_CUDA_DSA=1
                                    (load_custom_model: its load_inline call is the
                                    compilation), torch.cuda.synchronize;
                                    set_seed, ModelNew(*init_inputs) under no_grad,
                                    both models moved to the GPU, synchronize;
                                    correctness; then, only when correct, set_seed,
                                    fresh get_inputs() moved to the GPU, the timing;
                                    graceful_eval_cleanup (empty_cache,
                                    reset_peak_memory_stats, synchronize)
    run_and_check_correctness       trial seeds drawn with torch.randint after
                                    manual_seed(seed); per trial set_seed, fresh
                                    get_inputs() on the CPU moved to the GPU, the
                                    reference then the candidate, synchronize after
                                    each, shape check, torch.allclose(atol=rtol=1e-2)
                                    (KernelBench v0/v0.1's fp32 tolerance; later
                                    versions use 1e-4 for fp32: --tol), max/mean
                                    difference computed on a mismatch
    time_execution_with_cuda_event  3 warm-up calls, each synchronised; per trial a
                                    new pair of CUDA events, record, call, record,
                                    torch.cuda.synchronize, elapsed_time
    get_timing_stats, set_seed      mean/std/min/max; torch.manual_seed and
                                    torch.cuda.manual_seed
  scripts/run_and_check.py          evaluate_single_sample_src: num_correct_trials 5,
                                    num_perf_trials 100, a build directory per kernel
  scripts/eval_from_generations.py  evaluate_single_sample, batch_eval: a fresh process
                                    per sample (multiprocessing with the "spawn" start
                                    method: a new interpreter that imports torch),
                                    build directory <cache>/<run>/<problem>/<sample>;
                                    with build_cache, compile.batch_compile first
  src/kernelbench/compile.py        batch_compile: a multiprocessing Pool of
                                    num_cpu_workers "spawn" workers, one task per
                                    sample (apply_async), each compile_single_sample:
                                    set_gpu_arch, then build_compile_cache
                                    (src/kernelbench/eval.py): TORCH_USE_CUDA_DSA=1,
                                    output captured, load_custom_model with the
                                    sample's build directory, whose load_inline
                                    calls build; no retry here (KernelBench retries a
                                    build past its timeout)

Where KernelBench does more, this does less, so its cost is a lower bound: a spawned
worker also imports KernelBench's own modules (numpy, pydantic, datasets, ...), and
the newest src/kernelbench/timing.py thrashes the L2 cache before every timed trial;
the timing here is the warm-cache one above, the protocol kbv's standard and verified
reproduce.

The kernel is a kbv candidate (.cu against include/kbv/candidate.h). KernelBench expects
a ModelNew whose CUDA code load_inline builds, so this script writes that source (which
kbv then evaluates too, as a KernelBench-format file): the reference (kbv show --torch), then a ModelNew whose
cuda_sources are the candidate's text between a short binding (torch headers before,
and after it a function that allocates the outputs with torch and calls kbv_forward on
PyTorch's current stream, scratch from PyTorch's caching allocator, kbv_prepare once
when the candidate has it), built by load_inline with the candidate's allowed nvcc
flags and -O3 as kbv builds it. ModelNew is a subclass of the reference's Model: its
parameters are the reference's, built under the same seed as KernelBench requires of a
ModelNew, under the same state_dict names (kbv loads its own by name), passed to the
kernel in state_dict order.

  kernelbench_eval.py describe REF.py...     inputs, outputs, parameters -> REF.py.json
  kernelbench_eval.py source --ref REF.py --candidate C.cu --include DIR   (prints it)
  kernelbench_eval.py sources JOBS.json --include DIR      (many, in one process)
  kernelbench_eval.py build JOBS.json --workers P --out RESULT.json   (batch build)
  kernelbench_eval.py eval   --ref REF.py (--kernel K.py | --candidate C.cu --include DIR)
                             --build-dir DIR [--reuse-build] --out RESULT.json
"""
import time

STARTED = time.monotonic()  # before torch: its import is part of a sample's cost

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

import torch  # noqa: E402

TORCH_IMPORTED = time.monotonic()

KBV_DTYPES = {  # torch dtype name -> (ATen scalar type, kbv_dtype)
    "float32": "at::kFloat", "float64": "at::kDouble", "float16": "at::kHalf",
    "bfloat16": "at::kBFloat16", "int32": "at::kInt", "int64": "at::kLong", "bool": "at::kBool",
}
FLAGS_PREFIX = "// kbv: nvcc-flags="
ALLOWED_NVCC_FLAGS = ("--use_fast_math", "-lineinfo", "-Xptxas=-v", "--extra-device-vectorization",
                      "-O2", "-O3")


# ---- describing a problem -----------------------------------------------------------

def load_reference(src, name="<reference>"):
    """KernelBench's load_original_model_and_inputs: exec the source, take its names."""
    context = {}
    exec(compile(src, name, "exec"), context)
    return context["Model"], context["get_init_inputs"], context["get_inputs"]


def describe(ref_src, name):
    """Input names and kinds, parameter names, output shapes and dtypes of one problem,
    from a forward pass on the meta device (no memory, no compute); on a PyTorch
    without the meta device context, on the CPU (small shapes only)."""
    import inspect
    Model, get_init_inputs, get_inputs = load_reference(ref_src, name)
    arg_names = [p for p in inspect.signature(Model.forward).parameters if p != "self"]
    meta = torch.device("meta")
    with torch.no_grad():
        if hasattr(meta, "__enter__"):   # PyTorch 2: tensors made inside are meta tensors
            with meta:
                model = Model(*get_init_inputs())
                inputs = get_inputs()
                out = model(*inputs)
        else:
            model = Model(*get_init_inputs())
            inputs = get_inputs()
            out = model(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    desc = {"inputs": [], "params": list(model.state_dict().keys()), "outputs": []}
    for i, x in enumerate(inputs):
        entry = {"name": arg_names[i] if i < len(arg_names) else f"arg{i}"}
        if isinstance(x, torch.Tensor):
            entry.update(tensor=True, dtype=str(x.dtype).replace("torch.", ""), shape=list(x.shape))
        else:
            entry.update(tensor=False, pytype=type(x).__name__)
        desc["inputs"].append(entry)
    for y in outs:
        desc["outputs"].append({"dtype": str(y.dtype).replace("torch.", ""), "shape": list(y.shape)})
    return desc


# ---- the custom model source KernelBench is given ---------------------------------

BINDING_HEAD = r"""// ---- kbv candidate for load_inline (generated by bench/throughput/kernelbench_eval.py)
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cstring>
#include <vector>
"""

BINDING_TAIL = r"""
// ---- the binding: torch tensors in, kbv_forward on PyTorch's current stream, torch tensors out
namespace kbv_bench {
static kbv_dtype dtype_of(const torch::Tensor &t)
{
    switch (t.scalar_type()) {
    case at::kFloat: return KBV_F32;
    case at::kDouble: return KBV_F64;
    case at::kHalf: return KBV_F16;
    case at::kBFloat16: return KBV_BF16;
    case at::kInt: return KBV_I32;
    case at::kLong: return KBV_I64;
    case at::kBool: return KBV_BOOL;
    default: TORCH_CHECK(false, "kbv binding: unsupported dtype ", t.scalar_type());
    }
    return KBV_F32;
}

static kbv_tensor wrap(const torch::Tensor &t, const char *name)
{
    TORCH_CHECK(t.is_cuda() && t.is_contiguous() && t.dim() <= KBV_MAX_DIMS,
                "kbv binding: '", name ? name : "output", "' must be a contiguous CUDA tensor");
    kbv_tensor k;
    std::memset(&k, 0, sizeof k);
    k.data = t.data_ptr();
    k.dtype = dtype_of(t);
    k.ndim = (int)t.dim();
    for (int d = 0; d < k.ndim; d++) {
        k.shape[d] = t.size(d);
        k.stride[d] = t.stride(d);
    }
    k.name = name;
    return k;
}

// env->alloc scratch from PyTorch's caching allocator, as a torch extension would
static void *alloc(const kbv_env *env, size_t bytes)
{
    return c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, (cudaStream_t)env->stream);
}

static void release(const kbv_env *, void *ptr) { c10::cuda::CUDACachingAllocator::raw_delete(ptr); }

static const char *const input_names[] = {@INPUT_NAMES@};
static const char *const param_names[] = {@PARAM_NAMES@};
static const int n_outputs = @N_OUTPUTS@;
static const int out_ndim[] = {@OUT_NDIM@};
static const int64_t out_shape[][KBV_MAX_DIMS] = {@OUT_SHAPES@};
static const at::ScalarType out_type[] = {@OUT_TYPES@};
static void *state = nullptr;   // kbv_prepare's, for the one parameter set of this process
static bool prepared = false;
}  // namespace kbv_bench

std::vector<torch::Tensor> kbv_bench_forward(std::vector<torch::Tensor> inputs,
                                             std::vector<torch::Tensor> params)
{
    using namespace kbv_bench;
    TORCH_CHECK(inputs.size() == sizeof input_names / sizeof input_names[0] - 1 &&
                params.size() == sizeof param_names / sizeof param_names[0] - 1,
                "kbv binding: wrong number of inputs or parameters");
    int device = c10::cuda::current_device();
    cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
    kbv_env env = {KBV_ABI_VERSION, device, (void *)stream, alloc, release, nullptr};
    std::vector<kbv_tensor> in, par, out;
    for (size_t i = 0; i < inputs.size(); i++)
        in.push_back(wrap(inputs[i], input_names[i]));
    for (size_t j = 0; j < params.size(); j++)
        par.push_back(wrap(params[j], param_names[j]));
    std::vector<torch::Tensor> outs;
    for (int k = 0; k < n_outputs; k++) {
        outs.push_back(torch::empty(at::IntArrayRef(out_shape[k], out_ndim[k]),
                                    torch::TensorOptions().dtype(out_type[k]).device(torch::kCUDA, device)));
        out.push_back(wrap(outs.back(), nullptr));
    }
#if @HAS_PREPARE@
    if (!prepared) {
        int rc = kbv_prepare(&env, par.data(), (int)par.size(), &state);
        TORCH_CHECK(rc == 0, "kbv_prepare returned ", rc);
    }
#endif
    prepared = true;
    int rc = kbv_forward(&env, state, in.data(), (int)in.size(), par.data(), (int)par.size(),
                         out.data(), (int)out.size());
    TORCH_CHECK(rc == 0, "kbv_forward returned ", rc);
    return outs;
}
"""

MODEL_NEW = r'''

# ---- ModelNew: the candidate through load_inline (generated for the kbv throughput benchmark)
from torch.utils.cpp_extension import load_inline

kbv_cuda_source = {cuda_source!r}
kbv_cpp_source = ("std::vector<torch::Tensor> kbv_bench_forward(std::vector<torch::Tensor> inputs, "
                  "std::vector<torch::Tensor> params);")
kbv_candidate = load_inline(
    name={name!r},
    cpp_sources=kbv_cpp_source,
    cuda_sources=kbv_cuda_source,
    functions=["kbv_bench_forward"],
    extra_include_paths=[{include!r}],
    extra_cuda_cflags={cuda_flags!r},
    verbose=False,
)


class ModelNew(Model):
    def __init__(self, *init_inputs):
        # the reference's parameters and buffers, built under the same seed, under the same
        # state_dict names (an evaluator that loads its own parameters by name finds them)
        super().__init__(*init_inputs)
        self.kbv_scalars = {{}}

    def kbv_scalar(self, x, like):
        key = (type(x), x)
        if key not in self.kbv_scalars:
            dtype = {{bool: torch.bool, int: torch.int64}}.get(type(x), torch.float32)
            self.kbv_scalars[key] = torch.tensor(x, dtype=dtype, device=like)
        return self.kbv_scalars[key]

    def forward(self, *args):
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cuda"))
        inputs = [a if isinstance(a, torch.Tensor) else self.kbv_scalar(a, device) for a in args]
        outs = kbv_candidate.kbv_bench_forward(inputs, list(self.state_dict().values()))
        return outs[0] if len(outs) == 1 else tuple(outs)
'''


def c_strings(names):
    return ", ".join(json.dumps(n) for n in names) + (", " if names else "") + "nullptr"


def candidate_flags(text):
    """The candidate's `// kbv: nvcc-flags=` line, as kbv allows it, for load_inline."""
    first = text.split("\n", 1)[0]
    if not first.startswith(FLAGS_PREFIX):
        return []
    flags = first[len(FLAGS_PREFIX):].split()
    return [f for f in flags if f in ALLOWED_NVCC_FLAGS or re.fullmatch(r"-maxrregcount=\d+", f)]


def cuda_source(candidate_text, candidate_path, desc):
    """The candidate between the binding's head and tail."""
    outs = desc["outputs"]
    fill = {
        "@INPUT_NAMES@": c_strings([i["name"] for i in desc["inputs"]]),
        "@PARAM_NAMES@": c_strings(desc["params"]),
        "@N_OUTPUTS@": str(len(outs)),
        "@OUT_NDIM@": ", ".join(str(len(o["shape"])) for o in outs),
        "@OUT_SHAPES@": ", ".join("{" + ", ".join(str(int(d)) for d in o["shape"]) + "}"
                                  if o["shape"] else "{0}" for o in outs),
        "@OUT_TYPES@": ", ".join(KBV_DTYPES[o["dtype"]] for o in outs),
        "@HAS_PREPARE@": "1" if re.search(r"\bint\s+kbv_prepare\s*\(", candidate_text) else "0",
    }
    tail = BINDING_TAIL
    for k, v in fill.items():
        tail = tail.replace(k, v)
    line = json.dumps(os.path.abspath(candidate_path))
    return BINDING_HEAD + f"#line 1 {line}\n" + candidate_text + "\n#line 1 \"kbv_binding\"\n" + tail


def extension_name(candidate_path):
    """A load_inline module name: the candidate's model directory and file name."""
    model = os.path.basename(os.path.dirname(os.path.abspath(candidate_path)))
    stem = os.path.splitext(os.path.basename(candidate_path))[0]
    return re.sub(r"\W", "_", f"kbv_{model}_{stem}")


def custom_source(ref_src, candidate_path, desc, include_dir):
    with open(candidate_path) as f:
        text = f.read()
    return ref_src + MODEL_NEW.format(
        cuda_source=cuda_source(text, candidate_path, desc),
        name=extension_name(candidate_path),
        include=os.path.abspath(include_dir),
        cuda_flags=["-O3"] + candidate_flags(text),
    )


# ---- KernelBench's evaluation (src/eval.py) ------------------------------------------

def set_seed(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


# KernelBench evaluates on CUDA alone; --cpu is a dry run of the same steps on the CPU
# (no synchronisation, the wall clock for the timing), for a machine without a GPU
def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device=device)


def to_device(x, device):
    return x.cuda(device=device) if device.type == "cuda" else x


def load_custom_model(model_custom_src, context, build_directory):
    if build_directory:
        context["BUILD_DIRECTORY"] = build_directory
        model_custom_src = ("import os\n" f"os.environ['TORCH_EXTENSIONS_DIR'] = '{build_directory}'\n"
                            ) + model_custom_src
    compile(model_custom_src, "<string>", "exec")
    exec(model_custom_src, context)
    return context.get("ModelNew")


def reuse_built_extensions(build_directory, used):
    """load_inline as it behaves when its build is current: the library that the batch build
    (`build`) left in <build_directory>/<name>/ is imported, nothing compiled. PyTorch's own
    load_inline asks ninja first, which is a no-op only when nothing looks newer than the
    build: PyTorch 1.13 rewrites main.cpp on every call, so a fresh process rebuilds (108 s
    against 0.01 s imported, for a C++ extension on the CPU), and on the H200 with CUDA 13
    a kept CUDA build was redone too; the batch build would then be paid twice. A name with
    no library falls through to PyTorch's load_inline (a build)."""
    import importlib.util
    import torch.utils.cpp_extension as cpp_extension
    original = cpp_extension.load_inline

    def load_inline(name, *args, **kwargs):
        lib = os.path.join(build_directory, name, name + ".so")
        if not os.path.exists(lib):
            used.append((name, False))
            return original(name, *args, **kwargs)
        spec = importlib.util.spec_from_file_location(name, lib)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        used.append((name, True))
        return module

    cpp_extension.load_inline = load_inline


def time_execution_with_cuda_event(kernel_fn, *args, num_warmup=3, num_trials=100, device=None):
    for _ in range(num_warmup):
        kernel_fn(*args)
        synchronize(device)
    elapsed_times = []
    for _ in range(num_trials):
        if device.type != "cuda":
            t = time.perf_counter()
            kernel_fn(*args)
            elapsed_times.append((time.perf_counter() - t) * 1e3)
            continue
        start_event = torch.cuda.Event(enable_timing=True)
        end_event = torch.cuda.Event(enable_timing=True)
        start_event.record()
        kernel_fn(*args)
        end_event.record()
        torch.cuda.synchronize(device=device)
        elapsed_times.append(start_event.elapsed_time(end_event))
    return elapsed_times


def get_timing_stats(elapsed_times):
    return {"mean": statistics.mean(elapsed_times), "std": statistics.pstdev(elapsed_times),
            "min": min(elapsed_times), "max": max(elapsed_times), "num_trials": len(elapsed_times)}


def inputs_to_device(inputs, device):
    return [to_device(x, device) if isinstance(x, torch.Tensor) else x for x in inputs]


def run_and_check_correctness(original_model, new_model, get_inputs, metadata, num_correct_trials,
                              seed, device, tol):
    pass_count = 0
    torch.manual_seed(seed)
    trial_seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(num_correct_trials)]
    with torch.no_grad():
        for trial in range(num_correct_trials):
            set_seed(trial_seeds[trial])
            inputs = inputs_to_device(get_inputs(), device)
            set_seed(trial_seeds[trial])
            model = to_device(original_model, device)
            set_seed(trial_seeds[trial])
            model_new = to_device(new_model, device)
            output = model(*inputs)
            synchronize(device)
            try:
                output_new = model_new(*inputs)
                synchronize(device)
            except Exception as e:  # a runtime error fails the sample, as in KernelBench
                metadata["runtime_error"] = str(e)[:300]
                return False
            if output.shape != output_new.shape:
                metadata["correctness_issue"] = f"shape {tuple(output_new.shape)}, expected {tuple(output.shape)}"
                return False
            if not torch.allclose(output, output_new, atol=tol, rtol=tol):
                metadata.setdefault("max_difference", []).append(
                    f"{torch.max(torch.abs(output - output_new)).item():.6f}")
                metadata.setdefault("avg_difference", []).append(
                    f"{torch.mean(torch.abs(output - output_new)).item():.6f}")
                metadata["correctness_issue"] = "Output mismatch"
            else:
                pass_count += 1
    metadata["correctness_trials"] = f"({pass_count} / {num_correct_trials})"
    return pass_count == num_correct_trials


def evaluate(a):
    """eval_kernel_against_ref for one sample; returns the result with phase times."""
    phase = {"compile": 0.0, "load": 0.0, "correctness": 0.0, "timing": 0.0}
    result = {"compiled": False, "correctness": False, "runtime_ms": None, "metadata": {},
              "phase_s": phase, "import_torch_s": TORCH_IMPORTED - STARTED}
    device = torch.device("cpu") if a.cpu else torch.device(f"cuda:{a.device}")
    t = time.monotonic()
    with open(a.ref) as f:
        ref_src = f.read()
    if a.kernel:   # a KernelBench-format file as it is, the one kbv evaluates too
        with open(a.kernel) as f:
            custom_src = f.read()
    else:
        with open(a.describe) as f:
            desc = json.load(f)
        custom_src = custom_source(ref_src, a.candidate, desc, a.include)
    if a.reuse_build:
        reused = []
        reuse_built_extensions(a.build_dir, reused)
        result["extensions_reused"] = reused
    torch.set_printoptions(precision=4, threshold=10, edgeitems=3, linewidth=80)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        result["metadata"]["hardware"] = torch.cuda.get_device_name(device=device)
        # the architecture to build for, as KernelBench's set_gpu_arch sets it
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability(device))
    context = {}
    Model, get_init_inputs, get_inputs = load_reference(ref_src)
    set_seed(a.seed)
    init_inputs = get_init_inputs()
    with torch.no_grad():
        set_seed(a.seed)
        original_model = Model(*init_inputs)
    phase["load"] += time.monotonic() - t

    t = time.monotonic()
    try:
        os.environ["TORCH_USE_CUDA_DSA"] = "1"
        ModelNew = load_custom_model(custom_src, context, a.build_dir)
        synchronize(device)
    except Exception as e:
        phase["compile"] += time.monotonic() - t
        result["metadata"]["compilation_error"] = str(e)[-2000:]
        return result
    phase["compile"] += time.monotonic() - t
    result["compiled"] = True

    t = time.monotonic()
    try:
        with torch.no_grad():
            set_seed(a.seed)
            custom_model = ModelNew(*init_inputs)
            original_model = to_device(original_model, device)
            custom_model = to_device(custom_model, device)
            synchronize(device)
    except RuntimeError as e:
        phase["load"] += time.monotonic() - t
        result["metadata"]["runtime_error"] = str(e)[:300]
        return result
    phase["load"] += time.monotonic() - t

    t = time.monotonic()
    result["correctness"] = run_and_check_correctness(original_model, custom_model, get_inputs,
                                                      result["metadata"], a.correct_trials, a.seed,
                                                      device, a.tol)
    phase["correctness"] += time.monotonic() - t

    if result["correctness"]:
        t = time.monotonic()
        synchronize(device)
        set_seed(a.seed)
        inputs = inputs_to_device(get_inputs(), device)
        model_new = to_device(custom_model, device)
        synchronize(device)
        times = time_execution_with_cuda_event(model_new, *inputs, num_trials=a.perf_trials,
                                               device=device)
        stats = get_timing_stats(times)
        result["runtime_ms"] = stats["mean"]
        result["runtime_stats"] = stats
        phase["timing"] += time.monotonic() - t

    t = time.monotonic()
    del context
    if device.type == "cuda":
        with torch.cuda.device(device):
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(device=device)
            torch.cuda.synchronize(device=device)
    phase["load"] += time.monotonic() - t
    return result


# ---- KernelBench's batch pre-compile (src/kernelbench/compile.py) ----------------------

def compile_single_sample(kernel_path, build_dir):
    """compile_single_sample and build_compile_cache: the sample's file executed with its
    build directory as TORCH_EXTENSIONS_DIR, TORCH_USE_CUDA_DSA=1, output captured; its
    load_inline calls are the builds. Runs in a pool worker."""
    import contextlib
    import io
    t = time.monotonic()
    buffer = io.StringIO()
    try:
        with open(kernel_path) as f:
            src = f.read()
        os.environ["TORCH_USE_CUDA_DSA"] = "1"
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            load_custom_model(src, {}, build_dir)
        return True, time.monotonic() - t, ""
    except Exception as e:  # a failed build is the sample's compile error, as in KernelBench
        return False, time.monotonic() - t, (buffer.getvalue() + f"\n{type(e).__name__}: {e}")[-2000:]


def batch_compile(jobs, workers):
    """batch_compile: every sample's build over `workers` processes started with the
    "spawn" method (each a new interpreter importing torch), tasks handed out as workers
    free up; returns the step's wall time and each sample's result."""
    import multiprocessing as mp
    t = time.monotonic()
    ctx = mp.get_context("spawn")
    results = []
    with ctx.Pool(workers) as pool:
        pending = [(job, pool.apply_async(compile_single_sample, (job["kernel"], job["build_dir"])))
                   for job in jobs]
        for job, r in pending:
            ok, seconds, error = r.get()
            results.append({"kernel": job["kernel"], "build_dir": job["build_dir"], "compiled": ok,
                            "seconds": seconds, "error": error})
    return time.monotonic() - t, results


# ---- command line ---------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("describe", help="inputs, outputs and parameters of each REF.py, "
                                        "written to REF.py.json")
    d.add_argument("refs", nargs="+")
    for name in ("source", "eval"):
        p = sub.add_parser(name)
        p.add_argument("--ref", required=True, help="the reference (kbv show KEY --torch)")
        p.add_argument("--describe", help="its description (default: REF.py.json, from describe)")
        p.add_argument("--candidate", required=name == "source", help="the kbv candidate .cu")
        p.add_argument("--include", default=os.environ.get("KBV_INCLUDE_DIR", "include"),
                       help="the directory holding kbv/candidate.h")
    s = sub.add_parser("sources", help="several sources in one process: JOBS.json is a list of "
                                       "{ref, describe, candidate, out}")
    s.add_argument("jobs")
    s.add_argument("--include", default=os.environ.get("KBV_INCLUDE_DIR", "include"))
    b = sub.add_parser("build", help="KernelBench's batch pre-compile: JOBS.json is a list of "
                                     "{kernel, build_dir}; the result (wall time, each sample's "
                                     "build) goes to --out")
    b.add_argument("jobs")
    b.add_argument("--workers", type=int, required=True, help="num_cpu_workers")
    b.add_argument("--out", required=True)
    e = sub.choices["eval"]
    e.add_argument("--kernel", help="a KernelBench-format file to evaluate as it is (instead of "
                                    "--candidate)")
    e.add_argument("--reuse-build", action="store_true",
                   help="import the extensions a batch build left in --build-dir instead of "
                        "asking load_inline (see reuse_built_extensions)")
    e.add_argument("--build-dir", required=True, help="TORCH_EXTENSIONS_DIR of this sample")
    e.add_argument("--out", required=True, help="the result, JSON")
    e.add_argument("--device", type=int, default=0)
    e.add_argument("--cpu", action="store_true",
                   help="a dry run on the CPU (KernelBench evaluates on CUDA alone)")
    e.add_argument("--seed", type=int, default=42)
    e.add_argument("--correct-trials", type=int, default=5)
    e.add_argument("--perf-trials", type=int, default=100)
    e.add_argument("--tol", type=float, default=1e-2)
    a = ap.parse_args()

    if a.cmd == "describe":
        failed = 0
        for path in a.refs:
            try:
                with open(path) as f:
                    desc = describe(f.read(), path)
            except Exception as e:  # one problem PyTorch cannot trace: the others still count
                print(f"{path}: cannot describe: {type(e).__name__}: {e}", file=sys.stderr)
                failed += 1
                continue
            with open(path + ".json", "w") as f:
                json.dump(desc, f, indent=1)
            print(path + ".json")
        return 1 if failed == len(a.refs) else 0
    if a.cmd == "sources":
        with open(a.jobs) as f:
            jobs = json.load(f)
        failed = 0
        for job in jobs:
            try:
                with open(job["ref"]) as f, open(job["describe"]) as g:
                    src = custom_source(f.read(), job["candidate"], json.load(g), a.include)
                os.makedirs(os.path.dirname(os.path.abspath(job["out"])), exist_ok=True)
                with open(job["out"], "w") as f:
                    f.write(src)
            except (OSError, ValueError, KeyError) as e:
                print(f"{job.get('candidate')}: no source: {type(e).__name__}: {e}", file=sys.stderr)
                failed += 1
        return 1 if failed else 0
    if a.cmd == "build":
        with open(a.jobs) as f:
            jobs = json.load(f)
        if torch.cuda.is_available():   # KernelBench's set_gpu_arch: the evaluating GPU's alone
            os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability(0))
        wall, results = batch_compile(jobs, a.workers)
        with open(a.out, "w") as f:
            json.dump({"workers": a.workers, "wall_s": wall, "results": results}, f, indent=1)
        return 0
    a.describe = a.describe or a.ref + ".json"
    if a.cmd == "eval" and bool(a.kernel) == bool(a.candidate):
        ap.error("eval takes --kernel or --candidate, one of them")
    if a.cmd == "source":
        with open(a.ref) as f, open(a.describe) as g:
            sys.stdout.write(custom_source(f.read(), a.candidate, json.load(g), a.include))
        return 0
    try:
        result = evaluate(a)
    except Exception as e:  # the harness's failure, not the candidate's: say so
        result = {"harness_error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-3000:]}
    result["process_s"] = time.monotonic() - STARTED
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0 if "harness_error" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
