/* The drop-in's side of the launch comparison: cuLaunchKernel called by its cuda.h name, in a
 * file compiled with cushim-cuda/cuda.h first on the include path, so that the call goes through
 * the exported trampoline exactly as a user's unmodified program's would. The direct side is
 * cuLaunchKernel of libcuda itself, through the pointer the benchmark got from it. */
#include <cuda.h>

#include "bench.h"

#if !defined(CUSHIM_CUDA_DROPIN)
#error "bench-dropin.c is compiled against the drop-in cuda.h"
#endif

CUresult bench_dropin_launch(bench_env *e, int n);
CUresult loop_cushim_dropin_launch(const bench_env *e, int k);

/* A batch for cushim-bench: stops at the first failure, as its other batches do. */
CUSHIM__NOINLINE CUresult bench_dropin_launch(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CUresult r = cuLaunchKernel(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL);
        if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
}

/* A loop for the instruction probe: results folded into one word, as its other loops do. */
CUSHIM__NOINLINE CUresult loop_cushim_dropin_launch(const bench_env *e, int k) {
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |=
            (unsigned)cuLaunchKernel(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL);
    }
    return (CUresult)bad;
}

CUresult bench_dropin_query(bench_env *e, int n);

/* cuStreamQuery of the idle stream through the trampoline: the tracer's rows time a cheap call
 * as well as a launch, so that its own cost is not lost in the launch's. */
CUSHIM__NOINLINE CUresult bench_dropin_query(bench_env *e, int n) {
    for (int i = 0; i < n; i++) {
        CUresult r = cuStreamQuery(e->raw_idle);
        if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
}

/* The NVRTC rows' cushim side: NVRTC by its own names, through the drop-in nvrtc.h. */
#include <nvrtc.h>

#include "bench-nvrtc.h"

#if !defined(CUSHIM_NVRTC_DROPIN)
#error "bench-dropin.c is compiled against the drop-in nvrtc.h"
#endif

/* The drop-in's names are its trampolines: each call of the compile loop goes through them. */
static const bench_nvrtc_calls dropin_calls = {nvrtcCreateProgram, nvrtcCompileProgram,
                                               nvrtcDestroyProgram};

CUSHIM__NOINLINE CUresult bench_dropin_nvrtc_compile(bench_env *e, int n) {
    (void)e;
    return bench_nvrtc_compile_loop(&dropin_calls, n);
}

CUSHIM__NOINLINE CUresult loop_cushim_nvrtc_version(const bench_env *e, int k) {
    (void)e;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        int major, minor;
        bad |= (unsigned)nvrtcVersion(&major, &minor);
    }
    return bad ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS;
}
