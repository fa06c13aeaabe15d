/* The mock's face: the entry table, cuGetProcAddress, the exported symbols and the control
 * API of cushim_mock.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_link_text.h"

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* void (*)(void) is the generic function pointer type: a cast to it is exact both ways. */
#define MOCK_ROW_(fn, base, ver, pfn) {base, ver, (void (*)(void))mock_##fn},
const mock_row mock__rows[MOCK_ENTRY_COUNT] = {MOCK_ENTRIES(MOCK_ROW_)};

/* The mock's ABI of each entry is the one cudaTypedefs.h names for its version. */
#define MOCK_CHECK_(fn, base, ver, pfn)                                                            \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&mock_##fn), pfn),                      \
                   "mock_" #fn " does not have the ABI of " #pfn);
MOCK_ENTRIES(MOCK_CHECK_)

/* ------------------------------------------------------------------------------------------ */
/* cuGetProcAddress                                                                           */
/* ------------------------------------------------------------------------------------------ */

static mock_lookup *lookup_record(const char *name) {
    for (size_t i = 0; i < mock__state.nlookups; i++) {
        if (strcmp(mock__state.lookups[i].name, name) == 0) return &mock__state.lookups[i];
    }
    if (!mock__grow(&mock__state.lookups, &mock__state.caplookups, mock__state.nlookups + 1,
                    sizeof *mock__state.lookups))
        return NULL;
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL) return NULL;
    strcpy(copy, name);
    mock__state.lookups[mock__state.nlookups] = (mock_lookup){copy, -1, 0};
    return &mock__state.lookups[mock__state.nlookups++];
}

static bool hidden(const char *name) {
    for (size_t i = 0; i < mock__state.nhidden; i++) {
        if (strcmp(mock__state.hidden[i], name) == 0) return true;
    }
    return false;
}

/* Not a driver call: neither logged nor counted nor subject to injected failures. */
static CUresult lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status) {
    if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (symbol == NULL || pfn == NULL) return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    CUresult knob;
    if (mock__proc_knob(pfn, status, &knob)) return knob;
    mock__lock();
    mock_lookup *rec = lookup_record(symbol);
    if (rec) {
        rec->version = version;
        rec->flags = (unsigned long long)flags;
    }
    const cuuint64_t known =
        CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    if ((flags & ~known) || version > mock__state.driver_version) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (hidden(symbol)) return mock__leave(CUDA_ERROR_NOT_FOUND);
    bool known_name = false;
    int best = mock__best_row(symbol, version, &known_name);
    /* An entry of cuda.h the mock does not implement: its stub, which answers
     * CUDA_ERROR_NOT_SUPPORTED (mock_coverage.c). */
    if (!known_name) {
        void (*stub)(void) = NULL;
        CUresult r = mock__stub_lookup(symbol, version, flags, &stub, status);
        if (r == CUDA_SUCCESS) memcpy(pfn, &stub, sizeof stub);
        return mock__leave(r);
    }
    if (best < 0) {
        if (known_name && status) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        return mock__leave(CUDA_ERROR_NOT_FOUND);
    }
    void (*fn)(void) = mock__rows[best].fn;
    /* Asked for the per-thread default stream: the per-thread entry, where the driver has one
     * for this ABI (a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM gets it). */
    if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
        void (*pt)(void) = mock__pt_for_row(best, version);
        if (pt != NULL) fn = pt;
    }
    memcpy(pfn, &fn, sizeof fn);
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    mock__state.handed_out[best] = true;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGetProcAddress(const char *symbol, void **pfn, int version,
                                       cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
    return lookup(symbol, pfn, version, flags, status);
}

/* ------------------------------------------------------------------------------------------ */
/* Exported symbols                                                                           */
/* ------------------------------------------------------------------------------------------ */

MOCK_EXPORT CUresult CUDAAPI cuInit(unsigned int flags) { return mock_cuInit(flags); }

MOCK_EXPORT CUresult CUDAAPI cuDriverGetVersion(int *version) {
    return mock_cuDriverGetVersion(version);
}

