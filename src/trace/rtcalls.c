/* Calls of cushim's CUDA runtime in the trace: the generated wrappers of runtime/ call in here
 * while the tracer runs (cushim__trace_runtime is 1), or once to learn whether it should
 * (2: CUSHIM_TRACE not read yet). A line, a span and the summary's row per call, formatted by
 * events.c; the driver calls a runtime call makes are held back in calls mode so that their
 * lines follow its own. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/events.h"
#include "trace/hooks.h"
#include "trace/rtcalls.h"
#include "trace/trace.h"

/* The entries counted since the tracer started, pushed on their first count, never removed. */
static _Atomic(cushim__trace_rt_entry *) counted;
static _Thread_local int depth; /* runtime calls in progress on this thread */

bool cushim__trace_rt_begin(cushim__trace_rt_frame *f, cushim__trace_rt_entry *e,
                            void *const *args) {
    if (atomic_load(&cushim__trace_runtime) == 2) cushim__trace_from_env();
    if (atomic_load(&cushim__trace_runtime) != 1) return false;
    f->entry = e;
    f->args = args;
    f->outer = depth++ == 0;
    bool to_stderr;
    if (f->outer && cushim__trace_calls(&to_stderr)) cushim__event_nest(true, to_stderr);
    f->start_ns = cushim__now_ns();
    return true;
}

static void count(cushim__trace_rt_entry *e, unsigned long long ns, bool failed) {
    if (!atomic_exchange_explicit(&e->listed, true, memory_order_relaxed)) {
        e->next = atomic_load(&counted);
        while (!atomic_compare_exchange_weak(&counted, &e->next, e)) {
        }
    }
    atomic_fetch_add_explicit(&e->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->total, ns, memory_order_relaxed);
    if (failed) atomic_fetch_add_explicit(&e->errors, 1, memory_order_relaxed);
    unsigned long long m = atomic_load_explicit(&e->min, memory_order_relaxed);
    while ((m == 0 || ns < m) &&
           !atomic_compare_exchange_weak_explicit(&e->min, &m, ns ? ns : 1, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    m = atomic_load_explicit(&e->max, memory_order_relaxed);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&e->max, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed)) {
    }
}

void cushim__trace_rt_end(cushim__trace_rt_frame *f, bool failed, const char *result,
                          const char *kernel) {
    cushim__rt_event ev = {f->entry, f->args,     failed,          result,
                           kernel,   f->start_ns, cushim__now_ns()};
    depth--;
    cushim__trace_settle();
    bool to_stderr;
    bool calls = cushim__trace_calls(&to_stderr);
    if (cushim__trace_summary()) count(f->entry, ev.end_ns - ev.start_ns, failed);
    if (calls) cushim__event_rt_line(&ev, to_stderr);
    if (calls && f->outer) cushim__event_nest(false, to_stderr);
    if (cushim__trace_timeline()) cushim__event_rt_span(&ev);
}

void cushim__trace_rt_reset(void) {
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL; e = e->next) {
        atomic_store(&e->calls, 0);
        atomic_store(&e->total, 0);
        atomic_store(&e->min, 0);
        atomic_store(&e->max, 0);
        atomic_store(&e->errors, 0);
    }
}

static int by_total(const void *a, const void *b) {
    const cushim__trace_rt_entry *x = *(cushim__trace_rt_entry *const *)a;
    const cushim__trace_rt_entry *y = *(cushim__trace_rt_entry *const *)b;
    unsigned long long tx = atomic_load(&x->total), ty = atomic_load(&y->total);
    return (tx < ty) - (tx > ty);
}

static double us(unsigned long long ns) { return (double)ns / 1000.0; }

size_t cushim__trace_rt_print(char *buf, size_t cap) {
    size_t n = 0, len = 0;
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL; e = e->next) {
        if (atomic_load(&e->calls) != 0) n++;
    }
    if (n == 0 || cap == 0) return 0;
    cushim__trace_rt_entry **order = malloc(n * sizeof *order);
    if (order == NULL) return 0;
    size_t k = 0;
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL && k < n; e = e->next) {
        if (atomic_load(&e->calls) != 0) order[k++] = e;
    }
    qsort(order, k, sizeof order[0], by_total);
    int w = snprintf(buf, cap, "cushim: runtime calls\n%-40s %10s %12s %10s %10s %10s %8s\n",
                     "function", "calls", "total us", "mean us", "min us", "max us", "errors");
    len = w > 0 ? (size_t)w : 0;
    for (size_t i = 0; i < k && len < cap; i++) {
        const cushim__trace_rt_entry *e = order[i];
        unsigned long long calls = atomic_load(&e->calls), total = atomic_load(&e->total);
        w = snprintf(buf + len, cap - len, "%-40s %10llu %12.3f %10.3f %10.3f %10.3f %8llu\n",
                     e->name, calls, us(total), us(total) / (double)calls, us(atomic_load(&e->min)),
                     us(atomic_load(&e->max)), atomic_load(&e->errors));
        if (w > 0) len += (size_t)w;
    }
    free(order);
    if (len < cap) buf[len++] = '\n';
    return len < cap ? len : cap;
}
