/* cudart-bench's shared parts: one runtime (NVIDIA's or cushim's libcudart.so.13, opened by
 * path), its entries as dlsym gave them and the objects the rows run on; and the rows. */
#ifndef CUSHIM_CUDART_BENCH_OPS_H
#define CUSHIM_CUDART_BENCH_OPS_H

#include <cuda_runtime_api.h>
#include <fatbinary_section.h>
#include <stdbool.h>
#include <stddef.h>

/* Exit codes. */
enum {
    BENCH_RT_OK = 0,
    BENCH_RT_FAILED = 1,    /* a runtime call failed */
    BENCH_RT_USAGE = 2,     /* bad command line */
    BENCH_RT_NO_DEVICE = 77 /* a runtime cannot be loaded or finds no device: nothing measured */
};

typedef struct rt_side {
    const char *who, *path, *how;
    void *h;
    cudaError_t (*get_device_count)(int *);
    cudaError_t (*set_device)(int);
    cudaError_t (*free_)(void *);
    cudaError_t (*malloc_)(void **, size_t);
    cudaError_t (*malloc_host)(void **, size_t);
    cudaError_t (*free_host)(void *);
    cudaError_t (*stream_create_with_flags)(cudaStream_t *, unsigned);
    cudaError_t (*stream_create)(cudaStream_t *);
    cudaError_t (*stream_destroy)(cudaStream_t);
    cudaError_t (*stream_query)(cudaStream_t);
    cudaError_t (*stream_synchronize)(cudaStream_t);
    cudaError_t (*event_create)(cudaEvent_t *);
    cudaError_t (*event_create_with_flags)(cudaEvent_t *, unsigned);
    cudaError_t (*event_destroy)(cudaEvent_t);
    cudaError_t (*event_record)(cudaEvent_t, cudaStream_t);
    cudaError_t (*memcpy_async)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
    cudaError_t (*launch_kernel)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
    const char *(*get_error_name)(cudaError_t);
    const char *(*get_error_string)(cudaError_t);
    /* nvcc's registration and launch ABI (crt/host_runtime.h, crt/device_functions.h). */
    void **(*register_fatbin)(void *);
    void (*register_fatbin_end)(void **);
    void (*unregister_fatbin)(void **);
    void (*register_function)(void **, const char *, char *, const char *, int, uint3 *, uint3 *,
                              dim3 *, dim3 *, int *);
    unsigned (*push_config)(dim3, dim3, size_t, struct CUstream_st *);
    cudaError_t (*pop_config)(dim3 *, dim3 *, size_t *, void *);
    cudaError_t (*get_kernel)(cudaKernel_t *, const void *);
    cudaError_t (*launch_handle)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
    /* What the rows run on, made through this runtime. */
    __fatBinC_Wrapper_t wrapper;
    void **fatbin;
    cudaKernel_t kernel;       /* __cudaGetKernel's handle of the empty kernel */
    cudaStream_t stream, idle; /* non-blocking; idle never gets work */
    cudaEvent_t event;         /* cudaEventDisableTiming */
    void *dev, *host;          /* 4 bytes each; host pinned */
    cudaError_t error;         /* the failed call's */
    const char *failed_call;
} rt_side;

/* A row: n calls of one operation through one runtime. */
typedef struct bench_rt_op {
    const char *id, *label;
    cudaError_t (*run)(rt_side *s, int n);
    bool settle;       /* queues work: the stream is synchronized after the batch, untimed */
    double target;     /* the ratio cushim / NVIDIA that issue 26 asks for */
    bool target_below; /* strictly below target (else at most) */
} bench_rt_op;

extern const bench_rt_op bench_rt_ops[];
extern const size_t bench_rt_op_count;

/* The kernel's host-side address: any address of this program serves, both runtimes key their
 * registration by it. */
extern const char cudart_bench_kernel_host;

/* n chevron launches of the empty kernel, as nvcc 13's stub makes them. */
cudaError_t bench_rt_chevron(rt_side *s, int n);

#endif
