/* A block's run (ptx_sched.c runs a grid's blocks with it): its start, its warps' turns until
 * every lane has exited or none can move, and the launch's bounds, looked at as it goes: a count
 * of thread-instructions over all its blocks and a wall-clock deadline end an endless kernel
 * with CUDA_ERROR_LAUNCH_TIMEOUT. Where the kernel's compiled code allows, a block's first turn
 * runs each warp in one call of it, and a short kernel's block ends there, without the warps'
 * paths (ptx_warp.c). */
#include <string.h>
#include <time.h>

#include "ptx_check.h"
#include "ptx_coll.h"
#include "ptx_jit.h"
#include "ptx_run.h"

uint64_t ptx__now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ptx__random(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A block's own state; its registers and warps are set by block_regs and ptx__warps_start, or it
 * runs compiled first (block_fast). */
static void block_begin(pblock *b, unsigned long long index) {
    prun *r = b->run;
    const mock_ptx_launch *l = r->l;
    b->index = index;
    b->ctaid[0] = (unsigned)(index % l->grid[0]);
    b->ctaid[1] = (unsigned)(index / l->grid[0] % l->grid[1]);
    b->ctaid[2] = (unsigned)(index / l->grid[0] / l->grid[1]);
    b->smid = (unsigned)(index % (unsigned)(l->sm_count > 0 ? l->sm_count : 1));
    /* A lane's state leaves TS_RUN only while it waits at a barrier or a warp collective (an
     * exited lane is one out of its warp's live mask), so after a block that ended with every
     * lane exited (done) they all say TS_RUN already: set again only after one that did not (a
     * fault, a deadlock; a block just made is zeroed). Per thread, that was a fifth of a short
     * compiled kernel's time. */
    if (!b->done) {
        for (unsigned i = 0; i < b->n; i++) {
            b->t[i].state = TS_RUN;
            b->t[i].wait = NULL;
        }
    }
    b->exited = 0;
    b->waiting_warp = 0;
    b->waiting_bar = 0;
    b->bar_general = 0;
    memset(b->bar_arrived, 0, sizeof b->bar_arrived);
    memset(b->bar_arrive_count, 0, sizeof b->bar_arrive_count);
    b->done = false;
    b->rng = r->seed != 0 ? r->seed ^ (index * 0x9e3779b97f4a7c15ull) : 0;
    /* Shared memory starts zeroed here (the GPU's holds garbage: a kernel cannot rely on
     * either). */
    memset(b->smem, 0, b->smem_size);
    ptx__check_block_start(b);
}

/* The registers the block's index sets, in every lane (the lanes' own were set when the block
 * was made, block_alloc: nothing a kernel writes). */
static void block_regs(pblock *b) {
    const mock_ptx_func *k = b->run->k;
    const uint32_t v[] = {b->ctaid[0], b->ctaid[1], b->ctaid[2], b->smid};
    const uint32_t slot[] = {SL_CTAID, SL_CTAIDY, SL_CTAIDZ, SL_SMID};
    for (unsigned i = 0; i < b->nwarps; i++) {
        uint64_t *R = b->warps[i].regs[0];
        for (int j = 0; j < 4; j++) {
            if (j > 0 && !((k->specials >> slot[j]) & 1)) continue;
            for (unsigned l = 0; l < 32; l++) LANE_REG(R + l, slot[j]) = v[j];
        }
    }
}

void ptx__block_start(pblock *b, unsigned long long index) {
    block_begin(b, index);
    block_regs(b);
    ptx__warps_start(b);
}

uint64_t ptx__block_flush(pblock *b, uint64_t *counted) {
    uint64_t total = __atomic_add_fetch(&b->run->steps, b->steps - *counted, __ATOMIC_RELAXED);
    *counted = b->steps;
    return total;
}

/* The launch's bounds, looked at every 2^16 thread-instructions of a block (the shared count
 * is not touched on every turn, so host threads do not contend for it). */
static bool bounded(pblock *b, uint64_t *counted) {
    prun *r = b->run;
    if (b->steps - *counted < (1u << 16)) return !ptx__failed(r);
    uint64_t total = ptx__block_flush(b, counted);
    if (ptx__failed(r)) return false;
    bool steps = total > r->step_limit;
    if (!steps && (r->deadline_ns == 0 || ptx__now_ns() < r->deadline_ns)) return true;
    const pinst *in = NULL;
    const pthr *t = ptx__where(b, &in);
    if (steps) {
        ptx__fault(b, t, in, CUDA_ERROR_LAUNCH_TIMEOUT,
                   "the launch's threads ran more than %llu instructions (an endless loop, or a "
                   "spin on a value no thread sets; CUSHIM_MOCK_PTX_STEPS raises the bound)",
                   (unsigned long long)r->step_limit);
    } else {
        ptx__fault(b, t, in, CUDA_ERROR_LAUNCH_TIMEOUT,
                   "the launch ran longer than %g s (an endless loop, or a spin on a value no "
                   "thread sets; CUSHIM_MOCK_TIMEOUT_S raises the bound)",
                   r->timeout_s);
    }
    return false;
}

int ptx__block_turn(pblock *b, uint64_t *counted, unsigned from) {
    prun *r = b->run;
    bool progress = from > 0;
    unsigned order[64], n = b->nwarps;
    for (unsigned i = 0; i < n && i < 64; i++) order[i] = i;
    if (b->rng != 0 && n <= 64) { /* a random order of the warps for this turn */
        for (unsigned i = n; i > 1; i--) {
            unsigned j = (unsigned)(ptx__random(&b->rng) % i), x = order[i - 1];
            order[i - 1] = order[j];
            order[j] = x;
        }
    }
    for (unsigned i = from; i < n; i++) {
        if (ptx__warp_turn(b, &b->warps[i < 64 ? order[i] : i], QUANTUM, 0)) progress = true;
        if (ptx__failed(r)) return -1;
    }
    if (!bounded(b, counted)) return -1;
    if (ptx__bar_try(b)) progress = true;
    if (b->exited == b->n) {
        b->done = true; /* none waits: every pthr says TS_RUN */
        return -1;
    }
    if (!progress) {
        for (unsigned w = 0; w < b->nwarps; w++) {
            if (ptx__warp_try(b, w)) progress = true;
        }
    }
    return progress ? 1 : 0;
}

/* A block's first turn where its warps may run compiled whole (ptx__jit_block); as block_turn.
 * A short kernel's block ends in it, without the scheduler's paths. */
static int block_fast(pblock *b, uint64_t *counted) {
    unsigned stop = 0;
    uint64_t used = 0;
    uint32_t pc = 0;
    int s = ptx__jit_block(b, &stop, &used, &pc);
    if (s == PJIT_EXIT) {
        b->exited = b->n;
        b->done = true;
        bounded(b, counted);
        return -1;
    }
    /* The warps as the scheduler would have them here: those before `stop` exited, it at pc. As
     * in block_turn, it has the rest of its turn (one that yielded has none), then the warps after
     * it have theirs. */
    block_regs(b);
    ptx__warps_start(b);
    for (unsigned k = 0; k < stop; k++) {
        b->warps[k].live = 0;
        b->warps[k].npaths = 0;
    }
    b->exited = stop * 32;
    b->warps[stop].paths[0].pc = pc;
    if (s == PJIT_BAIL) ptx__warp_turn(b, &b->warps[stop], QUANTUM, used);
    if (ptx__failed(b->run)) return -1;
    return ptx__block_turn(b, counted, stop + 1);
}

void ptx__block_run(pblock *b, unsigned long long index, bool fast, uint64_t *counted) {
    block_begin(b, index);
    int s = 1;
    if (fast) {
        s = block_fast(b, counted);
    } else {
        block_regs(b);
        ptx__warps_start(b);
    }
    while (s > 0) s = ptx__block_turn(b, counted, 0);
    if (s == 0) ptx__deadlock(b);
}
