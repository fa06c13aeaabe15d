/* Meeting points: barriers (bar.sync, bar.red) of a block and the warp collectives
 * (shfl.sync, vote.sync, match.sync, redux.sync, __syncwarp) of a warp, completed lane by lane
 * once every lane they wait for has arrived, wherever in the code each one waits. */
#include "ptx_coll.h"

#include "ptx_check_sync.h"

static bool pred(const pthr *t, const pinst *in, int i) {
    return ((LANE_REG(t->col, in->s[i]) & 1) != 0) != ((in->flags & F_NEGC) != 0);
}

/* Lanes of warp w waiting at a collective of the same kind as `in`, if every member lane of
 * `mask` that has not exited waits there; false while one still runs. */
static bool warp_ready(pblock *b, unsigned w, const pinst *in, uint32_t mask, uint32_t *part) {
    *part = 0;
    unsigned first = w * 32, n = b->n - first < 32 ? b->n - first : 32;
    for (unsigned i = 0; i < n; i++) {
        pthr *x = &b->t[first + i];
        bool member = (mask >> i) & 1;
        if (!member || !((b->warps[w].live >> i) & 1)) continue; /* an exited lane */
        if (x->state == TS_RUN) return false;
        if (x->state != TS_WARP || x->wait->op / T_COUNT != in->op / T_COUNT) return false;
        *part |= 1u << i;
    }
    return true;
}

static uint32_t wait_mask(const pthr *x);

void ptx__warp_resolve(pblock *b, unsigned w, const pinst *in, uint32_t part) {
    unsigned first = w * 32;
    if (b->chk != NULL && part != 0)
        ptx__check_warp(b, w, in, part, wait_mask(&b->t[first + (unsigned)__builtin_ctz(part)]));
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
            uint64_t v = (uint32_t)LANE_REG(x->col, xi->s[0]);
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
        if ((part >> i) & 1) vals[i] = LANE_REG(b->t[first + i].col, b->t[first + i].wait->s[0]);
    }
    for (unsigned i = 0; i < 32; i++) {
        if (!((part >> i) & 1)) continue;
        pthr *x = &b->t[first + i];
        const pinst *xi = x->wait;
        uint64_t *col = x->col;
        switch (op) {
        case O_SHFL: {
            int lane = (int)i;
            bool pv;
            int j = ptx__shfl_lane(xi->sub, lane, (uint32_t)LANE_REG(col, xi->s[1]),
                                   (uint32_t)LANE_REG(col, xi->s[2]), &pv);
            if (!pv || j < 0 || j > 31 || !((part >> j) & 1)) j = lane;
            LANE_REG(col, xi->d[0]) = (uint32_t)vals[j];
            LANE_REG(col, xi->d[1]) = pv;
            break;
        }
        case O_VOTE:
            switch (xi->sub) {
            case 0: LANE_REG(col, xi->d[0]) = all; break;
            case 1: LANE_REG(col, xi->d[0]) = any; break;
            case 2: LANE_REG(col, xi->d[0]) = all || !any; break;
            default: LANE_REG(col, xi->d[0]) = ballot; break;
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
                LANE_REG(col, xi->d[0]) = m;
            } else {
                LANE_REG(col, xi->d[0]) = m == part ? part : 0;
                LANE_REG(col, xi->d[1]) = m == part;
            }
            break;
        }
        case O_REDUX: LANE_REG(col, xi->d[0]) = red; break;
        default: break;
        }
        b->waiting_warp--;
        b->warps[w].waiting &= ~(1u << i);
        x->state = TS_RUN;
        x->wait = NULL;
    }
}

static uint32_t wait_mask(const pthr *x) {
    const pinst *in = x->wait;
    switch (in->op / T_COUNT) {
    case O_WARPSYNC: return (uint32_t)LANE_REG(x->col, in->s[0]);
    case O_SHFL: return (uint32_t)LANE_REG(x->col, in->s[3]);
    default: return (uint32_t)LANE_REG(x->col, in->s[1]);
    }
}

/* Completes the collective lane x waits at, if every member has arrived. */
static bool warp_try_one(pblock *b, pthr *x) {
    uint32_t part;
    if (x->state != TS_WARP || !warp_ready(b, x->warp, x->wait, wait_mask(x), &part) || part == 0)
        return false;
    ptx__warp_resolve(b, x->warp, x->wait, part);
    return true;
}

/* The same for every lane of warp w (after a lane exited, or when nothing else can run). */
bool ptx__warp_try(pblock *b, unsigned w) {
    bool any = false;
    for (unsigned i = w * 32; i < b->n && i < w * 32 + 32; i++) {
        if (b->t[i].state == TS_WARP && warp_try_one(b, &b->t[i])) any = true;
    }
    return any;
}

/* Completes barrier 0..15 where every thread that has not exited has arrived (or the count
 * named at the barrier has): one pass to count, one to release. */
/* Completes barriers 0..15 where every lane that has not exited has arrived (or the count
 * named at the barrier has): the warps' whole paths counted from their masks, the other lanes
 * one by one. */
