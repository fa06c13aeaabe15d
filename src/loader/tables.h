/* Internal: filling and resetting the tables of both default-stream modes (tables.c). */
#ifndef CUSHIM_LOADER_TABLES_H
#define CUSHIM_LOADER_TABLES_H

#include <stdbool.h>

#include "loader/table.h"

/* Fills both tables from the driver's cuGetProcAddress (gpa2: the _v2 ABI, else gpa1): every
 * entry in the legacy mode, and in the per-thread mode those that have a per-thread variant (the
 * others are the same function in both). A slot the driver cannot fill gets its `missing` stub.
 * Returns the legacy entries resolved. */
unsigned cushim__resolve_tables(void *gpa2, void *gpa1, int driver_version);

/* Both tables back to their lazy stubs, nothing resolved. */
void cushim__reset_tables(void);

/* Told after the tables are filled (true) or reset to their lazy stubs (false). Defined by the
 * layer above (src/trace/slots.c), which swaps slots for hooked wrappers; the loader includes
 * nothing of it. */
void cushim__tables_changed(bool filled);

#endif
