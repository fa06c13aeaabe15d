/* Internal to initcheck: the definedness of memory (ptx_check_tmem.c), read by loads and written
 * by stores that ptx_check_taint.c follows. */
#ifndef CUSHIM_MOCK_PTX_CHECK_TMEM_H
#define CUSHIM_MOCK_PTX_CHECK_TMEM_H

#include "ptx_run.h"

/* Whether the nb bytes at a hold a value no one wrote, or one stored undefined. */
bool ptx__init_undefined(pblock *b, const pthr *t, const pinst *in, uint64_t a, size_t nb);
/* The nb bytes at a written with a defined value or not (`undef`; `origin`: the PTX line of the
 * load the value came from, for the report of a copy to the host). */
void ptx__init_written(pblock *b, const pthr *t, const pinst *in, uint64_t a, size_t nb, bool undef,
                       unsigned origin);
/* A load, or a store of defined values (or an atomic), of global memory by the lanes of m at
 * x[l] + in->imm, vec elements of sz bytes each: when every lane's nb bytes lie in the
 * allocation looked up last, worked out as ptx__init_undefined or ptx__init_written would lane by
 * lane (dt[i]: the lanes whose element i is undefined) and true; else false, nothing done. */
bool ptx__init_global_known(pblock *b, const pinst *in, uint32_t m, const uint64_t *x, size_t nb,
                            uint32_t *dt, unsigned vec, size_t sz);
/* A store of defined values (or an atomic) to shared memory: ptx__init_written of each lane's
 * elements at once; false (nothing done) where the shadow does not follow shared memory. */
bool ptx__init_shared_defined(pblock *b, const pinst *in, uint32_t m, const uint64_t *x,
                              unsigned vec, size_t sz);

#endif
