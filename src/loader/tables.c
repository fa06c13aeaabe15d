/* A library's tables (the driver has two, legacy and per-thread default stream): filled entry by
 * entry through the library's own lookup, put back to their lazy stubs, and asked which entries
 * resolved. */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "loader/tables.h"

static _Atomic(cushim__tables_listener) listener;

void cushim__tables_listen(cushim__tables_listener fn) { atomic_store(&listener, fn); }

static void tell(const cushim__library *lib, bool filled) {
    cushim__tables_listener fn = atomic_load(&listener);
    if (fn) fn(lib, filled);
}

static void set_slot(const cushim__library *lib, unsigned mode, unsigned i, void *fn) {
    /* Relaxed atomic stores: a trampoline on another thread may read the slot meanwhile. */
    void **slot = (void **)((char *)lib->modes[mode]->live + lib->entries[i].offset);
    __atomic_store_n(slot, fn, __ATOMIC_RELAXED);
}

static void *get_slot(const cushim__library *lib, unsigned mode, unsigned i) {
    void *fn;
    memcpy(&fn, (const char *)lib->modes[mode]->live + lib->entries[i].offset, sizeof fn);
    return fn;
}

static void *missing_stub(const cushim__library *lib, unsigned mode, unsigned i) {
    void *fn;
    memcpy(&fn, (const char *)lib->modes[mode]->missing + lib->entries[i].offset, sizeof fn);
    return fn;
}

static bool *resolved(const cushim__library *lib, unsigned mode, unsigned i) {
    return &lib->resolved[mode * lib->entry_count + i];
}

unsigned cushim__resolve_tables(cushim__library *lib, cushim__lookup_fn lookup, void *ctx,
                                int library_version) {
    unsigned count = 0;
    for (unsigned mode = 0; mode < lib->mode_count; mode++) {
        for (unsigned i = 0; i < lib->entry_count; i++) {
            const cushim__entry *e = &lib->entries[i];
            if (mode == 1 && e->ptds_version == 0) {
                *resolved(lib, 1, i) = *resolved(lib, 0, i);
                set_slot(lib, 1, i, get_slot(lib, 0, i));
                continue;
            }
            int v = mode ? e->ptds_version : e->version;
            /* Asking for a version newer than the library is an error; and an older ABI bound
             * under this header's prototype would be a crash. So such an entry stays a stub. */
            void *fn = v <= library_version ? lookup(ctx, e->base, v, mode) : NULL;
            *resolved(lib, mode, i) = fn != NULL;
            set_slot(lib, mode, i, fn ? fn : missing_stub(lib, mode, i));
            if (mode == 0 && fn) count++;
        }
        for (unsigned k = 0; k < lib->modes[mode]->override_count; k++) {
            const cushim__override *o = &lib->modes[mode]->overrides[k];
            void *fn;
            memcpy(&fn, &o->fn, sizeof fn);
            if (*resolved(lib, mode, o->index)) set_slot(lib, mode, o->index, fn);
        }
    }
    tell(lib, true);
    return count;
}

/* Slot by slot, relaxed atomic stores: a trampoline or a raw call on another thread may read a
 * slot meanwhile (a load that fails puts the tables back while others wait for it). */
static void copy_slots(void *to, const void *from, size_t size) {
    void **dst = to;
    void *const *src = from;
    for (size_t k = 0; k < size / sizeof(void *); k++) {
        void *fn;
        memcpy(&fn, &src[k], sizeof fn);
        __atomic_store_n(&dst[k], fn, __ATOMIC_RELAXED);
    }
}

void cushim__reset_tables(cushim__library *lib) {
    for (unsigned m = 0; m < lib->mode_count; m++) {
        const cushim__mode_tables *t = lib->modes[m];
        copy_slots(t->live, t->lazy, t->size);
        if (t->dropin) copy_slots(t->dropin, t->uninit, t->size);
    }
    memset(lib->resolved, 0, sizeof *lib->resolved * lib->mode_count * lib->entry_count);
    tell(lib, false);
}

void cushim__open_dropin(cushim__library *lib) {
    for (unsigned m = 0; m < lib->mode_count; m++) {
        const cushim__mode_tables *t = lib->modes[m];
        if (t->dropin) copy_slots(t->dropin, t->live, t->size);
    }
}

void cushim__dropin_follow(const cushim__mode_tables *t, size_t offset, void *fn) {
    if (t->dropin == NULL) return;
    void **slot = (void **)((char *)t->dropin + offset);
    void *const *closed = (void *const *)((const char *)t->uninit + offset);
    /* The trampolines read these slots with relaxed atomic loads, so relaxed stores suffice. */
    if (__atomic_load_n(slot, __ATOMIC_RELAXED) != __atomic_load_n(closed, __ATOMIC_RELAXED)) {
        __atomic_store_n(slot, fn, __ATOMIC_RELAXED);
    }
}

bool cushim__table_has(const cushim__library *lib, const char *name) {
    if (name == NULL) return false;
    for (unsigned i = 0; i < lib->entry_count; i++) {
        const cushim__entry *e = &lib->entries[i];
        if (strcmp(e->name, name) == 0 || strcmp(e->symbol, name) == 0) {
            return *resolved(lib, 0, i);
        }
        if (lib->mode_count > 1 && strcmp(e->ptds_symbol, name) == 0) {
            return *resolved(lib, 1, i);
        }
    }
    return false;
}
