/* Scheduling: the threads of a block (each runs until it waits at a barrier or a warp
 * collective, which complete when every member has arrived), the blocks of a grid over a pool
 * of host threads, and a cooperative grid with all its blocks resident and interleaved. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx_run.h"

#define QUANTUM 20000 /* instructions a thread runs before the next gets a turn */

int ptx__fault(pblock *b, const pthr *t, const pinst *in, CUresult code, const char *fmt, ...) {
    prun *r = b->run;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&r->failed, &expected, 1, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST)) {
        return TS_FAULT;
    }
    r->code = code;
    int n = 0;
    if (t != NULL) {
        n = snprintf(r->err, r->errlen,
                     "kernel %s, block (%u,%u,%u), thread (%u,%u,%u), PTX line %u: ", r->k->name,
                     b->ctaid[0], b->ctaid[1], b->ctaid[2], t->tid[0], t->tid[1], t->tid[2],
                     in != NULL ? in->line : 0);
    } else {
        n = snprintf(r->err, r->errlen, "kernel %s, block (%u,%u,%u): ", r->k->name, b->ctaid[0],
                     b->ctaid[1], b->ctaid[2]);
    }
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen) vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return TS_FAULT;
}

static bool failed(prun *r) { return __atomic_load_n(&r->failed, __ATOMIC_RELAXED) != 0; }

