/* Internal to the decoder: the instructions (ptx_inst.c), which ptx_decode.c calls. */
#ifndef CUSHIM_MOCK_PTX_INST_H
#define CUSHIM_MOCK_PTX_INST_H

#include "ptx_dec.h"

/* Decodes the instruction whose opcode word is w (the lexer after it) into d's code. */
bool dec_instruction(dec *d, const char *w, size_t n);
/* A type word without its dot ("u32"): T_*, -1 for none; its size in bytes. */
int dec_type(const char *w, size_t n);
int dec_type_bytes(int t);

#endif
