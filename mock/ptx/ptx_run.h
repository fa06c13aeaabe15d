/* Internal to the executor: a launch, its blocks, their warps and lanes.
 *
 * A warp runs as one or more paths: lanes that share a program counter and a call stack. A
 * decoded instruction runs once for all the lanes of a path (ptx_exec.c); a branch the lanes
 * disagree on splits the path, and paths that arrive at the same instruction with the same
 * stack merge again (ptx_warp.c, which also completes barriers and warp collectives lane by
 * lane). ptx_turn.c runs the warps of a block, ptx_sched.c the blocks of a grid over host threads.
 *
 * Registers are laid out by lane: slot s of lane l of a warp's frame at call depth d is
 * regs[d][s * 32 + l], so that one operation reads 32 consecutive values. */
#ifndef CUSHIM_MOCK_PTX_RUN_H
#define CUSHIM_MOCK_PTX_RUN_H

#include <pthread.h>

#include "ptx_int.h"

#define QUANTUM 4096 /* warp-instructions a path runs before the next gets a turn */

/* What a path (or a lane) is doing. */
enum { TS_RUN, TS_BAR, TS_WARP, TS_EXIT, TS_FAULT, TS_YIELD, TS_SPLIT };

#define LANE_REG(col, slot) ((col)[(size_t)(slot) << 5])