/* ------------------------------------------------------------------------------------------ */
/* A block                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void block_free(pblock *b) {
    for (unsigned i = 0; b->t != NULL && i < b->n; i++) {
        if (b->t[i].frames == &b->t[i].f0) continue;
        for (int d = 1; d < b->t[i].capframes; d++) free(b->t[i].frames[d].R);
        free(b->t[i].frames);
    }
    free(b->t);
    free(b->regs);
    free(b->local_all);
    free(b->smem);
    memset(b, 0, sizeof *b);
}

static bool block_alloc(pblock *b, prun *r) {
    const mock_ptx_func *k = r->k;
    b->run = r;
    b->n = r->threads;
    b->nwarps = (b->n + 31) / 32;
    b->t = calloc(b->n, sizeof *b->t);
    b->regs = malloc((size_t)b->n * k->nslots * sizeof *b->regs);
    b->local_all = malloc(r->local_size * b->n + 16);
    b->smem_size = k->mod->smem_dyn_off + r->l->dynamic_smem;
    b->smem = malloc(b->smem_size + 16);
    if (b->t == NULL || b->regs == NULL || b->local_all == NULL || b->smem == NULL) return false;
    for (unsigned i = 0; i < b->n; i++) {
        b->t[i].frames = &b->t[i].f0;
        b->t[i].capframes = 1;
    }
    return true;
}

static void block_start(pblock *b, unsigned long long index) {
    prun *r = b->run;
    const mock_ptx_launch *l = r->l;
    const mock_ptx_func *k = r->k;
    b->ctaid[0] = (unsigned)(index % l->grid[0]);
    b->ctaid[1] = (unsigned)(index / l->grid[0] % l->grid[1]);
    b->ctaid[2] = (unsigned)(index / l->grid[0] / l->grid[1]);
    b->exited = 0;
    b->waiting_warp = 0;
    b->done = false;
    /* Shared memory starts zeroed here (the GPU's holds garbage: a kernel cannot rely on
     * either). */
    memset(b->smem, 0, b->smem_size);
    uint32_t used = k->specials;
    for (unsigned i = 0; i < b->n; i++) {
        pthr *t = &b->t[i];
        uint64_t *R = b->regs + (size_t)i * k->nslots;
        /* Registers start undefined, as in PTX: only constants and special registers. */
        memcpy(R + k->const_start, k->init + k->const_start,
               (k->nslots - k->const_start) * sizeof *R);
        R[SL_TRUE] = 1;
        R[SL_FALSE] = R[SL_ZERO] = R[SL_SINK] = R[SL_CARRY] = R[SL_FRAME] = 0;
        t->tid[0] = i % l->block[0];
        t->tid[1] = i / l->block[0] % l->block[1];
        t->tid[2] = i / l->block[0] / l->block[1];
        t->linear = i;
        t->lane = i % 32;
        t->warp = i / 32;
        t->R = R;
        t->code = k->code;
        t->pc = 0;
        t->state = TS_RUN;
        t->depth = 0;
        t->steps = 0;
        t->wait = NULL;
        t->local = b->local_all + (size_t)i * r->local_size;
        t->frames[0] = (pframe){k, R, 0, 0, NULL};
        R[SL_TID] = t->tid[0];
        R[SL_NTID] = l->block[0];
        R[SL_CTAID] = b->ctaid[0];
        if ((used & ~(1u << SL_TID | 1u << SL_NTID | 1u << SL_CTAID)) == 0) continue;
        const unsigned v[] = {t->tid[0],   t->tid[1],   t->tid[2],   l->block[0],
                              l->block[1], l->block[2], b->ctaid[0], b->ctaid[1],
                              b->ctaid[2], l->grid[0],  l->grid[1],  l->grid[2]};
        for (int j = 0; j < 12; j++) R[SL_TID + j] = v[j];
        R[SL_LANE] = t->lane;
        R[SL_WARP] = t->warp;
        R[SL_NWARP] = b->nwarps;
        R[SL_SMID] = (uint32_t)(index % (unsigned)(l->sm_count > 0 ? l->sm_count : 1));
        R[SL_NSMID] = (uint32_t)(l->sm_count > 0 ? l->sm_count : 1);
        R[SL_LMEQ] = 1u << t->lane;
        R[SL_LMLT] = (1u << t->lane) - 1;
        R[SL_LMLE] = (uint32_t)((2ull << t->lane) - 1);
        R[SL_LMGT] = ~(uint32_t)((2ull << t->lane) - 1);
        R[SL_LMGE] = ~(uint32_t)((1ull << t->lane) - 1);
        R[SL_DYNSMEM] = (uint32_t)l->dynamic_smem;
        R[SL_TOTSMEM] = (uint32_t)b->smem_size;
        R[SL_GRIDID] = 1;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Meeting points                                                                             */
/* ------------------------------------------------------------------------------------------ */

static bool pred(const pthr *t, const pinst *in, int i) {
    return ((t->R[in->s[i]] & 1) != 0) != ((in->flags & F_NEGC) != 0);
}

/* Lanes of warp w waiting at a collective of the same kind as `in`, if every member lane of
 * `mask` that has not exited waits there; false while one still runs. */
static bool warp_ready(pblock *b, unsigned w, const pinst *in, uint32_t mask, uint32_t *part) {
    *part = 0;
    unsigned first = w * 32, n = b->n - first < 32 ? b->n - first : 32;
    bool anywait = in->op / T_COUNT == O_ACTIVEMASK;
    for (unsigned i = 0; i < n; i++) {
        pthr *x = &b->t[first + i];
        bool member = anywait || ((mask >> i) & 1);
        if (!member || x->state == TS_EXIT) continue;
        if (x->state == TS_RUN || x->state == TS_YIELD) return false;
        if (anywait) {
            if (x->state == TS_WARP && x->wait == in) *part |= 1u << i;
            continue;
        }
        if (x->state != TS_WARP || x->wait->op / T_COUNT != in->op / T_COUNT) return false;
        *part |= 1u << i;
    }
    return true;
}

static void warp_resolve(pblock *b, unsigned w, const pinst *in, uint32_t part) {
    unsigned first = w * 32;
    int op = in->op / T_COUNT;
    uint32_t ballot = 0, all = 1, any = 0;
    uint64_t red = 0;
    int ty = in->op % T_COUNT;
    bool init = false;
    for (unsigned i = 0; i < 32; i++) {
        if (!((part >> i) & 1)) continue;
        pthr *x = &b->t[first + i];
        const pinst *xi = x->wait;
        if (op == O_VOTE) {
            bool p = pred(x, xi, 0);
            ballot |= (uint32_t)p << i;
            all &= p;
            any |= p;
        } else if (op == O_REDUX) {
            uint64_t v = (uint32_t)x->R[xi->s[0]];
            if (!init) {
                red = v;
                init = true;
                continue;
            }
            switch (xi->sub) {
            case A_ADD: red = (uint32_t)(red + v); break;
            case A_MIN:
                red = ty == T_S32 ? ((int32_t)v < (int32_t)red ? v : red) : (v < red ? v : red);
                break;
            case A_MAX:
                red = ty == T_S32 ? ((int32_t)v > (int32_t)red ? v : red) : (v > red ? v : red);
                break;
            case A_AND: red &= v; break;
            case A_OR: red |= v; break;
            default: red ^= v; break;
            }
        }
    }
    uint64_t vals[32];
    for (unsigned i = 0; i < 32; i++) {
        if ((part >> i) & 1) vals[i] = b->t[first + i].R[b->t[first + i].wait->s[0]];
    }
    for (unsigned i = 0; i < 32; i++) {
        if (!((part >> i) & 1)) continue;
        pthr *x = &b->t[first + i];
        const pinst *xi = x->wait;
        uint64_t *R = x->R;
        switch (op) {
        case O_SHFL: {
            uint32_t bv = (uint32_t)R[xi->s[1]] & 31, c = (uint32_t)R[xi->s[2]];
            uint32_t cv = c & 31, seg = (c >> 8) & 31;
            int lane = (int)i;
            int maxl = (int)((i & seg) | (cv & ~seg)), minl = (int)(i & seg), j;
            bool pv;
            switch (xi->sub) {
            case 0:
                j = lane - (int)bv;
                pv = j >= maxl;
                break;
            case 1:
                j = lane + (int)bv;
                pv = j <= maxl;
                break;
            case 2:
                j = lane ^ (int)bv;
                pv = j <= maxl;
                break;
            default:
                j = minl | (int)(bv & ~seg);
                pv = j <= maxl;
                break;
            }
            if (!pv || j < 0 || j > 31 || !((part >> j) & 1)) j = lane;
            R[xi->d[0]] = (uint32_t)vals[j];
            R[xi->d[1]] = pv;
            break;
        }
        case O_VOTE:
            switch (xi->sub) {
            case 0: R[xi->d[0]] = all; break;
            case 1: R[xi->d[0]] = any; break;
            case 2: R[xi->d[0]] = all || !any; break;
            default: R[xi->d[0]] = ballot; break;
            }
            break;
        case O_MATCH: {
            uint64_t me = vals[i], m = 0;
            bool mt = xi->op % T_COUNT == T_U64;
            for (unsigned j = 0; j < 32; j++) {
                if (((part >> j) & 1) && (mt ? vals[j] == me : (uint32_t)vals[j] == (uint32_t)me))
                    m |= 1u << j;
            }
            if (xi->sub == 0) {
                R[xi->d[0]] = m;
            } else {
                R[xi->d[0]] = m == part ? part : 0;
                R[xi->d[1]] = m == part;
            }
            break;
        }
        case O_REDUX: R[xi->d[0]] = red; break;
        case O_ACTIVEMASK: R[xi->d[0]] = part; break;
        default: break;
        }
        b->waiting_warp--;
        x->state = TS_RUN;
        x->wait = NULL;
    }
}

static uint32_t wait_mask(const pthr *x) {
    const pinst *in = x->wait;
    switch (in->op / T_COUNT) {
    case O_WARPSYNC: return (uint32_t)x->R[in->s[0]];
    case O_SHFL: return (uint32_t)x->R[in->s[3]];
    case O_ACTIVEMASK: return 0;
    default: return (uint32_t)x->R[in->s[1]];
    }
}

/* Completes the collective lane x waits at, if every member has arrived. */
static bool warp_try_one(pblock *b, pthr *x) {
    uint32_t part;
    if (x->state != TS_WARP || !warp_ready(b, x->warp, x->wait, wait_mask(x), &part) || part == 0)
        return false;
    warp_resolve(b, x->warp, x->wait, part);
    return true;
}

/* The same for every lane of warp w (after a lane exited, or when nothing else can run). */
static bool warp_try(pblock *b, unsigned w) {
    bool any = false;
    for (unsigned i = w * 32; i < b->n && i < w * 32 + 32; i++) {
        if (b->t[i].state == TS_WARP && warp_try_one(b, &b->t[i])) any = true;
    }
    return any;
}

/* Completes barrier 0..15 where every thread that has not exited has arrived (or the count
 * named at the barrier has). */
static bool bar_try(pblock *b) {
    bool any = false;
    for (unsigned id = 0; id < 16; id++) {
        unsigned arrived = 0, count = 0, pop = 0, andv = 1, orv = 0;
        for (unsigned i = 0; i < b->n; i++) {
            pthr *x = &b->t[i];
            if (x->state != TS_BAR || (uint32_t)x->R[x->wait->s[0]] % 16 != id) continue;
            arrived++;
            uint32_t c = (uint32_t)x->R[x->wait->s[1]];
            if (c != 0) count = c;
            if (x->wait->sub) {
                bool p = pred(x, x->wait, 2);
                pop += p;
                andv &= p;
                orv |= p;
            }
        }
        if (arrived == 0) continue;
        bool ready = count != 0 ? arrived >= count : arrived + b->exited >= b->n;
        if (!ready) continue;
        for (unsigned i = 0; i < b->n; i++) {
            pthr *x = &b->t[i];
            if (x->state != TS_BAR || (uint32_t)x->R[x->wait->s[0]] % 16 != id) continue;
            uint64_t v = x->wait->sub == 1 ? pop : x->wait->sub == 2 ? andv : orv;
            if (x->wait->sub) x->R[x->wait->d[0]] = v;
            x->state = TS_RUN;
            x->wait = NULL;
        }
        any = true;
    }
    return any;
}

static void deadlock(pblock *b) {
    unsigned bar = 0, warp = 0;
    const pthr *ex = NULL;
    for (unsigned i = 0; i < b->n; i++) {
        if (b->t[i].state == TS_BAR) bar++;
        if (b->t[i].state == TS_WARP) {
            warp++;
            if (ex == NULL) ex = &b->t[i];
        }
        if (ex == NULL && b->t[i].state == TS_BAR) ex = &b->t[i];
    }
    ptx__fault(b, ex, ex != NULL ? ex->wait : NULL, CUDA_ERROR_LAUNCH_FAILED,
               "deadlock: %u threads wait at a barrier and %u at a warp collective, %u have "
               "exited, and none can go on (a barrier or collective not reached by every "
               "thread it waits for)",
               bar, warp, b->exited);
}

/* One turn of every runnable thread of the block. 1: progress, 0: nothing could run (the
 * block is stuck), -1: finished or failed. */
static int block_turn(pblock *b) {
    prun *r = b->run;
    bool progress = false;
    for (unsigned i = 0; i < b->n; i++) {
        pthr *t = &b->t[i];
        if (t->state != TS_RUN && t->state != TS_YIELD) continue;
        t->state = TS_RUN;
        int s = ptx__exec(b, t, QUANTUM);
        progress = true;
        if (s == TS_FAULT || failed(r)) return -1;
        if (t->steps > r->step_limit) {
            ptx__fault(b, t, &t->code[t->pc], CUDA_ERROR_LAUNCH_TIMEOUT,
                       "the thread ran more than %llu instructions (an endless loop, or a spin "
                       "on a value no thread sets; CUSHIM_MOCK_PTX_STEPS raises the bound)",
                       (unsigned long long)r->step_limit);
            return -1;
        }
        t->state = (uint8_t)s;
        if (s == TS_EXIT) {
            b->exited++;
            if (b->waiting_warp > 0) warp_try(b, t->warp);
        } else if (s == TS_WARP) {
            b->waiting_warp++;
            warp_try_one(b, t);
        }
    }
    if (bar_try(b)) progress = true;
    if (b->exited == b->n) {
        b->done = true;
        return -1;
    }
    if (!progress) {
        for (unsigned w = 0; w < b->nwarps; w++) {
            if (warp_try(b, w)) progress = true;
        }
    }
    return progress ? 1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The grid                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static void *worker(void *arg) {
    pworker *w = arg;
    prun *r = w->run;
    pblock b;
    memset(&b, 0, sizeof b);
    if (!block_alloc(&b, r)) {
        b.run = r;
        ptx__fault(&b, NULL, NULL, CUDA_ERROR_OUT_OF_MEMORY, "out of memory for a block");
        block_free(&b);
        return NULL;
    }
    b.w = w;
    uint64_t steps = 0;
    for (;;) {
        unsigned long long i = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
        if (i >= r->nblocks || failed(r)) break;
        block_start(&b, i);
        int s;
        while ((s = block_turn(&b)) > 0) {
        }
        if (s == 0) deadlock(&b);
        for (unsigned k = 0; k < b.n; k++) steps += b.t[k].steps;
    }
    __atomic_fetch_add(&r->steps, steps, __ATOMIC_RELAXED);
    block_free(&b);
    return NULL;
}

/* Cooperative: every block resident, all interleaved on the calling thread, so that a grid
 * barrier built from atomics and spins completes. */
static void cooperative(prun *r, pworker *w) {
    pblock *bs = calloc(r->nblocks, sizeof *bs);
    if (bs == NULL) {
        r->failed = 1;
        r->code = CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(r->err, r->errlen, "out of memory for a cooperative grid");
        return;
    }
    bool ok = true;
    for (unsigned long long i = 0; i < r->nblocks && ok; i++) {
        ok = block_alloc(&bs[i], r);
        bs[i].w = w;
        if (ok) block_start(&bs[i], i);
    }
    if (!ok) {
        r->failed = 1;
        r->code = CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(r->err, r->errlen, "out of memory for a cooperative grid");
    }
    while (ok && !failed(r)) {
        bool progress = false, all_done = true;
        for (unsigned long long i = 0; i < r->nblocks && !failed(r); i++) {
            if (bs[i].done) continue;
            int s = block_turn(&bs[i]);
            if (s > 0) progress = true;
            if (!bs[i].done) all_done = false;
        }
        if (all_done || failed(r)) break;
        if (!progress) {
            deadlock(&bs[0]);
            break;
        }
    }
    uint64_t steps = 0;
    for (unsigned long long i = 0; i < r->nblocks; i++) {
        for (unsigned k = 0; bs[i].t != NULL && k < bs[i].n; k++) steps += bs[i].t[k].steps;
        block_free(&bs[i]);
    }
    r->steps += steps;
    free(bs);
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

uint64_t mock__ptx_last_steps; /* for the benchmark: thread-instructions of the last run */
static uint64_t total_steps;   /* and of every run */

uint64_t mock__ptx_instructions(void) { return __atomic_load_n(&total_steps, __ATOMIC_RELAXED); }

bool mock__ptx_prepare(const mock_ptx_kernel *k, char *err, size_t errlen) {
    static pthread_mutex_t decode_lock = PTHREAD_MUTEX_INITIALIZER;
    if (errlen > 0) err[0] = 0;
    pthread_mutex_lock(&decode_lock);
    bool ok = ptx__decode((mock_ptx_func *)k, err, errlen);
    pthread_mutex_unlock(&decode_lock);
    if (!ok && k->error != NULL) snprintf(err, errlen, "%s", k->error);
    return ok;
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
    r.err = err;
    r.errlen = errlen;
    r.threads = l->block[0] * l->block[1] * l->block[2];
    r.nblocks = (unsigned long long)l->grid[0] * l->grid[1] * l->grid[2];
    if (r.threads == 0 || r.nblocks == 0) return CUDA_ERROR_INVALID_VALUE;
    r.local_size = (k->max_depth_bytes + (k->recursive ? 64 * 1024 : 0) + 31) / 16 * 16;
    const char *e = getenv("CUSHIM_MOCK_PTX_STEPS");
    r.step_limit = e != NULL && strtoull(e, NULL, 10) > 0 ? strtoull(e, NULL, 10) : 1ull << 32;
    r.param_bytes = k->param_bytes;
    r.params = calloc(1, r.param_bytes + 16);
    if (r.params == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < k->nparams; i++) {
        if (l->params == NULL || l->params[i] == NULL) {
            free(r.params);
            snprintf(err, errlen, "kernel %s: parameter %d of %d is missing", k->name, i,
                     k->nparams);
            return CUDA_ERROR_INVALID_VALUE;
        }
        memcpy(r.params + k->params[i].offset, l->params[i], k->params[i].size);
    }
    pthread_mutex_init(&r.out_lock, NULL);
    if (l->cooperative) {
        pworker w = {.run = &r};
        cooperative(&r, &w);
    } else {
        int n = host_threads(l, r.nblocks);
        pworker *ws = calloc((size_t)n, sizeof *ws);
        if (ws == NULL) {
            free(r.params);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        int started = 0;
        for (int i = 0; i < n; i++) {
            ws[i].run = &r;
            if (i > 0 && pthread_create(&ws[i].th, NULL, worker, &ws[i]) != 0) break;
            started = i + 1;
        }
        worker(&ws[0]);
        for (int i = 1; i < started; i++) pthread_join(ws[i].th, NULL);
        free(ws);
    }
    pthread_mutex_destroy(&r.out_lock);
    free(r.params);
    mock__ptx_last_steps = r.steps;
    __atomic_fetch_add(&total_steps, r.steps, __ATOMIC_RELAXED);
    if (l->out != NULL)
        fflush(l->out);
    else
        fflush(stdout);
    return r.failed ? r.code : CUDA_SUCCESS;
}
