/* Coverage as data: which entries of cuda.h the mock implements, and the stubs that answer the
 * others with CUDA_ERROR_NOT_SUPPORTED (ARCHITECTURE.md, "The mock driver"). The table of entries
 * and the stubs are generated from cuda.h (gen-mock-stubs.py into mock_stubs.c); an entry is
 * implemented when MOCK_ENTRIES has a row with its base name at its ABI version, the row that
 * cuGetProcAddress hands out when asked at that version. */
#include <stdio.h>
#include <string.h>

#include "mock.h"

/* Computed once, with the lock held: the rows never change. Name lookups are on the path of
 * every counted call (a fuzzer asks calls() after each operation), so the base-name groups are
 * worked out here once rather than by string compares each time. */
static bool implemented_known;

static void know_implemented(void) {
    if (implemented_known) return;
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        int first = i;
        for (int j = 0; j < i; j++) {
            if (strcmp(mock__cuda_entries[j].base, mock__cuda_entries[i].base) == 0) {
                first = j;
                break;
            }
        }
        mock__cuda_entry_states[i].first_of_base = first;
        mock__cuda_entry_states[i].implemented = false;
        for (int r = 0; r < MOCK_ENTRY_COUNT; r++) {
            if (mock__rows[r].version == mock__cuda_entries[i].version &&
                strcmp(mock__rows[r].base, mock__cuda_entries[i].base) == 0) {
                mock__cuda_entry_states[i].implemented = true;
                break;
            }
        }
    }
    implemented_known = true;
}

/* The entry named in any form: as cuda.h writes it, its symbol, its per-thread symbol, or
 * another form of its base name ("cuStreamGetCaptureInfo_v2"); -1 for none. */
static int entry_of_slow(const char *name) {
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        const mock_cuda_entry *e = &mock__cuda_entries[i];
        if (strcmp(name, e->name) == 0 || strcmp(name, e->symbol) == 0 ||
            strcmp(name, e->ptds_symbol) == 0) {
            return i;
        }
    }
    char base[128];
    mock__base_of(name, base, sizeof base);
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        if (strcmp(base, mock__cuda_entries[i].base) == 0) return i;
    }
    return -1;
}

/* The last few names asked, with their answers (the lock is held): a test asks for the same few
 * names over and over, and each slow lookup is up to three string compares per entry. A name is
 * kept as text, so a caller's reused buffer is never mistaken for the name it held before. */
#define NAME_CACHE 8
static struct {
    char name[64];
    int entry;
} name_cache[NAME_CACHE];
static unsigned name_cache_next;

static int entry_of(const char *name) {
    if (name == NULL) return -1;
    for (unsigned k = 0; k < NAME_CACHE; k++) {
        if (name_cache[k].name[0] != '\0' && strcmp(name_cache[k].name, name) == 0) {
            return name_cache[k].entry;
        }
    }
    int i = entry_of_slow(name);
    if (strlen(name) < sizeof name_cache[0].name) {
        unsigned k = name_cache_next++ % NAME_CACHE;
        strcpy(name_cache[k].name, name);
        name_cache[k].entry = i;
    }
    return i;
}

/* The first entry with the base name of entry i: entries of one base share faults and counts. */
static int first_of_base(int i) {
    know_implemented();
    return mock__cuda_entry_states[i].first_of_base;
}

int mock__stub_key(const char *name) {
    int i = entry_of(name);
    return i < 0 ? -1 : MOCK_ENTRY_COUNT + first_of_base(i);
}

