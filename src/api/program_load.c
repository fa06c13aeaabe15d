/* A compiled program into a context: its cubin where the device runs it, else its PTX. */
#include "api/program.h"
#include "loader/loader.h"

bool cushim__arch_runs_on(int arch, bool exact, int cc) {
    /* A cubin runs on its own compute capability and on the later minors of the same major;
     * an arch-specific one (sm_90a) on its own only. */
    if (exact) return arch == cc;
    return arch / 10 == cc / 10 && arch % 10 <= cc % 10;
}

CUresult cushim__device_cc(const cushim_context *ctx, int *cc, const char *fn) {
    int major = 0, minor = 0;
    CUresult r = cushim__table.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->device);
    if (r == CUDA_SUCCESS) {
        r = cushim__table.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                               ctx->device);
    }
    if (r != CUDA_SUCCESS) {
        return cushim__fail(r, "%s: cannot read the device's compute capability: %s", fn,
                            cushim_error_name(r));
    }
    *cc = major * 10 + minor;
    return CUDA_SUCCESS;
}

/* Whether a failed load of a cubin may be retried with the program's PTX: the driver found no
 * code for its device in it. */
static bool cubin_cannot_run(CUresult r) {
    return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE ||
           r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_SOURCE;
}

CUSHIM_API CUresult cushim_program_load(cushim_module **out, cushim_program *p,
                                        cushim_context *ctx) {
    if (out == NULL) return cushim__fail(CUDA_ERROR_INVALID_VALUE, "%s: out is NULL", __func__);
    *out = NULL;
    CUresult r = cushim__check(p, CUSHIM__PROGRAM, "p", __func__);
    if (r == CUDA_SUCCESS) r = cushim__check(ctx, CUSHIM__CONTEXT, "ctx", __func__);
    if (r != CUDA_SUCCESS) return r;
    if (!atomic_load_explicit(&p->compiled, memory_order_acquire)) {
        return cushim__fail(CUDA_ERROR_ILLEGAL_STATE, "%s: the program has not compiled", __func__);
    }
    const void *image = p->code[CUSHIM_CODE_PTX];
    const void *cubin = p->code[CUSHIM_CODE_CUBIN];
    int cc = 0;
    if (cubin != NULL) {
        r = cushim__device_cc(ctx, &cc, __func__);
        if (r != CUDA_SUCCESS) return r;
        if (cushim__arch_runs_on(p->arch, p->arch_exact, cc)) image = cubin;
    }
    if (image == NULL) {
        if (cubin != NULL) {
            return cushim__fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                                "%s: the program has a cubin for sm_%d%s, which does not run on "
                                "the context's device (compute capability %d.%d), and no PTX",
                                __func__, p->arch, p->arch_exact ? "a" : "", cc / 10, cc % 10);
        }
        return cushim__fail(CUDA_ERROR_NO_BINARY_FOR_GPU,
                            "%s: the program has neither PTX nor a cubin (compiled with -dlto: "
                            "link its LTO IR with a cushim_linker)",
                            __func__);
    }
    r = cushim_module_load_data(out, ctx, image);
    if (r != CUDA_SUCCESS && image == cubin && p->code[CUSHIM_CODE_PTX] != NULL &&
        cubin_cannot_run(r)) {
        /* The device (or the mock) cannot run the cubin after all: the PTX, JIT-compiled. */
        r = cushim_module_load_data(out, ctx, p->code[CUSHIM_CODE_PTX]);
    }
    return r;
}
