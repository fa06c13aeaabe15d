/* Internal to the executor: the meeting points of a block's lanes (ptx_coll.c). A lane that
 * arrives at a barrier or a warp collective waits (its state, its instruction and its register
 * column in its pthr); these complete a meeting when every lane it waits for has arrived. */
#ifndef CUSHIM_MOCK_PTX_COLL_H
#define CUSHIM_MOCK_PTX_COLL_H

#include "ptx_run.h"

/* The lane that lane i of a shfl of mode `sub` (up, down, bfly, idx) reads, with b and c its
 * operands; *pv says whether that lane is in range (else i reads itself). */
static inline int ptx__shfl_lane(int sub, int i, uint32_t b, uint32_t c, bool *pv) {
    uint32_t bv = b & 31, cv = c & 31, seg = (c >> 8) & 31;
    int maxl = (int)(((uint32_t)i & seg) | (cv & ~seg)), minl = (int)((uint32_t)i & seg), j;
    switch (sub) {
    case 0:
        j = i - (int)bv;
        *pv = j >= maxl;
        break;
    case 1:
        j = i + (int)bv;
        *pv = j <= maxl;
        break;
    case 2:
        j = i ^ (int)bv;
        *pv = j <= maxl;
        break;
    default:
        j = minl | (int)(bv & ~seg);
        *pv = j <= maxl;
        break;
    }
    return j;
}

/* Completes the collective that the lanes `part` of warp w wait at (all at collectives of the
 * kind of `in`). */
void ptx__warp_resolve(pblock *b, unsigned w, const pinst *in, uint32_t part);
/* Completes the collectives of warp w whose members have all arrived: true for any. */
bool ptx__warp_try(pblock *b, unsigned w);
/* Completes barriers 0..15 where every lane that has not exited has arrived (or the count
 * named at the barrier has): true for any. */
bool ptx__bar_try(pblock *b);
/* Records the block's deadlock: the lanes that wait, named by the first of them. */
void ptx__deadlock(pblock *b);
/* The first lane of the block that waits at a meeting point, and where; NULL for none. */
const pthr *ptx__waiting(const pblock *b, const pinst **in);

#endif
