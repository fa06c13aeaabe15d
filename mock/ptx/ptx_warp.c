/* A block's warps as paths. A path runs (ptx_exec.c) until it stops; a branch its lanes
 * disagree on splits it in two. The next path to run is the deepest in calls, then the one
 * furthest back in the code: the lanes behind catch up with those ahead where the code joins,
 * and two paths at the same instruction with the same stack merge into one (for nvcc's
 * layout, where a join follows both of its branches, this reconverges where a stack keyed by
 * the immediate post-dominator would). A path that spins past its budget while others of its
 * warp could run hands over to them in turn, so that lanes waiting on each other in ways a
 * stack could not express (a spin in one branch on a store in the other: independent thread
 * scheduling) still make progress. */
#include <stdlib.h>
#include <string.h>

#include "ptx_coll.h"
#include "ptx_jit.h"

static bool path_init(ppath *p, int depth) {
    if (p->capframes < depth + 1) {
        int n = depth + 1 < 8 ? 8 : depth + 1;
        pframe *f = realloc(p->frames, (size_t)n * sizeof *f);
        if (f == NULL) return false;
        p->frames = f;
        p->capframes = n;
    }
    return true;
}

/* A new path (its frames from a free slot where there is one). */
static ppath *path_add(pwarp *w, int depth) {
    if (w->npaths == w->cappaths) {
        int n = w->cappaths * 2;
        ppath *ps = realloc(w->paths, (size_t)n * sizeof *ps);
        if (ps == NULL) return NULL;
        memset(ps + w->cappaths, 0, (size_t)(n - w->cappaths) * sizeof *ps);
        w->paths = ps;
        w->cappaths = n;
    }
    ppath *p = &w->paths[w->npaths];
    if (!path_init(p, depth)) return NULL;
    w->npaths++;
    p->blocked = false;
    p->depth = depth;
    return p;
}

/* Removes path i; its frames stay in the slot past the end, for the next path_add. */
static void path_remove(pwarp *w, int i) {
    int last = --w->npaths;
    if (i == last) return; /* the common case (the warp's one path): nothing moves */
    ppath tmp = w->paths[i];
    w->paths[i] = w->paths[last];
    w->paths[last] = tmp;
}

static bool same_stack(const ppath *a, const ppath *b) {
    if (a->depth != b->depth) return false;
    for (int d = 0; d <= a->depth; d++) {
        const pframe *x = &a->frames[d], *y = &b->frames[d];
        if (x->f != y->f || x->base != y->base || (d < a->depth && x->ret_pc != y->ret_pc))
            return false;
    }
    return true;
}

/* A copy of path i for the lanes `mask` at pc (they leave path i). */
static bool path_split(pwarp *w, int i, uint32_t mask, uint32_t pc, bool blocked) {
    ppath *q = path_add(w, w->paths[i].depth);
    if (q == NULL) return false;
    ppath *p = &w->paths[i];
    memcpy(q->frames, p->frames, (size_t)(p->depth + 1) * sizeof *q->frames);
    q->mask = mask;
    q->pc = pc;
    q->blocked = blocked;
    p->mask &= ~mask;
    return true;
}

/* Blocked paths whose lanes a barrier or collective released: they run again, split from the
 * lanes that still wait. */
static bool unblock(pwarp *w) {
    for (int i = 0; i < w->npaths; i++) {
        ppath *p = &w->paths[i];
        if (!p->blocked) continue;
        uint32_t going = p->mask & ~w->waiting;
        if (going == p->mask) {
            p->blocked = false;
        } else if (going != 0 && !path_split(w, i, going, p->pc, false)) {
            return false;
        }
    }
    return true;
}

static void merge(pwarp *w) {
    for (int i = 0; i < w->npaths; i++) {
        for (int j = i + 1; j < w->npaths; j++) {
            ppath *p = &w->paths[i], *q = &w->paths[j];
            if (p->blocked || q->blocked || p->pc != q->pc || !same_stack(p, q)) continue;
            p->mask |= q->mask;
            path_remove(w, j);
            j--;
        }
    }
}

/* The path to run next: deepest, then furthest back; in turn after a path spun. -1: none. */
static int pick(pwarp *w) {
    int best = -1;
    if (w->yields > 0) {
        for (int k = 1; k <= w->npaths; k++) {
            int i = (w->last + k) % w->npaths;
            if (!w->paths[i].blocked) return i;
        }
        return -1;
    }
    for (int i = 0; i < w->npaths; i++) {
        const ppath *p = &w->paths[i];
        if (p->blocked) continue;
        if (best < 0 || p->depth > w->paths[best].depth ||
            (p->depth == w->paths[best].depth && p->pc < w->paths[best].pc))
            best = i;
    }
    return best;
}

