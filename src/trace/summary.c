/* The summary: per entry (and mode), calls, total, min and max time, errors; counted with
 * relaxed atomics on the calling thread, printed as a table, most total time first. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/table.h"
#include "trace/summary.h"

typedef cushim__trace_stat stat;

static stat stats[2][CUSHIM_TABLE_ENTRIES];

static void add(stat *s, unsigned long long ns, bool failed) {
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->total, ns, memory_order_relaxed);
    if (failed) atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
    unsigned long long m = atomic_load_explicit(&s->min, memory_order_relaxed);
    while ((m == 0 || ns < m) &&
           !atomic_compare_exchange_weak_explicit(&s->min, &m, ns ? ns : 1, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    m = atomic_load_explicit(&s->max, memory_order_relaxed);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&s->max, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed)) {
    }
}

static void clear(stat *s) {
    atomic_store(&s->calls, 0);
    atomic_store(&s->total, 0);
    atomic_store(&s->min, 0);
    atomic_store(&s->max, 0);
    atomic_store(&s->errors, 0);
}

void cushim__summary_count(const cushim_hook_call *c) {
    /* An entry that is the same function in both modes is counted once. */
    stat *s = &stats[c->per_thread && cushim__entries[c->index].ptds_version != 0][c->index];
    add(s, c->end_ns - c->start_ns, c->result != CUDA_SUCCESS);
}

void cushim__summary_reset(void) {
    for (int m = 0; m < 2; m++) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            clear(&stats[m][i]);
        }
    }
}

static int by_total(const void *a, const void *b) {
    const stat *x = *(const stat *const *)a, *y = *(const stat *const *)b;
    unsigned long long tx = atomic_load(&x->total), ty = atomic_load(&y->total);
    return (tx < ty) - (tx > ty);
}

static double us(unsigned long long ns) { return (double)ns / 1000.0; }

/* One row of a table, its name `width` wide; the bytes it took. */
static size_t row(char *buf, size_t cap, int width, const char *name, const stat *s) {
    unsigned long long calls = atomic_load(&s->calls), total = atomic_load(&s->total);
    int w = snprintf(buf, cap, "%-*s %10llu %12.3f %10.3f %10.3f %10.3f %8llu\n", width, name,
                     calls, us(total), us(total) / (double)calls, us(atomic_load(&s->min)),
                     us(atomic_load(&s->max)), atomic_load(&s->errors));
    return w > 0 ? (size_t)w : 0;
}

/* The table, into buf (cut when it does not fit); returns its length. */
size_t cushim__summary_print(char *buf, size_t cap) {
    static const stat *order[2 * CUSHIM_TABLE_ENTRIES];
    size_t n = 0, len = 0;
    for (int m = 0; m < 2; m++) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            if (atomic_load(&stats[m][i].calls) != 0) order[n++] = &stats[m][i];
        }
    }
    qsort(order, n, sizeof order[0], by_total);
    int w = snprintf(buf, cap, "cushim: driver calls\n%-40s %10s %12s %10s %10s %10s %8s\n",
                     "entry", "calls", "total us", "mean us", "min us", "max us", "errors");
    len = w > 0 ? (size_t)w : 0;
    for (size_t k = 0; k < n && len < cap; k++) {
        const stat *s = order[k];
        int m = s >= stats[1] ? 1 : 0;
        const cushim__entry *e = &cushim__entries[s - stats[m]];
        len += row(buf + len, cap - len, 40, m ? e->ptds_symbol : e->name, s);
    }
    return len < cap ? len : cap;
}

/* ------------------------------------------------------------------------------------------ */
/* The runtime's calls (cushim's CUDA runtime, rtcalls.c)                                     */
/* ------------------------------------------------------------------------------------------ */

/* The entries counted since the tracer started, pushed on their first count, never removed. */
static _Atomic(cushim__trace_rt_entry *) counted;

void cushim__summary_rt_count(cushim__trace_rt_entry *e, unsigned long long ns, bool failed) {
    if (!atomic_exchange_explicit(&e->listed, true, memory_order_relaxed)) {
        e->next = atomic_load(&counted);
        while (!atomic_compare_exchange_weak(&counted, &e->next, e)) {
        }
    }
    add(&e->stat, ns, failed);
}

void cushim__summary_rt_reset(void) {
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL; e = e->next) clear(&e->stat);
}

size_t cushim__summary_rt_print(char *buf, size_t cap) {
    size_t n = 0;
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL; e = e->next) n++;
    const stat **order = n > 0 && cap > 0 ? malloc(n * sizeof *order) : NULL;
    if (order == NULL) return 0;
    size_t k = 0;
    for (cushim__trace_rt_entry *e = atomic_load(&counted); e != NULL && k < n; e = e->next) {
        if (atomic_load(&e->stat.calls) != 0) order[k++] = &e->stat;
    }
    qsort(order, k, sizeof order[0], by_total);
    int w = snprintf(buf, cap, "cushim: runtime calls\n%-48s %10s %12s %10s %10s %10s %8s\n",
                     "function", "calls", "total us", "mean us", "min us", "max us", "errors");
    size_t len = w > 0 ? (size_t)w : 0;
    for (size_t i = 0; i < k && len < cap; i++) {
        const cushim__trace_rt_entry *e =
            (const cushim__trace_rt_entry *)(const void *)((const char *)order[i] -
                                                           offsetof(cushim__trace_rt_entry, stat));
        len += row(buf + len, cap - len, 48, e->name, order[i]);
    }
    free(order);
    if (k == 0) return 0;
    if (len < cap) buf[len++] = '\n';
    return len < cap ? len : cap;
}
