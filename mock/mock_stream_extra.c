/* A stream's attributes (kept and read back: the mock schedules no differently for them), the
 * 32- and 64-bit writes of stream memory operations (a set of device memory in stream order),
 * and an event recorded or waited for by a whole context (through its default stream, which
 * the mock's other streams order against). */
#include <stdlib.h>
#include <string.h>

#include "mock.h"

/* The attributes a stream takes (cuda.h: "Valid for streams"). */
static bool stream_attr(CUstreamAttrID a) {
    return a == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW ||
           a == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY || a == CU_LAUNCH_ATTRIBUTE_PRIORITY ||
           a == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP || a == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
}

#define NATTR 16
typedef struct stream_attrs {
    struct CUstream_st *s;
    unsigned long long id; /* the stream's, so that a record made again at s is not taken */
    bool set[NATTR];
    CUstreamAttrValue v[NATTR];
} stream_attrs;

static stream_attrs *attrs;
static size_t nattrs, capattrs;

/* The attributes set on s, or NULL; with make, made (and records of dead streams dropped). */
static stream_attrs *attrs_of(struct CUstream_st *s, bool make) {
    for (size_t i = 0; i < nattrs; i++) {
        if (attrs[i].s == s && attrs[i].id == s->id) return &attrs[i];
    }
    if (!make) return NULL;
    for (size_t i = nattrs; i-- > 0;) {
        mock_obj *o = mock__find(attrs[i].s);
        if (o == NULL || !o->alive || attrs[i].s->id != attrs[i].id) attrs[i] = attrs[--nattrs];
    }
    if (!mock__grow(&attrs, &capattrs, nattrs + 1, sizeof *attrs)) return NULL;
    attrs[nattrs] = (stream_attrs){.s = s, .id = s->id};
    return &attrs[nattrs++];
}

/* What a stream answers for an attribute never set: the driver's defaults. */
static void attr_default(const struct CUstream_st *s, CUstreamAttrID a, CUstreamAttrValue *v) {
    memset(v, 0, sizeof *v);
    if (a == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY) v->syncPolicy = CU_SYNC_POLICY_AUTO;
    if (a == CU_LAUNCH_ATTRIBUTE_PRIORITY) v->priority = s->priority;
    if (a == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP) v->memSyncDomainMap.remote = 1;
}

static void attr_get(struct CUstream_st *s, CUstreamAttrID a, CUstreamAttrValue *v) {
    stream_attrs *t = attrs_of(s, false);
    if (t != NULL && t->set[a]) {
        *v = t->v[a];
    } else {
        attr_default(s, a, v);
    }
}

