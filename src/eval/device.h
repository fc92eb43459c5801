/* A device as kbv names it, from the facts its backend reports
 * (exec/backend.h, kbv_device_facts): the name that results records and
 * the baseline cache carry and the architecture candidates are compiled
 * for. */
#ifndef KBV_DEVICE_H
#define KBV_DEVICE_H

#include <stddef.h>

#include "core/status.h"
#include "exec/backend.h"

/* The facts of a device: -1 the CPU, else a CUDA ordinal. */
kbv_status kbv_device_facts_get(int device, kbv_device_facts *f);

/* The device's name as baselines and results record it: "cpu", or the GPU's
 * name and the CUDA runtime version ("NVIDIA H200 / CUDA 13.0"). */
void kbv_device_name_of(const kbv_device_facts *f, char *buf, size_t cap);
/* The nvcc architecture of a GPU ("90a" for sm_90a, "80" for sm_80). */
void kbv_device_arch_of(const kbv_device_facts *f, char *buf, size_t cap);

/* kbv_device_name_of a device's facts, read anew. */
kbv_status kbv_device_name(int device, char *buf, size_t cap);

/* Lowercase letters, digits and '-': "nvidia-h200-cuda-13-0". */
void kbv_device_slug(const char *name, char *slug, size_t cap);

#endif
