/* Internal: the hook registry that the generated wrappers call (gen/gen-trace.py), and the slot
 * swapping that puts those wrappers in the tables only while a hook is installed. */
#ifndef CUSHIM_TRACE_HOOKS_H
#define CUSHIM_TRACE_HOOKS_H

#include <stdbool.h>

#include "cushim.h"

#define CUSHIM__MAX_HOOKS 64

/* What a wrapper keeps on its stack between the hooks before and after its call. */
typedef struct cushim__hook_frame {
    cushim_hook_call call;
    unsigned long long ran;                     /* records seen before the call */
    unsigned long long seen[CUSHIM__MAX_HOOKS]; /* their state then */
} cushim__hook_frame;

/* Calls the before hooks of entry `index`; false when the call is made from inside a hook on
 * this thread, which then goes straight to the driver (no hooks, no cushim__hooks_after). */
bool cushim__hooks_before(cushim__hook_frame *f, unsigned index, int per_thread, void **args,
                          unsigned count);
void cushim__hooks_after(cushim__hook_frame *f, CUresult r);

/* cushim_hook_add without the checks and the last error: index -1 for every entry. False when
 * every record is taken. */
bool cushim__hook_install(int index, cushim_hook_fn before, cushim_hook_fn after, void *user,
                          unsigned long long *id);

/* Nonzero while exactly one hook is installed and it has a bypass word (that word): the
 * wrappers may then skip the registry and do that hook's work themselves (the tracer's fast
 * path, fast.h). Read with a relaxed load. */
extern _Atomic unsigned long long cushim__hook_bypass;
/* Gives the installed hook `id` its bypass word (0: none); false when id is not installed. */
bool cushim__hook_set_bypass(unsigned long long id, unsigned long long word);

/* CLOCK_MONOTONIC in nanoseconds. */
unsigned long long cushim__now_ns(void);

/* The loader has filled the driver's tables (true) or put their lazy stubs back (false): the
 * slots follow, as the installed hooks want them. */
void cushim__hooks_tables_changed(bool filled);

#endif
