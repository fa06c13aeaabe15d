/* The instructions of the API fuzzer. Each reads its operands (listed above it, in order; see
 * fuzz.h for their encodings), makes its cushim calls between fz_begin and fz_end, and checks
 * what the result says against what the model knows: a call given live handles and valid
 * arguments succeeds unless a fault fired in it, one given bad ones fails, a failure leaves an
 * out-pointer NULL, and what succeeded shows in the driver as it should.
 *
 * This file: handle operands and the shared checks, retain and release, faults, mock knobs and
 * the dispatch. fuzz_ops_objects.c: contexts, streams and events. fuzz_ops_code.c: modules,
 * libraries, launch and occupancy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_ops.h"

/* ------------------------------------------------------------------------------------------ */
/* Interesting values                                                                         */
/* ------------------------------------------------------------------------------------------ */

/* More blocks per SM than a device has (32 on an H200), but never more than cushim can cache
 * (65535): no GPU answers that, and the mock's own arithmetic overflows past a few million. */
static const int occupancies[] = {-1, 0, 1, 2, 8, 32, 1000};
static const uint32_t launch_steps[] = {1000, 0, 1, 1000000000u};
static const int static_smems[] = {0, 1024, 49152, 200000, 232448};
static const int kernel_threads[] = {1024, 32, 256, 0, 2048};

static const char *const entries[FZ_ENTRY_COUNT] = {
    [FZ_ENTRY_CTX_GET_CURRENT] = "cuCtxGetCurrent",
    [FZ_ENTRY_CTX_SET_CURRENT] = "cuCtxSetCurrent",
    [FZ_ENTRY_CTX_CREATE] = "cuCtxCreate",
    [FZ_ENTRY_CTX_DESTROY] = "cuCtxDestroy",
    [FZ_ENTRY_CTX_SYNCHRONIZE] = "cuCtxSynchronize",
    [FZ_ENTRY_CTX_PRIORITY_RANGE] = "cuCtxGetStreamPriorityRange",
    [FZ_ENTRY_DEVICE_GET] = "cuDeviceGet",
    [FZ_ENTRY_DEVICE_GET_COUNT] = "cuDeviceGetCount",
    [FZ_ENTRY_DEVICE_GET_ATTRIBUTE] = "cuDeviceGetAttribute",
    [FZ_ENTRY_PRIMARY_RETAIN] = "cuDevicePrimaryCtxRetain",
    [FZ_ENTRY_PRIMARY_RELEASE] = "cuDevicePrimaryCtxRelease",
    [FZ_ENTRY_STREAM_CREATE] = "cuStreamCreateWithPriority",
    [FZ_ENTRY_STREAM_DESTROY] = "cuStreamDestroy",
    [FZ_ENTRY_STREAM_QUERY] = "cuStreamQuery",
    [FZ_ENTRY_STREAM_SYNCHRONIZE] = "cuStreamSynchronize",
    [FZ_ENTRY_STREAM_WAIT_EVENT] = "cuStreamWaitEvent",
    [FZ_ENTRY_EVENT_CREATE] = "cuEventCreate",
    [FZ_ENTRY_EVENT_DESTROY] = "cuEventDestroy",
    [FZ_ENTRY_EVENT_RECORD] = "cuEventRecord",
    [FZ_ENTRY_EVENT_QUERY] = "cuEventQuery",
    [FZ_ENTRY_EVENT_SYNCHRONIZE] = "cuEventSynchronize",
    [FZ_ENTRY_EVENT_ELAPSED] = "cuEventElapsedTime",
    [FZ_ENTRY_MODULE_LOAD] = "cuModuleLoadDataEx",
    [FZ_ENTRY_MODULE_UNLOAD] = "cuModuleUnload",
    [FZ_ENTRY_MODULE_GET_FUNCTION] = "cuModuleGetFunction",
    [FZ_ENTRY_FUNC_GET_ATTRIBUTE] = "cuFuncGetAttribute",
    [FZ_ENTRY_LIBRARY_LOAD] = "cuLibraryLoadData",
    [FZ_ENTRY_LIBRARY_UNLOAD] = "cuLibraryUnload",
    [FZ_ENTRY_LIBRARY_GET_KERNEL] = "cuLibraryGetKernel",
    [FZ_ENTRY_KERNEL_GET_FUNCTION] = "cuKernelGetFunction",
    [FZ_ENTRY_LAUNCH] = "cuLaunchKernel",
    [FZ_ENTRY_LAUNCH_COOPERATIVE] = "cuLaunchCooperativeKernel",
    [FZ_ENTRY_OCC_ACTIVE] = "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    [FZ_ENTRY_OCC_POTENTIAL] = "cuOccupancyMaxPotentialBlockSize",
};

