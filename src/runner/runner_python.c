/* The embedded interpreter for KernelBench-format candidates (see
 * runner_python.h). The Python half, python_host.py, is built into the
 * runner as a string: the runner opens no file of kbv's. Its module is
 * kept by this file alone, never in sys.modules. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runner/runner_python.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner_python_host.h"   /* generated: runner_python_host_source */

/* ---- DLPack (the stable ABI, v0.x, as PyTorch reads it) ---------------- */

typedef struct dl_device {
    int32_t device_type;   /* 1 CPU, 2 CUDA */
    int32_t device_id;
} dl_device;

typedef struct dl_dtype {
    uint8_t code;          /* 0 int, 1 uint, 2 float, 4 bfloat, 6 bool */
    uint8_t bits;
    uint16_t lanes;
} dl_dtype;

typedef struct dl_tensor {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_dtype dtype;
    int64_t *shape;
    int64_t *strides;      /* in elements */
    uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
    dl_tensor t;
    void *manager_ctx;
    void (*deleter)(struct dl_managed *self);
} dl_managed;

/* One wrapped tensor: its DLPack header and the shape and strides it points to. */
typedef struct wrapped {
    dl_managed managed;
    int64_t shape[KBV_MAX_DIMS], stride[KBV_MAX_DIMS];
} wrapped;

/* The arena's tensors as PyTorch sees them: the memory is the arena's, so
 * nothing is freed when PyTorch lets go. */
static struct {
    wrapped *w;                               /* cap entries, as many as the setup's tensors */
    int n, cap;
    PyObject *host;                           /* python_host's module */
    PyObject *inputs[KBV_CHILD_MAX_SETS];     /* lists of tensors */
    PyObject *params;                         /* list of (name, tensor) */
    PyObject *outputs;
    const kbv_tensor *input_sets[KBV_CHILD_MAX_SETS];
    int n_sets;
    char error[RUNNER_REASON_CAP];            /* the last call's failure, "" if none */
    bool warmed;                              /* runner_python_warm ran: the host is up */
    kbv_child_fault warm_fault;               /* ... or why not, for the setup to report */
    char warm_reason[RUNNER_REASON_CAP];
} py;

static void dl_keep(dl_managed *self)
{
    (void)self;   /* the arena's memory: not PyTorch's to free */
}

static bool dl_dtype_of(kbv_dtype d, dl_dtype *out)
{
    switch (d) {
    case KBV_F32: *out = (dl_dtype){2, 32, 1}; return true;
    case KBV_F64: *out = (dl_dtype){2, 64, 1}; return true;
    case KBV_F16: *out = (dl_dtype){2, 16, 1}; return true;
    case KBV_BF16: *out = (dl_dtype){4, 16, 1}; return true;
    case KBV_I32: *out = (dl_dtype){0, 32, 1}; return true;
    case KBV_I64: *out = (dl_dtype){0, 64, 1}; return true;
    case KBV_BOOL: *out = (dl_dtype){6, 8, 1}; return true;
    default: return false;
    }
}

/* A new reference to a torch tensor over t's memory, or NULL (exception set). */
static PyObject *wrap_tensor(const runner *r, const kbv_tensor *t, PyObject *from_dlpack)
{
    if (py.n == py.cap) {
        PyErr_SetString(PyExc_RuntimeError, "more tensors to wrap than the setup named");
        return NULL;
    }
    wrapped *w = &py.w[py.n++];
    memset(w, 0, sizeof *w);
    dl_managed *m = &w->managed;
    if (!dl_dtype_of(t->dtype, &m->t.dtype)) {
        PyErr_Format(PyExc_RuntimeError, "tensor %s: dtype %d", t->name, (int)t->dtype);
        return NULL;
    }
    for (int d = 0; d < t->ndim; d++) {
        w->shape[d] = t->shape[d];
        w->stride[d] = t->stride[d];
    }
    m->t.data = t->data;
    m->t.device = r->setup.device < 0 ? (dl_device){1, 0} : (dl_device){2, r->setup.device};
    m->t.ndim = t->ndim;
    m->t.shape = w->shape;
    m->t.strides = w->stride;
    m->deleter = dl_keep;
    PyObject *capsule = PyCapsule_New(m, "dltensor", NULL);
    if (!capsule)
        return NULL;
    PyObject *tensor = PyObject_CallOneArg(from_dlpack, capsule);
    Py_DECREF(capsule);
    return tensor;
}

static PyObject *wrap_list(const runner *r, const kbv_tensor *ts, int n, bool named,
                           PyObject *from_dlpack)
{
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *t = wrap_tensor(r, &ts[i], from_dlpack);
        if (t && named) {
            PyObject *pair = Py_BuildValue("(sN)", ts[i].name, t);
            t = pair;
        }
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, t);
    }
    return list;
}

