/* cuLink* on the mock (issue 28, item 3): a link of PTX. The inputs' PTX texts (given as PTX,
 * or found in a cubin or fatbin: its PTX entry for the device, or the PTX cushim attached to an
 * NVRTC cubin) are joined into one text: one header (the highest .version and .target of the
 * inputs), every definition, and the .extern declarations of what no input defines, so that a
 * .extern .func or .global of one input resolves to another's definition. The image that
 * cuLinkComplete returns is that text, which cuModuleLoadData reads as PTX. libcudadevrt.a
 * (CU_JIT_INPUT_LIBRARY) is taken and ignored: the interpreter has no dynamic parallelism, and
 * a kernel calling into it fails its launch, naming the function. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_link_text.h"

#define LINK_MAGIC 0x6c696e6bu /* "link" */

struct CUlinkState_st {
    uint32_t magic;
    int cc; /* of the current context's device at create */
    mock_link_inputs in;
    char *image; /* made by cuLinkComplete, owned until destroy */
    struct CUlinkState_st *next;
};

static struct CUlinkState_st *live; /* every state not destroyed, for the handle check */

static struct CUlinkState_st *find_state(CUlinkState s) {
    for (struct CUlinkState_st *l = live; l != NULL; l = l->next) {
        if (l == s) return l;
    }
    return NULL;
}

static void free_state(struct CUlinkState_st *l) {
    mock__link_inputs_free(&l->in);
    free(l->image);
    l->magic = 0;
    free(l);
}

void mock__link_reset(void) {
    while (live != NULL) {
        struct CUlinkState_st *l = live;
        live = l->next;
        free_state(l);
    }
}

CUresult CUDAAPI mock_cuLinkCreate_v2(unsigned int n, CUjit_option *opts, void **vals,
                                      CUlinkState *out) {
    MOCK_ENTER(cuLinkCreate_v2);
    if (out == NULL || (n > 0 && (opts == NULL || vals == NULL))) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuLinkCreate", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    struct CUlinkState_st *l = calloc(1, sizeof *l);
    if (l == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    l->magic = LINK_MAGIC;
    l->cc = mock__attr(c->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
            mock__attr(c->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    l->next = live;
    live = l;
    *out = l;
    return mock__leave(CUDA_SUCCESS);
}

/* The state, or NULL with the code to answer. */
static struct CUlinkState_st *state_of(CUlinkState s, CUresult *r) {
    struct CUlinkState_st *l = s != NULL ? find_state(s) : NULL;
    *r = s == NULL ? CUDA_ERROR_INVALID_VALUE : l == NULL ? CUDA_ERROR_INVALID_HANDLE : 0;
    if (l == NULL)
        mock__why("%p is not a link state the mock made, or it was destroyed", (void *)s);
    return l;
}

static CUresult add(struct CUlinkState_st *l, CUjitInputType type, const void *data, size_t size,
                    const char *name) {
    if (l->image != NULL) {
        mock__why("the link was completed: create another to link again");
        return CUDA_ERROR_INVALID_VALUE;
    }
    return mock__link_add(&l->in, type, data, size, name, l->cc);
}

CUresult CUDAAPI mock_cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                                       size_t size, const char *name, unsigned int n,
                                       CUjit_option *opts, void **vals) {
    MOCK_ENTER(cuLinkAddData_v2);
    CUresult r;
    struct CUlinkState_st *l = state_of(state, &r);
    if (l == NULL) return mock__leave(r);
    if (data == NULL || size == 0 || (n > 0 && (opts == NULL || vals == NULL))) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(add(l, type, data, size, name ? name : "(data)"));
}

CUresult CUDAAPI mock_cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                       unsigned int n, CUjit_option *opts, void **vals) {
    MOCK_ENTER(cuLinkAddFile_v2);
    CUresult r;
    struct CUlinkState_st *l = state_of(state, &r);
    if (l == NULL) return mock__leave(r);
    if (path == NULL || (n > 0 && (opts == NULL || vals == NULL))) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    size_t len = 0;
    char *data = mock__read_image_file("cuLinkAddFile", path, &len, &r);
    if (data == NULL) return mock__leave(r);
    r = add(l, type, data, len, path);
    free(data);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuLinkComplete(CUlinkState state, void **out, size_t *size) {
    MOCK_ENTER(cuLinkComplete);
    CUresult r;
    struct CUlinkState_st *l = state_of(state, &r);
    if (l == NULL) return mock__leave(r);
    if (out == NULL || size == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (l->image == NULL) {
        r = mock__link_join(&l->in, &l->image);
        if (r != CUDA_SUCCESS) return mock__leave(r);
    }
    *out = l->image;
    *size = strlen(l->image) + 1;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuLinkDestroy(CUlinkState state) {
    MOCK_ENTER(cuLinkDestroy);
    CUresult r;
    struct CUlinkState_st *l = state_of(state, &r);
    if (l == NULL) return mock__leave(r);
    for (struct CUlinkState_st **p = &live; *p != NULL; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            break;
        }
    }
    free_state(l);
    return mock__leave(CUDA_SUCCESS);
}
