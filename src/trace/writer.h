/* Internal: the trace writer. A traced call appends a record to its thread's ring (no lock, no
 * formatting); a background thread formats the records into lines and events and writes them.
 * Lines to stderr are formatted by the calling thread at once instead, so that they interleave
 * with the program's own output. */
#ifndef CUSHIM_TRACE_WRITER_H
#define CUSHIM_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/events.h"
#include "trace/record.h"
#include "trace/tbuf.h"

/* A record to fill in b's ring (b the calling thread's); NULL when the ring stayed full for a
 * second (the record is then counted as dropped, and the trace says how many were). */
cushim__rec *cushim__ring_reserve(cushim__tbuf *b);
/* The record r (the one reserved last) is filled, and takes `bytes` of the ring: the writer may
 * format it. Then, where lines go to stderr, the thread formats its ring itself. */
void cushim__ring_commit(cushim__tbuf *b, cushim__rec *r, size_t bytes);

/* The run of the tracer whose fast-path records are formatted (fast.h); 0: none is. Set while
 * no record is formatted. */
extern _Atomic unsigned cushim__writer_run;

/* What the records become while the tracer runs: lines (calls), to stderr (formatted by the
 * thread that made them) or to the file, and timeline events; a background thread formats what
 * goes to the file. Only while no record is made. */
void cushim__writer_config(bool calls, bool calls_to_stderr, bool timeline);
/* Starts the background thread, if configured and not running (false: it could not be made;
 * the records are then formatted at the stop, or when a ring is full). */
bool cushim__writer_start(void);
/* Stops the background thread and formats every thread's records; only once no more records
 * are made. Returns how many records were dropped since the configuration. */
unsigned long cushim__writer_drain(void);

#endif
