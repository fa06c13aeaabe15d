/* The trace writer: each thread's ring is written by that thread alone and read by one
 * formatter at a time (under the thread's fmt lock), so a record costs the calling thread a copy
 * and two atomic stores. The background thread wakes every millisecond, or when a ring is half
 * full, formats what every ring holds and writes it. A full ring makes its thread format its own
 * records (when no other formatter holds them) or wait; after a second of waiting the record is
 * dropped and counted, and the trace says so. A forked child has no writer thread. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/hints.h"
#include "loader/table.h"
#include "trace/entry_info.h"
#include "trace/events.h"
#include "trace/format.h"
#include "trace/ids.h"
#include "trace/output.h"
#include "trace/writer.h"

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static bool stopping;           /* under wake_lock */
static atomic_bool thread_runs; /* the background thread exists (in this process) */
static pthread_t thread;
static bool to_stderr, lines, spans, background; /* set while no record is made */
static atomic_ulong dropped_total;
/* Per entry: every argument one word (cushim__rec_all_scalar), found once. */
static bool dense[CUSHIM_TABLE_ENTRIES];
static pthread_once_t dense_once = PTHREAD_ONCE_INIT;

static void find_dense(void) {
    for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
        dense[i] =
            cushim__rec_all_scalar(cushim__trace_entries[i].args, cushim__trace_entries[i].count);
    }
}
/* A forked child formats its records on the thread that makes them: a new thread in the child
 * of a threaded process is more than POSIX promises (ThreadSanitizer refuses it). */
static bool forked;

static cushim__rec *slot(cushim__tbuf *b, size_t i) {
    return (cushim__rec *)(void *)(b->ring + (i & (CUSHIM__RING - 1)) * CUSHIM__REC_SIZE);
}

/* The records a thread could not append, said where they would have been. */
static void tell_dropped(cushim__tbuf *b) {
    unsigned long d = atomic_load_explicit(&b->dropped, memory_order_relaxed);
    if (d == b->dropped_told) return;
    char line[200];
    int n = snprintf(line, sizeof line,
                     "[cushim %ld] %lu calls not traced: the trace writer fell behind\n", b->tid,
                     d - b->dropped_told);
    if (lines && to_stderr && n > 0) cushim__out_write_all(STDERR_FILENO, line, (size_t)n);
    if (lines && !to_stderr && n > 0) cushim__tbuf_put(b, line, (size_t)n);
    n = snprintf(line, sizeof line,
                 ",\n{\"name\":\"%lu calls not traced: the trace writer fell behind\",\"ph\":"
                 "\"i\",\"s\":\"t\",\"ts\":0,\"pid\":%ld,\"tid\":%ld}",
                 d - b->dropped_told, cushim__trace_pid(), b->tid);
    if (spans && n > 0) cushim__tbuf_put(b, line, (size_t)n);
    b->dropped_told = d;
}

static void format(cushim__tbuf *b, cushim__rec *r) {
    cushim__tbuf_room(b);
    void *args[CUSHIM__REC_ARGS];
    switch (r->kind) {
    case CUSHIM__REC_CALL: {
        const cushim__entry *e = &cushim__entries[r->index];
        cushim_hook_call c = {e->name,   r->per_thread ? e->ptds_symbol : e->symbol,
                              r->index,  r->per_thread != 0,
                              r->argc,   (void *const *)args,
                              r->result, r->start_ns,
                              r->end_ns};
        cushim__rec_args(r, args);
        if (r->make & CUSHIM__REC_LINE) cushim__event_line(b, &c, r->kernel, to_stderr);
        if (r->make & CUSHIM__REC_SPAN) {
            cushim__event_timeline(b, &c, r->kernel, r->has_stream, (CUstream)r->stream);
        }
        break;
    }
    case CUSHIM__REC_RT: {
        cushim__rec_args(r, args);
        cushim__rt_event ev = {r->rt,     (void *const *)args, r->failed, r->rt_result,
                               r->kernel, r->start_ns,         r->end_ns};
        if (r->make & CUSHIM__REC_LINE) cushim__event_rt_line(b, &ev, to_stderr);
        if (r->make & CUSHIM__REC_NEST_END) cushim__event_nest(b, false, to_stderr);
        if (r->make & CUSHIM__REC_SPAN) cushim__event_rt_span(b, &ev);
        break;
    }
    case CUSHIM__REC_NEST_BEGIN: cushim__event_nest(b, true, to_stderr); break;
    case CUSHIM__REC_KERNEL:
        cushim__event_kernel(b, r->kernel, r->u.k.grid, r->u.k.block, (CUstream)r->stream,
                             r->start_ns, r->end_ns, r->u.k.instructions);
        break;
    default: break;
    }
}

