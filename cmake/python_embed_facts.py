"""What kbv-runner needs to host this interpreter (CMakeLists.txt runs it with
the interpreter in question, KBV_PYTHON or Debian's): one `key=value` per line.
It exits 1 when the interpreter cannot host KernelBench-format candidates (no
Python.h, no libpython, or no importable torch), saying why on stderr.

With --target PATH (a build carried to another machine), the build is against
this interpreter's headers and libpython, and the runner starts as PATH there:
torch is not looked for here, and the trees are PATH's prefix.

  executable: the interpreter's own path, a virtual environment's link kept
              (the embedded interpreter finds its prefix and site packages
              from it, as the interpreter started from there does)
  include:    the directory holding Python.h
  library:    libpython, shared if there is one
  trees:      directories outside the system's trees (/usr, /lib) that the
              interpreter reads: the candidate's sandbox must let it read them
"""
import os
import sys
import sysconfig


def fail(why):
    sys.stderr.write(why + "\n")
    sys.exit(1)


target = None
if len(sys.argv) == 3 and sys.argv[1] == "--target":
    target = sys.argv[2]
elif len(sys.argv) != 1:
    fail("usage: python_embed_facts.py [--target INTERPRETER_THERE]")


include = sysconfig.get_paths()["include"]
if not os.path.isfile(os.path.join(include, "Python.h")):
    fail("no Python.h in %s (a -dev package is missing)" % include)
libdir = sysconfig.get_config_var("LIBDIR") or ""
names = [sysconfig.get_config_var("LDLIBRARY") or "",
         "libpython%s.so" % sysconfig.get_config_var("LDVERSION"),
         "libpython%s.so.1.0" % sysconfig.get_config_var("LDVERSION")]
candidates = [os.path.join(d, n) for n in names if n.endswith((".so", ".so.1.0"))
              for d in (libdir, os.path.join(libdir, sysconfig.get_config_var("MULTIARCH") or ""))]
library = next((c for c in candidates if os.path.isfile(c)), None)
if library is None:
    fail("no shared libpython in %s" % libdir)
if target is None:
    try:
        import torch  # noqa: F401
    except Exception as e:  # any failure to import is a reason not to host it
        fail("this interpreter cannot import torch: %s" % e)

system = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
if target is None:
    dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix] + sys.path
    exists = os.path.isdir
else:  # the target's prefix: its bin/.. (not looked at: it is elsewhere)
    dirs = [os.path.dirname(os.path.dirname(os.path.abspath(target)))]
    exists = os.path.isabs
trees = []
for d in dirs:
    if not d or not exists(d):
        continue
    real = os.path.realpath(d) if target is None else os.path.normpath(d)
    if any(real == s or real.startswith(s + "/") for s in system):
        continue
    if not any(real == t or real.startswith(t + "/") for t in trees):
        trees = [t for t in trees if not t.startswith(real + "/")] + [real]

print("executable=" + (target or os.path.abspath(sys.executable)))
print("include=" + include)
print("library=" + library)
print("trees=" + ":".join(trees))
