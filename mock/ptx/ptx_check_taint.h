/* Internal to the checks: initcheck's definedness of registers and memory (ptx_check_taint.c).
 * A value read from memory that nothing wrote is not reported where it is read, but where it
 * is used: as an address, as a branch's condition, or stored and later copied to the host. */
#ifndef CUSHIM_MOCK_PTX_CHECK_TAINT_H
#define CUSHIM_MOCK_PTX_CHECK_TAINT_H

#include "ptx_run.h"

/* The taint of a register slot in one call frame of a warp: the lanes whose value came from
 * memory nothing wrote, and the PTX line of the load it came from (for the report). */
typedef struct ptaint {
    uint32_t lanes, line;
} ptaint;

/* A warp's frames of taints, one per call depth, grown as calls go deeper. */
typedef struct ptaint_warp {
    ptaint **frame;
    int nframe;
} ptaint_warp;

/* Made with the block's shadow (false: out of memory), cleared at each start, freed with it. */
bool ptx__taint_alloc(pblock *b);
void ptx__taint_start(pblock *b);
void ptx__taint_free(pblock *b);

/* Before instruction `in` of path p (its lanes `mask`, before its guard), with R the path's
 * registers: the taints of its destinations worked out from its sources', memory's definedness
 * read or written, and a tainted address or branch condition reported. TS_RUN, or TS_FAULT after
 * a report that fails the launch. */
int ptx__taint_step(pblock *b, pwarp *w, const ppath *p, const pinst *in, uint32_t mask,
                    const uint64_t *R);

#endif
