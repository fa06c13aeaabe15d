/* Internal: the limits of a device, read once per device and kept for the process, so that the
 * launch pre-checks use them without a driver call. Below modules, launch and occupancy: it
 * knows devices, not objects. */
#ifndef CUSHIM_API_LIMITS_H
#define CUSHIM_API_LIMITS_H

#include <stdbool.h>

#include "cushim.h"

typedef struct cushim__limits {
    int max_threads_per_block;
    int max_block[3];
    int max_grid[3];
    int max_smem_per_block;       /* without opt-in */
    int max_smem_per_block_optin; /* with cuFuncSetAttribute opt-in */
    int sm_count;
    int cooperative;
    int cc_major;       /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    int cluster_launch; /* CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH; 0 where the driver predates it */
    bool launch_ex;     /* the driver has cuLaunchKernelEx, which launch attributes need */
} cushim__limits;

/* The limits of device `dev` (ordinal `ordinal`), read from the driver on first use: CUDA_SUCCESS
 * and *out set, or the driver's code with the last error set (naming fn). */
CUresult cushim__read_limits(CUdevice dev, int ordinal, const cushim__limits **out, const char *fn);

/* The dynamic shared memory a launch of a kernel with these attributes may ask for: what
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES says (the plain per-block limit less the
 * static part unless raised by opt-in; the plain limit when the driver does not say), and never
 * more than the device's opt-in maximum leaves beside the static part. */
unsigned cushim__dynamic_smem_limit(const cushim__limits *l, int static_smem, int attr_max_dynamic);

#endif
