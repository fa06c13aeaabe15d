/* Internal: the tracer's per-thread state. A thread appends a record per traced call to its ring
 * (writer.c), with no lock; whoever formats the thread's records (the trace writer, or the thread
 * itself when its lines go to stderr) does so under the thread's `fmt` lock into the thread's
 * buffer; a full buffer, a thread's exit and the tracer's stop hand the whole block to the sink,
 * which takes the file's lock once per block. */
#ifndef CUSHIM_TRACE_TBUF_H
#define CUSHIM_TRACE_TBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "trace/clock.h"
#include "trace/record.h"

#define CUSHIM__TBUF_SIZE (1 << 16)
/* The most one line or event may take: a thread flushes before it has less room than this. */
#define CUSHIM__TBUF_ROOM 4096
/* What the lines of a runtime call's driver calls may take while they wait for its line. */
#define CUSHIM__TBUF_NEST (1 << 15)
/* Cells of a thread's ring (a power of two, of CUSHIM__REC_CELL bytes each): more than a burst
 * of calls between two of the writer's passes (a query takes one cell, a launch three). */
#define CUSHIM__RING 4096

typedef struct cushim__tbuf {
    struct cushim__tbuf *next, *prev; /* every thread's buffer, under the list's lock */
    /* The ring: the thread writes records at head, the formatter reads them at tail. Each on a
     * cache line of its own, with what only its side touches, so that the two sides do not take
     * a line from each other at every record. */
    _Alignas(64) _Atomic size_t head;
    size_t tail_seen; /* the thread's: tail when it last looked */
    size_t at;        /* the thread's: where the record it fills starts (head, or after a skip) */
    _Alignas(64) _Atomic size_t tail;
    _Atomic unsigned long dropped; /* records the thread could not append (told in the trace) */
    pthread_mutex_t fmt;           /* held while this thread's records are formatted */
    /* The rest is the formatter's, under fmt. */
    unsigned long dropped_told;
    size_t len;
    long tid; /* this thread's id, set by the thread itself (and again in a forked child) */
    /* What the tracer formats once per thread, from its pid and tid: 0 long until it is. */
    size_t ids_len, prefix_len, stream_len;
    char ids[80], prefix[40], stream[24];
    uintptr_t stream_key;          /* whose id stream holds */
    cushim__clock_line clock_line; /* the line this ring's last ticks were converted on */
    /* While a runtime call runs on this thread (nest_depth > 0), the lines of the driver calls
     * it makes wait here, to follow its own line (events.c). */
    int nest_depth;
    size_t nest_len;
    char data[CUSHIM__TBUF_SIZE];
    char nest[CUSHIM__TBUF_NEST];
    _Alignas(64) char ring[CUSHIM__RING * CUSHIM__REC_CELL];
} cushim__tbuf;

/* Where full blocks go; called with no lock of the buffers held by a thread of its own block,
 * and under the list's lock by cushim__tbuf_drain and at a thread's exit. */
typedef void (*cushim__tbuf_sink)(const char *p, size_t n);
void cushim__tbuf_set_sink(cushim__tbuf_sink sink);

/* What formats a thread's records at its exit (writer.c), under its fmt lock. */
typedef void (*cushim__tbuf_pump)(cushim__tbuf *b);
void cushim__tbuf_set_pump(cushim__tbuf_pump pump);

/* This thread's state, made at its first traced call; NULL when no memory could be had. */
cushim__tbuf *cushim__tbuf_mine(void);
/* This thread's state as it is, NULL before its first traced call (the fast path reads it). */
extern _Thread_local cushim__tbuf *cushim__tbuf_tls;

/* Makes room for one more line or event in b's buffer (a full one is handed to the sink);
 * under b's fmt lock. */
void cushim__tbuf_room(cushim__tbuf *b);

/* Calls fn on every thread's state, under the list's lock (which a thread's exit takes). */
void cushim__tbuf_each(void (*fn)(cushim__tbuf *b));
/* Returns once every thread exit that is formatting its ring has written it (an exit holds the
 * list's lock for that long). */
void cushim__tbuf_wait_exits(void);

/* This thread's buffer as it is (NULL when it has none): nothing made, nothing written. */
cushim__tbuf *cushim__tbuf_current(void);

/* Appends n bytes to b's buffer, handing full blocks to the sink on the way. */
void cushim__tbuf_put(cushim__tbuf *b, const char *p, size_t n);

/* Hands b's buffered bytes to the sink; under b's fmt lock. */
void cushim__tbuf_flush(cushim__tbuf *b);

#endif
