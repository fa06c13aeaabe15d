/* A block's memory: its lanes, warps, register blocks, local and shared memory. A host thread
 * makes one for the first block it runs in a launch and runs every later block of the launch in
 * it; at the launch's end it is kept (up to a bound) for a later launch of the same shape, so that
 * a short launch over many host threads does not spend its time in calloc, zeroing and page
 * faults (a 256-thread block of ~100 register slots is ~220 KiB of registers alone, which glibc
 * would return to the system at every launch's end and fault in again at the next). A thread of
 * the pool keeps its newest block itself, so that at a launch's start and end sixteen host
 * threads do not queue on one lock, and each finds its block in its own core's caches. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_check.h"
#include "ptx_run.h"

#define KEEP_MAX 64            /* blocks kept for later launches */
#define KEEP_ONE (4u << 20)    /* the largest block kept */
#define KEEP_ALL (64ull << 20) /* all of them */

static struct {
    pthread_mutex_t lock;
    pblock b[KEEP_MAX]; /* oldest first */
    int n;
    size_t bytes;
} keep = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t registered = PTHREAD_ONCE_INIT;

/* fork(): the lock is held across it, so that the child's copy of the list is consistent. */
static void before_fork(void) { pthread_mutex_lock(&keep.lock); }
static void after_fork(void) { pthread_mutex_unlock(&keep.lock); }
static void register_fork(void) { pthread_atfork(before_fork, after_fork, after_fork); }

void ptx__block_free(pblock *b) {
    ptx__warps_free(b);
    ptx__check_block_free(b);
    free(b->t);
    free(b->local_all);
    free(b->smem);
    memset(b, 0, sizeof *b);
}

/* At exit or unload: what is kept goes. */
__attribute__((destructor)) static void keep_end(void) {
    pthread_mutex_lock(&keep.lock);
    for (int i = 0; i < keep.n; i++) ptx__block_free(&keep.b[i]);
    keep.n = 0;
    keep.bytes = 0;
    pthread_mutex_unlock(&keep.lock);
}

/* Its memory, and the constants of the kernel's registers in every lane (they never change, so
 * once for all the blocks this host thread runs). */
bool ptx__block_alloc(pblock *b, prun *r) {
    const mock_ptx_func *k = r->k;
    b->run = r;
    b->n = r->threads;
    b->nwarps = (b->n + 31) / 32;
    b->nslots = r->nslots;
    b->kernel = k->uid;
    b->local_size = r->local_size;
    b->t = calloc(b->n, sizeof *b->t);
    b->local_all = malloc(r->local_size * b->n + 16);
    b->smem_size = k->smem_dyn_off + r->l->dynamic_smem;
    b->smem = malloc(b->smem_size + 16);
    b->bytes = b->n * (sizeof *b->t + r->local_size) + b->smem_size +
               b->nwarps * (sizeof *b->warps + (size_t)r->nslots * 32 * sizeof(uint64_t));
    if (b->t == NULL || b->local_all == NULL || b->smem == NULL || !ptx__warps_alloc(b) ||
        !ptx__check_block_alloc(b))
        return false;
    ptx__warps_lanes(b);
    return true;
}

static bool fits(const pblock *k, const prun *r, size_t smem) {
    return r->checks == 0 && k->n == r->threads && k->nslots == r->nslots &&
           k->local_size == r->local_size && k->smem_size == smem;
}

/* Out of the list shared by every host thread: the newest of r's shape (the likeliest still in
 * a cache), or false. */
static bool take_shared(pblock *b, const prun *r, size_t smem) {
    pthread_once(&registered, register_fork);
    pthread_mutex_lock(&keep.lock);
    int i = keep.n - 1;
    while (i >= 0 && !fits(&keep.b[i], r, smem)) i--;
    if (i >= 0) {
        *b = keep.b[i];
        keep.bytes -= b->bytes;
        memmove(&keep.b[i], &keep.b[i + 1], (size_t)(keep.n - i - 1) * sizeof *keep.b);
        keep.n--;
    }
    pthread_mutex_unlock(&keep.lock);
    return i >= 0;
}