#ifndef MOCK_NO_PROC_ADDRESS
MOCK_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                                 cuuint64_t flags,
                                                 CUdriverProcAddressQueryResult *status) {
    return lookup(symbol, pfn, version, flags, status);
}

/* The CUDA 11.3 ABI, which cuda.h hides behind a macro naming the _v2. */
#undef cuGetProcAddress
MOCK_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version,
                                              cuuint64_t flags);
MOCK_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int version,
                                              cuuint64_t flags) {
    return lookup(symbol, pfn, version, flags, NULL);
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* The control API                                                                            */
/* ------------------------------------------------------------------------------------------ */

static void ctl_reset(void) {
    mock__lock();
    mock__progress_reset(); /* the progress thread idle, its list of streams empty */
    mock__wait_kernels();   /* their streams and memory are freed below */
    mock__forget_all();
    mock__texobj_reset();
    mock__forget_launches();
    free(mock__state.log);
    mock__state.log = NULL;
    mock__state.nlog = 0;
    mock__state.total_calls = 0;
    memset(mock__state.counts, 0, sizeof mock__state.counts);
    mock__state.nfails = 0;
    mock__state.fail_any_remaining = 0;
    mock__state.fail_any_code = CUDA_SUCCESS;
    for (size_t i = 0; i < mock__state.nhidden; i++) free(mock__state.hidden[i]);
    free(mock__state.hidden);
    mock__state.hidden = NULL;
    mock__state.nhidden = 0;
    mock__state.init_result = MOCK_INIT_RESULT;
    mock__state.driver_version = MOCK_DEFAULT_VERSION;
    mock__mem_reset(); /* memory, knobs of memory and names, and the devices */
    mock__check_reset();
    mock__state.pending = true;
    mock__state.launch_us = 1000;
    mock__state.launch_us_set = false;
    mock__state.clock_ns = 0;
    mock__state.records = 0;
    mock__state.occupancy_override = -1;
    mock__state.kernel_static_smem = 0;
    mock__state.kernel_regs = 32;
    mock__state.kernel_max_threads = 1024;
    mock__exec_reset();
    mock__attach_reset();
    mock__link_reset();
    mock__coverage_reset();
    mock__unlock();
}

static void ctl_fail(const char *entry, int nth, CUresult code) {
    mock__lock();
    int row = mock__row_of(entry);
    if (row < 0) {
        fprintf(stderr, "cushim mock: fail_call(\"%s\"): the mock has no such entry\n",
                entry ? entry : "(null)");
    } else if (nth <= 0) {
        for (int i = 0; i < mock__state.nfails;) {
            if (mock__state.fails[i].row_base == row) {
                mock__state.fails[i] = mock__state.fails[--mock__state.nfails];
            } else {
                i++;
            }
        }
    } else if (mock__state.nfails < MOCK_MAX_FAILS) {
        mock__state.fails[mock__state.nfails++] = (mock_fail){row, nth, code};
    }
    mock__unlock();
}

static void ctl_fail_any(int nth, CUresult code) {
    mock__lock();
    mock__state.fail_any_remaining = nth > 0 ? nth : 0;
    mock__state.fail_any_code = code;
    mock__unlock();
}

static void ctl_hide(const char *entry) {
    if (entry == NULL) return;
    mock__lock();
    char **v = realloc(mock__state.hidden, (mock__state.nhidden + 1) * sizeof *v);
    char *copy = malloc(strlen(entry) + 1);
    if (v != NULL) mock__state.hidden = v;
    if (v != NULL && copy != NULL) {
        strcpy(copy, entry);
        mock__state.hidden[mock__state.nhidden++] = copy;
    } else {
        free(copy);
    }
    mock__unlock();
}

static void ctl_set_driver_version(int version) {
    mock__lock();
    mock__state.driver_version = version;
    mock__unlock();
}

static void ctl_set_init_result(CUresult r) {
    mock__lock();
    mock__state.init_result = r;
    mock__unlock();
}

static int ctl_calls(const char *entry) {
    int n = 0;
    mock__lock();
    if (entry != NULL && strcmp(entry, "*") == 0) {
        n = mock__state.total_calls;
    } else if (entry != NULL) {
        /* Any form of the name counts every call of the entry. */
        char base[128];
        mock__base_of(entry, base, sizeof base);
        if (mock__base_row(entry) >= 0) snprintf(base, sizeof base, "%s", entry);
        for (int i = 0; i < MOCK_ENTRY_COUNT; i++) {
            if (strcmp(mock__rows[i].base, base) == 0) n += mock__state.counts[i];
        }
        n += mock__stub_calls(entry);
    }
    mock__unlock();
    return n;
}

static const mock_lookup *find_lookup(const char *entry) {
    for (size_t i = 0; entry != NULL && i < mock__state.nlookups; i++) {
        if (strcmp(mock__state.lookups[i].name, entry) == 0) return &mock__state.lookups[i];
    }
    return NULL;
}

static int ctl_asked_version(const char *entry) {
    mock__lock();
    const mock_lookup *l = find_lookup(entry);
    int v = l ? l->version : -1;
    mock__unlock();
    return v;
}

static unsigned long long ctl_asked_flags(const char *entry) {
    mock__lock();
    const mock_lookup *l = find_lookup(entry);
    unsigned long long f = l ? l->flags : 0;
    mock__unlock();
    return f;
}

static int ctl_asked_count(void) {
    mock__lock();
    int n = (int)mock__state.nlookups;
    mock__unlock();
    return n;
}

/* Distinct functions handed out: a base name with two ABIs (cuCtxSynchronize at 2000 and at
 * 13000) counts twice when both were resolved, as it fills two slots of a table. */
static int ctl_resolved_count(void) {
    int n = 0;
    mock__lock();
    for (int i = 0; i < MOCK_ENTRY_COUNT; i++) n += mock__state.handed_out[i];
    n += mock__stubs_handed_out();
    mock__unlock();
    return n;
}

static const char *ctl_call_name(int i) {
    mock__lock();
    const char *name = i >= 0 ? mock__logged_call((size_t)i) : NULL;
    mock__unlock();
    return name;
}

static int ctl_live(cushim_mock_kind kind) {
    mock__lock();
    int n = (int)kind >= 0 && kind < CUSHIM_MOCK_KIND_COUNT ? mock__state.live[kind] : 0;
    mock__unlock();
    return n;
}

static CUcontext ctl_current(void) {
    mock__lock();
    CUcontext c = mock__current();
    mock__unlock();
    return c;
}

/* The context of a record of `kind` at p, alive or not; NULL when unknown. */
static CUcontext owner(const void *p, int kind) {
    mock__lock();
    mock_obj *o = mock__find(p);
    CUcontext c = o && o->kind == kind ? o->ctx : NULL;
    mock__unlock();
    return c;
}

static CUcontext ctl_stream_context(CUstream s) { return owner(s, CUSHIM_MOCK_STREAM); }
static CUcontext ctl_event_context(CUevent e) { return owner(e, CUSHIM_MOCK_EVENT); }
static CUcontext ctl_module_context(CUmodule m) { return owner(m, CUSHIM_MOCK_MODULE); }

static bool ctl_is_primary(CUcontext ctx) {
    mock__lock();
    mock_obj *o = mock__find(ctx);
    bool p = o && o->kind == CUSHIM_MOCK_CONTEXT && ((struct CUctx_st *)o)->primary;
    mock__unlock();
    return p;
}

static int ctl_primary_refcount(int ordinal) {
    mock__lock();
    int n = ordinal >= 0 && ordinal < MOCK_MAX_DEVICES && mock__state.primary[ordinal]
                ? mock__state.primary[ordinal]->refcount
                : 0;
    mock__unlock();
    return n;
}

static void ctl_set_device_count(int n) {
    mock__lock();
    if (n < 0) n = 0;
    if (n > MOCK_MAX_DEVICES) {
        fprintf(stderr, "cushim mock: set_device_count(%d): at most %d devices\n", n,
                MOCK_MAX_DEVICES);
        n = MOCK_MAX_DEVICES;
    }
    /* Devices added come in H200-shaped; those kept keep their attributes. */
    for (int d = mock__state.device_count; d < n; d++) mock__apply_profile(d, "h200");
    mock__state.device_count = n;
    mock__unlock();
}

static void ctl_set_attribute(int ordinal, CUdevice_attribute attr, int value) {
    mock__lock();
    if (ordinal >= 0 && ordinal < MOCK_MAX_DEVICES && (int)attr > 0 &&
        attr < CU_DEVICE_ATTRIBUTE_MAX) {
        mock__state.attrs[ordinal][attr] = value;
        mock__devx[ordinal].known[attr] = true;
    }
    mock__unlock();
}

static void ctl_set_pending(bool on) {
    mock__lock();
    mock__state.pending = on;
    mock__unlock();
}

static void ctl_set_async(bool on) {
    mock__lock();
    mock__progress_set(on);
    mock__unlock();
}

static void ctl_set_launch_us(unsigned long long us) {
    mock__lock();
    mock__state.launch_us = us;
    mock__state.launch_us_set = true;
    mock__unlock();
}

static void ctl_set_occupancy_override(int blocks_per_sm) {
    mock__lock();
    mock__state.occupancy_override = blocks_per_sm < 0 ? -1 : blocks_per_sm;
    mock__unlock();
}

static void ctl_set_kernel_attributes(int static_smem, int num_regs, int max_threads) {
    mock__lock();
    mock__state.kernel_static_smem = static_smem > 0 ? static_smem : 0;
    mock__state.kernel_regs = num_regs;
    mock__state.kernel_max_threads = max_threads > 0 ? max_threads : 1024;
    mock__unlock();
}

static int ctl_launch_count(void) {
    mock__lock();
    int n = (int)mock__state.nlaunches;
    mock__unlock();
    return n;
}

static const cushim_mock_launch *ctl_launch(int i) {
    mock__lock();
    const cushim_mock_launch *l = i >= 0 ? mock__launch_at((size_t)i) : NULL;
    mock__unlock();
    return l;
}

void mock__fill_mem_api(cushim_mock_api *api); /* mock_knobs.c */
MOCK_EXPORT void cushim_mock_get_api(cushim_mock_api *api);
MOCK_EXPORT void cushim_mock_get_api(cushim_mock_api *api) {
    if (api == NULL) return;
    *api = (cushim_mock_api){
        .reset = ctl_reset,
        .fail_call = ctl_fail,
        .fail_any = ctl_fail_any,
        .hide = ctl_hide,
        .set_driver_version = ctl_set_driver_version,
        .set_init_result = ctl_set_init_result,
        .calls = ctl_calls,
        .asked_version = ctl_asked_version,
        .asked_flags = ctl_asked_flags,
        .asked_count = ctl_asked_count,
        .resolved_count = ctl_resolved_count,
        .call_name = ctl_call_name,
        .live = ctl_live,
        .current = ctl_current,
        .stream_context = ctl_stream_context,
        .event_context = ctl_event_context,
        .module_context = ctl_module_context,
        .is_primary = ctl_is_primary,
        .primary_refcount = ctl_primary_refcount,
        .set_device_count = ctl_set_device_count,
        .set_attribute = ctl_set_attribute,
        .set_pending = ctl_set_pending,
        .set_async = ctl_set_async,
        .set_launch_us = ctl_set_launch_us,
        .set_occupancy_override = ctl_set_occupancy_override,
        .set_kernel_attributes = ctl_set_kernel_attributes,
        .launch_count = ctl_launch_count,
        .launch = ctl_launch,
    };
    mock__exec_api(api);
    mock__fill_mem_api(api);
    mock__coverage_api(api);
    mock__check_api(api);
}
