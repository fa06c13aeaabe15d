/* Internal: filling and resetting a library's tables, and asking what resolved (tables.c). */
#ifndef CUSHIM_LOADER_TABLES_H
#define CUSHIM_LOADER_TABLES_H

#include <stdbool.h>

#include "loader/library_type.h"

/* The library's own way to find one entry: its function for `base` at ABI `version` in default-
 * stream mode `mode` (0 legacy, 1 per-thread), or NULL when it has none. */
typedef void *(*cushim__lookup_fn)(void *ctx, const char *base, int version, int mode);

/* Fills every mode's table through `lookup`: every entry in mode 0, and in mode 1 those that
 * have a per-thread variant (the others are the same function in both). An entry newer than
 * `library_version`, or one the lookup does not find, gets its `missing` stub. Returns the
 * entries of mode 0 resolved. */
unsigned cushim__resolve_tables(cushim__library *lib, cushim__lookup_fn lookup, void *ctx,
                                int library_version);

/* Every table back to its lazy stubs, the drop-in's to its uninit stubs, nothing resolved. */
void cushim__reset_tables(cushim__library *lib);

/* The drop-in's tables take the live ones: once the library is initialised, the trampolines
 * reach it. */
void cushim__open_dropin(cushim__library *lib);

/* A slot of `t`'s live table was just set to `fn` by a layer above (the hooks): the drop-in's
 * copy of it, once the program's cuInit has opened it, follows, or drop-in calls would go
 * around the change. Before it is open its stubs answer "not initialised", and the few that
 * pass through call the live slot. */
void cushim__dropin_follow(const cushim__mode_tables *t, size_t offset, void *fn);

/* Whether the entry named `name` (as the header declares it, or the symbol it reaches in either
 * mode) resolved. */
bool cushim__table_has(const cushim__library *lib, const char *name);

/* Told after a library's tables are filled (true) or put back to their lazy stubs (false). */
typedef void (*cushim__tables_listener)(const cushim__library *lib, bool filled);

/* Sets the one listener. The layer above (src/trace) sets it from a constructor, which swaps the
 * driver's slots for hooked wrappers: so the loader calls nothing above it by name. NULL stops
 * the calls. */
void cushim__tables_listen(cushim__tables_listener fn);

#endif