/* ---- errors ------------------------------------------------------------ */

/* The pending exception as "Type: message" into reason; its traceback goes
 * to stderr (kept with the record). */
static void exception_reason(const char *what, char *reason)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    const char *tname = type ? ((PyTypeObject *)type)->tp_name : "error";
    PyObject *s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    if (!msg)
        PyErr_Clear();
    snprintf(reason, RUNNER_REASON_CAP, "%s: %s: %.300s", what, tname, msg ? msg : "");
    Py_XDECREF(s);
    PyErr_Restore(type, value, tb);
    PyErr_Print();
}

/* Calls host.<fn>(args...) whose result is a str: "" is success, anything
 * else the reason. Returns 0, 1 (exception) or 2 (a reason). */
static int call_host(const char *fn, PyObject *args, const char *what, char *reason)
{
    PyObject *f = PyObject_GetAttrString(py.host, fn);
    PyObject *ret = f && args ? PyObject_CallObject(f, args) : NULL;
    Py_XDECREF(f);
    Py_XDECREF(args);
    if (!ret) {
        exception_reason(what, reason);
        return 1;
    }
    const char *s = PyUnicode_Check(ret) ? PyUnicode_AsUTF8(ret) : "the host returned no str";
    int rc = 0;
    if (s && s[0]) {
        snprintf(reason, RUNNER_REASON_CAP, "%s: %.400s", what, s);
        fprintf(stderr, "kbv: %s\n", reason);
        rc = 2;
    }
    Py_DECREF(ret);
    return rc;
}

/* ---- the candidate's entry points ------------------------------------- */

static int python_prepare(const kbv_env *env, const kbv_tensor *params, int n_params,
                          void **state)
{
    (void)env;
    (void)params;
    (void)n_params;
    *state = NULL;
    py.error[0] = '\0';
    return call_host("bind", PyTuple_Pack(1, py.params), "binding the parameters", py.error);
}

static int python_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                          int n_inputs, const kbv_tensor *params, int n_params,
                          kbv_tensor *outputs, int n_outputs)
{
    (void)env;
    (void)state;
    (void)n_inputs;
    (void)params;
    (void)n_params;
    (void)outputs;
    (void)n_outputs;
    int set = 0;
    while (set < py.n_sets && py.input_sets[set] != inputs)
        set++;
    py.error[0] = '\0';
    if (set == py.n_sets)
        return 3;
    return call_host("forward", PyTuple_Pack(2, py.inputs[set], py.outputs), "ModelNew.forward",
                     py.error);
}

/* ---- load -------------------------------------------------------------- */

/* The interpreter, isolated from the environment, as if started from the
 * program kbv was built against: its prefix and site packages (a virtual
 * environment's, when that program is one's) found from that path; no
 * bytecode written (nothing may be written). */
static kbv_child_fault start_interpreter(char *reason)
{
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.write_bytecode = 0;
    config.install_signal_handlers = 0;   /* SIGSYS and the rest stay the runner's */
    config.buffered_stdio = 0;
    config.site_import = 1;
    PyStatus status = PyConfig_SetBytesString(&config, &config.program_name,
                                              KBV_PYTHON_EXECUTABLE);
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(&config, &config.executable, KBV_PYTHON_EXECUTABLE);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        snprintf(reason, RUNNER_REASON_CAP, "cannot start the Python interpreter: %s",
                 status.err_msg ? status.err_msg : "unknown error");
        return KBV_FAULT_HARNESS;
    }
    return KBV_FAULT_NONE;
}

/* python_host.py as a module of its own (not in sys.modules). */
static kbv_child_fault load_host(char *reason)
{
    PyObject *code = Py_CompileString(runner_python_host_source, "<kbv python host>",
                                      Py_file_input);
    if (code) {
        py.host = PyModule_New("kbv_python_host");
        PyObject *dict = py.host ? PyModule_GetDict(py.host) : NULL;
        if (dict && PyDict_SetItemString(dict, "__builtins__", PyEval_GetBuiltins()) == 0) {
            PyObject *ret = PyEval_EvalCode(code, dict, dict);
            Py_XDECREF(ret);
            if (!ret)
                Py_CLEAR(py.host);
        } else {
            Py_CLEAR(py.host);
        }
        Py_DECREF(code);
    }
    if (!py.host) {
        /* most likely: no PyTorch for this interpreter */
        exception_reason("KernelBench-format candidates need PyTorch", reason);
        return KBV_FAULT_LOAD;
    }
    return KBV_FAULT_NONE;
}

/* The interpreter with python_host loaded (torch imported): no device work. */
static kbv_child_fault start_host(char *reason)
{
    kbv_child_fault f = start_interpreter(reason);
    return f ? f : load_host(reason);
}

