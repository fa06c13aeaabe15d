/* The benchmark's shared parts: the driver entry points it resolves itself, and the objects
 * that cushim-bench and cushim-insn-probe both measure on. */
#ifndef CUSHIM_BENCH_H
#define CUSHIM_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "common/hints.h"
#include "cushim.h"

/* Exit codes of both programs. */
enum {
    BENCH_RC_OK = 0,
    BENCH_RC_FAILED = 1,    /* a driver call failed during the setup or a measurement */
    BENCH_RC_USAGE = 2,     /* bad command line */
    BENCH_RC_NO_DRIVER = 77 /* no usable driver or no device: nothing was measured */
};

/* The direct entry points, each resolved by the benchmark itself with cuGetProcAddress_v2 at
 * the version of its PFN_ typedef in cudaTypedefs.h, with CU_GET_PROC_ADDRESS_LEGACY_STREAM:
 * what a program linked to libcuda gets from the <cuda.h> prototypes. Field names avoid the
 * cu prefix, since <cuda.h> #defines several of those names to versioned symbols. */
typedef struct bench_driver {
    void *handle; /* from dlopen, the same library that cushim loaded; never closed */
    const char *path;
    PFN_cuLaunchKernel_v4000 launch_kernel;
    PFN_cuLaunchCooperativeKernel_v9000 launch_cooperative_kernel;
    PFN_cuLaunchKernelEx_v11060 launch_kernel_ex;
    PFN_cuEventRecord_v2000 event_record;
    PFN_cuStreamQuery_v2000 stream_query;
    PFN_cuStreamSynchronize_v2000 stream_synchronize;
    PFN_cuStreamCreate_v2000 stream_create;
    PFN_cuStreamDestroy_v4000 stream_destroy;
    PFN_cuEventCreate_v2000 event_create;
    PFN_cuEventDestroy_v4000 event_destroy;
    PFN_cuCtxGetCurrent_v4000 ctx_get_current;
    PFN_cuCtxSetCurrent_v4000 ctx_set_current;
    PFN_cuGraphLaunch_v10000 graph_launch;
} bench_driver;

/* What every measurement runs on. The raw handles are those of the cushim objects, so both
 * sides of a comparison hand the driver the very same stream, event, function and context. */
typedef struct bench_env {
    bench_driver d;
    int ordinal;
    char device_name[128];
    int driver_version;
    cushim_context *ctx;   /* the device's primary context, made current on this thread */
    cushim_context *other; /* a dedicated context on the same device, never left current */
    /* The primary context again, as a second cushim object with recycling off: the create +
     * release rows measure both ways on the same current context. */
    cushim_context *unrecycled;
    cushim_stream *stream; /* non-blocking, in ctx: launches and records go here */
    cushim_stream *idle;   /* non-blocking, in ctx: never given work, for stream query */
    cushim_event *event;   /* CU_EVENT_DISABLE_TIMING, in ctx: what is recorded */
    cushim_module *module; /* empty.ptx */
    cushim_function *empty, *empty2;
    CUcontext raw_ctx, raw_other;
    CUstream raw_stream, raw_idle;
    CUevent raw_event;
    CUfunction raw_empty, raw_empty2;
    int coop_grid;          /* largest cooperative grid of 32-thread blocks; 0: unsupported */
    char coop_note[160];    /* why there is no cooperative measurement, when coop_grid is 0 */
    bool clusters;          /* the device launches clusters of 2 of cushim_empty */
    char cluster_note[160]; /* why there is no cluster measurement, when clusters is false */
    /* BENCH_GRAPH_KERNELS launches of cushim_empty (1x1x1 blocks of 32 threads) on `stream`,
     * captured and instantiated; NULL where the driver cannot, with the reason in graph_note. */
    cushim_graph_exec *graph;
    CUgraphExec raw_graph;
    char graph_note[160];
} bench_env;

/* The kernels of the benchmark's graph. */
#define BENCH_GRAPH_KERNELS 64

/* The two parameters of cushim_empty2(u64, u32), as cuLaunchKernel takes them. */
typedef struct bench_params {
    unsigned long long a;
    unsigned b;
    void *ptrs[2];
} bench_params;

void bench_params_init(bench_params *p);

/* Initialises cushim (cushim_init first, so that libcuda's cuInit runs once), resolves the
 * direct entry points from the same library, and creates the objects above on device
 * `ordinal`, loading `ptx` (NUL-terminated PTX text). Returns BENCH_RC_OK, BENCH_RC_NO_DRIVER
 * (nothing to measure on: no driver or no such device) or BENCH_RC_FAILED, with a sentence in
 * err. On failure whatever was made is released. */
int bench_env_open(bench_env *e, int ordinal, const char *ptx, char *err, size_t err_size);
void bench_env_close(bench_env *e);

/* Reads a whole file into a NUL-terminated buffer (free() it); NULL with a sentence in err. */
char *bench_read_file(const char *path, char *err, size_t err_size);

/* The text of a CUresult for messages: "CUDA_ERROR_INVALID_VALUE". */
const char *bench_error_name(CUresult r);

#endif
