/* Internal: the tracer's per-thread buffers. A thread formats its lines or events straight into
 * a buffer of its own, with no lock; a full buffer, a thread's exit and the tracer's stop hand
 * the whole block to the sink, which takes the tracer's lock once per block. */
#ifndef CUSHIM_TRACE_TBUF_H
#define CUSHIM_TRACE_TBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CUSHIM__TBUF_SIZE (1 << 16)
/* The most one line or event may take: a thread flushes before it has less room than this. */
#define CUSHIM__TBUF_ROOM 4096
/* What the lines of a runtime call's driver calls may take while they wait for its line. */
#define CUSHIM__TBUF_NEST (1 << 15)

typedef struct cushim__tbuf {
    struct cushim__tbuf *next, *prev; /* every thread's buffer, under the list's lock */
    size_t len;
    long tid; /* this thread's id, 0 until known (and again in a forked child) */
    /* What the tracer formats once per thread, from its pid and tid: 0 long until it is. */
    size_t ids_len, prefix_len, stream_len;
    char ids[80], prefix[40], stream[24];
    uintptr_t stream_key; /* whose id stream holds */
    /* While a runtime call runs on this thread (nest_depth > 0), the lines of the driver calls
     * it makes wait here, to follow its own line (events.c). */
    int nest_depth;
    size_t nest_len;
    char data[CUSHIM__TBUF_SIZE];
    char nest[CUSHIM__TBUF_NEST];
} cushim__tbuf;

/* Where full blocks go; called with no lock of the buffers held by a thread of its own block,
 * and under the list's lock by cushim__tbuf_drain and at a thread's exit. */
typedef void (*cushim__tbuf_sink)(const char *p, size_t n);
void cushim__tbuf_set_sink(cushim__tbuf_sink sink);

/* This thread's buffer with at least CUSHIM__TBUF_ROOM bytes free (a full one is handed to the
 * sink first); NULL when no memory could be had. */
cushim__tbuf *cushim__tbuf_mine(void);

/* This thread's buffer as it is (NULL when it has none): nothing made, nothing written. */
cushim__tbuf *cushim__tbuf_current(void);

/* Appends n bytes to b's buffer, handing full blocks to the sink on the way. */
void cushim__tbuf_put(cushim__tbuf *b, const char *p, size_t n);

/* Hands every thread's buffered bytes to the sink. Only while no thread adds to its buffer:
 * the tracer calls it once its hook is removed. */
void cushim__tbuf_drain(void);

#endif
