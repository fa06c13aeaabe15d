/* Internal: the table slots that hold hooked wrappers, and the registry's lock around them. */
#ifndef CUSHIM_TRACE_SLOTS_H
#define CUSHIM_TRACE_SLOTS_H

#include <stdbool.h>

#include "cushim.h"

/* Puts the wrapper in the slots of the entries `want` marks, in both modes, and the real
 * function back in the others; nothing while the tables are not filled (then the lazy stubs
 * hold the slots, and the fill calls back here). Called with the registry's lock held. */
void cushim__slots_set(const bool want[CUSHIM_TABLE_ENTRIES]);

/* The registry (hooks.c): its lock, and the slots put as its hooks want them, under it. */
void cushim__hooks_lock(void);
void cushim__hooks_unlock(void);
void cushim__hooks_refresh_locked(void);

#endif
