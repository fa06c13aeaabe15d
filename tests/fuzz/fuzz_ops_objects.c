/* The fuzzer's instructions on contexts, streams and events (see fuzz_ops.c). */
#include <limits.h>
#include <string.h>

#include "fuzz_ops.h"

/* ------------------------------------------------------------------------------------------ */
/* Interesting values                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const int ordinals[] = {0, 1, 2, -1, 16, 255, 256, INT_MAX, INT_MIN};
static const uint32_t ctx_flags[] = {0,
                                     CU_CTX_SCHED_SPIN,
                                     CU_CTX_SCHED_YIELD,
                                     CU_CTX_SCHED_BLOCKING_SYNC,
                                     CU_CTX_MAP_HOST,
                                     CU_CTX_LMEM_RESIZE_TO_MAX,
                                     CU_CTX_FLAGS_MASK,
                                     CU_CTX_FLAGS_MASK + 1u,
                                     UINT32_MAX};
static const uint32_t stream_flags[] = {
    CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING, 2, 3, 0x80000000u, UINT32_MAX};
static const int priorities[] = {0, -1, -5, -6, 1, -3, INT_MIN, INT_MAX};
static const uint32_t event_flags[] = {CU_EVENT_DEFAULT,
                                       CU_EVENT_BLOCKING_SYNC,
                                       CU_EVENT_DISABLE_TIMING,
                                       CU_EVENT_INTERPROCESS,
                                       CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS,
                                       CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING,
                                       7,
                                       8,
                                       UINT32_MAX};
static const uint32_t wait_flags[] = {0, CU_EVENT_WAIT_EXTERNAL, 2, UINT32_MAX};

/* ------------------------------------------------------------------------------------------ */
/* Contexts, streams and events                                                               */
/* ------------------------------------------------------------------------------------------ */

static bool valid_ordinal(int ordinal) { return ordinal >= 0 && ordinal < FZ_DEVICES; }

/* slot, ordinal (value), options */
void fz_op_ctx_primary(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_CTX;
    int ordinal = fz_pick_int(r, ordinals, COUNT(ordinals));
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    if (fz_m.nctxs == FZ_MAX_CTX) return;
    fz_release_slot(FZ_KIND_CTX, slot);
    cushim_context *ctx = FZ_POISON(cushim_context);
    fz_call c;
    fz_begin(&c, "cushim_context_primary");
    CUresult res = cushim_context_primary(out_null ? NULL : &ctx, ordinal);
    fz_end(&c, res, 0);
    if (out_null) {
        if (res == CUDA_SUCCESS) fz_fail("%s succeeded with a NULL out-pointer", c.what);
        return;
    }
    fz_check_out(&c, res, ctx);
    if (valid_ordinal(ordinal)) fz_expect_ok(&c, res);
    if (res != CUDA_SUCCESS) return;
    if (!valid_ordinal(ordinal)) fz_fail("%s succeeded for device %d", c.what, ordinal);
    fz_ctx_add(ctx, ordinal, true);
    fz_m.ctx[slot] = ctx;
}

/* slot, ordinal (value), flags (value), options */
void fz_op_ctx_create(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_CTX;
    int ordinal = fz_pick_int(r, ordinals, COUNT(ordinals));
    unsigned flags = fz_pick_u32(r, ctx_flags, COUNT(ctx_flags));
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    if (fz_m.nctxs == FZ_MAX_CTX) return;
    fz_release_slot(FZ_KIND_CTX, slot);
    cushim_context *ctx = FZ_POISON(cushim_context);
    fz_call c;
    fz_begin(&c, "cushim_context_create");
    CUresult res = cushim_context_create(out_null ? NULL : &ctx, ordinal, flags);
    fz_end(&c, res, 0);
    if (out_null) {
        if (res == CUDA_SUCCESS) fz_fail("%s succeeded with a NULL out-pointer", c.what);
        return;
    }
    fz_check_out(&c, res, ctx);
    bool valid = valid_ordinal(ordinal) && (flags & ~(unsigned)CU_CTX_FLAGS_MASK) == 0;
    if (valid) fz_expect_ok(&c, res);
    if (res != CUDA_SUCCESS) return;
    if (!valid) fz_fail("%s succeeded for device %d with flags 0x%x", c.what, ordinal, flags);
    fz_ctx_add(ctx, ordinal, false);
    fz_m.ctx[slot] = ctx;
}