static const CUresult codes[FZ_CODE_COUNT] = {
    [FZ_CODE_OUT_OF_MEMORY] = CUDA_ERROR_OUT_OF_MEMORY,
    [FZ_CODE_INVALID_CONTEXT] = CUDA_ERROR_INVALID_CONTEXT,
    [FZ_CODE_LAUNCH_FAILED] = CUDA_ERROR_LAUNCH_FAILED,
    [FZ_CODE_NOT_READY] = CUDA_ERROR_NOT_READY,
    [FZ_CODE_INVALID_VALUE] = CUDA_ERROR_INVALID_VALUE,
    [FZ_CODE_INVALID_HANDLE] = CUDA_ERROR_INVALID_HANDLE,
    [FZ_CODE_CONTEXT_IS_DESTROYED] = CUDA_ERROR_CONTEXT_IS_DESTROYED,
    [FZ_CODE_UNKNOWN] = CUDA_ERROR_UNKNOWN,
    [FZ_CODE_NOT_SUPPORTED] = CUDA_ERROR_NOT_SUPPORTED,
    [FZ_CODE_INVALID_DEVICE] = CUDA_ERROR_INVALID_DEVICE,
};

/* ------------------------------------------------------------------------------------------ */
/* Handles                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static const int slot_counts[FZ_KIND_COUNT] = {FZ_N_CTX,    FZ_N_STREAM,  FZ_N_EVENT,
                                               FZ_N_MODULE, FZ_N_LIBRARY, FZ_N_FUNC};
static const int pool_starts[FZ_KIND_COUNT] = {FZ_POOL_CTX,    FZ_POOL_STREAM,  FZ_POOL_EVENT,
                                               FZ_POOL_MODULE, FZ_POOL_LIBRARY, FZ_POOL_FUNC};

void *fz_slot_ptr(int kind, int slot) {
    switch (kind) {
    case FZ_KIND_CTX: return fz_m.ctx[slot];
    case FZ_KIND_STREAM: return fz_m.stream[slot];
    case FZ_KIND_EVENT: return fz_m.event[slot];
    case FZ_KIND_MODULE: return fz_m.module[slot];
    case FZ_KIND_LIBRARY: return fz_m.library[slot];
    case FZ_KIND_FUNC: return fz_m.fn[slot].f;
    default: return NULL;
    }
}

fz_handle fz_handle_at(int kind, int slot) {
    void *p = fz_slot_ptr(kind, slot);
    return (fz_handle){p, p != NULL ? kind : FZ_KIND_NONE, kind, slot};
}

fz_handle fz_refresh(fz_handle h) {
    return h.src == FZ_KIND_NONE ? h : fz_handle_at(h.src, h.slot);
}

fz_handle fz_pick(fz_reader *r, int kind) {
    uint8_t b = fz_u8(r);
    if (!(b & 0x80)) return fz_handle_at(kind, b % slot_counts[kind]);
    int i = (b & 0x7f) % FZ_POOL_SIZE;
    for (int k = FZ_KIND_COUNT - 1; k >= 0; k--) {
        if (i >= pool_starts[k] && i < FZ_POOL_NULL) return fz_handle_at(k, i - pool_starts[k]);
    }
    return (fz_handle){NULL, FZ_KIND_NONE, FZ_KIND_NONE, 0};
}

int fz_free_slot(int kind) {
    for (int i = 0; i < slot_counts[kind]; i++) {
        if (fz_slot_ptr(kind, i) == NULL) return i;
    }
    return -1;
}

char fz_poison;

void fz_check_out(const fz_call *c, CUresult r, const void *out) {
    if (r != CUDA_SUCCESS && out != NULL) {
        fz_fail("%s failed with %s but left its out-pointer at %p, not NULL", c->what,
                cushim_error_name(r), out);
    }
    if (r == CUDA_SUCCESS && (out == NULL || out == (const void *)&fz_poison)) {
        fz_fail("%s succeeded without setting its out-pointer", c->what);
    }
}

void fz_expect_ok(const fz_call *c, CUresult r) {
    if (r != CUDA_SUCCESS && !c->faulted) {
        fz_fail("%s failed with %s, though its handles were live and its arguments valid, and "
                "no fault was injected",
                c->what, cushim_error_name(r));
    }
}

void fz_expect_error_has(const fz_call *c, const char *text) {
    if (!c->faulted && strstr(cushim_last_error(), text) == NULL) {
        fz_fail("%s: the sentence does not mention '%s'", c->what, text);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Retain and release                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const char *const retain_names[FZ_KIND_FUNC] = {
    "cushim_context_retain", "cushim_stream_retain", "cushim_event_retain", "cushim_module_retain",
    "cushim_library_retain"};
static const char *const release_names[FZ_KIND_FUNC] = {
    "cushim_context_release", "cushim_stream_release", "cushim_event_release",
    "cushim_module_release", "cushim_library_release"};

static void *retain(int kind, void *p) {
    switch (kind) {
    case FZ_KIND_CTX: return cushim_context_retain(p);
    case FZ_KIND_STREAM: return cushim_stream_retain(p);
    case FZ_KIND_EVENT: return cushim_event_retain(p);
    case FZ_KIND_MODULE: return cushim_module_retain(p);
    default: return cushim_library_retain(p);
    }
}

static void release(int kind, void *p) {
    switch (kind) {
    case FZ_KIND_CTX: cushim_context_release(p); break;
    case FZ_KIND_STREAM: cushim_stream_release(p); break;
    case FZ_KIND_EVENT: cushim_event_release(p); break;
    case FZ_KIND_MODULE: cushim_module_release(p); break;
    default: cushim_library_release(p); break;
    }
}

static void clear_slot(int kind, int slot) {
    switch (kind) {
    case FZ_KIND_CTX: fz_m.ctx[slot] = NULL; break;
    case FZ_KIND_STREAM:
        fz_m.stream[slot] = NULL;
        fz_m.stream_ctx[slot] = NULL;
        break;
    case FZ_KIND_EVENT:
        fz_m.event[slot] = NULL;
        fz_m.event_ctx[slot] = NULL;
        break;
    case FZ_KIND_MODULE: fz_m.module[slot] = NULL; break;
    case FZ_KIND_LIBRARY: fz_m.library[slot] = NULL; break;
    default: memset(&fz_m.fn[slot], 0, sizeof fz_m.fn[slot]); break;
    }
}

void fz_release_slot(int kind, int slot) {
    void *p = fz_slot_ptr(kind, slot);
    if (p == NULL) return;
    clear_slot(kind, slot);
    if (kind == FZ_KIND_FUNC) return; /* owned by its module or library: nothing to release */
    fz_call c;
    fz_begin(&c, release_names[kind]);
    release(kind, p);
    bool faulted = fz_fired(&c);
    fz_ctx_rec died[FZ_MAX_CTX];
    int n = fz_model_sweep(faulted, died);
    if (faulted) fz_m.counts_unknown = true;
    for (int i = 0; i < n; i++) {
        if (!died[i].primary && died[i].raw == c.current) c.pop_ok = died[i].raw;
    }
    fz_end(&c, CUDA_SUCCESS, FZ_VOID);
}

