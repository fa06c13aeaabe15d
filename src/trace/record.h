/* Internal: a traced call as a fixed-size binary record. The calling thread copies what the call
 * was given and what it wrote (each argument's bytes, output values, strings cut where the line
 * cuts them) into a record of its ring (writer.c), and formats nothing; the trace writer formats
 * the record later, from these copies alone, into the same line or event. */
#ifndef CUSHIM_TRACE_RECORD_H
#define CUSHIM_TRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "cushim.h"
#include "trace/entry_info.h"
#include "trace/kernels.h"
#include "trace/rt_entry.h"

#define CUSHIM__REC_SIZE 512
#define CUSHIM__REC_ARGS 24

enum {
    CUSHIM__REC_CALL,       /* a driver call: index, per_thread, result */
    CUSHIM__REC_RT,         /* a runtime call: rt, rt_result */
    CUSHIM__REC_NEST_BEGIN, /* a runtime call began: its driver lines wait for its own */
    CUSHIM__REC_KERNEL,     /* a kernel ran on the mock */
};
/* What the writer makes of a record. */
enum { CUSHIM__REC_LINE = 1, CUSHIM__REC_SPAN = 2, CUSHIM__REC_NEST_END = 4 };

typedef struct cushim__rec {
    unsigned char kind, make, per_thread, has_stream;
    unsigned char argc, failed, cut; /* cut: an argument did not fit, and is printed as "..." */
    unsigned char dense;             /* argument k in the word at area + 8k (no offsets kept) */
    unsigned short index;
    CUresult result;
    unsigned long long start_ns, end_ns;
    const cushim__kernel *kernel;
    uintptr_t stream;
    const cushim__trace_rt_entry *rt; /* REC_RT */
    const char *rt_result;            /* REC_RT: a static name */
    union {
        struct {
            unsigned short off[CUSHIM__REC_ARGS]; /* each argument's copy in area */
            unsigned short used;
        } a;
        struct {
            unsigned grid[3], block[3];
            unsigned long long instructions;
        } k; /* REC_KERNEL */
    } u;
    _Alignas(8) char area[];
} cushim__rec;

#define CUSHIM__REC_AREA (CUSHIM__REC_SIZE - sizeof(cushim__rec))

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

/* The argument pointers of r's copies, as the formatters read arguments. */
void cushim__rec_args(const cushim__rec *r, void *out[CUSHIM__REC_ARGS]);

#endif