CUresult CUDAAPI mock_cuStreamGetAttribute(CUstream hs, CUstreamAttrID a, CUstreamAttrValue *v) {
    MOCK_ENTER(cuStreamGetAttribute);
    if (v == NULL || !stream_attr(a)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamGetAttribute", &s);
    if (r == CUDA_SUCCESS) attr_get(s, a, v);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuStreamSetAttribute(CUstream hs, CUstreamAttrID a,
                                           const CUstreamAttrValue *v) {
    MOCK_ENTER(cuStreamSetAttribute);
    if (v == NULL || !stream_attr(a)) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (a == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY &&
        (v->syncPolicy < CU_SYNC_POLICY_AUTO || v->syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (a == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW &&
        (v->accessPolicyWindow.hitRatio < 0.0f || v->accessPolicyWindow.hitRatio > 1.0f)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, "cuStreamSetAttribute", &s);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    stream_attrs *t = attrs_of(s, true);
    if (t == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    t->v[a] = *v;
    t->set[a] = true;
    if (a == CU_LAUNCH_ATTRIBUTE_PRIORITY) s->priority = v->priority;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuStreamCopyAttributes(CUstream hdst, CUstream hsrc) {
    MOCK_ENTER(cuStreamCopyAttributes);
    struct CUstream_st *dst, *src;
    CUresult r = mock__stream(hdst, "cuStreamCopyAttributes", &dst);
    if (r == CUDA_SUCCESS) r = mock__stream(hsrc, "cuStreamCopyAttributes", &src);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    stream_attrs *t = attrs_of(dst, true);
    if (t == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    for (int a = 0; a < NATTR; a++) {
        if (!stream_attr((CUstreamAttrID)a)) continue;
        attr_get(src, (CUstreamAttrID)a, &t->v[a]);
        t->set[a] = true;
    }
    dst->priority = t->v[CU_LAUNCH_ATTRIBUTE_PRIORITY].priority;
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Stream memory operations: writes                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Writes `words` 32-bit words of value (low word first) at addr, in stream order. */
static CUresult write_value(CUstream hs, CUdeviceptr addr, unsigned long long value, int words,
                            unsigned flags) {
    if (flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) return CUDA_ERROR_INVALID_VALUE;
    if (addr % (4u * (unsigned)words) != 0) return CUDA_ERROR_INVALID_VALUE; /* aligned */
    struct CUstream_st *s;
    CUresult r = mock__stream(hs, mock__entry_name(), &s);
    if (r == CUDA_SUCCESS) r = mock__check_device("address", (uintptr_t)addr, 4u * (unsigned)words);
    for (int w = 0; r == CUDA_SUCCESS && w < words; w++) {
        mock_mem_op op = {.kind = MOCK_OP_SET,
                          .entry = mock__entry_name(),
                          .dst = (unsigned char *)(uintptr_t)(addr + 4u * (unsigned)w),
                          .dpitch = 4,
                          .width = 1,
                          .height = 1,
                          .value = (unsigned)(value >> (32 * w)),
                          .elem = 4};
        r = mock__mem_enqueue(s, &op, false);
    }
    return r;
}

CUresult CUDAAPI mock_cuStreamWriteValue32_v2(CUstream hs, CUdeviceptr addr, cuuint32_t value,
                                              unsigned int flags) {
    MOCK_ENTER(cuStreamWriteValue32_v2);
    return mock__leave(write_value(hs, addr, value, 1, flags));
}

CUresult CUDAAPI mock_cuStreamWriteValue64_v2(CUstream hs, CUdeviceptr addr, cuuint64_t value,
                                              unsigned int flags) {
    MOCK_ENTER(cuStreamWriteValue64_v2);
    return mock__leave(write_value(hs, addr, value, 2, flags));
}

/* ------------------------------------------------------------------------------------------ */
/* Events of a whole context                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* The live context and event of a call, of one another. */
static CUresult ctx_event(CUcontext hc, CUevent he, const char *entry, struct CUctx_st **c,
                          struct CUevent_st **e) {
    if (hc == NULL || he == NULL) return CUDA_ERROR_INVALID_HANDLE;
    *c = mock__expect(hc, CUSHIM_MOCK_CONTEXT, entry);
    if (*c == NULL || !(*c)->active) return CUDA_ERROR_INVALID_CONTEXT;
    *e = mock__expect(he, CUSHIM_MOCK_EVENT, entry);
    if (*e == NULL) return CUDA_ERROR_INVALID_HANDLE;
    if ((*e)->h.ctx != *c) return CUDA_ERROR_INVALID_HANDLE;
    if ((*c)->default_stream.cap != NULL) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuCtxRecordEvent(CUcontext hc, CUevent he) {
    MOCK_ENTER(cuCtxRecordEvent);
    struct CUctx_st *c;
    struct CUevent_st *e;
    CUresult r = ctx_event(hc, he, "cuCtxRecordEvent", &c, &e);
    if (r == CUDA_SUCCESS) mock__event_record_in(e, &c->default_stream);
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuCtxWaitEvent(CUcontext hc, CUevent he) {
    MOCK_ENTER(cuCtxWaitEvent);
    struct CUctx_st *c;
    struct CUevent_st *e;
    CUresult r = ctx_event(hc, he, "cuCtxWaitEvent", &c, &e);
    if (r == CUDA_SUCCESS) r = mock__event_wait_in(&c->default_stream, e);
    return mock__leave(r);
}
