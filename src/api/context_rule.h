/* Internal: the context rule. What is created in a context is created with that context
 * current, and what was current before is put back afterwards, on success and on failure;
 * destroys that need the context go through the same switch. */
#ifndef CUSHIM_API_CONTEXT_RULE_H
#define CUSHIM_API_CONTEXT_RULE_H

#include <stdbool.h>

#include "cushim.h"
#include "loader/diag.h"

/* The context rule: cushim__enter makes ctx current on this thread if it is not already and
 * remembers what was; cushim__leave puts that back. No switch when ctx is already current. A
 * failure's sentence starts with fn, the public function that asked. */
typedef struct cushim__guard {
    CUcontext prev;
    bool switched;
} cushim__guard;

CUresult cushim__enter(CUcontext ctx, cushim__guard *g, const char *fn);
CUresult cushim__leave_switched(const cushim__guard *g, const char *fn);
static inline CUresult cushim__leave(const cushim__guard *g, const char *fn) {
    /* Inline: most calls are made with the context already current, and then there is nothing
     * to put back. */
    return g->switched ? cushim__leave_switched(g, fn) : CUDA_SUCCESS;
}

/* Logs a destroy the driver refused, at warn, with fn, its code and the handle. */
void cushim__destroy_refused(const char *fn, const char *what, const void *handle, CUresult r);

/* Destroys need no context current: on the H200 (driver 580), cuEventDestroy, cuStreamDestroy,
 * cuModuleUnload, cuLibraryUnload, cuGraphDestroy and cuGraphExecDestroy all succeed with no
 * context current and with another one current (tests/gpu/test_gpu_destroy_probe.c), so cushim
 * makes no switch for them. `call` is the driver's destroy of `handle`; a refusal is logged at
 * warn, naming the calling function. A macro because each driver call has its own type. */
#define CUSHIM__DESTROY(what, handle, call)                                                        \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) cushim__destroy_refused(__func__, (what), (void *)(handle), r_);   \
    } while (0)

/* The create half of the context rule: leaves the context entered with `g`, putting the
 * previous one back. When the create succeeded (`r`, an lvalue) but the switch back failed, the
 * new object is destroyed again by `undo`, so that a failure leaves nothing behind, and `r`
 * becomes the switch's error. Sentences name the calling function. */
#define CUSHIM__LEAVE_OR_UNDO(g, r, what, handle, undo)                                            \
    do {                                                                                           \
        CUresult l_ = cushim__leave((g), __func__);                                                \
        if ((r) == CUDA_SUCCESS && l_ != CUDA_SUCCESS) {                                           \
            CUresult d_ = (undo);                                                                  \
            if (d_ != CUDA_SUCCESS) {                                                              \
                cushim__destroy_refused(__func__, (what), (void *)(handle), d_);                   \
            }                                                                                      \
            (r) = l_;                                                                              \
        }                                                                                          \
    } while (0)

#endif
