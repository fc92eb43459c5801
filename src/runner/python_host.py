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
            type(torch._C._VariableFunctions), "torch.nn.Module": torch.nn.Module}
    if torch.cuda.is_available():
        objs.update({"torch.cuda": torch.cuda, "torch.cuda.Event": torch.cuda.Event,
                     "torch.cuda.Stream": torch.cuda.Stream})
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


def _no_build(*args, **kwargs):
    name = kwargs.get("name", args[0] if args else "?")
    raise RuntimeError(f"extension '{name}': kbv-runner builds nothing (its sandbox starts no "
                       f"process), and no build of it was made ahead")


def _stand_in_cpp_extension():
    """torch.utils.cpp_extension as the candidate sees it: load_inline and
    load give the extensions kbv built ahead. The real module is never
    imported here (it runs `which nvcc` at import)."""
    import torch.utils
    mod = type(sys)("torch.utils.cpp_extension")
    mod.load_inline = _no_build
    mod.load = _no_build
    sys.modules["torch.utils.cpp_extension"] = mod
    torch.utils.cpp_extension = mod


def _warm_up(device):
    """PyTorch's lazy set-up (CPU detection, thread pools, BLAS, oneDNN)
    done now, while files can be read: later it would be refused."""
    a = torch.rand(64, 64, device=device)
    for t in (a @ a, torch.relu(a), torch.softmax(a, 1), a.sum(1), a.cumsum(1),
              torch.nn.functional.conv2d(a.view(1, 1, 64, 64), a[:3, :3].reshape(1, 1, 3, 3)),
              torch.nn.functional.max_pool2d(a.view(1, 1, 64, 64), 2)):
        t.sum().item()


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
    with open(path, "rb") as f:
        source = f.read()
    module = type(sys)("kbv_candidate")
    module.__file__ = path
    sys.modules["kbv_candidate"] = module
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
    """Makes model's state_dict entry `key` kbv's tensor itself (no copy)."""
    owner = model
    *path, leaf = key.split(".")
    for p in path:
        owner = getattr(owner, p)
    if leaf in owner._parameters:
        owner._parameters[leaf] = torch.nn.Parameter(tensor, requires_grad=False)
    elif leaf in owner._buffers:
        owner._buffers[leaf] = tensor
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
