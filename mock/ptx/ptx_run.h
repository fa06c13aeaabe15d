/* Internal to the executor: a launch, its blocks and their threads (ptx_exec.c runs a thread,
 * ptx_sched.c schedules threads, warps, blocks and host threads). */
#ifndef CUSHIM_MOCK_PTX_RUN_H
#define CUSHIM_MOCK_PTX_RUN_H

#include <pthread.h>

#include "ptx_int.h"

enum { TS_RUN, TS_BAR, TS_WARP, TS_EXIT, TS_FAULT, TS_YIELD };

typedef struct pframe {
    const mock_ptx_func *f;
    uint64_t *R;
    uint32_t ret_pc;
    size_t base; /* the frame's offset in the thread's local memory */
    const pcall *call;
} pframe;

typedef struct pthr {
    uint64_t *R;
    const pinst *code;
    uint32_t pc;
    uint8_t state;
    unsigned tid[3], linear, lane, warp;
    unsigned char *local;
    pframe *frames; /* &f0 until the first call */
    pframe f0;
    int depth, capframes;
    const pinst *wait; /* the barrier or warp collective it waits at */
    uint64_t steps;
} pthr;

typedef struct prun prun;

typedef struct pblock {
    prun *run;
    struct pworker *w;
    unsigned ctaid[3];
    pthr *t;
    unsigned n, nwarps;
    uint64_t *regs;
    unsigned char *local_all;
    unsigned char *smem;
    size_t smem_size;
    unsigned exited, waiting_warp;
    bool done;
} pblock;

typedef struct pworker {
    prun *run;
    uintptr_t lo, hi; /* the last allocation a global access was found in */
    pthread_t th;
} pworker;

struct prun {
    const mock_ptx_func *k;
    const mock_ptx_launch *l;
    unsigned char *params;
    size_t param_bytes;
    size_t local_size; /* per thread */
    unsigned threads;  /* per block */
    unsigned long long nblocks;
    unsigned long long next; /* the next block to run, taken atomically */
    int nworkers;
    int failed; /* atomically: the first fault wins */
    CUresult code;
    char *err;
    size_t errlen;
    uint64_t step_limit;
    uint64_t steps; /* thread-instructions run, summed at the end */
    pthread_mutex_t out_lock;
};

/* Runs t until it waits, exits, faults or has run about `budget` instructions. */
int ptx__exec(pblock *b, pthr *t, uint64_t budget);
/* Records the launch's fault (the first one wins) and returns TS_FAULT. */
int ptx__fault(pblock *b, const pthr *t, const pinst *in, CUresult code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Device printf: the format at fmt, the arguments at args (both host addresses, checked). */
int ptx__printf(pblock *b, pthr *t, const pinst *in, uint64_t fmt, uint64_t args);
/* A host pointer for [a, a+n) in a state space, or NULL after recording a fault. */
void *ptx__addr(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, size_t n, bool write);

#endif
