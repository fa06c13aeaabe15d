/* Calls of cushim's CUDA runtime in the trace: the generated wrappers of runtime/ call in here
 * while the tracer runs (cushim__trace_runtime is 1), or once to learn whether it should
 * (2: CUSHIM_TRACE not read yet). A line, a span and the summary's row per call, formatted by
 * events.c; the driver calls a runtime call makes are held back in calls mode so that their
 * lines follow its own. */
#include <stdatomic.h>

#include "trace/capture.h"
#include "trace/events.h"
#include "trace/hooks.h"
#include "trace/rtcalls.h"
#include "trace/summary.h"
#include "trace/trace.h"
#include "trace/writer.h"

static _Thread_local int depth; /* runtime calls in progress on this thread */

/* The tracer's stop waits for calls inside these, as a hook's removal waits for calls in hooks:
 * a runtime call itself may last (a synchronize), its formatting does not. Either the stop sees
 * the count, or the call sees the tracer stopped (both sequentially consistent). */
static bool enter(void) {
    atomic_fetch_add(&cushim__trace_rt_busy, 1);
    if (atomic_load(&cushim__trace_runtime) == 1) return true;
    atomic_fetch_sub(&cushim__trace_rt_busy, 1);
    return false;
}

static void leave(void) { atomic_fetch_sub(&cushim__trace_rt_busy, 1); }

bool cushim__trace_rt_begin(cushim__trace_rt_frame *f, cushim__trace_rt_entry *e,
                            void *const *args) {
    if (atomic_load(&cushim__trace_runtime) == 2) cushim__trace_from_env();
    if (!enter()) return false;
    f->entry = e;
    f->args = args;
    f->outer = depth++ == 0;
    bool to_stderr;
    if (f->outer && cushim__trace_calls(&to_stderr)) cushim__writer_nest_begin();
    leave();
    f->start_ns = cushim__now_ns();
    return true;
}

void cushim__trace_rt_end(cushim__trace_rt_frame *f, bool failed, const char *result,
                          const char *kernel) {
    cushim__rt_event ev = {f->entry, f->args, failed, result, NULL, f->start_ns, cushim__now_ns()};
    depth--;
    if (!enter()) {
        /* Stopped while the call ran: its line, and the driver lines it held, are dropped. */
        if (f->outer) cushim__event_nest_drop();
        return;
    }
    cushim__trace_settle();
    bool to_stderr;
    bool calls = cushim__trace_calls(&to_stderr);
    if (cushim__trace_summary())
        cushim__summary_rt_count(f->entry, ev.end_ns - ev.start_ns, failed);
    unsigned make = (calls ? CUSHIM__REC_LINE : 0u) |
                    (calls && f->outer ? CUSHIM__REC_NEST_END : 0u) |
                    (cushim__trace_timeline() ? CUSHIM__REC_SPAN : 0u);
    /* The kernel by name: the name the runtime gave may go before the writer formats it. */
    if (make != 0 && kernel != NULL) ev.kernel = cushim__kernels_named(kernel);
    if (make != 0) cushim__writer_rt(&ev, make);
    leave();
}