/* The context the thread has current is one cushim holds, so work can be done in it. */
static bool current_is_live(void) {
    CUcontext current = fz_mock.current();
    for (int i = 0; current != NULL && i < fz_m.nctxs; i++) {
        if (fz_m.ctxs[i].raw == current) return true;
    }
    return false;
}

/* handle (a context, or any) */
void fz_op_set_current(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    /* cushim_context_raw answers NULL for anything but a context: that is a switch to none. */
    CUcontext raw = cushim_context_raw(h.p);
    fz_call c;
    fz_begin(&c, "cuCtxSetCurrent");
    CUresult res = cushim_driver()->cuCtxSetCurrent(raw);
    fz_end(&c, res, FZ_SWITCHES | FZ_RAW);
    fz_expect_ok(&c, res);
    if (res == CUDA_SUCCESS && fz_mock.current() != raw) {
        fz_fail("cuCtxSetCurrent(%p) left %p current", (void *)raw, (void *)fz_mock.current());
    }
}

/* handle */
void fz_op_ctx_sync(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    fz_call c;
    fz_begin(&c, "cushim_context_synchronize");
    CUresult res = cushim_context_synchronize(h.p);
    fz_end(&c, res, 0);
    if (h.kind == FZ_KIND_CTX) fz_expect_ok(&c, res);
}

void fz_op_device_sync(fz_reader *r) {
    (void)r;
    bool none = fz_mock.current() == NULL, live = current_is_live();
    fz_call c;
    fz_begin(&c, "cushim_device_synchronize");
    CUresult res = cushim_device_synchronize();
    fz_end(&c, res, 0);
    if (live) fz_expect_ok(&c, res);
    if (none && !c.faulted && res != CUDA_ERROR_INVALID_CONTEXT) {
        fz_fail("%s with no context current returned %s", c.what, cushim_error_name(res));
    }
}

/* handle, options (FZ_OCC_OUT_NULL: least NULL, FZ_OCC_OUT2_NULL: greatest NULL) */
void fz_op_priority_range(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    uint8_t opt = fz_u8(r);
    int least = INT_MIN, greatest = INT_MAX;
    int *pl = (opt & FZ_OCC_OUT_NULL) ? NULL : &least;
    int *pg = (opt & FZ_OCC_OUT2_NULL) ? NULL : &greatest;
    fz_call c;
    fz_begin(&c, "cushim_context_stream_priority_range");
    CUresult res = cushim_context_stream_priority_range(pl, pg, h.p);
    fz_end(&c, res, 0);
    if (h.kind == FZ_KIND_CTX && (pl != NULL || pg != NULL)) fz_expect_ok(&c, res);
    if (res == CUDA_SUCCESS && ((pl != NULL && least != MOCK_PRIORITY_LEAST) ||
                                (pg != NULL && greatest != MOCK_PRIORITY_GREATEST))) {
        fz_fail("%s gave [%d, %d], the driver's is [%d, %d]", c.what, greatest, least,
                MOCK_PRIORITY_GREATEST, MOCK_PRIORITY_LEAST);
    }
}

