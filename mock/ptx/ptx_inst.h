/* Internal to the decoder: the instructions (ptx_inst.c), which ptx_decode.c calls. */
#ifndef CUSHIM_MOCK_PTX_INST_H
#define CUSHIM_MOCK_PTX_INST_H

#include "ptx_dec.h"

/* Decodes the instruction whose opcode word is w (the lexer after it) into d's code. */
bool dec_instruction(dec *d, const char *w, size_t n);
/* A type word without its dot ("u32"): T_*, -1 for none; its size in bytes. */
int dec_type(const char *w, size_t n);
int dec_type_bytes(int t);

/* An opcode word split into its name, its types and its other modifiers. */
typedef struct mods {
    const char *op;
    size_t oplen;
    struct {
        const char *w;
        size_t n;
        bool used;
    } part[16];
    int nparts;
    int type[4], ntypes;
} mods;

/* An operand as written. */
enum { K_NONE, K_REG, K_IMM, K_ADDR, K_VEC, K_SYM, K_SPECIAL };

typedef struct opnd {
    int kind;
    uint32_t slot;
    int bytes;
    bool neg;
    bool has_pair;
    uint32_t pair;
    uint64_t v;
    int fk; /* 0 integer, 1 decimal float, 2 0f, 3 0d */
    double f;
    uint32_t base; /* K_ADDR and symbols */
    int64_t off;
    int aspace; /* S_GENERIC for a host address, S_SHARED, S_PARAM, S_LOCAL (frame) */
    bool a32, is_sym;
    uint32_t vec[8];
    int nvec;
    const char *name;
    size_t nlen;
    int special;
} opnd;

/* What the families in other files (ptx_inst_x.c) use of this file's decoding. */
bool dec_take(mods *m, const char *s);
int dec_take_one(mods *m, const char *const *names, int count);
int dec_rounding(mods *m);
uint32_t dec_value(dec *d, const opnd *o, int t);
bool dec_dest(dec *d, const opnd *o, uint32_t *slot);
bool dec_want(dec *d, int have, int need, const mods *m);
pinst *dec_op(dec *d, int op, int t);
int dec_access_space(dec *d, int sp, const opnd *a);
#endif
