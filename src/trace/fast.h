/* Internal: the tracer's fast path. While the tracer's hook is the only one installed, the
 * generated wrapper of an entry whose arguments are all words (a stream query, a launch: no
 * output, string or struct) skips the hook registry: it reads the clock's ticks around the call
 * and copies the arguments, word by word as its generator wrote them, into a record of the
 * thread's ring, and formats nothing (gen/gen-trace.py). The writer turns the ticks into
 * nanoseconds, and leaves out the record of a call that outlived its run of the tracer. */
#ifndef CUSHIM_TRACE_FAST_H
#define CUSHIM_TRACE_FAST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/hints.h"
#include "trace/clock.h"
#include "trace/kernels.h"
#include "trace/record.h"
#include "trace/tbuf.h"
#include "trace/writer.h"

/* The word the wrappers read (hooks.h: cushim__hook_bypass) while the fast path is on: the
 * run of the tracer above the low byte, what to make (CUSHIM__REC_LINE, _SPAN) in it. */
#define CUSHIM__FAST_WORD(run, make) ((unsigned long long)(run) << 8 | (make))

/* After the call: the record of entry `index`, its header filled, its argc words left to the
 * wrapper; NULL when there is none (no memory for the thread's ring, or the ring full). */
static inline cushim__rec *cushim__fast_begin(unsigned long long word, unsigned index,
                                              int per_thread, CUresult result,
                                              unsigned long long start, unsigned argc,
                                              cushim__tbuf **bp) {
    unsigned long long end = cushim__clock_ticks();
    cushim__tbuf *b = cushim__tbuf_tls;
    if (CUSHIM__UNLIKELY(b == NULL) && (b = cushim__tbuf_mine()) == NULL) return NULL;
    cushim__rec *r = cushim__ring_reserve_fast(b);
    if (CUSHIM__UNLIKELY(r == NULL)) return NULL;
    r->kind = CUSHIM__REC_CALL;
    r->make = (unsigned char)word;
    r->per_thread = (unsigned char)per_thread;
    r->has_stream = 0;
    r->argc = (unsigned char)argc;
    r->failed = result != CUDA_SUCCESS;
    r->cut = 0;
    r->dense = 1;
    r->index = (unsigned short)index;
    r->result = result;
    r->run = (unsigned)(word >> 8);
    r->start_ns = start;
    r->end_ns = end;
    r->kernel = NULL;
    r->stream = 0;
    *bp = b;
    return r;
}

/* An argument as a dense record holds it: its bytes at the start of a zeroed word. */
#define CUSHIM__FAST_ARG(x) cushim__fast_arg(&(x), sizeof(x))
static inline unsigned long long cushim__fast_arg(const void *p, size_t n) {
    unsigned long long w = 0;
    memcpy(&w, p, n);
    return w;
}

/* The cells of a dense record of n arguments. */
#define CUSHIM__FAST_CELLS(n) ((unsigned)((CUSHIM__REC_HEAD + 8 * (n) + 63) / 64))

#endif
