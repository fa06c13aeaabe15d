/* Scheduling: the blocks of a grid over a pool of host threads (each block run by ptx_turn.c),
 * and a cooperative grid with all its blocks resident and interleaved; a kernel decoded at its
 * first launch, and a launch's parameters, bounds and schedule set up. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx_check.h"
#include "ptx_coll.h"
#include "ptx_jit.h"
#include "ptx_pool.h"
#include "ptx_run.h"

/* ------------------------------------------------------------------------------------------ */
/* The grid                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* How many blocks a host thread takes at once: a share of what is left that shrinks as the grid
 * ends (guided self-scheduling), so that the launch's counter is written a few dozen times per
 * host thread rather than once a block, and the last blocks still spread over the threads. */
static unsigned long long batch(const prun *r, unsigned long long left) {
    unsigned long long n = left / (4ull * (unsigned)r->nworkers);
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

/* A host thread's share of a grid: blocks taken in batches from the launch's counter until none
 * is left. Its block's memory is taken when it takes its first (ptx_block.c: kept from an earlier
 * launch where one of the same shape was), and left for a later launch at the end. */
static void worker(void *arg, void **own) {
    prun *r = arg;
    pworker w;
    memset(&w, 0, sizeof w);
    w.run = r;
    pblock b;
    memset(&b, 0, sizeof b);
    bool made = false;
    /* The launch's count gets this thread's steps every 2^16 of them (bounded) and at its
     * end, not after every block: a short block would make it a contended line. */
    uint64_t counted = 0;
    unsigned long long i = 0, end = 0, n = batch(r, r->nblocks);
    bool fast = ptx__jit_whole(r);
    for (;;) {
        if (i == end) {
            i = __atomic_fetch_add(&r->next, n, __ATOMIC_RELAXED);
            end = i + n < r->nblocks ? i + n : r->nblocks;
            if (i < r->nblocks) n = batch(r, r->nblocks - end);
        }
        if (i >= r->nblocks || ptx__failed(r)) break;
        if (!made && !ptx__block_take(&b, r, own)) {
            b.run = r;
            ptx__fault(&b, NULL, NULL, CUDA_ERROR_OUT_OF_MEMORY, "out of memory for a block");
            break;
        }
        made = true;
        b.w = &w;
        ptx__block_run(&b, r->order != NULL ? r->order[i] : i, fast, &counted);
        i++;
    }
    if (made) {
        ptx__block_flush(&b, &counted);
        if (b.jit_ran != 0) __atomic_fetch_add(&r->jit_ran, b.jit_ran, __ATOMIC_RELAXED);
        ptx__block_give(&b, own);
    } else {
        ptx__block_free(&b);
    }
}

/* Cooperative: every block resident, all interleaved on the calling thread, so that a grid
 * barrier built from atomics and spins completes. */
static void cooperative(prun *r, pworker *w) {
    pblock *bs = calloc(r->nblocks, sizeof *bs);
    uint64_t *counted = calloc(r->nblocks, sizeof *counted);
    bool ok = bs != NULL && counted != NULL;
    for (unsigned long long i = 0; ok && i < r->nblocks; i++) {
        ok = ptx__block_alloc(&bs[i], r);
        bs[i].w = w;
        if (ok) ptx__block_start(&bs[i], i);
    }
    if (!ok) {
        r->failed = 1;
        r->code = CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(r->err, r->errlen, "out of memory for a cooperative grid");
    }
    while (ok && !ptx__failed(r)) {
        bool progress = false, all_done = true;
        for (unsigned long long k = 0; k < r->nblocks && !ptx__failed(r); k++) {
            unsigned long long i = r->order != NULL ? r->order[k] : k;
            if (bs[i].done) continue;
            int s = ptx__block_turn(&bs[i], &counted[i], 0);
            if (s > 0) progress = true;
            if (!bs[i].done) all_done = false;
        }
        if (all_done || ptx__failed(r)) break;
        if (!progress) {
            /* The first block still waiting is the one named. */
            unsigned long long i = 0;
            while (i + 1 < r->nblocks && bs[i].done) i++;
            ptx__deadlock(&bs[i]);
            break;
        }
    }
    for (unsigned long long i = 0; bs != NULL && i < r->nblocks; i++) {
        if (counted != NULL) ptx__block_flush(&bs[i], &counted[i]);
        r->jit_ran += bs[i].jit_ran;
        ptx__block_free(&bs[i]);
    }
    free(bs);
    free(counted);
}

static int host_threads(const mock_ptx_launch *l, unsigned long long blocks) {
    long n = l->host_threads;
    if (n <= 0) {
        const char *e = getenv("CUSHIM_MOCK_THREADS");
        n = e != NULL ? strtol(e, NULL, 10) : 0;
    }
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0) n = 1;
    if (n > 256) n = 256;
    if ((unsigned long long)n > blocks) n = (long)blocks;
    return (int)n;
}

static uint64_t total_steps; /* thread-instructions of every run */

uint64_t mock__ptx_instructions(void) { return __atomic_load_n(&total_steps, __ATOMIC_RELAXED); }

/* Decoded once: the first launch of a kernel decodes it under its module's lock (a kernel's
 * .shared moves the module's layout, and two threads may launch kernels of one module at once),
 * then publishes it; later launches see `prepared` and take no lock. */