/* slot, context handle, flags (value), priority (value), options */
void fz_op_stream_create(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_STREAM;
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    unsigned flags = fz_pick_u32(r, stream_flags, COUNT(stream_flags));
    int priority = fz_pick_int(r, priorities, COUNT(priorities));
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_release_slot(FZ_KIND_STREAM, slot);
    h = fz_refresh(h);
    cushim_stream *s = FZ_POISON(cushim_stream);
    fz_call c;
    fz_begin(&c, "cushim_stream_create");
    CUresult res = cushim_stream_create(out_null ? NULL : &s, h.p, flags, priority);
    fz_end(&c, res, 0);
    bool valid = !out_null && h.kind == FZ_KIND_CTX && flags <= CU_STREAM_NON_BLOCKING &&
                 priority >= MOCK_PRIORITY_GREATEST && priority <= MOCK_PRIORITY_LEAST;
    if (valid) fz_expect_ok(&c, res);
    if (res == CUDA_SUCCESS && !valid) {
        fz_fail("%s succeeded with flags 0x%x and priority %d%s", c.what, flags, priority,
                h.kind == FZ_KIND_CTX ? "" : " on a handle that is not a context");
    }
    if (out_null) return;
    fz_check_out(&c, res, s);
    if (res != CUDA_SUCCESS) return;
    fz_model_check_new(s);
    fz_m.stream[slot] = s;
    fz_m.stream_ctx[slot] = h.p;
}

/* handle */
void fz_op_stream_sync(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_STREAM);
    fz_call c;
    fz_begin(&c, "cushim_stream_synchronize");
    CUresult res = cushim_stream_synchronize(h.p);
    fz_end(&c, res, 0);
    if (h.kind == FZ_KIND_STREAM) fz_expect_ok(&c, res);
}

/* handle */
void fz_op_stream_query(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_STREAM);
    fz_call c;
    fz_begin(&c, "cushim_stream_query");
    CUresult res = cushim_stream_query(h.p);
    fz_end(&c, res, FZ_NOT_READY_OK);
    if (h.kind == FZ_KIND_STREAM && res != CUDA_ERROR_NOT_READY) fz_expect_ok(&c, res);
}

/* stream handle (an empty slot: the default stream), event handle, flags (value) */
void fz_op_stream_wait(fz_reader *r) {
    fz_handle s = fz_pick(r, FZ_KIND_STREAM);
    fz_handle e = fz_pick(r, FZ_KIND_EVENT);
    unsigned flags = fz_pick_u32(r, wait_flags, COUNT(wait_flags));
    fz_call c;
    fz_begin(&c, "cushim_stream_wait_event");
    CUresult res = cushim_stream_wait_event(s.p, e.p, flags);
    fz_end(&c, res, 0);
    bool valid = e.kind == FZ_KIND_EVENT && (s.kind == FZ_KIND_STREAM || s.kind == FZ_KIND_NONE) &&
                 flags <= CU_EVENT_WAIT_EXTERNAL;
    if (valid) fz_expect_ok(&c, res);
}

/* handle, handle */
void fz_op_same_queue(fz_reader *r) {
    fz_handle a = fz_pick(r, FZ_KIND_STREAM);
    fz_handle b = fz_pick(r, FZ_KIND_STREAM);
    bool same = cushim_stream_same_queue(a.p, b.p);
    /* Distinct streams are distinct driver streams: the same queue means the same object. */
    bool expected = a.kind == FZ_KIND_STREAM && b.kind == FZ_KIND_STREAM && a.p == b.p;
    if (same != expected) {
        fz_fail("cushim_stream_same_queue(%p, %p) is %d", a.p, b.p, (int)same);
    }
}

static bool valid_event_flags(unsigned flags) {
    const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    return (flags & ~known) == 0 &&
           (!(flags & CU_EVENT_INTERPROCESS) || (flags & CU_EVENT_DISABLE_TIMING));
}

/* slot, context handle, flags (value), options */
void fz_op_event_create(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_EVENT;
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    unsigned flags = fz_pick_u32(r, event_flags, COUNT(event_flags));
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_release_slot(FZ_KIND_EVENT, slot);
    h = fz_refresh(h);
    cushim_event *e = FZ_POISON(cushim_event);
    fz_call c;
    fz_begin(&c, "cushim_event_create");
    CUresult res = cushim_event_create(out_null ? NULL : &e, h.p, flags);
    fz_end(&c, res, 0);
    bool valid = !out_null && h.kind == FZ_KIND_CTX && valid_event_flags(flags);
    if (valid) fz_expect_ok(&c, res);
    if (res == CUDA_SUCCESS && !valid) fz_fail("%s succeeded with flags 0x%x", c.what, flags);
    if (out_null) return;
    fz_check_out(&c, res, e);
    if (res != CUDA_SUCCESS) return;
    fz_model_check_new(e);
    fz_m.event[slot] = e;
    fz_m.event_ctx[slot] = h.p;
    fz_m.event_flags[slot] = flags;
}

