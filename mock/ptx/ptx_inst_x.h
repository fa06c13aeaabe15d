/* Internal to the decoder: the instruction families of ptx_inst_x.c (half and bfloat16
 * arithmetic, directed rounding, tensor cores, bar.arrive), which ptx_inst.c reaches through the
 * dec's pointers that ptx_decode.c sets. */
#ifndef CUSHIM_MOCK_PTX_INST_X_H
#define CUSHIM_MOCK_PTX_INST_X_H

#include "ptx_inst.h"

/* Whether the instruction (its opcode word split) is one of them; bf16x2 moved into the types. */
bool dec_family_wants(mods *m);
/* Decodes it; *handled says whether it was one of them. */
bool dec_family(dec *d, mods *m, opnd *o, int no, bool *handled);

#endif
