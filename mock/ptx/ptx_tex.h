/* Internal to the interpreter: the texture and surface instructions (tex, tld4, txq, suld,
 * sust, suq) as decoded (ptx_tex.c) and run (ptx_texrun.c). One opcode, O_TEX, whose pinst
 * holds: sub, the instruction (TX_*); space, the geometry (G_*); type2, the result type (tex,
 * tld4: T_F32, T_S32, T_U32) or the access size (suld, sust: T_U8 to T_U64); rnd, the
 * coordinates' type (T_F32, T_S32); vec, the elements moved (1, 2, 4); imm, the query (Q_*),
 * tld4's component, tex.level's level slot + 1 (0 for tex) or the surface's out-of-range mode
 * (SC_*); d[], the destinations (sust: the
 * values stored); s[0], the object's handle; s[1..3], the coordinates (a layer first), and
 * aux a fourth one's slot (.acube: layer, x, y, z). */
#ifndef CUSHIM_MOCK_PTX_TEX_H
#define CUSHIM_MOCK_PTX_TEX_H

#include "ptx_dec.h"

enum { TX_TEX, TX_TLD4, TX_TXQ, TX_SULD, TX_SUST, TX_SUQ };
enum { G_1D, G_2D, G_3D, G_A1D, G_A2D, G_CUBE, G_ACUBE };
enum { SC_TRAP, SC_CLAMP, SC_ZERO };
enum {
    Q_WIDTH,
    Q_HEIGHT,
    Q_DEPTH,
    Q_ARRAY_SIZE,
    Q_LEVELS,
    Q_NORMALIZED,
    Q_FILTER,
    Q_ADDR0,
    Q_ADDR1,
    Q_ADDR2,
    Q_LAYOUT
};

/* Decodes the texture or surface instruction whose opcode word is w (the lexer after it):
 * false with a sentence for a form the interpreter does not run. */
bool ptx__dec_tex(dec *d, const char *w, size_t n);

#endif