/* Lanes in a mask, without the library call that __builtin_popcount is on the baseline x86-64. */
static inline unsigned lanes_in(uint32_t m) {
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

typedef struct pframe {
    const mock_ptx_func *f;
    uint32_t ret_pc; /* in f's caller; set when f calls */
    size_t base;     /* the frame's offset in each lane's local memory */
    const pcall *call;
} pframe;

/* Lanes of one warp at one instruction with one call stack. */
typedef struct ppath {
    uint32_t mask, pc;
    int depth;
    bool blocked;   /* its lanes wait at a barrier or a warp collective */
    pframe *frames; /* depth + 1 of them */
    int capframes;
} ppath;

/* A lane: a thread of the block. */
typedef struct pthr {
    uint8_t state;
    const pinst *wait; /* the barrier or warp collective it waits at */
    uint64_t *col;     /* its register column at the meeting point: LANE_REG(col, slot) */
    unsigned char *local;
    unsigned tid[3], linear, lane, warp;
} pthr;

typedef struct pwarp {
    unsigned index, first, n; /* n lanes from thread `first` */
    uint32_t live;            /* lanes that have not exited */
    uint32_t waiting;         /* lanes at a barrier or a warp collective */
    uint32_t bar_mask; /* lanes at bar.sync bar_id (count bar_count): their pthr says TS_RUN */
    uint32_t bar_id, bar_count;
    const pinst *bar_in;
    ppath *paths;
    int npaths, cappaths;
    uint64_t **regs; /* a register block per call depth, each nslots_max * 32 */
    int nregs;
    int last;        /* the path run last */
    unsigned yields; /* turns a path gave up with others runnable: round robin after */
    uint32_t split_mask, split_pc; /* TS_SPLIT: the lanes that go to split_pc */
    bool split_up; /* ... in the caller's frame (an indirect call's other lanes), not the path's */
} pwarp;

typedef struct prun prun;

/* What the registers every lane holds from its launch's start depend on, besides the kernel. */
typedef struct plaunch_shape {
    unsigned block[3], grid[3];
    size_t dynamic_smem;
    int sm_count;
    bool cooperative;
} plaunch_shape;

typedef struct pblock {
    prun *run;
    struct pworker *w;
    unsigned ctaid[3], smid;
    unsigned long long index;
    pthr *t;
    pwarp *warps;
    unsigned n, nwarps;
    unsigned char *local_all;
    unsigned char *smem;
    size_t smem_size;
    unsigned exited, waiting_warp, waiting_bar;
    unsigned bar_general; /* lanes at a barrier lane by lane (TS_BAR), not in a bar_mask */
    unsigned bar_arrived[16], bar_arrive_count[16]; /* bar.arrive's, until the barrier completes */
    bool done;      /* every lane exited (so every pthr says TS_RUN), until the next block starts */
    uint64_t steps; /* thread-instructions of this block and those its host thread ran before */
    uint64_t jit_ran;        /* warp-instructions of compiled code, counted as steps are */
    uint64_t rng;            /* the random schedule's state, 0 for none */
    struct pcheck *chk;      /* the checks' shadow of the block (ptx_check.c), NULL when off */
    uint32_t nslots;         /* its shape, which a later launch's must match to run in it */
    uint64_t kernel;         /* the uid of the kernel whose registers it holds */
    plaunch_shape lanes_for; /* the launch its lanes' registers were set for (ptx__warps_lanes) */
    size_t local_size;
    size_t bytes; /* about what it holds */
} pblock;

/* A host thread's, on its own stack: nothing another thread writes shares its cache lines. */
typedef struct pworker {
    prun *run;
    uintptr_t lo[4], hi[4]; /* the last allocations global accesses were found in */
    unsigned next;          /* the entry the next one replaces */
} pworker;

struct prun {
    const mock_ptx_func *k;
    const mock_ptx_launch *l;
    unsigned char *params;
    size_t param_bytes;
    size_t local_size; /* per thread */
    uint32_t nslots;   /* the most slots of any function the kernel runs */
    unsigned threads;  /* per block */
    unsigned long long nblocks;
    unsigned long long *order; /* a random schedule's order of blocks, NULL for in turn */
    int nworkers;              /* host threads that run its blocks (their batches' size) */
    int failed;                /* atomically: the first fault wins */
    CUresult code;
    char *err;
    size_t errlen;
    uint64_t step_limit;  /* thread-instructions of the launch, all blocks */
    uint64_t deadline_ns; /* CLOCK_MONOTONIC, 0 for none */
    double timeout_s;
    /* The next block to run, taken atomically, and the thread-instructions run, summed as
     * blocks go: host threads write them, so each has a cache line of its own, apart from
     * what every thread reads on every turn (failed, the kernel). */
    _Alignas(64) unsigned long long next;
    _Alignas(64) uint64_t steps;
    uint64_t jit_ran; /* compiled warp-instructions, added once by each host thread */
    _Alignas(64) char after_steps;
    uint64_t seed;         /* CUSHIM_MOCK_SCHEDULE=random:SEED, 0 for in turn */
    uint32_t workspace[4]; /* a cooperative grid's (cooperative groups' barrier counter) */
    uintptr_t heap_lo;     /* the context's device malloc heap (ptx_heap.c), 0 for none */
    size_t heap_size;
    pthread_mutex_t out_lock;
    unsigned checks;            /* the launch's MOCK_PTX_CHECK_* bits, 0 when off */
    struct pcheck_run *chk_run; /* what the checks reported in this launch (ptx_check.c) */
    struct pjit *jit;           /* the kernel's compiled code (ptx_jit.c), NULL to interpret */
};

/* Runs path p of warp w until its lanes wait, exit, split, fault, or have run about `budget`
 * warp-instructions. */
int ptx__exec(pblock *b, pwarp *w, ppath *p, uint64_t budget);
/* ptx__exec for the compiling tier (ptx_jit.c): counting from n0 warp-instructions already run in
 * the turn, and returning TS_RUN at an instruction where stop[pc] is set once it has run one
 * (a whole path at the kernel's depth); *ran gets the turn's count. */
int ptx__exec_from(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0, const uint8_t *stop,
                   uint64_t *ran);
/* Records the launch's fault (the first one wins) and returns TS_FAULT. */
int ptx__fault(pblock *b, const pthr *t, const pinst *in, CUresult code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Device printf: the format at fmt, the arguments at args (both host addresses, checked). */
int ptx__printf(pblock *b, pthr *t, const pinst *in, uint64_t fmt, uint64_t args);
/* A host pointer for [a, a+n) in a state space, or NULL after recording a fault. */
void *ptx__addr(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, size_t n, bool write);
/* Every ALU operation of every type for one lane (its register column), and cvt; false for
 * one the loop must do itself (ptx_lane.c). */
bool ptx__alu(const pinst *in, uint64_t *col);
/* cp.async and mbarrier for one lane (ptx_async.c): TS_RUN, or TS_FAULT after recording it. */
int ptx__async(pblock *b, pthr *t, const pinst *in, uint64_t *col);
/* A texture or surface instruction for one lane (ptx_texrun.c): TS_RUN, or TS_FAULT. */
int ptx__tex(pblock *b, pthr *t, const pinst *in, uint64_t *col);
uint64_t ptx__cvt(const pinst *in, uint64_t v);
/* Half and bfloat16 arithmetic, comparisons and conversions (O_HALF), and f32 and f64 arithmetic
 * rounded .rz, .rm or .rp (O_RND), for one lane (ptx_hfloat.c). */
bool ptx__half(const pinst *in, uint64_t *col);
bool ptx__round(const pinst *in, uint64_t *col);
/* wmma, mma.sync and ldmatrix for the whole warp (R its register block; ptx_mma.c): TS_RUN, or
 * TS_FAULT after recording it. */
int ptx__mma(pblock *b, pwarp *w, const pinst *in, uint32_t m, uint64_t *R);
/* The function an indirect call of path p calls: the one whose address every lane's register
 * holds, with the call's number of arguments; NULL after recording a fault (ptx_heap.c). */
const mock_ptx_func *ptx__callee(pblock *b, pwarp *w, ppath *p, const pinst *in, const pcall *c);
/* The lanes of `mask` whose indirect call goes to another function than the first lane's (0 for
 * a direct call): they call from a path of their own (ptx_heap.c). */
uint32_t ptx__call_others(const pwarp *w, const ppath *p, const pinst *in, uint32_t mask);
/* Device malloc (in->sub 0) or free (1) of the lanes of m, as a call (ptx_heap.c): TS_RUN, or
 * TS_FAULT after recording it. */
int ptx__heap_call(pblock *b, pwarp *w, const pframe *cur, const pinst *in, uint32_t m);
/* Where the heap's memory lies, for the launch's address checks. */
void ptx__heap_range(const mock_ptx_heap *h, uintptr_t *lo, size_t *size);
/* bar.arrive of the lanes of m (ptx_mma.c). */
void ptx__bar_arrive(pblock *b, const pinst *in, uint32_t m, const uint64_t *R);
bool ptx__setp(const pinst *in, uint64_t a, uint64_t b);
uint64_t ptx__atom(void *p, int op, int t, uint64_t b, uint64_t c);

/* A block's memory (ptx_block.c). ptx__block_alloc makes it for launch r (false when out of
 * memory: ptx__block_free then frees what was made); ptx__block_take takes one of the same shape
 * that an earlier launch left, or makes one; ptx__block_give leaves it for a later launch (a
 * bounded number and size are kept), or frees it. `own` is the host thread's own keeping place
 * (ptx_pool.h), looked in first and filled first, or NULL; ptx__block_drop frees what it
 * holds. */
bool ptx__block_alloc(pblock *b, prun *r);
void ptx__block_free(pblock *b);
bool ptx__block_take(pblock *b, prun *r, void **own);
void ptx__block_give(pblock *b, void **own);
void ptx__block_drop(void *own);

/* A block's run (ptx_turn.c). ptx__block_run runs block `index` in b to its end, its first turn
 * compiled whole where `fast` (ptx__jit_whole) says it may; ptx__block_start readies it for
 * ptx__block_turn, one turn of its warps from warp `from` on (those before have had theirs, and
 * one ran): 1 progress, 0 nothing could run (the block is stuck), -1 finished or failed. Steps
 * are added to the launch's every 2^16 and by ptx__block_flush (those since `counted`). */
void ptx__block_run(pblock *b, unsigned long long index, bool fast, uint64_t *counted);
void ptx__block_start(pblock *b, unsigned long long index);
int ptx__block_turn(pblock *b, uint64_t *counted, unsigned from);
uint64_t ptx__block_flush(pblock *b, uint64_t *counted);
/* CLOCK_MONOTONIC in ns; splitmix64, the random schedule's numbers (ptx_turn.c). */
uint64_t ptx__now_ns(void);
uint64_t ptx__random(uint64_t *s);
static inline bool ptx__failed(const prun *r) {
    return __atomic_load_n(&r->failed, __ATOMIC_RELAXED) != 0;
}
/* Warps (ptx_warp.c): a block's warps made, started, and run a turn at a time. */
bool ptx__warps_alloc(pblock *b);
void ptx__warps_free(pblock *b);
void ptx__warps_start(pblock *b);
/* The lanes' registers that no block changes (constants, thread indexes, dimensions): once for
 * all the blocks a host thread runs. */
void ptx__warps_lanes(pblock *b);
/* Whether b's lanes hold them for its launch already: a block kept from a launch of the same
 * kernel and shape (a cooperative grid's workspace is its own: never). */
bool ptx__warps_lanes_current(const pblock *b);
/* Runs warp w's paths for a turn of about `budget` warp-instructions, of which its one path has run
 * `used` already (compiled, ptx__jit_block): true when any ran. */
bool ptx__warp_turn(pblock *b, pwarp *w, uint64_t budget, uint64_t used);
/* A lane of the block that still runs (for a timeout's message) and its instruction. */
const pthr *ptx__where(pblock *b, const pinst **in);

#endif
