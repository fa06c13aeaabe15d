/* The mock as libcuda.so.1: every symbol of cuda.h is exported under its plain name
 * (cuDeviceGetCount, cuMemAlloc_v2, cuLaunchKernel_ptsz), generated with the stubs
 * (gen/gen-mock-stubs.py) as a jump through a slot. This fills the slots when the library is
 * loaded, with what cuGetProcAddress answers for the entry at the ABI its prototype has in
 * cuda.h (the per-thread form for a per-thread symbol): the implementation, or the stub that
 * answers CUDA_ERROR_NOT_SUPPORTED. Nothing is recorded: a lookup's records are cuGetProcAddress's.
 *
 * The plain names capture nothing of cushim's: the loader opens a driver RTLD_LOCAL, so its
 * symbols never join the process's global scope, and the mock itself calls its entries by
 * their mock_ names, never through the plain ones. A program that loads the mock by the name
 * libcuda.so.1 (LD_LIBRARY_PATH, -lcuda) gets them, as it would the driver's.
 */
#include <string.h>

#include "mock.h"

int mock__best_row(const char *base, int version, bool *known) {
    int best = -1;
    *known = false;
    for (int i = 0; i < MOCK_ENTRY_COUNT; i++) {
        if (strcmp(mock__rows[i].base, base) != 0) continue;
        *known = true;
        if (mock__rows[i].version <= version &&
            (best < 0 || mock__rows[i].version > mock__rows[best].version)) {
            best = i;
        }
    }
    return best;
}

static void (*plain_fn(const mock_cuda_entry *e, bool per_thread))(void) {
    int version = per_thread ? e->ptds_version : e->version;
    bool known;
    int row = mock__best_row(e->base, version, &known);
    if (row < 0) return per_thread && e->stub_pt != NULL ? e->stub_pt : e->stub;
    void (*fn)(void) = mock__rows[row].fn;
    if (per_thread) {
        void (*pt)(void) = mock__pt_for_row(row, version);
        if (pt != NULL) fn = pt;
    }
    return fn;
}

__attribute__((constructor)) static void fill_plain_slots(void) {
    for (int k = 0; k < mock__plain_count; k++) {
        const mock_plain *p = &mock__plains[k];
        mock__plain_slots[k] = plain_fn(&mock__cuda_entries[p->entry], p->per_thread);
    }
}