static CUcontext stream_ctx_raw(const fz_handle *s) {
    return cushim_context_raw(fz_m.stream_ctx[s->slot]);
}

static CUcontext event_ctx_raw(const fz_handle *e) {
    return cushim_context_raw(fz_m.event_ctx[e->slot]);
}

/* event handle, stream handle (an empty slot: the default stream) */
void fz_op_event_record(fz_reader *r) {
    fz_handle e = fz_pick(r, FZ_KIND_EVENT);
    fz_handle s = fz_pick(r, FZ_KIND_STREAM);
    int records = fz_mock.calls("cuEventRecord");
    fz_call c;
    fz_begin(&c, "cushim_event_record");
    CUresult res = cushim_event_record(e.p, s.p);
    fz_end(&c, res, 0);
    if (e.kind != FZ_KIND_EVENT) return;
    if (s.kind == FZ_KIND_NONE) {
        fz_expect_ok(&c, res);
    } else if (s.kind == FZ_KIND_STREAM) {
        if (stream_ctx_raw(&s) == event_ctx_raw(&e)) {
            fz_expect_ok(&c, res);
        } else if (res != CUDA_ERROR_INVALID_HANDLE || fz_mock.calls("cuEventRecord") != records) {
            fz_fail("%s of an event and a stream of different contexts returned %s after %d "
                    "driver records",
                    c.what, cushim_error_name(res), fz_mock.calls("cuEventRecord") - records);
        }
    }
}

/* handle */
void fz_op_event_query(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_EVENT);
    fz_call c;
    fz_begin(&c, "cushim_event_query");
    CUresult res = cushim_event_query(h.p);
    fz_end(&c, res, FZ_NOT_READY_OK);
    if (h.kind == FZ_KIND_EVENT && res != CUDA_ERROR_NOT_READY) fz_expect_ok(&c, res);
}

/* handle */
void fz_op_event_sync(fz_reader *r) {
    fz_handle h = fz_pick(r, FZ_KIND_EVENT);
    fz_call c;
    fz_begin(&c, "cushim_event_synchronize");
    CUresult res = cushim_event_synchronize(h.p);
    fz_end(&c, res, 0);
    if (h.kind == FZ_KIND_EVENT) fz_expect_ok(&c, res);
}

/* start handle, end handle, options (FZ_OCC_OUT_NULL: ms NULL) */
void fz_op_elapsed(fz_reader *r) {
    fz_handle a = fz_pick(r, FZ_KIND_EVENT);
    fz_handle b = fz_pick(r, FZ_KIND_EVENT);
    bool ms_null = fz_u8(r) & FZ_OCC_OUT_NULL;
    float ms = 0;
    int asked = fz_mock.calls("cuEventElapsedTime");
    fz_call c;
    fz_begin(&c, "cushim_event_elapsed_ms");
    CUresult res = cushim_event_elapsed_ms(ms_null ? NULL : &ms, a.p, b.p);
    /* NOT_READY is the answer for records still pending. */
    fz_end(&c, res, FZ_NOT_READY_OK);
    if (ms_null || a.kind != FZ_KIND_EVENT || b.kind != FZ_KIND_EVENT) {
        if (res == CUDA_SUCCESS) fz_fail("%s succeeded with bad arguments", c.what);
        return;
    }
    unsigned flags = fz_m.event_flags[a.slot] | fz_m.event_flags[b.slot];
    if (flags & CU_EVENT_DISABLE_TIMING) {
        if (res != CUDA_ERROR_INVALID_HANDLE || fz_mock.calls("cuEventElapsedTime") != asked) {
            fz_fail("%s of a timing-disabled event returned %s, asking the driver %d times", c.what,
                    cushim_error_name(res), fz_mock.calls("cuEventElapsedTime") - asked);
        }
        fz_expect_error_has(&c, "CU_EVENT_DISABLE_TIMING");
    }
}
