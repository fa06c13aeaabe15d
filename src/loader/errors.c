/* Names and texts of CUresult codes, generated from cuda.h: they work without a driver. */
#include <stdio.h>

#include "loader/table.h"

static const cushim__error_text *lookup(CUresult r) {
    for (unsigned i = 0; i < cushim__error_count; i++) {
        if (cushim__errors[i].code == (int)r) return &cushim__errors[i];
    }
    return NULL;
}

/* Unknown codes get a per-thread buffer, so the returned text stays valid on this thread until
 * the next unknown code. */
static _Thread_local char unknown[48];

CUSHIM_API const char *cushim_error_name(CUresult r) {
    const cushim__error_text *e = lookup(r);
    if (e) return e->name;
    snprintf(unknown, sizeof unknown, "unknown CUresult %d", (int)r);
    return unknown;
}

CUSHIM_API const char *cushim_error_string(CUresult r) {
    const cushim__error_text *e = lookup(r);
    if (e) return e->text;
    snprintf(unknown, sizeof unknown, "unknown CUresult %d", (int)r);
    return unknown;
}

CUresult cushim__own_error_name(CUresult error, const char **out) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    const cushim__error_text *e = lookup(error);
    *out = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cushim__own_error_string(CUresult error, const char **out) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    const cushim__error_text *e = lookup(error);
    *out = e ? e->text : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