bool ptx__block_take(pblock *b, prun *r, void **own) {
    size_t smem = r->k->smem_dyn_off + r->l->dynamic_smem;
    pblock *mine = own != NULL ? *own : NULL;
    bool found = mine != NULL && mine->t != NULL && fits(mine, r, smem);
    if (found) { /* the host thread's own: no lock, and likeliest in this core's caches */
        *b = *mine;
        mine->t = NULL;
    } else {
        found = take_shared(b, r, smem);
    }
    if (!found) return ptx__block_alloc(b, r);
    b->run = r;
    b->steps = 0;
    b->jit_ran = 0;
    /* A launch of the kernel and shape it ran last finds its lanes set (a 256-thread block's
     * are some 8,000 scattered stores: 5 to 15 us of each host thread's launch). */
    if (ptx__warps_lanes_current(b)) return true;
    if (b->kernel != r->k->uid) {
        /* Another kernel's values out of its registers, as in a block just made: a register
         * read before it is written (undefined, but seen) reads the same whatever ran before,
         * and the compiling tier's 32-bit slots (zero-extended) hold what it assumes. */
        size_t from = (size_t)SL_RESERVED << 5, to = (size_t)r->k->const_start << 5;
        for (unsigned w = 0; w < b->nwarps && to > from; w++)
            memset(b->warps[w].regs[0] + from, 0, (to - from) * sizeof(uint64_t));
        b->kernel = r->k->uid;
    }
    ptx__warps_lanes(b); /* another kernel's constants, or another launch's dimensions */
    return true;
}

/* Into the list shared by every host thread (the lock held for the list only). */
static void give_shared(pblock *b) {
    pblock old;
    bool drop = false;
    pthread_once(&registered, register_fork);
    pthread_mutex_lock(&keep.lock);
    if (keep.n == KEEP_MAX || keep.bytes + b->bytes > KEEP_ALL) { /* the oldest makes room */
        old = keep.b[0];
        drop = keep.n > 0;
        if (drop) {
            keep.bytes -= old.bytes;
            memmove(&keep.b[0], &keep.b[1], (size_t)(keep.n - 1) * sizeof *keep.b);
            keep.n--;
        }
    }
    bool kept = keep.bytes + b->bytes <= KEEP_ALL;
    if (kept) {
        keep.b[keep.n++] = *b;
        keep.bytes += b->bytes;
    }
    pthread_mutex_unlock(&keep.lock);
    if (drop) ptx__block_free(&old);
    if (kept) {
        memset(b, 0, sizeof *b);
    } else {
        ptx__block_free(b);
    }
}

void ptx__block_give(pblock *b, void **own) {
    if (b->chk != NULL || b->bytes > KEEP_ONE || b->t == NULL) {
        ptx__block_free(b);
        return;
    }
    /* The register blocks of call depths (ptx_exec.c's call() makes them, and sets them at each
     * call) go: a deep recursion's would otherwise stay, uncounted in its bytes. */
    for (unsigned k = 0; b->warps != NULL && k < b->nwarps; k++) {
        pwarp *w = &b->warps[k];
        for (int d = 1; d < w->nregs; d++) free(w->regs[d]);
        if (w->nregs > 1) w->nregs = 1;
    }
    b->run = NULL;
    b->w = NULL;
    /* A pool thread keeps its newest block itself (one, of at most KEEP_ONE bytes, beside the
     * shared list's bound) and passes the one it held to the shared list. */
    if (own != NULL && (*own != NULL || (*own = calloc(1, sizeof *b)) != NULL)) {
        pblock *mine = *own, held = *mine;
        *mine = *b;
        memset(b, 0, sizeof *b);
        if (held.t == NULL) return;
        *b = held;
    }
    give_shared(b);
}

void ptx__block_drop(void *own) {
    pblock *mine = own;
    if (mine->t != NULL) ptx__block_free(mine);
    free(mine);
}