/* kind (choice of five), handle */
static void op_retain(fz_reader *r) {
    int kind = fz_u8(r) % FZ_KIND_FUNC;
    fz_handle h = fz_pick(r, kind);
    int dst = fz_free_slot(kind);
    if (h.kind == kind && dst < 0) return; /* no slot to keep the new reference in */
    fz_call c;
    fz_begin(&c, retain_names[kind]);
    void *got = retain(kind, h.p);
    /* cushim_context_retain(NULL) is the sentinel call itself: its sentence is the sentinel. */
    unsigned flags = (kind == FZ_KIND_CTX && h.p == NULL) ? FZ_SENTINEL_OK : 0;
    fz_end(&c, got != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE, flags);
    if (h.kind != kind) {
        if (got != NULL) fz_fail("%s of %p, not one of its kind, returned %p", c.what, h.p, got);
        return;
    }
    if (got != h.p) fz_fail("%s(%p) returned %p", c.what, h.p, got);
    switch (kind) {
    case FZ_KIND_CTX: fz_m.ctx[dst] = got; break;
    case FZ_KIND_STREAM:
        fz_m.stream[dst] = got;
        fz_m.stream_ctx[dst] = fz_m.stream_ctx[h.slot];
        break;
    case FZ_KIND_EVENT:
        fz_m.event[dst] = got;
        fz_m.event_ctx[dst] = fz_m.event_ctx[h.slot];
        fz_m.event_flags[dst] = fz_m.event_flags[h.slot];
        break;
    case FZ_KIND_MODULE: fz_m.module[dst] = got; break;
    default: fz_m.library[dst] = got; break;
    }
}

