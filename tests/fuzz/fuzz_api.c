/* The libFuzzer entry points of the API fuzzer, the reading of an input, the fault bookkeeping
 * and the checks made around every call. See fuzz.h for the input format.
 *
 * One input is one program against the mock driver. Before it, the mock holds nothing; after
 * it, every reference the program holds is released, the mock must hold nothing again, and
 * it is reset, which frees the records it keeps of destroyed objects (they are kept until a
 * reset so that a stale handle is recognised, and would otherwise pile up over millions of
 * runs). Resetting is safe there because nothing in cushim outlives its objects except the
 * per-device limits, and those are numbers, read again from identical devices.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifndef CUSHIM_FUZZ_MOCK_PATH
#error "CUSHIM_FUZZ_MOCK_PATH (the mock driver's path) is set by tests/fuzz/meson.build"
#endif

cushim_mock_api fz_mock;

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                    */
/* ------------------------------------------------------------------------------------------ */

uint8_t fz_u8(fz_reader *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

uint32_t fz_u32(fz_reader *r) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(r) << (8 * i);
    return v;
}

uint32_t fz_pick_u32(fz_reader *r, const uint32_t *table, size_t n) {
    uint8_t b = fz_u8(r);
    if (b < n) return table[b];
    if (b == 0xff) return fz_u32(r);
    return (uint32_t)(b - n);
}

uint64_t fz_pick_u64(fz_reader *r, const uint64_t *table, size_t n) {
    uint8_t b = fz_u8(r);
    if (b < n) return table[b];
    if (b == 0xff) {
        uint64_t lo = fz_u32(r);
        return lo | (uint64_t)fz_u32(r) << 32;
    }
    return (uint64_t)(b - n);
}

int fz_pick_int(fz_reader *r, const int *table, size_t n) {
    uint8_t b = fz_u8(r);
    if (b < n) return table[b];
    if (b == 0xff) {
        uint32_t u = fz_u32(r);
        int v;
        memcpy(&v, &u, sizeof v); /* the two's complement reading, without an out-of-range cast */
        return v;
    }
    return (int)(b - n);
}

size_t fz_bytes(fz_reader *r, char *buf, size_t cap) {
    size_t len = fz_u8(r);
    if (len > cap) len = cap;
    if (len > r->n) len = r->n;
    memcpy(buf, r->p, len);
    r->p += len;
    r->n -= len;
    /* Zeros past the end: a reader of the image may look at its first bytes for a magic. */
    memset(buf + len, 0, cap + 8 - len);
    return len;
}

/* ------------------------------------------------------------------------------------------ */
/* Failing                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static int current_op = -1, op_index = -1;

/* CUSHIM_FUZZ_TRACE set: each call and its result on stderr, to read a crash input by. */
static bool trace;

void fz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\ncushim fuzz: invariant broken at instruction %d (%s): ", op_index,
            current_op >= 0 && current_op < FZ_OP_COUNT ? fz_op_names[current_op] : "teardown");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n  last error: \"%s\"\n", cushim_last_error());
    va_end(ap);
    fflush(stderr);
    abort();
}

/* ------------------------------------------------------------------------------------------ */
/* The log                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static int warnings;

/* Counts warnings (a release of a wrong handle logs one) and keeps stderr quiet: libFuzzer runs
 * millions of inputs. A message must say something. */
static void on_log(cushim_log_level level, const char *message, void *user) {
    (void)user;
    if (message == NULL || message[0] == '\0') fz_fail("an empty log message at level %d", level);
    if (level == CUSHIM_LOG_WARN) warnings++;
}

int fz_warnings(void) { return warnings; }

/* ------------------------------------------------------------------------------------------ */
/* Faults                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* One fault armed at a time, so that a failure has one cause and the cleanup after it runs
 * unharmed: the mock fails the call at which the count it keeps (of one entry, or of all
 * calls) reaches `target`. */
static struct {
    bool armed;
    const char *entry; /* NULL: any entry */
    int target;
} fault;

static int fault_count(void) { return fz_mock.calls(fault.entry != NULL ? fault.entry : "*"); }

void fz_disarm(void) {
    if (fault.armed) {
        if (fault.entry != NULL) {
            fz_mock.fail_call(fault.entry, 0, CUDA_SUCCESS);
        } else {
            fz_mock.fail_any(0, CUDA_SUCCESS);
        }
    }
    fault.armed = false;
}

