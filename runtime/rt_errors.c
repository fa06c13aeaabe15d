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
 * and neither is NULL. */
const char *cudaGetErrorName(cudaError_t error) {
    const cushim__rt_error_text *t = text_of(error);
    return t != NULL ? t->name : "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error) {
    const cushim__rt_error_text *t = text_of(error);
    return t != NULL ? t->text : "unrecognized error code";
}
