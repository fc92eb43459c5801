/* The vendor libraries a run allows, made ready in the load stage (the
 * candidate loaded, paths still open for reading), so that nothing they do
 * later needs the file system the run stage closes.
 *
 * A library the candidate links is loaded with it. What that library loads
 * on demand (cuDNN's sub-libraries and NVRTC: core/vendor_libs.h, "parts")
 * is loaded now from the library's own directory, and one handle is created
 * and destroyed, so that its one-time set-up happens now. Later the loader
 * finds each part among the loaded objects by its soname without opening a
 * file; the versioned names it tries first ("libcudnn_ops.so.9.13.0") are
 * answered "no such file" by the sandbox (runner_sandbox.h). */
#ifndef KBV_RUNNER_VENDOR_H
#define KBV_RUNNER_VENDOR_H

#include "wire/child_proto.h"

/* mask: the vendor libraries (core/vendor_libs.h) to make ready. A library
 * that is not loaded, or whose handle cannot be made, is a load fault with
 * the reason; a part that does not exist is skipped (another release's
 * layout: a later open of it fails the candidate, naming the file). CUDA
 * builds only (elsewhere a mask is a fault). */
kbv_child_fault runner_vendor_prepare(unsigned mask, char *reason);

/* Its first half, which needs no device: the parts of each library of mask
 * loaded, cuda_version being the CUDA runtime's (13000 for 13.0), which
 * names NVRTC's files. */
kbv_child_fault runner_vendor_load_parts(unsigned mask, int cuda_version, char *reason);

/* The vendor libraries loaded in this process now (a mask): PyTorch's,
 * once a KernelBench-format file's interpreter has imported torch. */
unsigned runner_vendor_loaded(void);

#endif
