/* The name and sentence of each cudaError_t, from the generated table of driver_types.h. The
 * calling thread's last error is the state's (rt_state.c). */
#include "runtime/rt.h"
#include "runtime/rt_errors_table.h"

static const cushim__rt_error_text *text_of(cudaError_t e) {
    int lo = 0, hi = cushim__rt_error_text_count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        cudaError_t c = cushim__rt_error_texts[mid].code;
        if (c == e) return &cushim__rt_error_texts[mid];
        if ((int)c < (int)e) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return NULL;
}

/* As NVIDIA's runtime, a value that is no cudaError_t has a name and a string all the same,
 * neither NULL: both are "unrecognized error code" (NVIDIA's 13.0, observed). */
const char *cudaGetErrorName(cudaError_t error) {
    const cushim__rt_error_text *t = text_of(error);
    return t != NULL ? t->name : "unrecognized error code";
}

/* The strings of the codes a program without a usable driver prints, as NVIDIA's runtime 13.0
 * gives them (observed), so that its message is the same on ours; every other code's string is
 * the first sentence of its doc comment in driver_types.h. */
const char *cudaGetErrorString(cudaError_t error) {
    switch (error) {
    case cudaErrorStubLibrary: return "CUDA driver is a stub library";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    default: break;
    }
    const cushim__rt_error_text *t = text_of(error);
    return t != NULL ? t->text : "unrecognized error code";
}
