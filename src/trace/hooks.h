/* Internal: the hook registry that the generated wrappers call (gen/gen-trace.py), and the slot
 * swapping that puts those wrappers in the tables only while a hook is installed. */
#ifndef CUSHIM_TRACE_HOOKS_H
#define CUSHIM_TRACE_HOOKS_H

#include <stdbool.h>

#include "cushim.h"

#define CUSHIM__MAX_HOOKS 64

/* One mode's wrappers and the copy of its real slots that they call (generated). */
typedef struct cushim__hook_mode {
    void *real;
    const void *hooked;
} cushim__hook_mode;

extern const cushim__hook_mode cushim__hook_legacy;
extern const cushim__hook_mode cushim__hook_per_thread;

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

/* CLOCK_MONOTONIC in nanoseconds. */
unsigned long long cushim__now_ns(void);

/* Starts the tracer that CUSHIM_TRACE asks for, once per process (trace.c); called by the slot
 * layer when the tables are first filled, with no lock held. */
void cushim__trace_from_env(void);

#endif
