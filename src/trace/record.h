/* Internal: a traced call as a fixed-size binary record. The calling thread copies what the call
 * was given and what it wrote (each argument's bytes, output values, strings cut where the line
 * cuts them) into a record of its ring (writer.c), and formats nothing; the trace writer formats
 * the record later, from these copies alone, into the same line or event. */
#ifndef CUSHIM_TRACE_RECORD_H
#define CUSHIM_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cushim.h"
#include "trace/entry_info.h"
#include "trace/kernels.h"
#include "trace/rt_entry.h"

/* The ring's unit (writer.c): a cache line. A record takes whole cells, as few as it needs: a
 * call whose arguments are all words (a stream query, a launch) takes the header and a word per
 * argument, one cell for up to two arguments. */
#define CUSHIM__REC_CELL 64
/* The most one record takes. */
#define CUSHIM__REC_SIZE 512
#define CUSHIM__REC_ARGS 24

enum {
    CUSHIM__REC_CALL,       /* a driver call: index, per_thread, result */
    CUSHIM__REC_RT,         /* a runtime call: u.rt */
    CUSHIM__REC_NEST_BEGIN, /* a runtime call began: its driver lines wait for its own */
    CUSHIM__REC_KERNEL,     /* a kernel ran on the mock: u.k */
    CUSHIM__REC_SKIP,       /* the ring's cells up to its end, unused (writer.c) */
};
/* What the writer makes of a record. */
enum { CUSHIM__REC_LINE = 1, CUSHIM__REC_SPAN = 2, CUSHIM__REC_NEST_END = 4 };

/* Where each argument's copy is in a record's area (a record that is not dense). */
typedef struct cushim__rec_offs {
    unsigned short off[CUSHIM__REC_ARGS];
    unsigned short used;
} cushim__rec_offs;

typedef struct cushim__rec {
    unsigned char kind, make, per_thread, has_stream;
    unsigned char argc, failed, cut; /* cut: an argument did not fit, and is printed as "..." */
    unsigned char dense;             /* argument k in u.word[k] (no offsets kept) */
    unsigned short index;
    unsigned short cells; /* the cells the record takes, itself included */
    CUresult result;
    /* Made by the fast path (fast.h) of this run of the tracer, its times in the clock's ticks
     * (clock.h); 0 for a record made under the tracer's hook, its times in nanoseconds. The
     * writer leaves out a record of a run that has stopped. */
    unsigned run;
    unsigned char pad[4];
    unsigned long long start_ns, end_ns;
    const cushim__kernel *kernel;
    uintptr_t stream;
    /* What follows depends on the kind; a record is only as long as what it uses. */
    union {
        unsigned long long word[CUSHIM__REC_ARGS]; /* a dense call */
        struct {
            cushim__rec_offs a; /* then the area, at CUSHIM__REC_CALL_AREA */
        } c;                    /* any other call */
        struct {
            const cushim__trace_rt_entry *rt;
            const char *result; /* a static name */
            cushim__rec_offs a; /* then the area, at CUSHIM__REC_RT_AREA */
        } rt;
        struct {
            unsigned grid[3], block[3];
            unsigned long long instructions;
        } k;
    } u;
} cushim__rec;

#define CUSHIM__REC_HEAD offsetof(cushim__rec, u)
#define CUSHIM__REC_ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define CUSHIM__REC_CALL_AREA                                                                      \
    CUSHIM__REC_ALIGN8(offsetof(cushim__rec, u.c.a) + sizeof(cushim__rec_offs))
#define CUSHIM__REC_RT_AREA                                                                        \
    CUSHIM__REC_ALIGN8(offsetof(cushim__rec, u.rt.a) + sizeof(cushim__rec_offs))

/* The bytes a record made so far takes: what the writer's ring advances by, in cells. */
size_t cushim__rec_bytes(const cushim__rec *r);

/* Copies count arguments described by desc (args as a hook or a runtime wrapper gives them)
 * into r; failed: outputs hold nothing worth reading. */
void cushim__rec_capture(cushim__rec *r, const cushim__trace_arg *desc, unsigned count,
                         void *const *args, bool failed);

/* Whether every argument desc describes is one word at most, read as it is (no output, string
 * or struct): such a call is copied by cushim__rec_capture_dense. */
bool cushim__rec_all_scalar(const cushim__trace_arg *desc, unsigned count);
/* The copy of such a call: a word per argument, nothing else to decide per argument. */
void cushim__rec_capture_dense(cushim__rec *r, const cushim__trace_arg *desc, unsigned count,
                               void *const *args, bool failed);

/* The argument pointers of r's copies, as the formatters read arguments (of a driver call, the
 * first argc and two more, zeros; the rest of out is left as it was). */
void cushim__rec_args(const cushim__rec *r, void *out[CUSHIM__REC_ARGS]);

#endif
