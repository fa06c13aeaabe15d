/* The two tables (legacy and per-thread default stream): filled from the driver's
 * cuGetProcAddress, put back to their lazy stubs, and asked which entries the driver has. */
#include <stdbool.h>
#include <string.h>

#include "loader/tables.h"

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
                            CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

/* The tables of both default-stream modes (generated, each defined in its own file): index 0
 * legacy, 1 per-thread. Each starts as its lazy stubs, so no slot is ever NULL. */
static const cushim__mode_tables *const modes[2] = {&cushim__legacy_tables,
                                                    &cushim__per_thread_tables};

static bool resolved[2][CUSHIM_TABLE_ENTRIES];

static void set_slot(int mode, unsigned i, void *fn) {
    /* Relaxed atomic stores: a trampoline on another thread may read the slot meanwhile. */
    void **slot = (void **)((char *)modes[mode]->live + cushim__entries[i].offset);
    __atomic_store_n(slot, fn, __ATOMIC_RELAXED);
}

static void *get_slot(int mode, unsigned i) {
    void *fn;
    memcpy(&fn, (const char *)modes[mode]->live + cushim__entries[i].offset, sizeof fn);
    return fn;
}

static void *missing_stub(int mode, unsigned i) {
    void *fn;
    memcpy(&fn, (const char *)modes[mode]->missing + cushim__entries[i].offset, sizeof fn);
    return fn;
}

/* Asks the driver for one entry at `version` in one default-stream mode; NULL when it lacks it. */
static void *ask(void *gpa2, void *gpa1, const char *base, int version, int mode) {
    const cuuint64_t flags =
        mode ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
    void *fn = NULL;
    CUresult r;
    if (gpa2) {
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        gpa2_fn gpa;
        memcpy(&gpa, &gpa2, sizeof gpa);
        r = gpa(base, &fn, version, flags, &st);
        if (st != CU_GET_PROC_ADDRESS_SUCCESS) r = CUDA_ERROR_NOT_FOUND;
    } else {
        gpa1_fn gpa;
        memcpy(&gpa, &gpa1, sizeof gpa);
        r = gpa(base, &fn, version, flags);
    }
    return r == CUDA_SUCCESS ? fn : NULL;
}

/* Fills both tables: every entry in the legacy mode, and in the per-thread mode those that have
 * a per-thread variant (the others are the same function in both). A slot the driver cannot
 * fill gets its `missing` stub. Returns the legacy entries resolved. */
unsigned cushim__resolve_tables(void *gpa2, void *gpa1, int driver_version) {
    unsigned count = 0;
    for (int mode = 0; mode < 2; mode++) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            const cushim__entry *e = &cushim__entries[i];
            if (mode == 1 && e->ptds_version == 0) {
                resolved[1][i] = resolved[0][i];
                set_slot(1, i, get_slot(0, i));
                continue;
            }
            int v = mode ? e->ptds_version : e->version;
            /* Asking for a version newer than the driver is an error; and an older ABI bound
             * under this header's prototype would be a crash. So such an entry stays a stub. */
            void *fn = v <= driver_version ? ask(gpa2, gpa1, e->base, v, mode) : NULL;
            resolved[mode][i] = fn != NULL;
            set_slot(mode, i, fn ? fn : missing_stub(mode, i));
            if (mode == 0 && fn) count++;
        }
        for (unsigned k = 0; k < modes[mode]->override_count; k++) {
            const cushim__override *o = &modes[mode]->overrides[k];
            void *fn;
            memcpy(&fn, &o->fn, sizeof fn);
            if (resolved[mode][o->index]) set_slot(mode, o->index, fn);
        }
    }
    cushim__tables_changed(true);
    return count;
}

/* Every slot back to its lazy stub, nothing resolved: before a load, and in a forked child. Plain
 * copies: no other thread calls through the tables then (a forked child has one thread; a test
 * reinit is documented to run alone). */
void cushim__reset_tables(void) {
    for (int m = 0; m < 2; m++) {
        memcpy(modes[m]->live, modes[m]->lazy, sizeof(cushim_driver_table));
    }
    memset(resolved, 0, sizeof resolved);
    cushim__tables_changed(false);
}

static int find_entry(const char *name) {
    if (name == NULL) return -1;
    for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
        const cushim__entry *e = &cushim__entries[i];
        if (strcmp(e->name, name) == 0 || strcmp(e->symbol, name) == 0) return (int)i;
        if (strcmp(e->ptds_symbol, name) == 0) return (int)(i + CUSHIM_TABLE_ENTRIES);
    }
    return -1;
}

CUSHIM_API bool cushim_driver_has(const char *entry) {
    if (cushim_init() != CUDA_SUCCESS) return false;
    int i = find_entry(entry);
    if (i < 0) return false;
    return i < (int)CUSHIM_TABLE_ENTRIES ? resolved[0][i]
                                         : resolved[1][i - (int)CUSHIM_TABLE_ENTRIES];
}