bool ptx__warp_turn(pblock *b, pwarp *w, uint64_t budget, uint64_t used) {
    bool ran = false;
    uint64_t start = b->steps - used * 32;
    while (b->steps - start < budget * 32) {
        if (!unblock(w)) {
            ptx__fault(b, NULL, NULL, CUDA_ERROR_OUT_OF_MEMORY, "out of memory for a warp");
            return true;
        }
        int i;
        if (w->npaths == 1) { /* the common case: the warp is one path */
            w->yields = 0;
            i = w->paths[0].blocked ? -1 : 0;
        } else {
            merge(w);
            if (w->npaths <= 1) w->yields = 0;
            i = pick(w);
        }
        if (i < 0) return ran;
        ran = true;
        w->last = i;
        uint32_t live = w->live;
        int s = b->run->jit != NULL ? ptx__jit_exec(b, w, &w->paths[i], budget, used)
                                    : ptx__exec(b, w, &w->paths[i], budget);
        used = 0;
        if (s == TS_FAULT) return true;
        if (s == TS_SPLIT && !path_split(w, i, 0, 0, false)) {
            ptx__fault(b, NULL, NULL, CUDA_ERROR_OUT_OF_MEMORY, "out of memory for a warp");
            return true;
        }
        if (s == TS_SPLIT) {
            ppath *q = &w->paths[w->npaths - 1];
            q->mask = w->split_mask;
            q->pc = w->split_pc;
            if (w->split_up) q->depth--; /* the path had just called: its caller's frame */
            w->split_up = false;
        }
        if (w->paths[i].mask == 0) path_remove(w, i);
        if (w->live != live && b->waiting_warp > 0) ptx__warp_try(b, w->index);
        if (w->npaths == 0) return true; /* every lane has exited: nothing left to pick */
        if (s == TS_YIELD) {
            /* Others of the warp runnable: they get the next turns, one after another. */
            for (int j = 0; j < w->npaths; j++) {
                if (j != i && !w->paths[j].blocked) w->yields++;
            }
            return true;
        }
    }
    return ran;
}

const pthr *ptx__where(pblock *b, const pinst **in) {
    for (unsigned k = 0; k < b->nwarps; k++) {
        pwarp *w = &b->warps[k];
        for (int i = 0; i < w->npaths; i++) {
            const ppath *p = &w->paths[i];
            if (p->blocked || p->mask == 0) continue;
            *in = &p->frames[p->depth].f->code[p->pc];
            return &b->t[w->first + (unsigned)__builtin_ctz(p->mask)];
        }
    }
    return ptx__waiting(b, in);
}

void ptx__warps_free(pblock *b) {
    for (unsigned k = 0; b->warps != NULL && k < b->nwarps; k++) {
        pwarp *w = &b->warps[k];
        for (int i = 0; i < w->cappaths; i++) free(w->paths[i].frames);
        free(w->paths);
        for (int d = 0; d < w->nregs; d++) free(w->regs[d]);
        free(w->regs);
    }
    free(b->warps);
    b->warps = NULL;
}

bool ptx__warps_alloc(pblock *b) {
    b->warps = calloc(b->nwarps, sizeof *b->warps);
    if (b->warps == NULL) return false;
    for (unsigned k = 0; k < b->nwarps; k++) {
        pwarp *w = &b->warps[k];
        w->index = k;
        w->first = k * 32;
        w->n = b->n - w->first < 32 ? b->n - w->first : 32;
        w->paths = calloc(4, sizeof *w->paths);
        w->regs = calloc(1, sizeof *w->regs);
        if (w->paths == NULL || w->regs == NULL) return false;
        w->cappaths = 4;
        if (!path_init(&w->paths[0], 0)) return false;
        w->regs[0] = calloc((size_t)b->run->nslots * 32, sizeof *w->regs[0]);
        if (w->regs[0] == NULL) return false;
        w->nregs = 1;
    }
    return true;
}

