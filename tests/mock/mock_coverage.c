/* Coverage as data: which entries of cuda.h the mock implements, and the stubs that answer the
 * others with CUDA_ERROR_NOT_SUPPORTED (DESIGN.md, "The mock driver"). The table of entries and
 * the stubs are generated from cuda.h (gen-mock-stubs.py into mock_stubs.c); an entry is
 * implemented when MOCK_ENTRIES has a row with its base name at its ABI version, the row that
 * cuGetProcAddress hands out when asked at that version. */
#include <stdio.h>
#include <string.h>

#include "mock.h"

#define E mock__cuda_entries
#define ST mock__cuda_entry_states

/* Computed once, with the lock held: the rows never change. */
static bool implemented_known;

static void know_implemented(void) {
    if (implemented_known) return;
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        ST[i].implemented = false;
        for (int r = 0; r < MOCK_ENTRY_COUNT; r++) {
            if (mock__rows[r].version == E[i].version &&
                strcmp(mock__rows[r].base, E[i].base) == 0) {
                ST[i].implemented = true;
                break;
            }
        }
    }
    implemented_known = true;
}

/* The entry named in any form: as cuda.h writes it, its symbol, its per-thread symbol, or
 * another form of its base name ("cuStreamGetCaptureInfo_v2"); -1 for none. */
static int entry_of(const char *name) {
    if (name == NULL) return -1;
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        if (strcmp(name, E[i].name) == 0 || strcmp(name, E[i].symbol) == 0 ||
            strcmp(name, E[i].ptds_symbol) == 0) {
            return i;
        }
    }
    char base[128];
    mock__base_of(name, base, sizeof base);
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        if (strcmp(base, E[i].base) == 0) return i;
    }
    return -1;
}

/* The first entry with the base name of entry i: entries of one base share faults and counts. */
static int first_of_base(int i) {
    for (int j = 0; j < i; j++) {
        if (strcmp(E[j].base, E[i].base) == 0) return j;
    }
    return i;
}

int mock__stub_key(const char *name) {
    int i = entry_of(name);
    return i < 0 ? -1 : MOCK_ENTRY_COUNT + first_of_base(i);
}

CUresult mock__stub_call(int i, bool per_thread) {
    mock__lock();
    mock_state *s = &mock__state;
    const char *name = per_thread ? E[i].ptds_symbol : E[i].base;
    mock__note_entry(name);
    if (s->nlog < MOCK_LOG_CAP && mock__grow(&s->log, &s->caplog, s->nlog + 1, sizeof *s->log)) {
        s->log[s->nlog++] = name;
    }
    s->total_calls++;
    ST[i].calls++;
    if (per_thread) ST[i].pt_calls++;
    CUresult r = mock__injected(MOCK_ENTRY_COUNT + first_of_base(i));
    if (r != CUDA_SUCCESS) return mock__leave(r);
    /* Once per entry and process, not per reset: the line tells a person, not a test. */
    if (!ST[i].said) {
        ST[i].said = true;
        fprintf(stderr, "cushim mock: %s is not implemented, answering CUDA_ERROR_NOT_SUPPORTED\n",
                E[i].name);
    }
    return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
}

CUresult mock__stub_lookup(const char *base, int version, unsigned long long flags,
                           void (**fn)(void), CUdriverProcAddressQueryResult *status) {
    int best = -1;
    bool known = false;
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        if (strcmp(E[i].base, base) != 0) continue;
        known = true;
        if (E[i].version <= version && (best < 0 || E[i].version > E[best].version)) best = i;
    }
    if (best < 0) {
        if (status) {
            *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        }
        return CUDA_ERROR_NOT_FOUND;
    }
    *fn = E[best].stub;
    /* As the driver does: the per-thread form where the entry has one at this version, else the
     * legacy one. */
    if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && E[best].stub_pt != NULL &&
        E[best].ptds_version <= version) {
        *fn = E[best].stub_pt;
    }
    ST[best].handed_out = true;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

/* Sums a count over the entries sharing the base name of the entry named. */
static int sum_for(const char *name, bool pt_only) {
    int i = entry_of(name), n = 0;
    if (i < 0) return 0;
    for (int j = 0; j < mock__cuda_entry_count; j++) {
        if (strcmp(E[j].base, E[i].base) == 0) n += pt_only ? ST[j].pt_calls : ST[j].calls;
    }
    return n;
}

int mock__stub_calls(const char *name) { return sum_for(name, false); }
int mock__stub_pt_calls(const char *name) { return sum_for(name, true); }

int mock__stubs_handed_out(void) {
    int n = 0;
    for (int i = 0; i < mock__cuda_entry_count; i++) n += ST[i].handed_out;
    return n;
}

void mock__coverage_reset(void) {
    for (int i = 0; i < mock__cuda_entry_count; i++) ST[i].calls = ST[i].pt_calls = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Control functions                                                                          */
/* ------------------------------------------------------------------------------------------ */

static bool ctl_implemented(const char *entry) {
    mock__lock();
    know_implemented();
    int i = entry_of(entry);
    bool yes = i >= 0 && ST[i].implemented;
    mock__unlock();
    return yes;
}

static int ctl_implemented_count(void) {
    mock__lock();
    know_implemented();
    int n = 0;
    for (int i = 0; i < mock__cuda_entry_count; i++) n += ST[i].implemented;
    mock__unlock();
    return n;
}

static int ctl_entry_count(void) { return mock__cuda_entry_count; }

static const char *ctl_implemented_name(int k) {
    mock__lock();
    know_implemented();
    const char *name = NULL;
    for (int i = 0; i < mock__cuda_entry_count && name == NULL && k >= 0; i++) {
        if (ST[i].implemented && k-- == 0) name = E[i].name;
    }
    mock__unlock();
    return name;
}

void mock__coverage_api(struct cushim_mock_api *api) {
    api->implemented = ctl_implemented;
    api->implemented_count = ctl_implemented_count;
    api->entry_count = ctl_entry_count;
    api->implemented_name = ctl_implemented_name;
}
