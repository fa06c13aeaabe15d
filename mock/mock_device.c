/* Init, versions, error names, devices, primary contexts and created contexts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* ------------------------------------------------------------------------------------------ */
/* Init, version, errors                                                                      */
/* ------------------------------------------------------------------------------------------ */

CUresult CUDAAPI mock_cuInit(unsigned int flags) {
    /* outside the mock's lock: a callback may call back into the mock */
    const char *knob = mock__init_knobs();
    MOCK_ENTER_ANYTIME(cuInit);
    if (flags != 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    /* A configuration error is the user's to fix, and said as such (not a bug in the code under
     * test): every cuInit fails with it until the environment is fixed. */
    const char *bad = knob != NULL ? knob : mock__devices_error();
    if (bad != NULL) {
        fprintf(stderr, "cushim mock: cuInit: %s\n", bad);
        mock__why("%s", bad);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult r = mock__state.init_result;
    if (r == CUDA_SUCCESS) mock__state.initialized = true;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuDriverGetVersion(int *version) {
    MOCK_ENTER_ANYTIME(cuDriverGetVersion);
    if (version == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult r;
    if (mock__version_knob(version, &r)) return mock__leave(r);
    *version = mock__state.driver_version;
    return mock__leave(CUDA_SUCCESS);
}

static CUresult error_text(CUresult error, const char **out, bool name) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < mock__error_count; i++) {
        if (mock__errors[i].code == (int)error) {
            *out = name ? mock__errors[i].name : mock__errors[i].text;
            return CUDA_SUCCESS;
        }
    }
    *out = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

const char *mock__error_name(CUresult r, bool name) {
    const char *out = NULL;
    (void)error_text(r, &out, name);
    return out;
}

CUresult CUDAAPI mock_cuGetErrorName(CUresult error, const char **pstr) {
    MOCK_ENTER_ANYTIME(cuGetErrorName);
    return mock__leave(error_text(error, pstr, true));
}

CUresult CUDAAPI mock_cuGetErrorString(CUresult error, const char **pstr) {
    MOCK_ENTER_ANYTIME(cuGetErrorString);
    return mock__leave(error_text(error, pstr, false));
}

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* The devices' attributes come from profiles (mock_profiles.c). */
bool mock__valid_device(CUdevice dev) { return dev >= 0 && dev < mock__state.device_count; }

int mock__attr(int dev, CUdevice_attribute a) { return mock__state.attrs[dev][a]; }

CUresult CUDAAPI mock_cuDeviceGet(CUdevice *device, int ordinal) {
    MOCK_ENTER(cuDeviceGet);
    if (device == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(ordinal)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *device = ordinal;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetCount(int *count) {
    MOCK_ENTER(cuDeviceGetCount);
    if (count == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (mock__count_knob(count)) return mock__leave(CUDA_SUCCESS);
    *count = mock__state.device_count;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetName(char *name, int len, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetName);
    if (name == NULL || len <= 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    snprintf(name, (size_t)len, "%s", mock__devx[dev].name);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetAttribute);
    if (pi == NULL || (int)attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    /* As the driver does for an attribute it does not know. */
    if (!mock__devx[dev].known[attrib]) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *pi = mock__attr(dev, attrib);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
    MOCK_ENTER(cuDeviceTotalMem);
    if (bytes == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *bytes = (size_t)mock__devx[dev].total_mem;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetPCIBusId(char *id, int len, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetPCIBusId);
    if (id == NULL || len <= 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    snprintf(id, (size_t)len, "%04x:%02x:%02x.0",
             (unsigned)mock__attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
             (unsigned)mock__attr(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
             (unsigned)mock__attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceGetByPCIBusId(CUdevice *dev, const char *id) {
    MOCK_ENTER(cuDeviceGetByPCIBusId);
    if (dev == NULL || id == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    unsigned domain = 0, bus = 0, device = 0;
    if (sscanf(id, "%x:%x:%x", &domain, &bus, &device) != 3) {
        domain = 0;
        if (sscanf(id, "%x:%x", &bus, &device) != 2) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    for (int d = 0; d < mock__state.device_count; d++) {
        if ((unsigned)mock__attr(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) == domain &&
            (unsigned)mock__attr(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) == bus &&
            (unsigned)mock__attr(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) == device) {
            *dev = d;
            return mock__leave(CUDA_SUCCESS);
        }
    }
    return mock__leave(CUDA_ERROR_INVALID_DEVICE);
}

CUresult CUDAAPI mock_cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
    MOCK_ENTER(cuDeviceGetUuid);
    if (uuid == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    static const char text[16] = "cushim-mock-gpu";
    memcpy(uuid->bytes, text, sizeof uuid->bytes);
    uuid->bytes[15] = (char)('0' + dev % 10);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
    MOCK_ENTER(cuDeviceComputeCapability);
    if (major == NULL || minor == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    *major = mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    *minor = mock__attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Contexts                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static struct CUctx_st *new_context(int dev, unsigned flags, bool primary) {
    struct CUctx_st *c = mock__new(sizeof *c, CUSHIM_MOCK_CONTEXT, NULL);
    if (c == NULL) return NULL;
    c->device = dev;
    c->flags = flags;
    c->primary = primary;
    c->id = mock__state.next_id++;
    c->children.prev = c->children.next = &c->children;
    mock__stream_init(&c->default_stream, c);
    return c;
}

void mock__ctx_clear(struct CUctx_st *c) {
    while (c->children.next != &c->children) mock__kill(c->children.next);
    mock__complete(&c->default_stream, c->default_stream.submitted, 0);
    mock__free_allocs(c);
    mock__peer_forget(c);
    mock__ctx_heap_free(c);
}

CUresult CUDAAPI mock_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    MOCK_ENTER(cuDevicePrimaryCtxRetain);
    if (pctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    struct CUctx_st *c = mock__state.primary[dev];
    if (c == NULL) {
        c = new_context(dev, 0, true);
        if (c == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        mock__state.primary[dev] = c;
    }
    if (c->refcount++ == 0) {
        c->active = true;
        mock__state.live[CUSHIM_MOCK_CONTEXT]++;
    }
    *pctx = c;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDevicePrimaryCtxRelease(CUdevice dev) {
    MOCK_ENTER(cuDevicePrimaryCtxRelease);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    struct CUctx_st *c = mock__state.primary[dev];
    if (c == NULL || c->refcount == 0) return mock__leave(CUDA_ERROR_INVALID_CONTEXT);
    if (--c->refcount == 0) {
        /* As on the driver, the last release destroys everything made in the context. The
         * handle stays valid (a later retain revives it) but is inactive meanwhile. */
        mock__ctx_clear(c);
        c->active = false;
        if (c->sticky != CUDA_SUCCESS) mock__state.sticky_count--;
        c->sticky = CUDA_SUCCESS; /* a fault lasts until the primary context is released */
        mock__state.live[CUSHIM_MOCK_CONTEXT]--;
    }
    return mock__leave(CUDA_SUCCESS);
}

/* The CUDA runtime's cudaDeviceReset: whatever the count, everything made in the primary context
 * is destroyed, the context is inactive and its fault cleared; a later retain revives it. */
CUresult CUDAAPI mock_cuDevicePrimaryCtxReset(CUdevice dev) {
    MOCK_ENTER(cuDevicePrimaryCtxReset);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    struct CUctx_st *c = mock__state.primary[dev];
    if (c != NULL && c->refcount > 0) {
        mock__ctx_clear(c);
        c->active = false;
        c->refcount = 0;
        if (c->sticky != CUDA_SUCCESS) mock__state.sticky_count--;
        c->sticky = CUDA_SUCCESS;
        mock__state.live[CUSHIM_MOCK_CONTEXT]--;
    }
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
    MOCK_ENTER(cuDevicePrimaryCtxGetState);
    if (flags == NULL || active == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    struct CUctx_st *c = mock__state.primary[dev];
    *flags = c ? c->flags : 0;
    *active = c && c->active;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
    MOCK_ENTER(cuDevicePrimaryCtxSetFlags);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c = mock__state.primary[dev];
    if (c == NULL) {
        c = new_context(dev, 0, true);
        if (c == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        mock__state.primary[dev] = c;
    }
    c->flags = flags;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxCreate(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                                  CUdevice dev) {
    MOCK_ENTER(cuCtxCreate);
    (void)params; /* execution affinity and CIG are not modelled */
    if (pctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (!mock__valid_device(dev)) return mock__leave(CUDA_ERROR_INVALID_DEVICE);
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c = new_context(dev, flags, false);
    if (c == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    /* The driver makes the new context current by pushing it. */
    if (!mock__push(c)) {
        mock__kill(&c->h);
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    c->active = true;
    mock__state.live[CUSHIM_MOCK_CONTEXT]++;
    *pctx = c;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxDestroy(CUcontext ctx) {
    MOCK_ENTER(cuCtxDestroy);
    if (ctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    MOCK_EXPECT(c, ctx, CUSHIM_MOCK_CONTEXT, "cuCtxDestroy");
    if (c->primary) return mock__leave(CUDA_ERROR_INVALID_CONTEXT);
    mock__kill(&c->h);
    /* Current on this thread: popped, as by cuCtxPopCurrent. */
    if (mock__current() == c) mock__pop();
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxGetCurrent(CUcontext *pctx) {
    MOCK_ENTER(cuCtxGetCurrent);
    if (pctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *pctx = mock__current();
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxSetCurrent(CUcontext ctx) {
    MOCK_ENTER(cuCtxSetCurrent);
    struct CUctx_st *c;
    if (ctx != NULL) MOCK_EXPECT(c, ctx, CUSHIM_MOCK_CONTEXT, "cuCtxSetCurrent");
    return mock__leave(mock__replace_top(ctx) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult CUDAAPI mock_cuCtxPushCurrent(CUcontext ctx) {
    MOCK_ENTER(cuCtxPushCurrent);
    if (ctx == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    MOCK_EXPECT(c, ctx, CUSHIM_MOCK_CONTEXT, "cuCtxPushCurrent");
    return mock__leave(mock__push(ctx) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult CUDAAPI mock_cuCtxPopCurrent(CUcontext *pctx) {
    MOCK_ENTER(cuCtxPopCurrent);
    if (mock__current() == NULL) return mock__leave(CUDA_ERROR_INVALID_CONTEXT);
    struct CUctx_st *c = mock__pop();
    if (pctx != NULL) *pctx = c;
    return mock__leave(CUDA_SUCCESS);
}

/* ctx, or the current context when ctx is NULL, ready for use. */
static CUresult ctx_or_current(CUcontext ctx, const char *entry, struct CUctx_st **out) {
    if (ctx == NULL) return mock__need_current(entry, out);
    *out = mock__expect(ctx, CUSHIM_MOCK_CONTEXT, entry);
    if (*out == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    return (*out)->active ? CUDA_SUCCESS : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

/* The start every context getter shares: where it writes is not NULL, then ctx (the current
 * context when ctx is NULL) ready for use. */
static CUresult getter_ctx(CUcontext ctx, const void *dst, const char *entry,
                           struct CUctx_st **out) {
    if (dst == NULL) return CUDA_ERROR_INVALID_VALUE;
    return ctx_or_current(ctx, entry, out);
}

CUresult CUDAAPI mock_cuCtxGetDevice(CUdevice *device) {
    MOCK_ENTER(cuCtxGetDevice);
    struct CUctx_st *c;
    CUresult r = getter_ctx(NULL, device, "cuCtxGetDevice", &c);
    if (r == CUDA_SUCCESS) *device = c->device;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx) {
    MOCK_ENTER(cuCtxGetDevice_v2);
    struct CUctx_st *c;
    CUresult r = getter_ctx(ctx, device, "cuCtxGetDevice_v2", &c);
    if (r == CUDA_SUCCESS) *device = c->device;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxSynchronize(void) {
    MOCK_ENTER(cuCtxSynchronize);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuCtxSynchronize", &c);
    /* A capture of the context (not relaxed) makes the synchronize illegal, and breaks it. */
    if (r == CUDA_SUCCESS && mock__capture_blocks_ctx_sync(c)) {
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (r == CUDA_SUCCESS) mock__ctx_sync(c);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxSynchronize_v2(CUcontext ctx) {
    MOCK_ENTER(cuCtxSynchronize_v2);
    struct CUctx_st *c;
    CUresult r = ctx_or_current(ctx, "cuCtxSynchronize_v2", &c);
    /* A capture of the context (not relaxed) makes the synchronize illegal, and breaks it. */
    if (r == CUDA_SUCCESS && mock__capture_blocks_ctx_sync(c)) {
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (r == CUDA_SUCCESS) mock__ctx_sync(c);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxGetStreamPriorityRange(int *least, int *greatest) {
    MOCK_ENTER(cuCtxGetStreamPriorityRange);
    struct CUctx_st *c;
    CUresult r = mock__need_current("cuCtxGetStreamPriorityRange", &c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    if (least) *least = MOCK_PRIORITY_LEAST;
    if (greatest) *greatest = MOCK_PRIORITY_GREATEST;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
    MOCK_ENTER(cuCtxGetApiVersion);
    struct CUctx_st *c;
    CUresult r = getter_ctx(ctx, version, "cuCtxGetApiVersion", &c);
    if (r == CUDA_SUCCESS) *version = 3020;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxGetId(CUcontext ctx, unsigned long long *id) {
    MOCK_ENTER(cuCtxGetId);
    struct CUctx_st *c;
    CUresult r = getter_ctx(ctx, id, "cuCtxGetId", &c);
    if (r == CUDA_SUCCESS) *id = c->id;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxGetFlags(unsigned int *flags) {
    MOCK_ENTER(cuCtxGetFlags);
    struct CUctx_st *c;
    CUresult r = getter_ctx(NULL, flags, "cuCtxGetFlags", &c);
    if (r == CUDA_SUCCESS) *flags = c->flags;
    return mock__leave(r);
}
