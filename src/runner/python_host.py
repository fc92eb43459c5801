# The host of a KernelBench-format candidate inside kbv-runner (built into
# the runner by runner_python.c; never a file the runner reads). It executes
# the candidate's file, builds ModelNew with the problem's init inputs from
# kbv's own definition, binds kbv's parameter buffers into its state_dict by
# name and runs forward on kbv's tensors. Nothing the file defines (sizes,
# get_inputs, get_init_inputs, Model) is used. What it sees of the candidate
# (torch patched, extension functions that never ran, threads) is reported;
# the verdicts are the evaluator's.
import sys
import threading

import torch
import torch.utils.dlpack

_state = {}


def _callables(obj):
    """{name: id} of what obj itself holds (its __dict__): functions,
    classes, descriptors. getattr would make a new bound method each time."""
    return {name: id(v) for name, v in getattr(obj, "__dict__", {}).items()
            if callable(v) or isinstance(v, (staticmethod, classmethod, property))}


def _watched():
    """The objects whose callables a candidate must leave as torch made them:
    events, streams, synchronisation, the ops of torch, F and Tensor."""
    import torch.nn.functional as F
    objs = {"torch": torch, "torch.nn.functional": F, "torch.Tensor": torch.Tensor,
            "torch._C._TensorBase": torch._C._TensorBase, "torch._C._VariableFunctions":
            type(torch._C._VariableFunctions), "torch.nn.Module": torch.nn.Module,
            "torch.cuda": torch.cuda, "torch.cuda.Event": torch.cuda.Event,
            "torch.cuda.Stream": torch.cuda.Stream}
    return objs


def _snapshot():
    return {k: _callables(v) for k, v in _watched().items()}


def _patched():
    """The first attribute of torch changed since before the candidate ran, or ''."""
    before = _state["torch_snapshot"]
    for owner, obj in _watched().items():
        now = _callables(obj)
        for name, ident in before.get(owner, {}).items():
            if now.get(name) != ident:
                return f"{owner}.{name}"
    return ""


def _count_calls(fn, name):
    counter = _state["ext_calls"]

    def counted(*args, **kwargs):
        counter[0] += 1
        return fn(*args, **kwargs)
    counted.__name__ = name
    return counted


def _wrap_extension(module):
    """Counts the calls of a compiled extension's functions: a call of
    forward that runs none of them ran PyTorch's ops alone."""
    _state["has_extension"] = True
    for name in dir(module):
        if name.startswith("__"):
            continue
        fn = getattr(module, name)
        if callable(fn) and type(fn).__name__ == "builtin_function_or_method":
            setattr(module, name, _count_calls(fn, name))
    return module


def _load_inline_call(name, cpp_sources, cuda_sources=None, functions=None, extra_cflags=None,
                      extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None,
                      build_directory=None, verbose=False, with_cuda=None, is_python_module=True,
                      with_pytorch_error_handling=True, keep_intermediates=True, **rest):
    """load_inline's arguments by name (PyTorch 1.13's signature; later
    keywords land in rest)."""
    call = dict(locals())
    call.update(call.pop("rest"))
    return call


def _listed(v):
    return [v] if isinstance(v, str) else list(v or [])


def _extension_key(call):
    """What identifies one extension build: its name, sources, functions and
    flags (not where it is built, nor how verbosely). The builder and the
    runner compute it alike."""
    import hashlib
    fields = []
    for k in sorted(call):
        if k in ("build_directory", "verbose", "keep_intermediates"):
            continue
        v = call[k]
        if k in ("cpp_sources", "cuda_sources", "extra_cflags", "extra_cuda_cflags",
                 "extra_ldflags", "extra_include_paths"):
            v = _listed(v)
        elif k == "functions" and isinstance(v, dict):
            v = sorted(v.items())
        elif k == "functions":
            v = _listed(v)
        fields.append((k, v))
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:32]


