/* vecscale's implementation: plain driver API, built against cushim's drop-in cuda.h, so it
 * needs no libcuda to link and runs on a GPU or on cushim's mock driver alike. */
#include "vecscale.h"

enum { BLOCK = 256 };

/* data[i] *= factor for i < n, in PTX that any driver since CUDA 9 compiles. */
static const char vecscale_ptx[] =
    ".version 6.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry vecscale(.param .u64 data_param, .param .u32 n_param,\n"
    "                         .param .f32 factor_param) {\n"
    "    .reg .pred %past_end;\n"
    "    .reg .u32 %i, %n, %block, %width;\n"
    "    .reg .u64 %addr;\n"
    "    .reg .f32 %value, %factor;\n"
    "    ld.param.u64 %addr, [data_param];\n"
    "    ld.param.u32 %n, [n_param];\n"
    "    ld.param.f32 %factor, [factor_param];\n"
    "    mov.u32 %block, %ctaid.x;\n"
    "    mov.u32 %width, %ntid.x;\n"
    "    mov.u32 %i, %tid.x;\n"
    "    mad.lo.u32 %i, %block, %width, %i;\n"
    "    setp.ge.u32 %past_end, %i, %n;\n"
    "    @%past_end ret;\n"
    "    mad.wide.u32 %addr, %i, 4, %addr;\n"
    "    ld.f32 %value, [%addr];\n"
    "    mul.rn.f32 %value, %value, %factor;\n"
    "    st.f32 [%addr], %value;\n"
    "    ret;\n"
    "}\n";

CUresult vecscale_load(vecscale_kernel *k) {
    k->module = NULL;
    k->function = NULL;
    CUresult r = cuModuleLoadData(&k->module, vecscale_ptx);
    if (r != CUDA_SUCCESS) return r;
    r = cuModuleGetFunction(&k->function, k->module, "vecscale");
    if (r != CUDA_SUCCESS) vecscale_unload(k);
    return r;
}

CUresult vecscale_unload(vecscale_kernel *k) {
    CUresult r = k->module != NULL ? cuModuleUnload(k->module) : CUDA_SUCCESS;
    k->module = NULL;
    k->function = NULL;
    return r;
}

CUresult vecscale_enqueue(const vecscale_kernel *k, CUstream stream, CUdeviceptr data, unsigned n,
                          float factor) {
    if (n == 0) return CUDA_SUCCESS;
    void *params[] = {&data, &n, &factor}; /* a pointer to each argument, in order */
    return cuLaunchKernel(k->function, (n + BLOCK - 1) / BLOCK, 1, 1, BLOCK, 1, 1, 0, stream,
                          params, NULL);
}

CUresult vecscale(float *data, unsigned n, float factor) {
    if (n == 0) return CUDA_SUCCESS;
    size_t bytes = (size_t)n * sizeof *data;
    vecscale_kernel k;
    CUresult r = vecscale_load(&k);
    if (r != CUDA_SUCCESS) return r;
    CUdeviceptr d = 0;
    r = cuMemAlloc(&d, bytes);
    if (r == CUDA_SUCCESS) r = cuMemcpyHtoD(d, data, bytes);
    if (r == CUDA_SUCCESS) r = vecscale_enqueue(&k, NULL, d, n, factor);
    /* A synchronous copy on the NULL stream waits for the kernel. */
    if (r == CUDA_SUCCESS) r = cuMemcpyDtoH(data, d, bytes);
    /* Clean up on every path; the first failure is the one reported. */
    if (d != 0) {
        CUresult f = cuMemFree(d);
        if (r == CUDA_SUCCESS) r = f;
    }
    CUresult u = vecscale_unload(&k);
    return r != CUDA_SUCCESS ? r : u;
}
