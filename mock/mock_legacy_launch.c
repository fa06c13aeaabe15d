/* The launch of CUDA 2, deprecated but still in cuda.h: a function's block shape, dynamic
 * shared memory and parameter bytes are set one call at a time, and cuLaunch, cuLaunchGrid or
 * cuLaunchGridAsync launches it with them. The mock keeps that state per function here and
 * launches through cuLaunchKernel with the bytes as CU_LAUNCH_PARAM_BUFFER_POINTER (so the call
 * log shows that call after the legacy one, and its faults apply). */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

#define PARAM_BYTES 4096 /* the parameter space of this API */

typedef struct legacy_state {
    CUfunction f;
    unsigned block[3];
    unsigned shared;
    unsigned size; /* cuParamSetSize */
    unsigned char params[PARAM_BYTES];
} legacy_state;

static legacy_state **states;
static size_t nstates, capstates;

static bool alive_function(CUfunction f) {
    mock_obj *o = mock__find(f);
    return o != NULL && o->alive;
}

/* The state of f, made on first use (a block of 1 x 1 x 1, no parameters); NULL for no memory.
 * States of functions that died meanwhile are dropped here, so the table stays as small as the
 * set of live functions. */
static legacy_state *state_of(CUfunction f) {
    for (size_t i = 0; i < nstates; i++) {
        if (states[i]->f == f) return states[i];
    }
    for (size_t i = nstates; i-- > 0;) {
        if (!alive_function(states[i]->f)) {
            free(states[i]);
            states[i] = states[--nstates];
        }
    }
    legacy_state *s = calloc(1, sizeof *s);
    if (s == NULL || !mock__grow(&states, &capstates, nstates + 1, sizeof *states)) {
        free(s);
        return NULL;
    }
    s->f = f;
    s->block[0] = s->block[1] = s->block[2] = 1;
    states[nstates++] = s;
    return s;
}

/* The entry's checks of f, then its state: the code in *r when there is none. */
static legacy_state *checked(CUfunction f, const char *entry, CUresult *r) {
    mock_kinfo k;
    *r = mock__function(f, entry, &k);
    if (*r != CUDA_SUCCESS) return NULL;
    legacy_state *s = state_of(f);
    if (s == NULL) *r = CUDA_ERROR_OUT_OF_MEMORY;
    return s;
}

CUresult CUDAAPI mock_cuFuncSetBlockShape(CUfunction f, int x, int y, int z) {
    MOCK_ENTER(cuFuncSetBlockShape);
    if (x <= 0 || y <= 0 || z <= 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult r;
    legacy_state *s = checked(f, "cuFuncSetBlockShape", &r);
    if (s != NULL) {
        s->block[0] = (unsigned)x;
        s->block[1] = (unsigned)y;
        s->block[2] = (unsigned)z;
    }
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuFuncSetSharedSize(CUfunction f, unsigned int bytes) {
    MOCK_ENTER(cuFuncSetSharedSize);
    CUresult r;
    legacy_state *s = checked(f, "cuFuncSetSharedSize", &r);
    if (s != NULL) s->shared = bytes;
    return mock__leave(r);
}

/* A preference of bank size, which the mock's shared memory does not have: checked, kept
 * nowhere. */
CUresult CUDAAPI mock_cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig config) {
    MOCK_ENTER(cuFuncSetSharedMemConfig);
    if ((unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    mock_kinfo k;
    return mock__leave(mock__function(f, "cuFuncSetSharedMemConfig", &k));
}

CUresult CUDAAPI mock_cuParamSetSize(CUfunction f, unsigned int bytes) {
    MOCK_ENTER(cuParamSetSize);
    if (bytes > PARAM_BYTES) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult r;
    legacy_state *s = checked(f, "cuParamSetSize", &r);
    if (s != NULL) s->size = bytes;
    return mock__leave(r);
}

/* Copies n bytes to the parameter bytes of f at offset, inside the parameter space. */
static CUresult set_bytes(CUfunction f, int offset, const void *p, unsigned n, const char *entry) {
    if (offset < 0 || p == NULL || n > PARAM_BYTES || (unsigned)offset > PARAM_BYTES - n) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r;
    legacy_state *s = checked(f, entry, &r);
    if (s != NULL) memcpy(s->params + offset, p, n);
    return r;
}

CUresult CUDAAPI mock_cuParamSeti(CUfunction f, int offset, unsigned int value) {
    MOCK_ENTER(cuParamSeti);
    return mock__leave(set_bytes(f, offset, &value, sizeof value, "cuParamSeti"));
}

CUresult CUDAAPI mock_cuParamSetf(CUfunction f, int offset, float value) {
    MOCK_ENTER(cuParamSetf);
    return mock__leave(set_bytes(f, offset, &value, sizeof value, "cuParamSetf"));
}

CUresult CUDAAPI mock_cuParamSetv(CUfunction f, int offset, void *p, unsigned int n) {
    MOCK_ENTER(cuParamSetv);
    return mock__leave(set_bytes(f, offset, p, n, "cuParamSetv"));
}

/* Launches f on a grid of w x h blocks in stream hs with its legacy state: the state is copied
 * under the lock, then cuLaunchKernel is called as a program would call it. */
static CUresult launch(CUfunction f, int w, int h, CUstream hs, CUresult entered) {
    if (entered != CUDA_SUCCESS) return entered;
    if (w <= 0 || h <= 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult r;
    legacy_state *s = checked(f, mock__entry_name(), &r);
    if (s == NULL) return mock__leave(r);
    legacy_state copy = *s;
    mock__leave(CUDA_SUCCESS);
    size_t size = copy.size;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, copy.params, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &size, CU_LAUNCH_PARAM_END};
    return mock_cuLaunchKernel(f, (unsigned)w, (unsigned)h, 1, copy.block[0], copy.block[1],
                               copy.block[2], copy.shared, hs, NULL, extra);
}

CUresult CUDAAPI mock_cuLaunch(CUfunction f) {
    return launch(f, 1, 1, NULL, mock__enter(MOCK_E_cuLaunch, false));
}

CUresult CUDAAPI mock_cuLaunchGrid(CUfunction f, int w, int h) {
    return launch(f, w, h, NULL, mock__enter(MOCK_E_cuLaunchGrid, false));
}

CUresult CUDAAPI mock_cuLaunchGridAsync(CUfunction f, int w, int h, CUstream hs) {
    return launch(f, w, h, hs, mock__enter(MOCK_E_cuLaunchGridAsync, false));
}
