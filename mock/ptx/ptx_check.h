/* Internal to the executor: CUSHIM_MOCK_CHECK's racecheck, initcheck and synccheck
 * (ptx_check.c). Nothing here runs unless a launch asks for a check: the executor calls in at a
 * memory access, a barrier or a warp collective only after one test of the launch's `checks`. */
#ifndef CUSHIM_MOCK_PTX_CHECK_H
#define CUSHIM_MOCK_PTX_CHECK_H

#include "ptx_run.h"

/* A launch's checks set up (r->checks from l->checks) and torn down; false: out of memory. */
bool ptx__check_run_begin(prun *r);
void ptx__check_run_end(prun *r);
/* A block's shadow, made with its memory, reset at each start, freed with it. */
bool ptx__check_block_alloc(pblock *b);
/* Device malloc handed the block n bytes at p: racecheck forgets what their earlier owner did
 * (a free and a malloc are ordered in the heap, not by a barrier). */
void ptx__check_heap_new(pblock *b, uint64_t p, uint64_t n);
void ptx__check_block_start(pblock *b);
void ptx__check_block_free(pblock *b);

/* Before a load or store (atomic: an atom or red) of the lanes of m, of a path of lanes `path`:
 * the shadow read and updated. TS_RUN, or TS_FAULT after a report that fails the launch. */
int ptx__check_mem(pblock *b, pthr *lanes, const pinst *in, uint32_t m, uint32_t path,
                   const uint64_t *R, bool ld, bool atomic);
#endif