def _load_built(*args, **kwargs):
    """load_inline in the runner: the extension kbv built ahead, imported."""
    import importlib.machinery
    import importlib.util
    import os
    call = _load_inline_call(*args, **kwargs)
    path = os.path.join(_state["ext_dir"], _extension_key(call) + ".so")
    if not os.path.exists(path):
        raise RuntimeError(f"extension '{call['name']}': no build of it was made ahead (kbv "
                           f"builds load_inline's extensions when the file is compiled; "
                           f"kbv-runner starts no process)")
    loader = importlib.machinery.ExtensionFileLoader(call["name"], path)
    spec = importlib.util.spec_from_file_location(call["name"], path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return _wrap_extension(module)


def _no_load(*args, **kwargs):
    raise RuntimeError("torch.utils.cpp_extension.load (extension sources in files) is not "
                       "supported: kbv builds load_inline's extensions alone")


def _stand_in_cpp_extension():
    """torch.utils.cpp_extension as the candidate sees it: load_inline
    gives the extensions kbv built ahead. The real module is never imported
    here (it runs `which nvcc` at import; the sandbox starts no process)."""
    import torch.utils
    mod = type(sys)("torch.utils.cpp_extension")
    mod.load_inline = _load_built
    mod.load = _no_load
    sys.modules["torch.utils.cpp_extension"] = mod
    torch.utils.cpp_extension = mod


def build(path, out_dir, arch):
    """The builder (kbv-runner --build-extensions, in kbv's compiler
    sandbox): executes the file, and builds ModelNew from its own
    get_init_inputs when it has one, with load_inline building each
    extension and keeping it as out_dir/<key>.so. 0 when every build
    succeeded (what else the file does is the runner's to judge), 1 if one
    failed."""
    import os
    import shutil
    import tempfile
    import traceback
    if arch:
        # the GPU's own architecture ("90a" -> "9.0a"), not every one PyTorch knows
        digits = arch.rstrip("abcdefghijklmnopqrstuvwxyz")
        os.environ["TORCH_CUDA_ARCH_LIST"] = f"{digits[:-1]}.{digits[-1]}{arch[len(digits):]}"
    import torch.utils.cpp_extension as cx
    real = cx.load_inline
    failed = []

    def load_inline(*args, **kwargs):
        call = _load_inline_call(*args, **kwargs)
        key = _extension_key(call)
        work = tempfile.mkdtemp(prefix="ext-")
        call.update(build_directory=work, verbose=True, keep_intermediates=False)
        print(f"kbv: building extension '{call['name']}' ({key})", flush=True)
        try:
            module = real(**call)
        except Exception:
            failed.append(call["name"])
            raise
        shutil.copyfile(os.path.join(work, call["name"] + ".so"),
                        os.path.join(out_dir, key + ".so"))
        shutil.rmtree(work, ignore_errors=True)
        return module
    cx.load_inline = load_inline
    module = type(sys)("kbv_candidate")
    module.__file__ = path
    sys.modules["kbv_candidate"] = module
    try:
        with open(path, "rb") as f:
            exec(compile(f.read(), "candidate.py", "exec"), module.__dict__)
        cls, init = module.__dict__.get("ModelNew"), module.__dict__.get("get_init_inputs")
        if cls is not None and init is not None:
            cls(*init())
    except Exception:
        traceback.print_exc()
        if not failed:
            print("kbv: the file raised the error above while its extensions were built; "
                  "it is judged when it is loaded", flush=True)
    if failed:
        print(f"kbv: error: extension build failed: {', '.join(failed)}", flush=True)
    return 1 if failed else 0


def _warm_up(device):
    """PyTorch's lazy set-up (CPU detection, thread pools, BLAS, oneDNN)
    done now, while files can be read: later it would be refused."""
    a = torch.rand(64, 64, device=device)
    for t in (a @ a, torch.relu(a), torch.softmax(a, 1), a.sum(1), a.cumsum(1),
              torch.nn.functional.conv2d(a.view(1, 1, 64, 64), a[:3, :3].reshape(1, 1, 3, 3)),
              torch.nn.functional.max_pool2d(a.view(1, 1, 64, 64), 2)):
        t.sum().item()


def _quiet_linecache():
    """Tracebacks without source files: printing one must not open a file
    (in the run stage that is refused, and counted against the candidate).
    The candidate's own lines come from its source (load)."""
    import linecache
    import traceback
    linecache.updatecache = lambda *args, **kwargs: []
    linecache.checkcache = lambda *args, **kwargs: None
    # PyErr_Print's own printer opens source files itself; this one asks linecache
    sys.excepthook = lambda kind, value, tb: traceback.print_exception(kind, value, tb)


def start(device, stream_ptr):
    """Before the candidate: kbv's device and stream, the snapshot of torch."""
    torch.set_grad_enabled(False)
    _state["ext_calls"] = [0]
    _state["has_extension"] = False
    _state["calls"] = 0
    _state["calls_without_extension"] = 0
    _state["device"] = torch.device("cpu") if device < 0 else torch.device("cuda", device)
    _state["stream"] = None
    if device >= 0:
        torch.cuda.set_device(device)
        _state["stream"] = torch.cuda.ExternalStream(stream_ptr, device=_state["device"])
    _warm_up(_state["device"])
    _quiet_linecache()
    _stand_in_cpp_extension()
    _state["torch_snapshot"] = _snapshot()
    _state["threads"] = threading.active_count()
    return ""


def _init_inputs(init_src):
    ns = {"__builtins__": {}}
    exec(compile(init_src, "<kbv problem definition>", "exec"), ns)
    return list(ns["init_inputs"])


def load(path, init_src):
    """Executes the candidate and builds ModelNew; '' or the reason it failed."""
    import os
    _state["ext_dir"] = os.path.join(os.path.dirname(path), "ext")
    with open(path, "rb") as f:
        source = f.read()
    module = type(sys)("kbv_candidate")
    module.__file__ = path
    sys.modules["kbv_candidate"] = module
    import linecache
    linecache.cache["candidate.py"] = (len(source), None,
                                       source.decode("utf-8", "replace").splitlines(True),
                                       "candidate.py")
    # the candidate's module-level code runs here, in the load stage
    code = compile(source, "candidate.py", "exec")
    if _state["stream"] is not None:
        with torch.cuda.stream(_state["stream"]):
            exec(code, module.__dict__)
    else:
        exec(code, module.__dict__)
    cls = module.__dict__.get("ModelNew")
    if cls is None:
        return "the file defines no ModelNew"
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
        return "ModelNew is not a torch.nn.Module class"
    model = cls(*_init_inputs(init_src))
    model = model.to(_state["device"])
    model.train(True)   # the problems' semantics: training mode, as the paper ran them
    _state["model"] = model
    return ""


def _set_tensor(model, key, tensor):
    """Makes model's parameter `key` kbv's tensor itself (no copy)."""
    owner = model
    *path, leaf = key.split(".")
    for p in path:
        owner = getattr(owner, p)
    if leaf in owner._parameters:
        owner._parameters[leaf] = torch.nn.Parameter(tensor, requires_grad=False)
    elif leaf in owner._buffers:
        # a buffer is the module's own state (BatchNorm's running statistics
        # change in training mode, as in PyTorch): a copy of kbv's values
        owner._buffers[leaf] = tensor.clone()
    else:
        raise KeyError(key)


def bind(params):
    """kbv's parameters into ModelNew's state_dict by name and shape;
    '' or the reason they do not fit."""
    model = _state["model"]
    have = model.state_dict()
    for name, tensor in params:
        if name not in have:
            return (f"ModelNew's state_dict has no '{name}' (kbv loads the problem's "
                    f"parameters by their state_dict names)")
        if tuple(have[name].shape) != tuple(tensor.shape):
            return (f"ModelNew's '{name}' has shape {tuple(have[name].shape)}, the problem's "
                    f"{tuple(tensor.shape)}")
    for name, tensor in params:
        _set_tensor(model, name, tensor)
    return ""


def _as_argument(t):
    """A 0-dimensional input is a Python number of forward()."""
    if t.dim() == 0:
        return t.item()
    return t


def forward(inputs, outputs):
    """One call: ModelNew.forward on kbv's inputs, its results copied into
    kbv's outputs, all on kbv's stream. '' or the reason it failed."""
    before = _state["ext_calls"][0]
    args = [_as_argument(t) for t in inputs]
    stream = _state["stream"]
    if stream is not None:
        with torch.cuda.stream(stream):
            reason = _forward_on(args, outputs)
    else:
        reason = _forward_on(args, outputs)
    _state["calls"] += 1
    if _state["ext_calls"][0] == before:
        _state["calls_without_extension"] += 1
    return reason


def _forward_on(args, outputs):
    got = _state["model"](*args)
    if isinstance(got, torch.Tensor):
        got = (got,)
    if not isinstance(got, (tuple, list)) or len(got) != len(outputs):
        return f"ModelNew.forward returned {type(got).__name__}, not {len(outputs)} tensor(s)"
    for i, (g, o) in enumerate(zip(got, outputs)):
        if not isinstance(g, torch.Tensor):
            return f"output {i} is a {type(g).__name__}, not a tensor"
        if tuple(g.shape) != tuple(o.shape):
            return f"output {i} has shape {tuple(g.shape)}, expected {tuple(o.shape)}"
        if g.dtype != o.dtype:
            return f"output {i} is {g.dtype}, expected {o.dtype}"
        if g.device != o.device:
            return f"output {i} is on {g.device}, expected {o.device}"
        o.copy_(g)
    return ""


def report():
    """(calls, calls without an extension function, has_extension,
    first patched torch attribute or '', Python threads started)."""
    patched = _patched() if "torch_snapshot" in _state else ""
    threads = threading.active_count() - _state.get("threads", threading.active_count())
    return (_state.get("calls", 0), _state.get("calls_without_extension", 0),
            bool(_state.get("has_extension")), patched, max(threads, 0))
