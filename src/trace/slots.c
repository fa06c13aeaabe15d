/* The slots: a wrapper goes into a slot of the table only while a hook covers its entry, so that
 * with no hook the table holds the driver's functions and a call costs what it did before.
 *
 * After the loader fills the tables, the driver's functions are copied as the wrappers' real
 * functions, and the wrappers put back; after it resets them to their lazy stubs, nothing is put
 * in the slots until the next fill (a lazy stub calls through its slot once the driver is
 * loaded, so a wrapper before it would see that call twice). The loader tells of both through
 * its listener (listen.c). */
#include <stdatomic.h>
#include <string.h>

#include "loader/table.h"
#include "loader/tables.h"
#include "trace/slots.h"

static const cushim__mode_tables *const tables[2] = {&cushim__legacy_tables,
                                                     &cushim__per_thread_tables};
static const cushim__hook_mode *const hooked[2] = {&cushim__hook_legacy, &cushim__hook_per_thread};
static atomic_bool filled;
static bool forked; /* a forked child's tables: wrappers around the lazy stubs */

static void **slot_of(const void *table, unsigned i) {
    return (void **)((char *)(uintptr_t)table + cushim__entries[i].offset);
}

/* Other threads may be calling through these slots meanwhile: the trampolines read them with
 * relaxed atomic loads, but cushim's own calls and a user's raw table read them as plain
 * pointers. Each slot is one aligned word, written in one store, so such a reader sees the old
 * function or the new one, both valid to call (a wrapper's real function was copied when the
 * tables were filled). ThreadSanitizer cannot see that a plain load of a word stored atomically
 * is whole, so this writer is not instrumented (and stores with a volatile access, as an atomic
 * builtin would be instrumented anyway). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NOT_TSAN __attribute__((no_sanitize("thread")))
#endif
#endif
#if !defined(NOT_TSAN) && defined(__SANITIZE_THREAD__)
#define NOT_TSAN __attribute__((no_sanitize_thread))
#endif
#if !defined(NOT_TSAN)
#define NOT_TSAN
#endif

NOT_TSAN void cushim__slots_set(const bool want[CUSHIM_TABLE_ENTRIES]) {
    if (!atomic_load(&filled)) return;
    for (int m = 0; m < 2; m++) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            void *fn = __atomic_load_n(slot_of(want[i] ? hooked[m]->hooked : hooked[m]->real, i),
                                       __ATOMIC_RELAXED);
            /* A volatile store: one word, not elided, and not instrumented (above). */
            *(void *volatile *)slot_of(tables[m]->live, i) = fn;
            if (forked && tables[m]->dropin != NULL) {
                /* The drop-in stays closed (its uninit stubs), but for the hooked entries. */
                void *keep =
                    want[i] ? fn : __atomic_load_n(slot_of(tables[m]->uninit, i), __ATOMIC_RELAXED);
                __atomic_store_n(slot_of(tables[m]->dropin, i), keep, __ATOMIC_RELAXED);
                continue;
            }
            cushim__dropin_follow(tables[m], cushim__entries[i].offset, fn);
        }
    }
}

void cushim__slots_filled(void) {
    for (int m = 0; m < 2; m++) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            void *fn = __atomic_load_n(slot_of(tables[m]->live, i), __ATOMIC_RELAXED);
            __atomic_store_n(slot_of(hooked[m]->real, i), fn, __ATOMIC_RELAXED);
        }
    }
    atomic_store(&filled, true);
}

void cushim__slots_reset(void) { atomic_store(&filled, false); }

void cushim__slots_forked(void) {
    forked = true;
    cushim__slots_filled();
}