/* The lanes' registers that no block changes: constants, thread indexes, dimensions. */
static plaunch_shape shape_of(const mock_ptx_launch *l) {
    plaunch_shape s;
    memset(&s, 0, sizeof s); /* padding too: shapes are compared whole */
    memcpy(s.block, l->block, sizeof s.block);
    memcpy(s.grid, l->grid, sizeof s.grid);
    s.dynamic_smem = l->dynamic_smem;
    s.sm_count = l->sm_count;
    s.cooperative = l->cooperative;
    return s;
}

bool ptx__warps_lanes_current(const pblock *b) {
    plaunch_shape s = shape_of(b->run->l);
    return !s.cooperative && b->kernel == b->run->k->uid &&
           memcmp(&s, &b->lanes_for, sizeof s) == 0;
}

void ptx__warps_lanes(pblock *b) {
    prun *r = b->run;
    const mock_ptx_launch *l = r->l;
    const mock_ptx_func *k = r->k;
    for (unsigned i = 0; i < b->nwarps; i++) {
        uint64_t *R = b->warps[i].regs[0];
        for (uint32_t s = k->const_start; s < k->nslots; s++) {
            for (unsigned j = 0; j < 32; j++) R[s << 5 | j] = k->init[s];
        }
        for (unsigned j = 0; j < 32; j++) R[SL_TRUE << 5 | j] = 1;
    }
    uintptr_t ws = l->cooperative ? (uintptr_t)r->workspace : 0;
    for (unsigned i = 0; i < b->n; i++) {
        pthr *t = &b->t[i];
        uint64_t *R = b->warps[i / 32].regs[0] + i % 32;
        t->tid[0] = i % l->block[0];
        t->tid[1] = i / l->block[0] % l->block[1];
        t->tid[2] = i / l->block[0] / l->block[1];
        t->linear = i;
        t->lane = i % 32;
        t->warp = i / 32;
        t->col = R;
        t->local = b->local_all + (size_t)i * r->local_size;
        LANE_REG(R, SL_FALSE) = LANE_REG(R, SL_ZERO) = LANE_REG(R, SL_SINK) = 0;
        LANE_REG(R, SL_CARRY) = LANE_REG(R, SL_FRAME) = 0;
        const unsigned v[] = {t->tid[0],   t->tid[1],   t->tid[2],  l->block[0],
                              l->block[1], l->block[2], 0,          0,
                              0,           l->grid[0],  l->grid[1], l->grid[2]};
        for (int j = 0; j < 12; j++) LANE_REG(R, SL_TID + j) = v[j];
        LANE_REG(R, SL_LANE) = t->lane;
        LANE_REG(R, SL_WARP) = t->warp;
        LANE_REG(R, SL_NWARP) = b->nwarps;
        LANE_REG(R, SL_NSMID) = (uint32_t)(l->sm_count > 0 ? l->sm_count : 1);
        LANE_REG(R, SL_LMEQ) = 1u << t->lane;
        LANE_REG(R, SL_LMLT) = (1u << t->lane) - 1;
        LANE_REG(R, SL_LMLE) = (uint32_t)((2ull << t->lane) - 1);
        LANE_REG(R, SL_LMGT) = ~(uint32_t)((2ull << t->lane) - 1);
        LANE_REG(R, SL_LMGE) = ~(uint32_t)((1ull << t->lane) - 1);
        LANE_REG(R, SL_DYNSMEM) = (uint32_t)l->dynamic_smem;
        LANE_REG(R, SL_TOTSMEM) = (uint32_t)b->smem_size;
        LANE_REG(R, SL_GRIDID) = 1;
        /* A cooperative launch's grid workspace, as the driver passes it to cooperative
         * groups: its address split over %envreg1 (high) and %envreg2 (low). */
        LANE_REG(R, SL_ENVREG1) = (uint64_t)ws >> 32;
        LANE_REG(R, SL_ENVREG2) = (uint32_t)ws;
    }
    b->lanes_for = shape_of(l);
}

/* Every warp: one path of all its lanes at the kernel's first instruction. */
void ptx__warps_start(pblock *b) {
    const mock_ptx_func *k = b->run->k;
    for (unsigned i = 0; i < b->nwarps; i++) {
        pwarp *w = &b->warps[i];
        w->live = w->n == 32 ? 0xffffffffu : (1u << w->n) - 1;
        w->waiting = 0;
        w->bar_mask = 0;
        w->npaths = 0;
        w->yields = 0;
        w->last = 0;
        ppath *p = path_add(w, 0); /* the first slot always has frames: never NULL */
        p->mask = w->live;
        p->pc = 0;
        p->frames[0] = (pframe){k, 0, 0, NULL};
    }
}
