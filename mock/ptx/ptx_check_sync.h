/* Internal to the executor: synccheck at the meeting points (ptx_check_sync.c), called by
 * ptx_coll.c only when the block has a shadow (a launch with checks). */
#ifndef CUSHIM_MOCK_PTX_CHECK_SYNC_H
#define CUSHIM_MOCK_PTX_CHECK_SYNC_H

#include "ptx_run.h"

/* Barriers `ready` are about to complete, with arrived[id] lanes and the count named at each
 * (0: the whole block): synccheck's barrier rules, and a new epoch for racecheck. */
void ptx__check_bar(pblock *b, uint32_t ready, const unsigned *arrived, const unsigned *count);
/* A warp collective of warp w completes with the lanes `part`: synccheck's mask rule. */
void ptx__check_warp(pblock *b, unsigned w, const pinst *in, uint32_t part, uint32_t mask);

#endif