/* Formats what b's ring holds; under b's fmt lock. */
static void pump(cushim__tbuf *b) {
    size_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
    size_t h = atomic_load_explicit(&b->head, memory_order_acquire);
    for (; t != h; t++) {
        format(b, slot(b, t));
        /* The slots formatted so far handed back now and then, not at each record. */
        if ((t & 63) == 63) atomic_store_explicit(&b->tail, t + 1, memory_order_release);
    }
    atomic_store_explicit(&b->tail, t, memory_order_release);
    tell_dropped(b);
}

static void pump_locked(cushim__tbuf *b) {
    pthread_mutex_lock(&b->fmt);
    pump(b);
    pthread_mutex_unlock(&b->fmt);
}

/* The writer's pass: a ring whose thread formats it now (its line to stderr may wait on a full
 * pipe) is left to that thread, rather than hold up the others'. */
static void pump_if_free(cushim__tbuf *b) {
    if (pthread_mutex_trylock(&b->fmt) != 0) return;
    pump(b);
    pthread_mutex_unlock(&b->fmt);
}

static void drain_one(cushim__tbuf *b) {
    pthread_mutex_lock(&b->fmt);
    pump(b);
    cushim__tbuf_flush(b);
    pthread_mutex_unlock(&b->fmt);
}

static void wake(void) {
    pthread_mutex_lock(&wake_lock);
    pthread_cond_signal(&wake_cond);
    pthread_mutex_unlock(&wake_lock);
}

static void *writer_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&wake_lock);
    while (!stopping) {
        pthread_mutex_unlock(&wake_lock);
        cushim__tbuf_each(pump_if_free);
        pthread_mutex_lock(&wake_lock);
        if (stopping) break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        (void)pthread_cond_timedwait(&wake_cond, &wake_lock, &until);
    }
    pthread_mutex_unlock(&wake_lock);
    return NULL;
}

void cushim__writer_config(bool calls, bool calls_to_stderr, bool timeline) {
    lines = calls;
    to_stderr = calls && calls_to_stderr;
    spans = timeline;
    background = (calls && !calls_to_stderr) || timeline;
    (void)pthread_once(&dense_once, find_dense);
    atomic_store(&dropped_total, 0);
}

