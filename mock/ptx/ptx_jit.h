/* The compiling tier of the PTX interpreter (ptx_jit.c: when and how a kernel runs compiled;
 * ptx_jit_gen.c: its decoded instructions as C; ptx_jit_cc.c: that C compiled by the host's
 * compiler, cached on disk and loaded).
 *
 * A kernel's straight-line runs of supported instructions, for a path that holds all 32 lanes
 * of its warp at the kernel's own call depth, run as compiled code over the same register
 * block the interpreter uses; whatever the code does not take (an instruction outside its list,
 * a guard or branch the lanes disagree on, an access outside the allocations last seen) returns
 * to the interpreter at that instruction, which runs it and hands back at the next entry point.
 * Counts of instructions and the points where a path yields are the interpreter's, so that a
 * launch runs the same with the tier on or off. */
#ifndef CUSHIM_MOCK_PTX_JIT_H
#define CUSHIM_MOCK_PTX_JIT_H

#include "ptx_jit_int.h"
#include "ptx_run.h"

/* A launch's compiled code for kernel k, NULL to interpret: compiles it first when
 * CUSHIM_MOCK_JIT asks for it (on: at its first launch; auto: once it has run enough). */
pjit *ptx__jit_for(const mock_ptx_func *k, const prun *r);
/* After a launch: the thread-instructions it ran, counted towards CUSHIM_MOCK_JIT=auto, and the
 * warp-instructions of compiled code among them (mock__ptx_jit_instructions). */
void ptx__jit_ran(const mock_ptx_func *k, uint64_t steps, uint64_t compiled);
/* ptx__exec, with the launch's compiled code (b->run->jit) where it may run, the path having run
 * n0 warp-instructions of its turn already. */
int ptx__jit_exec(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0);
/* Whether launch r's blocks may run whole in compiled code (ptx__jit_block): the kernel's every
 * instruction is compiled, its warps are all full, and the code takes the block's index from its
 * context (so a block it runs whole needs none of its registers written). */
bool ptx__jit_whole(const prun *r);
/* Block b's warps in turn, each in one call of the compiled code from the kernel's first
 * instruction, while each runs to its exit: PJIT_EXIT when every one did. Otherwise warp *stop
 * returned PJIT_BAIL or PJIT_YIELD at instruction *pc after *used warp-instructions (the warps
 * before it exited, those after it have not started). */
int ptx__jit_block(pblock *b, unsigned *stop, uint64_t *used, uint32_t *pc);
void ptx__jit_free(pjit *j);

#endif
