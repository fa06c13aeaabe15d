/* Internal to the interpreter's texture instructions: a texel as read and one axis of a
 * filter's footprint (ptx_texel.c), and the cube maps (ptx_texcube.c). */
#ifndef CUSHIM_MOCK_PTX_TEXEL_H
#define CUSHIM_MOCK_PTX_TEXEL_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx_run.h"

typedef struct texel {
    float f[4];
    int32_t i[4];
} texel;

/* The two texels of a footprint along an axis (i[1] == i[0] but for linear filtering; -1 is
 * outside, under the border mode) and the 8-bit weight of the second. */
typedef struct axis {
    long i[2];
    float a;
} axis;

/* Whether t reads integers (CU_TRSF_READ_AS_INTEGER of an integer format). */
bool ptx__tex_reads_int(const mock_ptx_texture *t);
/* The texel (x, y, z) of layer; x -1: the border colour. */
texel ptx__texel(const mock_ptx_texture *t, long x, long y, long z, uint32_t layer);
/* Axis k of the footprint of the coordinate raw. */
axis ptx__tex_axis(const mock_ptx_texture *t, int k, uint64_t raw, bool integer, bool linear);

/* A cube map's direction c (x, y, z) as the face's normalized coordinates in c[0], c[1], and the
 * face as a layer (layer * 6 + face of a cube map array). */
void ptx__tex_cube(uint64_t c[3], uint32_t *layer, bool array);
/* Linear filtering of a face at (c[0], c[1]) with CU_TRSF_SEAMLESS_CUBEMAP into *r. */
void ptx__tex_seamless(const mock_ptx_texture *t, const uint64_t c[3], uint32_t layer, texel *r);

#endif