void runner_python_warm(void)
{
    py.warm_fault = start_host(py.warm_reason);
    py.warmed = true;
}

static kbv_child_fault wrap_arena(runner *r, char *reason)
{
    PyObject *dlpack = PyImport_ImportModule("torch.utils.dlpack");
    PyObject *from = dlpack ? PyObject_GetAttrString(dlpack, "from_dlpack") : NULL;
    Py_XDECREF(dlpack);
    py.cap = r->setup.n_sets * r->setup.n_inputs + r->setup.n_params + r->setup.n_outputs;
    py.w = calloc(py.cap > 0 ? (size_t)py.cap : 1, sizeof *py.w);  /* lives as the process does */
    bool ok = from != NULL && py.w != NULL;
    py.n_sets = r->setup.n_sets;
    for (int set = 0; ok && set < r->setup.n_sets; set++) {
        py.input_sets[set] = r->inputs + (size_t)set * (size_t)r->setup.n_inputs;
        ok = (py.inputs[set] = wrap_list(r, py.input_sets[set], r->setup.n_inputs, false, from));
    }
    ok = ok && (py.params = wrap_list(r, r->params, r->setup.n_params, true, from));
    ok = ok && (py.outputs = wrap_list(r, r->outputs, r->setup.n_outputs, false, from));
    Py_XDECREF(from);
    if (!ok) {
        exception_reason("wrapping kbv's buffers as tensors (DLPack)", reason);
        return KBV_FAULT_HARNESS;
    }
    return KBV_FAULT_NONE;
}

kbv_child_fault runner_python_start(runner *r, char *reason)
{
    kbv_child_fault f;
    if (py.warmed) {
        /* started ahead: the host came up (or failed to) while the runner waited */
        f = py.warm_fault;
        if (f)
            snprintf(reason, RUNNER_REASON_CAP, "%s", py.warm_reason);
    } else {
        f = start_host(reason);
    }
    if (f || (f = wrap_arena(r, reason)))
        return f;
    PyObject *args = Py_BuildValue("(iK)", (int)r->setup.device,
                                   (unsigned long long)(uintptr_t)r->env.stream);
    if (call_host("start", args, "starting PyTorch", reason) != 0)
        return KBV_FAULT_HARNESS;
    return KBV_FAULT_NONE;
}

kbv_child_fault runner_python_load(runner *r, char *reason)
{
    if (!py.host) {
        snprintf(reason, RUNNER_REASON_CAP, "the interpreter was not started");
        return KBV_FAULT_HARNESS;
    }
    r->setup.python_init[KBV_PROTO_PYTHON_INIT_MAX - 1] = '\0';
    PyObject *args = Py_BuildValue("(ss)", r->setup.candidate, r->setup.python_init);
    if (call_host("load", args, "loading ModelNew", reason) != 0)
        return KBV_FAULT_LOAD;
    r->prepare = python_prepare;
    r->forward = python_forward;
    r->finish = NULL;
    return KBV_FAULT_NONE;
}

int runner_python_build(const char *candidate, const char *out_dir, const char *arch)
{
    char reason[RUNNER_REASON_CAP];
    if (start_host(reason)) {
        fprintf(stderr, "kbv-runner: %s\n", reason);
        return 2;
    }
    PyObject *f = PyObject_GetAttrString(py.host, "build");
    PyObject *ret = f ? PyObject_CallFunction(f, "sss", candidate, out_dir, arch) : NULL;
    Py_XDECREF(f);
    long rc = ret && PyLong_Check(ret) ? PyLong_AsLong(ret) : 2;
    if (!ret)
        PyErr_Print();
    Py_XDECREF(ret);
    fflush(stdout);
    fflush(stderr);
    return (int)rc;
}

const char *runner_python_error(void)
{
    return py.error[0] ? py.error : NULL;
}

void runner_python_report(kbv_child_python *out)
{
    memset(out, 0, sizeof *out);
    if (!py.host)
        return;
    PyObject *f = PyObject_GetAttrString(py.host, "report");
    PyObject *ret = f ? PyObject_CallNoArgs(f) : NULL;
    Py_XDECREF(f);
    int calls = 0, without = 0, has_ext = 0, threads = 0;
    const char *patched = NULL;
    if (ret && PyArg_ParseTuple(ret, "iipsi", &calls, &without, &has_ext, &patched, &threads)) {
        out->calls = calls;
        out->calls_without_extension = without;
        out->has_extension = has_ext;
        out->threads_started = threads;
        snprintf(out->torch_patched, sizeof out->torch_patched, "%s", patched ? patched : "");
    } else {
        PyErr_Print();
        snprintf(out->torch_patched, sizeof out->torch_patched, "(the report failed)");
    }
    Py_XDECREF(ret);
}
