/* Knobs of memory, devices and names: per-thread entries, name forms, faults that fire once or
 * always, memory errors, and the control functions of cushim_mock.h's last block. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

mock_knobs mock__k;

/* Misuse aborts only where a test asks for it: CUSHIM_MOCK_FATAL=1 at load and at reset. */
static bool fatal_default(void) {
    const char *e = getenv("CUSHIM_MOCK_FATAL");
    return e != NULL && strcmp(e, "1") == 0;
}

__attribute__((constructor)) static void knobs_start(void) {
    mock__k.mem_errors_fatal = fatal_default();
}

/* The per-thread entry a wrapper is about to call through, and the name of the call in
 * progress, per thread: a wrapper and the entry it calls run on one thread. Thread-specific
 * keys, not more _Thread_local data: LeakSanitizer's tracer crashes on a dlopen'ed library
 * whose thread-local block outgrows the static surplus. Values are stored in the pointers. */
static pthread_key_t key_pt, key_entry;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;
static void make_keys(void) {
    pthread_key_create(&key_pt, NULL);
    pthread_key_create(&key_entry, NULL);
}
static void set_pt(int i) {
    pthread_once(&keys_once, make_keys);
    pthread_setspecific(key_pt, (void *)(intptr_t)(i + 1));
}
static int get_pt(void) {
    pthread_once(&keys_once, make_keys);
    return (int)(intptr_t)pthread_getspecific(key_pt) - 1;
}

void (*mock__pt_begin(int i))(void) {
    /* The wrapper was handed out for an implemented row, found again here by base and ABI. */
    for (int r = 0; r < MOCK_ENTRY_COUNT; r++) {
        if (mock__rows[r].version == mock__pt_rows[i].abi_version &&
            strcmp(mock__rows[r].base, mock__pt_rows[i].base) == 0) {
            set_pt(i);
            return mock__rows[r].fn;
        }
    }
    mock__die(mock__pt_rows[i].symbol, "called, but the mock has no row for it");
}

const char *mock__pt_consume(int id) {
    int i = get_pt();
    if (i >= 0) set_pt(-1);
    if (i < 0 || strcmp(mock__pt_rows[i].base, mock__rows[id].base) != 0) return NULL;
    mock__k.pt_calls[i]++;
    return mock__pt_rows[i].symbol;
}

void (*mock__pt_for_row(int row, int version))(void) {
    for (int i = 0; i < mock__pt_count; i++) {
        const mock_pt_row *p = &mock__pt_rows[i];
        if (p->abi_version == mock__rows[row].version && p->pt_version <= version &&
            strcmp(p->base, mock__rows[row].base) == 0) {
            return p->fn;
        }
    }
    return NULL;
}

void mock__note_entry(const char *name) {
    mock__why_clear();
    pthread_once(&keys_once, make_keys);
    pthread_setspecific(key_entry, name);
}

const char *mock__entry_name(void) {
    pthread_once(&keys_once, make_keys);
    const char *name = pthread_getspecific(key_entry);
    return name ? name : "(control)";
}

/* "cuMemcpyHtoD_v2_ptds" -> "cuMemcpyHtoD": drops a per-thread suffix, then a version suffix. */
void mock__base_of(const char *name, char *out, size_t len) {
    snprintf(out, len, "%s", name ? name : "");
    size_t n = strlen(out);
    if (n > 5 && (strcmp(out + n - 5, "_ptds") == 0 || strcmp(out + n - 5, "_ptsz") == 0)) {
        out[n -= 5] = '\0';
    }
    size_t d = n;
    while (d > 0 && isdigit((unsigned char)out[d - 1])) d--;
    if (d < n && d >= 2 && out[d - 1] == 'v' && out[d - 2] == '_') out[d - 2] = '\0';
}

int mock__row_of(const char *name) {
    int row = mock__base_row(name);
    if (row >= 0 || name == NULL) return row;
    char base[128];
    mock__base_of(name, base, sizeof base);
    row = mock__base_row(base);
    return row >= 0 ? row : mock__stub_key(name); /* an entry answered by a stub */
}

static void misuse(const char *entry, const char *fmt, va_list ap) MOCK_PRINTF(2, 0);
static void misuse(const char *entry, const char *fmt, va_list ap) {
    char text[sizeof mock__k.mem_error];
    vsnprintf(text, sizeof text, fmt, ap);
    if (mock__k.mem_errors_fatal) mock__die(entry, "%s", text);
    /* "<entry>: <text>", cut to fit. */
    snprintf(mock__k.mem_error, sizeof mock__k.mem_error, "%.100s: %.400s", entry, text);
    mock__why("%s", text);
    mock__k.mem_error_count++;
    fprintf(stderr, "cushim mock: %s: %s (a lifetime or memory bug in the code under test)\n",
            entry, text);
}

