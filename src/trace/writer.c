/* The trace writer: each thread's ring is written by that thread alone and read by one
 * formatter at a time (under the thread's fmt lock), so a record costs the calling thread a copy
 * and an atomic store. A ring is made of cache-line cells, and a record takes as few as it needs
 * (a stream query one, a launch three): each cell the formatter reads, on another core, is a line
 * the calling thread must take back when it writes there again, and that wait, not the copy, was
 * most of a short call's cost when every record took a fixed 512 bytes.
 *
 * The background thread formats what every ring holds and writes it; while records come it
 * passes again every BUSY_US microseconds, keeping pace with the calls (at once while a pass
 * finds BEHIND_CELLS cells or more: it is behind). Idle, it waits a millisecond, or until a
 * thread has made WAKE_CELLS cells of records (one wake per burst of calls: a busy writer is not
 * told), or a ring is half full. A full ring makes its thread format its own records (when no
 * other formatter holds them; the writer holds a ring's lock for CHUNK_CELLS at a time) or wait;
 * after a second of waiting the record is dropped and counted, and the trace says so. A forked
 * child has no writer thread. */
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
#include "trace/clock.h"
#include "trace/entry_info.h"
#include "trace/events.h"
#include "trace/format.h"
#include "trace/ids.h"
#include "trace/output.h"
#include "trace/writer.h"

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static bool stopping; /* under wake_lock */
static bool started;  /* under wake_lock: the thread has begun writer_main */
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static atomic_bool thread_runs; /* the background thread exists (in this process) */
/* The writer waits the long wait: set under wake_lock, read by the threads without it. */
static atomic_bool writer_idle;
static pthread_t thread;
static bool to_stderr, lines, spans, background; /* set while no record is made */
static atomic_ulong dropped_total;
/* A forked child formats its records on the thread that makes them: a new thread in the child
 * of a threaded process is more than POSIX promises (ThreadSanitizer refuses it). */
static bool forked;

/* The writer's pause between two passes that found records, and when a pass found none. */
#define BUSY_US 50
#define IDLE_US 1000
/* A pass that found this much passes again at once. */
#define BEHIND_CELLS 64
/* What the writer formats of a ring under one hold of its lock. */
#define CHUNK_CELLS 256

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

_Atomic unsigned cushim__writer_run;

