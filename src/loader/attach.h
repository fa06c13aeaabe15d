/* What the overrides of NVRTC's and nvJitLink's cubin entries share (issue 28): the library's own
 * function behind an overridden slot, and the mock driver's seam that takes PTX beside a cubin
 * (cushim_mock_attach_ptx, cushim_mock.h). nvrtc_attach.c and jitlink_attach.c use them. */
#ifndef CUSHIM_LOADER_ATTACH_H
#define CUSHIM_LOADER_ATTACH_H

#include <stdbool.h>
#include <stddef.h>

#include "loader/dso.h"

typedef void (*cushim__attach_fn)(const void *cubin, size_t size, const char *ptx);

/* The loaded library's own function of the entry `name` ("nvrtcGetCUBIN", as the table names
 * it), looked up in the library that d loaded (the slot holds cushim's override); NULL when the
 * library is not loaded or lacks it. */
void *cushim__lib_own(const cushim__dso *d, const char *name);

/* The mock's seam, where the driver cushim uses (or, with CUSHIM_DRIVER set, will use) is the
 * mock, or where the libcuda.so.1 that the process has loaded is; NULL with any other driver. */
cushim__attach_fn cushim__mock_attach(void);

/* The overrides' own allocation failed in this thread's last call (they answer
 * NVJITLINK_ERROR_INTERNAL, which has no word for memory): set by them, read and cleared by
 * cushim's linker, which then says CUDA_ERROR_OUT_OF_MEMORY. */
void cushim__attach_oom_set(void);
bool cushim__attach_oom_take(void);

#endif
