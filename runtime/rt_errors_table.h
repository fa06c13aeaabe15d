/* Internal: the names and sentences of every cudaError_t, generated from driver_types.h
 * (gen/gen-cudart.py writes cudart_errors.c). */
#ifndef CUSHIM_RUNTIME_RT_ERRORS_TABLE_H
#define CUSHIM_RUNTIME_RT_ERRORS_TABLE_H

#include <cuda_runtime_api.h>

typedef struct cushim__rt_error_text {
    cudaError_t code;
    const char *name, *text;
} cushim__rt_error_text;

/* In the header's order, which is by value. */
extern const cushim__rt_error_text cushim__rt_error_texts[];
extern const int cushim__rt_error_text_count;

#endif