bool ptx__bar_try(pblock *b) {
    if (b->waiting_bar == 0) return false;
    unsigned arrived[16] = {0}, count[16] = {0}, pop[16] = {0}, andv[16], orv[16] = {0};
    for (unsigned id = 0; id < 16; id++) andv[id] = 1;
    for (unsigned k = 0; k < b->nwarps; k++) {
        const pwarp *w = &b->warps[k];
        if (w->bar_mask == 0) continue;
        arrived[w->bar_id] += lanes_in(w->bar_mask);
        if (w->bar_count != 0) count[w->bar_id] = w->bar_count;
    }
    for (unsigned id = 0; id < 16; id++) { /* bar.arrive's lanes (ptx_mma.c) count, not wait */
        arrived[id] += b->bar_arrived[id];
        if (b->bar_arrive_count[id] != 0 && count[id] == 0) count[id] = b->bar_arrive_count[id];
    }
    for (unsigned i = 0; b->bar_general > 0 && i < b->n; i++) {
        pthr *x = &b->t[i];
        if (x->state != TS_BAR) continue;
        unsigned id = (uint32_t)LANE_REG(x->col, x->wait->s[0]) % 16;
        arrived[id]++;
        uint32_t c = (uint32_t)LANE_REG(x->col, x->wait->s[1]);
        if (c != 0) count[id] = c;
        if (x->wait->sub) {
            bool p = pred(x, x->wait, 2);
            pop[id] += p;
            andv[id] &= p;
            orv[id] |= p;
        }
    }
    uint32_t ready = 0;
    for (unsigned id = 0; id < 16; id++) {
        if (arrived[id] == 0) continue;
        if (count[id] != 0 ? arrived[id] >= count[id] : arrived[id] + b->exited >= b->n)
            ready |= 1u << id;
    }
    if (ready == 0) return false;
    if (b->chk != NULL) ptx__check_bar(b, ready, arrived, count);
    for (unsigned id = 0; id < 16; id++) {
        if ((ready >> id) & 1) b->bar_arrived[id] = b->bar_arrive_count[id] = 0;
    }
    for (unsigned k = 0; k < b->nwarps; k++) {
        pwarp *w = &b->warps[k];
        if (w->bar_mask == 0 || !((ready >> w->bar_id) & 1)) continue;
        w->waiting &= ~w->bar_mask;
        b->waiting_bar -= lanes_in(w->bar_mask);
        w->bar_mask = 0;
    }
    for (unsigned i = 0; b->bar_general > 0 && i < b->n; i++) {
        pthr *x = &b->t[i];
        if (x->state != TS_BAR) continue;
        unsigned id = (uint32_t)LANE_REG(x->col, x->wait->s[0]) % 16;
        if (!((ready >> id) & 1)) continue;
        uint64_t v = x->wait->sub == 1 ? pop[id] : x->wait->sub == 2 ? andv[id] : orv[id];
        if (x->wait->sub) LANE_REG(x->col, x->wait->d[0]) = v;
        x->state = TS_RUN;
        x->wait = NULL;
        b->waiting_bar--;
        b->bar_general--;
        b->warps[i / 32].waiting &= ~(1u << (i % 32));
    }
    return true;
}

/* Whether lane i waits at a barrier, and where. */
static const pinst *at_bar(const pblock *b, unsigned i) {
    const pwarp *w = &b->warps[i / 32];
    if ((w->bar_mask >> (i % 32)) & 1) return w->bar_in;
    return b->t[i].state == TS_BAR ? b->t[i].wait : NULL;
}

void ptx__deadlock(pblock *b) {
    unsigned bar = 0, warp = 0;
    const pthr *ex = NULL, *exb = NULL;
    const pinst *exin = NULL;
    for (unsigned i = 0; i < b->n; i++) {
        const pinst *at = at_bar(b, i);
        if (at != NULL) {
            bar++;
            if (exb == NULL) {
                exb = &b->t[i];
                exin = at;
            }
        }
        if (b->t[i].state == TS_WARP) {
            warp++;
            if (ex == NULL) ex = &b->t[i];
        }
    }
    if (ex == NULL) {
        ex = exb;
    } else {
        exin = ex->wait;
    }
    ptx__fault(b, ex, exin, CUDA_ERROR_LAUNCH_FAILED,
               "deadlock: %u threads wait at a barrier and %u at a warp collective, %u have "
               "exited, and none can go on (a barrier or collective not reached by every "
               "thread it waits for)",
               bar, warp, b->exited);
}

const pthr *ptx__waiting(const pblock *b, const pinst **in) {
    for (unsigned i = 0; i < b->n; i++) {
        const pinst *at = at_bar(b, i);
        if (at == NULL && b->t[i].state == TS_WARP) at = b->t[i].wait;
        if (at != NULL) {
            *in = at;
            return &b->t[i];
        }
    }
    *in = NULL;
    return NULL;
}
