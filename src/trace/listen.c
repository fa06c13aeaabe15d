/* How the trace layer hears of the loader: a listener that the loader calls after it fills or
 * resets a library's tables, set from a constructor, so that the loader names nothing above it.
 *
 * The constructor has to run for tracing by CUSHIM_TRACE alone (a program that calls no trace
 * function) to work. In libcushim.so it always does. From libcushim.a a linker takes only the
 * objects something refers to, and nothing refers to this one (the loader naming it would be
 * the dependency upward that this file removes): so the archive holds a single prelinked object
 * (meson.build), which a program that links any of cushim links whole. Meson 1.0 prelinks with
 * gcc only; an archive built by another compiler is plain, and a program linked with it that
 * names nothing of the tracer is not traced by CUSHIM_TRACE alone.
 *
 * It runs before constructors of no priority, so that a program's own constructor that calls
 * the driver (cushim linked statically) finds it set; a fill before it ran (a constructor of
 * priority 101 or less calling the driver) would leave the hooks out of the tables. */
#include <stdbool.h>

#include "common/hints.h"
#include "loader/library_type.h"
#include "loader/table.h"
#include "loader/tables.h"
#include "trace/hooks.h"
#include "trace/trace.h"

static void tables_changed(const cushim__library *lib, bool filled) {
    if (lib->entries != cushim__entries) return; /* hooks are the driver's */
    cushim__hooks_tables_changed(filled);
    if (filled) {
        cushim__trace_from_env();
        cushim__trace_driver_loaded();
    }
}

static CUSHIM__EARLY_CONSTRUCTOR void listen_to_loader(void) {
    cushim__tables_listen(tables_changed);
}
