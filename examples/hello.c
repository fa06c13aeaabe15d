/* hello.c: the shortest complete cushim program. It compiles a kernel from PTX text in the
 * primary context of device 0, launches it, copies the result back and checks it. Exits 0 on
 * success, 77 (skip) where there is no GPU, and 1 on any error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cushim.h>

/* Stops at the first failed call, saying which and why. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *why_ = cushim_last_error();                                                \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), why_[0] ? why_ : cushim_error_string(r_));              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
/* Raw table calls are the driver's own and leave cushim_last_error() as it was, so their
 * failure is described by the code's own sentence. */
#define CHECK_RAW(call)                                                                            \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,                      \
                    cushim_error_name(r_), cushim_error_string(r_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* out[i] = i for every i < n, in hand-written PTX that any driver since CUDA 9 can compile. */
static const char ptx[] = ".version 6.0\n"
                          ".target sm_70\n"
                          ".address_size 64\n"
                          ".visible .entry hello(.param .u64 out_param, .param .u32 n_param) {\n"
                          "    .reg .pred %past_end;\n"
                          "    .reg .u32 %i, %n, %block, %width;\n"
                          "    .reg .u64 %out;\n"
                          "    ld.param.u64 %out, [out_param];\n"
                          "    ld.param.u32 %n, [n_param];\n"
                          "    mov.u32 %block, %ctaid.x;\n"
                          "    mov.u32 %width, %ntid.x;\n"
                          "    mov.u32 %i, %tid.x;\n"
                          "    mad.lo.u32 %i, %block, %width, %i;\n" /* the thread's index */
                          "    setp.ge.u32 %past_end, %i, %n;\n"
                          "    @%past_end ret;\n"
                          "    mad.wide.u32 %out, %i, 4, %out;\n" /* &out[i] */
                          "    st.u32 [%out], %i;\n"
                          "    ret;\n"
                          "}\n";

enum { N = 256, BLOCK = 64 };

int main(void) {
    /* Without a driver or a device (cuInit fails then) there is nothing to run: skip. */
    if (cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "skip: %s\n", cushim_last_error());
        return 77;
    }
    /* The primary context is the one the CUDA runtime uses. Raw driver calls such as
     * cuMemAlloc act on the current context, so make it current. */
    const cushim_driver_table *cu = cushim_driver();
    cushim_context *ctx;
    CHECK(cushim_context_primary(&ctx, 0));
    CHECK_RAW(cu->cuCtxSetCurrent(cushim_context_raw(ctx)));
    char device[128];
    CHECK_RAW(cu->cuDeviceGetName(device, sizeof device, cushim_context_device(ctx)));
    cushim_module *mod;
    cushim_function *hello;
    CHECK(cushim_module_load_data(&mod, ctx, ptx));
    CHECK(cushim_module_function(&hello, mod, "hello"));

    CUdeviceptr out;
    CHECK_RAW(cu->cuMemAlloc(&out, N * sizeof(uint32_t)));
    uint32_t n = N;
    void *params[] = {&out, &n}; /* a pointer to each kernel argument, in order */
    cushim_launch_config cfg =
        cushim_launch_config_make(CUSHIM_DIM3(N / BLOCK), CUSHIM_DIM3(BLOCK));
    CHECK(cushim_launch(hello, &cfg, params));
    CHECK(cushim_context_synchronize(ctx)); /* a kernel that faulted would say so here */
    uint32_t host[N];
    CHECK_RAW(cu->cuMemcpyDtoH(host, out, sizeof host));

    int wrong = 0;
    for (uint32_t i = 0; i < N; i++) wrong += host[i] != i;
    CHECK_RAW(cu->cuMemFree(out));
    cushim_module_release(mod);
    CHECK_RAW(cu->cuCtxSetCurrent(NULL));
    cushim_context_release(ctx);
    if (wrong != 0) {
        fprintf(stderr, "%d of %d elements are wrong\n", wrong, N);
        return 1;
    }
    printf("hello from %d threads of %s, every result checked\n", N, device);
    return 0;
}