CUresult mock__stub_call(int i, bool per_thread) {
    mock__lock();
    mock_state *s = &mock__state;
    const char *name = per_thread ? mock__cuda_entries[i].ptds_symbol : mock__cuda_entries[i].base;
    mock__note_entry(name);
    mock__log_call(name);
    s->total_calls++;
    mock__cuda_entry_states[i].calls++;
    if (per_thread) mock__cuda_entry_states[i].pt_calls++;
    CUresult r = mock__injected(MOCK_ENTRY_COUNT + first_of_base(i));
    if (r != CUDA_SUCCESS) return mock__leave(r);
    /* Once per entry and process, not per reset: the line tells a person, not a test. Not for
     * cuGetExportTable, which only NVIDIA's own libraries call (libnvrtc, at every compile with
     * the mock as libcuda.so.1) and which they expect to fail on a driver without the table. */
    if (!mock__cuda_entry_states[i].said &&
        strcmp(mock__cuda_entries[i].name, "cuGetExportTable") != 0) {
        mock__cuda_entry_states[i].said = true;
        fprintf(stderr, "cushim mock: %s is not implemented, answering CUDA_ERROR_NOT_SUPPORTED\n",
                mock__cuda_entries[i].name);
    }
    mock__why("the mock does not implement %s", mock__cuda_entries[i].name);
    return mock__leave(CUDA_ERROR_NOT_SUPPORTED);
}

CUresult mock__stub_lookup(const char *base, int version, unsigned long long flags,
                           void (**fn)(void), CUdriverProcAddressQueryResult *status) {
    int best = -1;
    bool known = false;
    for (int i = 0; i < mock__cuda_entry_count; i++) {
        if (strcmp(mock__cuda_entries[i].base, base) != 0) continue;
        known = true;
        if (mock__cuda_entries[i].version <= version &&
            (best < 0 || mock__cuda_entries[i].version > mock__cuda_entries[best].version))
            best = i;
    }
    if (best < 0) {
        if (status) {
            *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        }
        return CUDA_ERROR_NOT_FOUND;
    }
    *fn = mock__cuda_entries[best].stub;
    /* As the driver does: the per-thread form where the entry has one at this version, else the
     * legacy one. */
    if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
        mock__cuda_entries[best].stub_pt != NULL &&
        mock__cuda_entries[best].ptds_version <= version) {
        *fn = mock__cuda_entries[best].stub_pt;
    }
    mock__cuda_entry_states[best].handed_out = true;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

/* Sums a count over the entries sharing the base name of the entry named. */
static int sum_for(const char *name, bool pt_only) {
    int i = entry_of(name), n = 0;
    if (i < 0) return 0;
    const int group = first_of_base(i);
    for (int j = group; j < mock__cuda_entry_count; j++) {
        const mock_cuda_entry_state *st = &mock__cuda_entry_states[j];
        if (st->first_of_base == group) n += pt_only ? st->pt_calls : st->calls;
    }
    return n;
}

int mock__stub_calls(const char *name) { return sum_for(name, false); }
int mock__stub_pt_calls(const char *name) { return sum_for(name, true); }

int mock__stubs_handed_out(void) {
    int n = 0;
    for (int i = 0; i < mock__cuda_entry_count; i++) n += mock__cuda_entry_states[i].handed_out;
    return n;
}

void mock__coverage_reset(void) {
    for (int i = 0; i < mock__cuda_entry_count; i++)
        mock__cuda_entry_states[i].calls = mock__cuda_entry_states[i].pt_calls = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Control functions                                                                          */
/* ------------------------------------------------------------------------------------------ */

static bool ctl_implemented(const char *entry) {
    mock__lock();
    know_implemented();
    int i = entry_of(entry);
    bool yes = i >= 0 && mock__cuda_entry_states[i].implemented;
    mock__unlock();
    return yes;
}

static int ctl_implemented_count(void) {
    mock__lock();
    know_implemented();
    int n = 0;
    for (int i = 0; i < mock__cuda_entry_count; i++) n += mock__cuda_entry_states[i].implemented;
    mock__unlock();
    return n;
}

static int ctl_entry_count(void) { return mock__cuda_entry_count; }

static const char *ctl_implemented_name(int k) {
    mock__lock();
    know_implemented();
    const char *name = NULL;
    for (int i = 0; i < mock__cuda_entry_count && name == NULL && k >= 0; i++) {
        if (mock__cuda_entry_states[i].implemented && k-- == 0) name = mock__cuda_entries[i].name;
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
