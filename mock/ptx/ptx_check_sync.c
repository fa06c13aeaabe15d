/* synccheck: a barrier that completes with part of the block (the others exited without reaching
 * it), one barrier waited at with different thread counts, a warp collective whose mask names
 * lanes that exited; and each completed barrier starts a new epoch of racecheck's shadow. */
#include "ptx_check_sync.h"

#include "ptx_check_report.h"

/* The count named at barrier `id` by each waiting lane: the first two that differ, if any. */
static bool counts_differ(const pblock *b, unsigned id, unsigned *c1, unsigned *c2, const pthr **t2,
                          const pinst **in2) {
    bool have = false;
    for (unsigned i = 0; i < b->n; i++) {
        const pwarp *w = &b->warps[i / 32];
        const pthr *x = &b->t[i];
        unsigned c;
        const pinst *at;
        if ((w->bar_mask >> (i % 32)) & 1) {
            if (w->bar_id != id) continue;
            c = w->bar_count;
            at = w->bar_in;
        } else if (x->state == TS_BAR) {
            if ((uint32_t)LANE_REG(x->col, x->wait->s[0]) % 16 != id) continue;
            c = (uint32_t)LANE_REG(x->col, x->wait->s[1]);
            at = x->wait;
        } else {
            continue;
        }
        if (!have) {
            *c1 = c;
            have = true;
        } else if (c != *c1) {
            *c2 = c;
            *t2 = x;
            *in2 = at;
            return true;
        }
    }
    return false;
}

void ptx__check_bar(pblock *b, uint32_t ready, const unsigned *arrived, const unsigned *count) {
    pcheck *c = b->chk;
    if (c == NULL) return;
    c->epoch++;
    if (!(b->run->checks & MOCK_PTX_CHECK_SYNC)) return;
    for (unsigned id = 0; id < 16; id++) {
        if (!((ready >> id) & 1)) continue;
        unsigned c1 = 0, c2 = 0;
        const pthr *t = NULL;
        const pinst *in = NULL;
        if (counts_differ(b, id, &c1, &c2, &t, &in)) {
            ptx__check_report(
                b, t, in, 3, 0,
                "barrier %u is waited at with different thread counts (%u and %u; 0: the "
                "whole block)",
                id, c1, c2);
            continue;
        }
        if (count[id] == 0 && arrived[id] < b->n) {
            /* The first lane that waits names the barrier. */
            for (unsigned i = 0; i < b->n && t == NULL; i++) {
                const pwarp *w = &b->warps[i / 32];
                if ((w->bar_mask >> (i % 32)) & 1 && w->bar_id == id) {
                    t = &b->t[i];
                    in = w->bar_in;
                } else if (b->t[i].state == TS_BAR &&
                           (uint32_t)LANE_REG(b->t[i].col, b->t[i].wait->s[0]) % 16 == id) {
                    t = &b->t[i];
                    in = b->t[i].wait;
                }
            }
            ptx__check_report(
                b, t, in, 3, 0,
                "barrier %u completes with %u of the block's %u threads: the other %u exited "
                "without reaching it (a barrier in code that only part of the block runs)",
                id, arrived[id], b->n, b->n - arrived[id]);
        }
    }
}

void ptx__check_warp(pblock *b, unsigned w, const pinst *in, uint32_t part, uint32_t mask) {
    /* bar.warp.sync: the warp's earlier accesses are ordered with later ones (racecheck). */
    if (in->op / T_COUNT == O_WARPSYNC && b->chk->wsync != NULL) b->chk->wsync[w]++;
    if (!(b->run->checks & MOCK_PTX_CHECK_SYNC)) return;
    unsigned first = w * 32, n = b->n - first < 32 ? b->n - first : 32;
    uint32_t exist = n == 32 ? 0xffffffffu : (1u << n) - 1, missing = mask & exist & ~part;
    if (missing == 0 || part == 0) return;
    const pthr *t = &b->t[first + (unsigned)__builtin_ctz(part)];
    static const char *const names[] = {[O_SHFL] = "shfl.sync",
                                        [O_VOTE] = "vote.sync",
                                        [O_MATCH] = "match.sync",
                                        [O_REDUX] = "redux.sync",
                                        [O_WARPSYNC] = "bar.warp.sync"};
    int op = in->op / T_COUNT;
    ptx__check_report(
        b, t, in, 3, 0,
        "%s with mask 0x%08x names lanes 0x%08x of warp %u that exited without reaching it "
        "(%u of the %u lanes it names arrived)",
        op < (int)(sizeof names / sizeof names[0]) && names[op] != NULL ? names[op]
                                                                        : "a warp collective",
        mask, missing, w, lanes_in(part), lanes_in(mask & exist));
}
