/* Internal to the executor: the meeting points of a block's lanes (ptx_coll.c). A lane that
 * arrives at a barrier or a warp collective waits (its state, its instruction and its register
 * column in its pthr); these complete a meeting when every lane it waits for has arrived. */
#ifndef CUSHIM_MOCK_PTX_COLL_H
#define CUSHIM_MOCK_PTX_COLL_H

#include "ptx_run.h"

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

#endif