void mock__misuse(const char *entry, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    misuse(entry, fmt, ap);
    va_end(ap);
}

CUresult mock__mem_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    misuse(mock__entry_name(), fmt, ap);
    va_end(ap);
    return CUDA_ERROR_INVALID_VALUE;
}

void mock__mem_reset(void) {
    memset(&mock__k, 0, sizeof mock__k);
    mock__k.mem_errors_fatal = fatal_default();
    void mock__pools_reset(void);
    mock__free_allocs(NULL);
    mock__peer_forget(NULL);
    mock__pools_reset();
    mock__user_objects_reset();
    mock__default_devices();
}

/* ------------------------------------------------------------------------------------------ */
/* Control functions                                                                          */
/* ------------------------------------------------------------------------------------------ */

static void arm(const char *entry, int remaining, CUresult code, const char *what) {
    mock__lock();
    int row = mock__row_of(entry);
    if (row < 0) {
        fprintf(stderr, "cushim mock: %s(\"%s\"): the mock has no such entry\n", what,
                entry ? entry : "(null)");
    } else if (mock__state.nfails < MOCK_MAX_FAILS) {
        mock__state.fails[mock__state.nfails++] = (mock_fail){row, remaining, code};
    }
    mock__unlock();
}

static void ctl_fail_once(const char *entry, CUresult code) { arm(entry, 1, code, "fail_once"); }
static void ctl_fail_always(const char *entry, CUresult code) {
    arm(entry, -1, code, "fail_always");
}

static bool all(const char *entry) { return entry == NULL || strcmp(entry, "*") == 0; }

static int ctl_armed(const char *entry) {
    mock__lock();
    int row = all(entry) ? -1 : mock__row_of(entry), n = 0;
    for (int i = 0; i < mock__state.nfails; i++)
        n += all(entry) || mock__state.fails[i].row_base == row;
    if (all(entry) && mock__state.fail_any_remaining > 0) n++;
    mock__unlock();
    return n;
}

static void ctl_disarm(const char *entry) {
    mock__lock();
    int row = all(entry) ? -1 : mock__row_of(entry);
    for (int i = 0; i < mock__state.nfails;) {
        if (all(entry) || mock__state.fails[i].row_base == row) {
            mock__state.fails[i] = mock__state.fails[--mock__state.nfails];
        } else {
            i++;
        }
    }
    if (all(entry)) mock__state.fail_any_remaining = 0;
    mock__unlock();
}

static int ctl_per_thread_calls(const char *entry) {
    char base[128];
    mock__base_of(entry, base, sizeof base);
    mock__lock();
    int n = 0;
    for (int i = 0; i < mock__pt_count; i++) {
        if (strcmp(mock__pt_rows[i].base, base) == 0) n += mock__k.pt_calls[i];
    }
    n += mock__stub_pt_calls(entry);
    mock__unlock();
    return n;
}

int mock__live_memory(int kind); /* mock_memory.c */

static int ctl_live_memory(cushim_mock_memory_kind kind) {
    mock__lock();
    int n = mock__live_memory((int)kind);
    mock__unlock();
    return n;
}

static void ctl_set_memory_errors_fatal(bool fatal) {
    mock__lock();
    mock__k.mem_errors_fatal = fatal;
    mock__unlock();
}

static const char *ctl_memory_error(void) {
    mock__lock();
    const char *m = mock__k.mem_error[0] ? mock__k.mem_error : NULL;
    mock__unlock();
    return m;
}

static int ctl_memory_error_count(void) {
    mock__lock();
    int n = mock__k.mem_error_count;
    mock__unlock();
    return n;
}

static bool ctl_set_devices(const char *spec) {
    mock__lock();
    bool ok = mock__set_devices(spec);
    mock__unlock();
    return ok;
}

static const char *ctl_device_profile(int ordinal) {
    mock__lock();
    const char *p =
        ordinal >= 0 && ordinal < mock__state.device_count ? mock__devx[ordinal].profile : NULL;
    mock__unlock();
    return p;
}

/* Called by cushim_mock_get_api (mock_control.c) for this file's block of the API. */
void mock__fill_mem_api(cushim_mock_api *api);
void mock__fill_mem_api(cushim_mock_api *api) {
    api->fail_once = ctl_fail_once;
    api->fail_always = ctl_fail_always;
    api->armed = ctl_armed;
    api->disarm = ctl_disarm;
    api->per_thread_calls = ctl_per_thread_calls;
    api->live_memory = ctl_live_memory;
    api->set_memory_errors_fatal = ctl_set_memory_errors_fatal;
    api->memory_error = ctl_memory_error;
    api->memory_error_count = ctl_memory_error_count;
    api->set_devices = ctl_set_devices;
    api->device_profile = ctl_device_profile;
}