bool cushim__writer_start(void) {
    pthread_mutex_lock(&wake_lock);
    bool want = background && !forked && !atomic_load(&thread_runs);
    stopping = false;
    pthread_mutex_unlock(&wake_lock);
    if (!want) return true;
    /* The writer takes no signal meant for the program's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool made = pthread_create(&thread, NULL, writer_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_store(&thread_runs, made);
    return made;
}

unsigned long cushim__writer_drain(void) {
    if (atomic_load(&thread_runs)) {
        pthread_mutex_lock(&wake_lock);
        stopping = true;
        pthread_cond_signal(&wake_cond);
        pthread_mutex_unlock(&wake_lock);
        (void)pthread_join(thread, NULL);
        atomic_store(&thread_runs, false);
    }
    cushim__tbuf_each(drain_one);
    return atomic_load(&dropped_total);
}

/* A full ring: the thread formats its own records if no formatter holds them, else waits for
 * the formatter, a second at most. */
static CUSHIM__COLD bool wait_room(cushim__tbuf *b, size_t h) {
    if (atomic_load_explicit(&thread_runs, memory_order_relaxed)) wake();
    for (int k = 0; k < 20000; k++) {
        if (pthread_mutex_trylock(&b->fmt) == 0) {
            pump(b);
            pthread_mutex_unlock(&b->fmt);
        }
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (h - b->tail_seen < CUSHIM__RING) return true;
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&dropped_total, 1, memory_order_relaxed);
    return false;
}

cushim__rec *cushim__ring_reserve(cushim__tbuf *b) {
    size_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    if (CUSHIM__UNLIKELY(h - b->tail_seen >= CUSHIM__RING)) {
        /* Full when last looked: the formatter's tail only now (its line is the formatter's). */
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (h - b->tail_seen >= CUSHIM__RING && !wait_room(b, h)) return NULL;
    }
    return slot(b, h);
}

void cushim__ring_commit(cushim__tbuf *b) {
    size_t h = atomic_load_explicit(&b->head, memory_order_relaxed) + 1;
    atomic_store_explicit(&b->head, h, memory_order_release);
    if (to_stderr || forked) {
        pump_locked(b);
        return;
    }
    /* The writer told every half ring's worth of records, whether it keeps up or not. */
    if (CUSHIM__UNLIKELY((h & (CUSHIM__RING / 2 - 1)) == 0) &&
        atomic_load_explicit(&thread_runs, memory_order_relaxed)) {
        wake();
    }
}

/* A forked child has no writer thread (its first traced call starts one), and its locks may
 * have been held by the parent's threads. */
static void after_fork_child(void) {
    pthread_mutex_init(&wake_lock, NULL);
    pthread_cond_init(&wake_cond, NULL);
    atomic_store(&thread_runs, false);
    stopping = false;
    forked = true;
}
static CUSHIM__CONSTRUCTOR void writer_register_fork(void) {
    cushim__tbuf_set_pump(pump);
    pthread_atfork(NULL, NULL, after_fork_child);
}

void cushim__writer_call(const cushim_hook_call *c, const cushim__kernel *k, unsigned make) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    r->kind = CUSHIM__REC_CALL;
    r->make = (unsigned char)make;
    r->per_thread = c->per_thread;
    r->index = (unsigned short)c->index;
    r->result = c->result;
    r->start_ns = c->start_ns;
    r->end_ns = c->end_ns;
    r->kernel = k;
    /* The stream now: a launch's may be in the caller's CUlaunchConfig, gone after the call. */
    CUstream s = NULL;
    r->has_stream = (make & CUSHIM__REC_SPAN) && cushim__call_stream(c, &s);
    r->stream = (uintptr_t)s;
    unsigned n = e->count < c->arg_count ? e->count : c->arg_count;
    if (dense[c->index]) {
        cushim__rec_capture_dense(r, e->args, n, c->args, c->result != CUDA_SUCCESS);
    } else {
        cushim__rec_capture(r, e->args, n, c->args, c->result != CUDA_SUCCESS);
    }
    cushim__ring_commit(b);
}

void cushim__writer_rt(const cushim__rt_event *ev, unsigned make) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_RT;
    r->make = (unsigned char)make;
    r->rt = ev->entry;
    r->rt_result = ev->result;
    r->kernel = ev->kernel;
    r->start_ns = ev->start_ns;
    r->end_ns = ev->end_ns;
    cushim__rec_capture(r, ev->entry->args, ev->entry->count, ev->args, ev->failed);
    cushim__ring_commit(b);
}

void cushim__writer_nest_begin(void) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_NEST_BEGIN;
    cushim__ring_commit(b);
}

void cushim__writer_kernel(const cushim__kernel *k, const unsigned grid[3], const unsigned block[3],
                           CUstream stream, unsigned long long start_ns, unsigned long long end_ns,
                           unsigned long long thread_instructions) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_KERNEL;
    r->kernel = k;
    memcpy(r->u.k.grid, grid, sizeof r->u.k.grid);
    memcpy(r->u.k.block, block, sizeof r->u.k.block);
    r->stream = (uintptr_t)stream;
    r->start_ns = start_ns;
    r->end_ns = end_ns;
    r->u.k.instructions = thread_instructions;
    cushim__ring_commit(b);
}