void fz_arm_any(int nth, CUresult code) {
    fz_disarm();
    fault.entry = NULL;
    fault.target = fault_count() + nth;
    fault.armed = true;
    fz_mock.fail_any(nth, code);
}

void fz_arm_call(const char *entry, int nth, CUresult code) {
    fz_disarm();
    fault.entry = entry;
    fault.target = fault_count() + nth;
    fault.armed = true;
    fz_mock.fail_call(entry, nth, code);
}

/* Whether the armed fault fired since the count was `before`, and at which entry. */
static bool fault_fired(int before, const char **entry) {
    if (!fault.armed) return false;
    int now = fault_count();
    if (now < fault.target || before >= fault.target) return false;
    fault.armed = false; /* the mock dropped it when it fired */
    const char *name = fault.entry != NULL ? fault.entry : fz_mock.call_name(fault.target - 1);
    if (entry != NULL) *entry = name != NULL ? name : "?";
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Calls                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* cushim never clears its last error, so "a failure leaves a sentence" is checked as "a failure
 * changes the sentence": before each call the sentence is set to this one, by a call that
 * fails without touching the driver. */
static char sentinel[256];

static void set_sentinel(void) { (void)cushim_context_retain(NULL); }

void fz_begin(fz_call *c, const char *what) {
    memset(c, 0, sizeof *c);
    c->what = what;
    c->current = fz_mock.current();
    c->count = fault.armed ? fault_count() : 0;
    c->warnings = warnings;
    set_sentinel();
}

bool fz_fired(fz_call *c) {
    if (!c->faulted && fault_fired(c->count, &c->faulted_entry)) c->faulted = true;
    return c->faulted;
}

void fz_end(fz_call *c, CUresult r, unsigned flags) {
    fz_fired(c);
    CUcontext now = fz_mock.current();
    if (trace) {
        fprintf(stderr, "cushim fuzz: %3d %s: %s%s%s, current %p -> %p\n", op_index, c->what,
                (flags & FZ_VOID) ? "-" : cushim_error_name(r), c->faulted ? ", fault at " : "",
                c->faulted ? c->faulted_entry : "", (void *)c->current, (void *)now);
    }
    if (!(flags & FZ_SWITCHES) && now != c->current) {
        /* The driver refused to put the previous context back: nothing more cushim can do. */
        bool refused = c->faulted && strcmp(c->faulted_entry, "cuCtxSetCurrent") == 0 &&
                       ((flags & FZ_VOID) || r != CUDA_SUCCESS);
        /* Destroying the current context pops it, as cuCtxPopCurrent would. */
        bool popped = c->pop_ok != NULL;
        if (!refused && !popped) {
            fz_fail("%s changed the current context from %p to %p (returned %s)", c->what,
                    (void *)c->current, (void *)now,
                    (flags & FZ_VOID) ? "nothing" : cushim_error_name(r));
        }
    }
    if (c->pop_ok != NULL && now == c->pop_ok && !c->faulted) {
        fz_fail("%s destroyed context %p while it was current, and it is still current", c->what,
                (void *)c->pop_ok);
    }
    if ((flags & (FZ_VOID | FZ_RAW)) || r == CUDA_SUCCESS) return;
    if ((flags & FZ_NOT_READY_OK) && r == CUDA_ERROR_NOT_READY) return;
    const char *e = cushim_last_error();
    if (e == NULL || e[0] == '\0')
        fz_fail("%s failed with %s and no sentence", c->what, cushim_error_name(r));
    if (!(flags & FZ_SENTINEL_OK) && strcmp(e, sentinel) == 0) {
        fz_fail("%s failed with %s%s%s but did not say why (the last error is still the one "
                "before the call)",
                c->what, cushim_error_name(r), c->faulted ? ", injected at " : "",
                c->faulted ? c->faulted_entry : "");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The entry points                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* Makes the one-time work happen before the first input: cushim reads a device's limits the
 * first time a function of it is made, with driver calls that would otherwise shift where a
 * fault lands in whichever input comes first, and so make a crash depend on the run. */
static void warm_up(void) {
    for (int d = 0; d < FZ_DEVICES; d++) {
        cushim_context *c = NULL;
        cushim_module *m = NULL;
        cushim_function *f = NULL;
        if (cushim_context_create(&c, d, 0) != CUDA_SUCCESS ||
            cushim_module_load_data(&m, c, ".visible .entry k(\n)\n{\n ret;\n}\n") !=
                CUDA_SUCCESS ||
            cushim_module_function(&f, m, "k") != CUDA_SUCCESS) {
            fprintf(stderr, "cushim fuzz: warming up device %d failed: %s\n", d,
                    cushim_last_error());
            abort();
        }
        cushim_module_release(m);
        cushim_context_release(c);
    }
}

static void reset_mock(void) {
    fz_mock.reset();
    fz_mock.set_device_count(FZ_DEVICES);
    fault.armed = false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* The mock this build made, unless the caller names another. */
    if (getenv("CUSHIM_DRIVER") == NULL) setenv("CUSHIM_DRIVER", CUSHIM_FUZZ_MOCK_PATH, 1);
    trace = getenv("CUSHIM_FUZZ_TRACE") != NULL;
    if (!cushim_mock_open(&fz_mock, NULL)) abort();
    fz_mock.reset();
    CUresult r = cushim_init();
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cushim fuzz: cushim_init failed with %s: %s\n", cushim_error_name(r),
                cushim_last_error());
        abort();
    }
    cushim_log_set_handler(on_log, NULL, CUSHIM_LOG_DEBUG);
    set_sentinel();
    snprintf(sentinel, sizeof sentinel, "%s", cushim_last_error());
    if (sentinel[0] == '\0') {
        fprintf(stderr, "cushim fuzz: cushim_context_retain(NULL) left no sentence\n");
        abort();
    }
    reset_mock();
    warm_up();
    reset_mock();
    fz_ops_init();
    return 0;
}

static void check_empty_mock(const int before[CUSHIM_MOCK_KIND_COUNT]) {
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) {
        int live = fz_mock.live((cushim_mock_kind)k);
        if (live != before[k]) {
            fz_fail("after releasing everything the driver holds %d objects of mock kind %d, "
                    "%d before the input",
                    live, k, before[k]);
        }
    }
    for (int d = 0; d < FZ_DEVICES; d++) {
        if (fz_mock.primary_refcount(d) != 0) {
            fz_fail("after releasing everything device %d's primary context is retained %d "
                    "times",
                    d, fz_mock.primary_refcount(d));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    int before[CUSHIM_MOCK_KIND_COUNT];
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) before[k] = fz_mock.live((cushim_mock_kind)k);
    fz_model_clear();
    warnings = 0;
    uint8_t header = fz_u8(&r);

    for (op_index = 0; r.n > 0 && op_index < FZ_MAX_OPS; op_index++) {
        current_op = fz_u8(&r) % FZ_OP_COUNT;
        fz_call whole;
        fz_begin(&whole, fz_op_names[current_op]);
        fz_run_op(current_op, &r);
        /* Every call checks for its own fault; this forgets one that fired anywhere else, so
         * that it is not taken for armed any more. */
        (void)fz_fired(&whole);
        fz_model_check();
    }

    /* Teardown: no faults, and every reference goes, in the order the header asks. */
    current_op = -1;
    fz_disarm();
    static const int others[] = {FZ_KIND_LIBRARY, FZ_KIND_MODULE, FZ_KIND_EVENT, FZ_KIND_STREAM};
    static const int slots[FZ_KIND_COUNT] = {FZ_N_CTX,    FZ_N_STREAM,  FZ_N_EVENT,
                                             FZ_N_MODULE, FZ_N_LIBRARY, FZ_N_FUNC};
    bool contexts_first = header & FZ_HEADER_CONTEXTS_FIRST;
    if (contexts_first) {
        for (int i = 0; i < FZ_N_CTX; i++) fz_release_slot(FZ_KIND_CTX, i);
    }
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        for (int i = 0; i < slots[others[k]]; i++) fz_release_slot(others[k], i);
    }
    if (!contexts_first) {
        for (int i = 0; i < FZ_N_CTX; i++) fz_release_slot(FZ_KIND_CTX, i);
    }
    if (fz_m.nctxs != 0 || fz_m.nmodules != 0 || fz_m.nlibraries != 0) {
        fz_fail("the model still holds %d contexts, %d modules and %d libraries after the "
                "teardown",
                fz_m.nctxs, fz_m.nmodules, fz_m.nlibraries);
    }
    fz_model_check();
    if (!fz_m.counts_unknown) check_empty_mock(before);
    reset_mock();
    op_index = -1;
    return 0;
}