/* kind (choice of five), handle */
static void op_release(fz_reader *r) {
    int kind = fz_u8(r) % FZ_KIND_FUNC;
    fz_handle h = fz_pick(r, kind);
    if (h.kind == kind) {
        fz_release_slot(kind, h.slot);
        return;
    }
    /* A handle of another kind, or NULL: refused, with a warning for a handle. */
    fz_call c;
    fz_begin(&c, release_names[kind]);
    release(kind, h.p);
    fz_end(&c, CUDA_SUCCESS, FZ_VOID);
    if (h.p != NULL && fz_warnings() == c.warnings) {
        fz_fail("%s of %p, not one of its kind, logged no warning", c.what, h.p);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Faults and knobs                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* nth (byte: 1 + byte % 32), code (choice) */
static void op_fail_any(fz_reader *r) {
    int nth = 1 + fz_u8(r) % 32;
    fz_arm_any(nth, codes[fz_u8(r) % FZ_CODE_COUNT]);
}

/* entry (choice), nth (byte: 1 + byte % 8), code (choice) */
static void op_fail_call(fz_reader *r) {
    const char *entry = entries[fz_u8(r) % FZ_ENTRY_COUNT];
    int nth = 1 + fz_u8(r) % 8;
    fz_arm_call(entry, nth, codes[fz_u8(r) % FZ_CODE_COUNT]);
}

static void op_disarm(fz_reader *r) {
    (void)r;
    fz_disarm();
}

static bool any_function(void) {
    for (int i = 0; i < fz_m.nmodules; i++) {
        if (fz_m.modules[i].nfns > 0) return true;
    }
    for (int i = 0; i < fz_m.nlibraries; i++) {
        if (fz_m.libraries[i].nfns > 0) return true;
    }
    return false;
}

/* knob (choice), then its values (see enum fz_knob) */
static void op_knob(fz_reader *r) {
    switch (fz_u8(r) % FZ_KNOB_COUNT) {
    case FZ_KNOB_PENDING: fz_mock.set_pending(fz_u8(r) & 1); break;
    case FZ_KNOB_OCCUPANCY:
        /* From the table only (see there). */
        fz_mock.set_occupancy_override(occupancies[fz_u8(r) % COUNT(occupancies)]);
        break;
    case FZ_KNOB_LAUNCH_US:
        fz_mock.set_launch_us(fz_pick_u32(r, launch_steps, COUNT(launch_steps)));
        break;
    default: {
        int smem = fz_pick_int(r, static_smems, COUNT(static_smems));
        int threads = fz_pick_int(r, kernel_threads, COUNT(kernel_threads));
        /* cushim reads a kernel's attributes once, when it makes the function. */
        if (any_function()) fz_m.limits_stale = true;
        fz_mock.set_kernel_attributes(smem, 32, threads);
        break;
    }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Dispatch                                                                                   */
/* ------------------------------------------------------------------------------------------ */

typedef void (*fz_op_fn)(fz_reader *r);

static const fz_op_fn ops[FZ_OP_COUNT] = {
    [FZ_OP_CTX_PRIMARY] = fz_op_ctx_primary,
    [FZ_OP_CTX_CREATE] = fz_op_ctx_create,
    [FZ_OP_RETAIN] = op_retain,
    [FZ_OP_RELEASE] = op_release,
    [FZ_OP_SET_CURRENT] = fz_op_set_current,
    [FZ_OP_CTX_SYNC] = fz_op_ctx_sync,
    [FZ_OP_DEVICE_SYNC] = fz_op_device_sync,
    [FZ_OP_PRIORITY_RANGE] = fz_op_priority_range,
    [FZ_OP_STREAM_CREATE] = fz_op_stream_create,
    [FZ_OP_STREAM_SYNC] = fz_op_stream_sync,
    [FZ_OP_STREAM_QUERY] = fz_op_stream_query,
    [FZ_OP_STREAM_WAIT] = fz_op_stream_wait,
    [FZ_OP_SAME_QUEUE] = fz_op_same_queue,
    [FZ_OP_EVENT_CREATE] = fz_op_event_create,
    [FZ_OP_EVENT_RECORD] = fz_op_event_record,
    [FZ_OP_EVENT_QUERY] = fz_op_event_query,
    [FZ_OP_EVENT_SYNC] = fz_op_event_sync,
    [FZ_OP_ELAPSED] = fz_op_elapsed,
    [FZ_OP_MODULE_LOAD] = fz_op_module_load,
    [FZ_OP_MODULE_FILE] = fz_op_module_file,
    [FZ_OP_MODULE_FUNCTION] = fz_op_module_function,
    [FZ_OP_LIBRARY_LOAD] = fz_op_library_load,
    [FZ_OP_LIBRARY_FUNCTION] = fz_op_library_function,
    [FZ_OP_LAUNCH] = fz_op_launch,
    [FZ_OP_OCC_ACTIVE] = fz_op_occ_active,
    [FZ_OP_OCC_POTENTIAL] = fz_op_occ_potential,
    [FZ_OP_OCC_COOP_GRID] = fz_op_occ_coop_grid,
    [FZ_OP_COOP_AT_LIMIT] = fz_op_coop_at_limit,
    [FZ_OP_FAIL_ANY] = op_fail_any,
    [FZ_OP_FAIL_CALL] = op_fail_call,
    [FZ_OP_DISARM] = op_disarm,
    [FZ_OP_KNOB] = op_knob,
};

const char *const fz_op_names[FZ_OP_COUNT] = {
    [FZ_OP_CTX_PRIMARY] = "ctx_primary",
    [FZ_OP_CTX_CREATE] = "ctx_create",
    [FZ_OP_RETAIN] = "retain",
    [FZ_OP_RELEASE] = "release",
    [FZ_OP_SET_CURRENT] = "set_current",
    [FZ_OP_CTX_SYNC] = "ctx_sync",
    [FZ_OP_DEVICE_SYNC] = "device_sync",
    [FZ_OP_PRIORITY_RANGE] = "priority_range",
    [FZ_OP_STREAM_CREATE] = "stream_create",
    [FZ_OP_STREAM_SYNC] = "stream_sync",
    [FZ_OP_STREAM_QUERY] = "stream_query",
    [FZ_OP_STREAM_WAIT] = "stream_wait",
    [FZ_OP_SAME_QUEUE] = "same_queue",
    [FZ_OP_EVENT_CREATE] = "event_create",
    [FZ_OP_EVENT_RECORD] = "event_record",
    [FZ_OP_EVENT_QUERY] = "event_query",
    [FZ_OP_EVENT_SYNC] = "event_sync",
    [FZ_OP_ELAPSED] = "elapsed",
    [FZ_OP_MODULE_LOAD] = "module_load",
    [FZ_OP_MODULE_FILE] = "module_file",
    [FZ_OP_MODULE_FUNCTION] = "module_function",
    [FZ_OP_LIBRARY_LOAD] = "library_load",
    [FZ_OP_LIBRARY_FUNCTION] = "library_function",
    [FZ_OP_LAUNCH] = "launch",
    [FZ_OP_OCC_ACTIVE] = "occ_active",
    [FZ_OP_OCC_POTENTIAL] = "occ_potential",
    [FZ_OP_OCC_COOP_GRID] = "occ_coop_grid",
    [FZ_OP_COOP_AT_LIMIT] = "coop_at_limit",
    [FZ_OP_FAIL_ANY] = "fail_any",
    [FZ_OP_FAIL_CALL] = "fail_call",
    [FZ_OP_DISARM] = "disarm",
    [FZ_OP_KNOB] = "knob",
};

void fz_run_op(int op, fz_reader *r) { ops[op](r); }

void fz_ops_init(void) {
    /* A table with a hole would crash on the first input that picks it. */
    for (int i = 0; i < FZ_OP_COUNT; i++) {
        if (ops[i] == NULL || fz_op_names[i] == NULL) {
            fprintf(stderr, "cushim fuzz: opcode %d has no instruction\n", i);
            abort();
        }
    }
    for (int i = 0; i < FZ_ENTRY_COUNT; i++) {
        if (entries[i] == NULL || codes[i % FZ_CODE_COUNT] == CUDA_SUCCESS) {
            fprintf(stderr, "cushim fuzz: entry or code %d is missing\n", i);
            abort();
        }
    }
    fz_ops_code_init();
}