static void format(cushim__tbuf *b, cushim__rec *r) {
    cushim__tbuf_room(b);
    void *args[CUSHIM__REC_ARGS];
    switch (r->kind) {
    case CUSHIM__REC_CALL: {
        unsigned long long start = r->start_ns, end = r->end_ns;
        if (r->run != 0) {
            /* The fast path's: a call that began before a stop and ended after it is left out
             * (it is not of this run), and its ticks become nanoseconds. */
            if (r->run != atomic_load_explicit(&cushim__writer_run, memory_order_relaxed)) break;
            cushim__clock_to_ns(&b->clock_line, &start, &end);
        }
        const cushim__entry *e = &cushim__entries[r->index];
        cushim_hook_call c = {e->name,   r->per_thread ? e->ptds_symbol : e->symbol,
                              r->index,  r->per_thread != 0,
                              r->argc,   (void *const *)args,
                              r->result, start,
                              end};
        cushim__rec_args(r, args);
        if (r->make & CUSHIM__REC_LINE) cushim__event_line(b, &c, r->kernel, to_stderr);
        if (r->make & CUSHIM__REC_SPAN) {
            cushim__event_timeline(b, &c, r->kernel, r->has_stream, (CUstream)r->stream);
        }
        break;
    }
    case CUSHIM__REC_RT: {
        cushim__rec_args(r, args);
        cushim__rt_event ev = {r->u.rt.rt, (void *const *)args, r->failed, r->u.rt.result,
                               r->kernel,  r->start_ns,         r->end_ns};
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

/* Formats what b's ring holds, `most` cells or a record more at most; under b's fmt lock.
 * Returns the cells it formatted. */
static size_t pump_some(cushim__tbuf *b, size_t most) {
    size_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
    size_t h = atomic_load_explicit(&b->head, memory_order_acquire);
    size_t told = t, from = t;
    while (t != h && t - from < most) {
        cushim__rec *r = cushim__ring_cell(b, t);
        if (r->kind != CUSHIM__REC_SKIP) format(b, r);
        t += r->cells;
        /* The cells formatted so far handed back now and then, not at each record. */
        if (t - told >= CUSHIM__RING / 16) {
            atomic_store_explicit(&b->tail, t, memory_order_release);
            told = t;
        }
    }
    atomic_store_explicit(&b->tail, t, memory_order_release);
    tell_dropped(b);
    return t - from;
}

static size_t pump(cushim__tbuf *b) { return pump_some(b, (size_t)-1); }

/* What a thread's exit formats (tbuf.c), its fmt lock held there. */
static void pump_locked_by_caller(cushim__tbuf *b) { (void)pump(b); }

static void pump_locked(cushim__tbuf *b) {
    pthread_mutex_lock(&b->fmt);
    (void)pump(b);
    pthread_mutex_unlock(&b->fmt);
}

/* The writer's pass: a ring whose thread formats it now (its line to stderr may wait on a full
 * pipe) is left to that thread, rather than hold up the others'. */
static size_t pass_cells; /* the writer thread's: what its current pass formatted */
/* The writer's pass over b: a chunk at a time, so that a thread whose ring is full can take the
 * lock between two chunks and format its records itself, rather than wait for a writer that the
 * scheduler stopped while it held the lock (on a machine with more threads than cores). */
static void pump_if_free(cushim__tbuf *b) {
    for (;;) {
        if (pthread_mutex_trylock(&b->fmt) != 0) return;
        size_t n = pump_some(b, CHUNK_CELLS);
        pthread_mutex_unlock(&b->fmt);
        pass_cells += n;
        if (n < CHUNK_CELLS) return;
    }
}

static void drain_one(cushim__tbuf *b) {
    pthread_mutex_lock(&b->fmt);
    (void)pump(b);
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
    started = true;
    pthread_cond_broadcast(&start_cond);
    while (!stopping) {
        pthread_mutex_unlock(&wake_lock);
        pass_cells = 0;
        cushim__tbuf_each(pump_if_free);
        pthread_mutex_lock(&wake_lock);
        if (stopping) break;
        /* Behind the calls: the next pass at once. */
        if (pass_cells >= BEHIND_CELLS) continue;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (pass_cells != 0 ? BUSY_US : IDLE_US) * 1000L;
        /* Written only when it changes: the threads read its line. */
        if (atomic_load_explicit(&writer_idle, memory_order_relaxed) != (pass_cells == 0)) {
            atomic_store_explicit(&writer_idle, pass_cells == 0, memory_order_relaxed);
        }
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
    /* Returns once the thread runs the writer's code: a fork() just after must not find it
     * still inside the C library's or a sanitizer's start-up of a thread, holding a lock that
     * would stay held in the child (the mock's host-thread pool hung so under ASan). */
    pthread_mutex_lock(&wake_lock);
    while (made && !started) pthread_cond_wait(&start_cond, &wake_lock);
    pthread_mutex_unlock(&wake_lock);
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
        pthread_mutex_lock(&wake_lock);
        started = false;
        pthread_mutex_unlock(&wake_lock);
        atomic_store(&thread_runs, false);
    }
    cushim__tbuf_each(drain_one);
    return atomic_load(&dropped_total);
}

/* A full ring: the thread formats its own records if no formatter holds them, else waits for
 * the formatter, a second at most. */
static CUSHIM__COLD bool wait_room(cushim__tbuf *b, size_t end) {
    if (atomic_load_explicit(&thread_runs, memory_order_relaxed)) wake();
    for (int k = 0; k < 20000 + 64; k++) {
        if (pthread_mutex_trylock(&b->fmt) == 0) {
            (void)pump(b);
            pthread_mutex_unlock(&b->fmt);
        }
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (end - b->tail_seen <= CUSHIM__RING) return true;
        /* The writer, holding the lock, may wait for this core: it first. */
        if (k < 64) {
            sched_yield();
        } else {
            nanosleep(&(struct timespec){0, 50000}, NULL);
        }
    }
    atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&dropped_total, 1, memory_order_relaxed);
    return false;
}

/* A reservation that must first look at the formatter's tail, or skip the ring's last cells. */
CUSHIM__COLD cushim__rec *cushim__ring_reserve_slow(cushim__tbuf *b, size_t h) {
    size_t pos = h & (CUSHIM__RING - 1);
    /* Room for the largest record, after the cells left to the ring's end when it is nearer. */
    size_t skip = pos + CUSHIM__RING_MAX_CELLS > CUSHIM__RING ? CUSHIM__RING - pos : 0;
    size_t end = h + skip + CUSHIM__RING_MAX_CELLS;
    if (end - b->tail_seen > CUSHIM__RING) {
        /* Full when last looked: the formatter's tail only now (its line is the formatter's). */
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (end - b->tail_seen > CUSHIM__RING && !wait_room(b, end)) return NULL;
    }
    if (skip != 0) {
        cushim__rec *s = cushim__ring_cell(b, h);
        s->kind = CUSHIM__REC_SKIP;
        s->cells = (unsigned short)skip;
        h += skip;
    }
    b->at = h;
    return cushim__ring_cell(b, h);
}

cushim__rec *cushim__ring_reserve(cushim__tbuf *b) {
    cushim__rec *r = cushim__ring_reserve_fast(b);
    if (r != NULL) r->run = 0;
    return r;
}

void cushim__ring_commit(cushim__tbuf *b, cushim__rec *r, size_t bytes) {
    size_t cells = (bytes + CUSHIM__REC_CELL - 1) / CUSHIM__REC_CELL;
    r->cells = (unsigned short)cells;
    size_t old = atomic_load_explicit(&b->head, memory_order_relaxed);
    size_t h = b->at + cells;
    atomic_store_explicit(&b->head, h, memory_order_release);
    if (to_stderr || forked) {
        pump_locked(b);
        return;
    }
    if (CUSHIM__UNLIKELY(((old ^ h) & ~(size_t)(CUSHIM__RING_WAKE_CELLS - 1)) != 0)) {
        cushim__ring_crossed(old, h);
    }
}

/* An idle writer told of every WAKE_CELLS cells, any writer of every half ring. */
void cushim__ring_crossed(size_t old, size_t h) {
    if (atomic_load_explicit(&thread_runs, memory_order_relaxed) &&
        (atomic_load_explicit(&writer_idle, memory_order_relaxed) ||
         ((old ^ h) & ~(size_t)(CUSHIM__RING / 2 - 1)) != 0)) {
        wake();
    }
}

/* A forked child has no writer thread (its first traced call starts one), and its locks may
 * have been held by the parent's threads. */
static void after_fork_child(void) {
    pthread_mutex_init(&wake_lock, NULL);
    pthread_cond_init(&wake_cond, NULL);
    pthread_cond_init(&start_cond, NULL);
    atomic_store(&thread_runs, false);
    stopping = false;
    started = false;
    forked = true;
}
static CUSHIM__CONSTRUCTOR void writer_register_fork(void) {
    cushim__tbuf_set_pump(pump_locked_by_caller);
    pthread_atfork(NULL, NULL, after_fork_child);
}