bool mock__ptx_prepare(const mock_ptx_kernel *kernel, char *err, size_t errlen) {
    mock_ptx_func *k = (mock_ptx_func *)kernel;
    if (errlen > 0) err[0] = 0;
    if (!__atomic_load_n(&k->prepared, __ATOMIC_ACQUIRE)) {
        mock_ptx_module *m = k->mod;
        pthread_mutex_lock(&m->lock);
        if (!k->prepared) {
            bool ok = ptx__decode(k, err, errlen);
            if (ok) {
                /* Every function the kernel may call is decoded by now: the widest frame. */
                k->run_nslots = k->nslots;
                for (size_t i = 0; i < m->nfuncs; i++) {
                    const mock_ptx_func *f = &m->funcs[i];
                    if (f->decoded && f->error == NULL && f->nslots > k->run_nslots)
                        k->run_nslots = f->nslots;
                }
                k->smem_static = m->smem_static;
                k->smem_dyn_off = m->smem_dyn_off;
                static uint64_t uids;
                k->uid = __atomic_add_fetch(&uids, 1, __ATOMIC_RELAXED);
            }
            /* A reason that stays (not a passing lack of memory) is published as well. */
            if (ok || k->error != NULL) __atomic_store_n(&k->prepared, true, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&m->lock);
    }
    if (k->error != NULL) snprintf(err, errlen, "%s", k->error);
    return k->error == NULL && __atomic_load_n(&k->prepared, __ATOMIC_RELAXED);
}

CUresult mock__ptx_run(const mock_ptx_kernel *k, const mock_ptx_launch *l, char *err,
                       size_t errlen) {
    if (!mock__ptx_prepare(k, err, errlen)) return CUDA_ERROR_NOT_SUPPORTED;
    /* A kernel that only returns (a test's placeholder) has nothing to run, however large
     * its grid. */
    if (k->code[0].op == O_EXIT * T_COUNT + T_NONE && k->code[0].guard == SL_TRUE)
        return CUDA_SUCCESS;
    prun r;
    memset(&r, 0, sizeof r);
    r.k = k;
    r.l = l;
    if (l->heap != NULL) ptx__heap_range(l->heap, &r.heap_lo, &r.heap_size);
    r.err = err;
    r.errlen = errlen;
    r.threads = l->block[0] * l->block[1] * l->block[2];
    r.nblocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
    if (r.threads == 0 || r.nblocks == 0) return CUDA_ERROR_INVALID_VALUE;
    r.local_size = (k->max_depth_bytes + (k->recursive ? 64 * 1024 : 0) + 31) / 16 * 16;
    r.nslots = k->run_nslots;
    const char *e = getenv("CUSHIM_MOCK_PTX_STEPS");
    r.step_limit = e != NULL && strtoull(e, NULL, 10) > 0 ? strtoull(e, NULL, 10) : 1ull << 40;
    e = getenv("CUSHIM_MOCK_TIMEOUT_S");
    r.timeout_s = e != NULL && strtod(e, NULL) > 0 ? strtod(e, NULL) : 30.0;
    r.deadline_ns = ptx__now_ns() + (uint64_t)(r.timeout_s * 1e9);
    e = getenv("CUSHIM_MOCK_SCHEDULE");
    if (e != NULL && strncmp(e, "random:", 7) == 0) {
        uint64_t seed = strtoull(e + 7, NULL, 0);
        r.seed = ptx__random(&seed) | 1;
    }
    if (r.seed != 0 && r.nblocks <= (1ull << 24)) {
        /* A random order of the blocks (they start in it; with several host threads they
         * also overlap in it). */
        r.order = malloc(r.nblocks * sizeof *r.order);
        if (r.order == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
        uint64_t s = r.seed;
        for (unsigned long long i = 0; i < r.nblocks; i++) r.order[i] = i;
        for (unsigned long long i = r.nblocks; i > 1; i--) {
            unsigned long long j = ptx__random(&s) % i, x = r.order[i - 1];
            r.order[i - 1] = r.order[j];
            r.order[j] = x;
        }
    }
    r.param_bytes = k->param_bytes;
    r.params = calloc(1, r.param_bytes + 16);
    if (r.params == NULL) {
        free(r.order);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < k->nparams; i++) {
        if (l->params == NULL || l->params[i] == NULL) {
            free(r.params);
            free(r.order);
            snprintf(err, errlen, "kernel %s: parameter %d of %d is missing", k->name, i,
                     k->nparams);
            return CUDA_ERROR_INVALID_VALUE;
        }
        memcpy(r.params + k->params[i].offset, l->params[i], k->params[i].size);
    }
    if (!ptx__check_run_begin(&r)) {
        free(r.params);
        free(r.order);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&r.out_lock, NULL);
    r.jit = ptx__jit_for(k, &r);
    /* The wall-clock bound starts after a compile (the host's compiler may take seconds). */
    r.deadline_ns = ptx__now_ns() + (uint64_t)(r.timeout_s * 1e9);
    if (l->cooperative) {
        pworker w = {.run = &r};
        cooperative(&r, &w);
    } else {
        r.nworkers = host_threads(l, r.nblocks);
        ptx__pool_run(worker, &r, r.nworkers - 1, ptx__block_drop);
    }
    pthread_mutex_destroy(&r.out_lock);
    ptx__check_run_end(&r);
    free(r.params);
    free(r.order);
    __atomic_fetch_add(&total_steps, r.steps, __ATOMIC_RELAXED);
    ptx__jit_ran(k, r.steps, r.jit_ran);
    if (l->out != NULL)
        fflush(l->out);
    else
        fflush(stdout);
    return r.failed ? r.code : CUDA_SUCCESS;
}
