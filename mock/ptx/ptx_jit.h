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
/* ptx__exec, with the launch's compiled code (b->run->jit) where it may run. */
int ptx__jit_exec(pblock *b, pwarp *w, ppath *p, uint64_t budget);
void ptx__jit_free(pjit *j);

#endif
