/* Internal: the table slots that hold hooked wrappers. Below the hook registry (hooks.c), which
 * says which entries want them. */
#ifndef CUSHIM_TRACE_SLOTS_H
#define CUSHIM_TRACE_SLOTS_H

#include <stdbool.h>

#include "cushim.h"

/* One mode's wrappers and the copy of its real slots that they call (generated). */
typedef struct cushim__hook_mode {
    void *real;
    const void *hooked;
} cushim__hook_mode;

extern const cushim__hook_mode cushim__hook_legacy;
extern const cushim__hook_mode cushim__hook_per_thread;

/* Puts the wrapper in the slots of the entries `want` marks, in both modes, and the real
 * function back in the others; nothing while the tables are not filled (then the lazy stubs
 * hold the slots, and the fill calls back here). Called with the registry's lock held. */
void cushim__slots_set(const bool want[CUSHIM_TABLE_ENTRIES]);

/* The loader has filled the driver's tables: their functions become the wrappers' real ones,
 * and cushim__slots_set may put wrappers in. Called with the registry's lock held, before
 * cushim__slots_set. */
void cushim__slots_filled(void);

/* The loader has put the driver's lazy stubs back: nothing goes in the slots until the next
 * fill. Takes no lock. */
void cushim__slots_reset(void);

/* In a child forked after the driver was loaded: the lazy stubs the loader put back answer
 * every call there and never load again, so they become the wrappers' real functions, and the
 * drop-in's closed table takes the wrappers of the hooked entries. Called with the registry's
 * lock held, before cushim__slots_set. */
void cushim__slots_forked(void);

#endif
