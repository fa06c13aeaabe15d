/* Cube maps for the texture instructions (ptx_texrun.c): a direction as a face and its
 * coordinates, and seamless linear filtering across the faces' edges. */
#include <math.h>

#include "ptx_texel.h"
#include "ptx_val.h"

/* A cube map's direction (x, y, z) as a face and normalized coordinates on it, as the
 * programming guide's table of cubemap fetches has them (the major axis; ties go to x, then
 * y). The face is a layer: layer * 6 + face of a cube map array. */
void ptx__tex_cube(uint64_t c[3], uint32_t *layer, bool array) {
    float x = f32(c[0]), y = f32(c[1]), z = f32(c[2]), m, s, t;
    int face;
    if (fabsf(x) >= fabsf(y) && fabsf(x) >= fabsf(z)) {
        face = x >= 0 ? 0 : 1;
        m = fabsf(x);
        s = x >= 0 ? -z : z;
        t = -y;
    } else if (fabsf(y) >= fabsf(z)) {
        face = y >= 0 ? 2 : 3;
        m = fabsf(y);
        s = x;
        t = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = fabsf(z);
        s = z >= 0 ? x : -x;
        t = -y;
    }
    c[0] = b32((s / m + 1.0f) * 0.5f);
    c[1] = b32((t / m + 1.0f) * 0.5f);
    *layer = (array ? *layer * 6u : 0u) + (uint32_t)face;
}

/* Face f's (s, t), beyond [-1, 1] past an edge, as a direction: ptx__tex_cube's mapping reversed.
 */
static void face_direction(int f, float s, float t, uint64_t c[3]) {
    static const float m[6][3][3] = {
        /* x, y, z from (s, t, 1) */
        {{0, 0, 1}, {0, -1, 0}, {-1, 0, 0}}, {{0, 0, -1}, {0, -1, 0}, {1, 0, 0}},
        {{1, 0, 0}, {0, 0, 1}, {0, 1, 0}},   {{1, 0, 0}, {0, 0, -1}, {0, -1, 0}},
        {{1, 0, 0}, {0, -1, 0}, {0, 0, 1}},  {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}},
    };
    for (int k = 0; k < 3; k++) c[k] = b32(m[f][k][0] * s + m[f][k][1] * t + m[f][k][2]);
}

/* The texel (x, y) of face (layer % 6) of a cube map of faces n x n, where x or y may be -1 or
 * n: read from the face across that edge; at a corner (both), the mean of the three texels
 * that meet there (CU_TRSF_SEAMLESS_CUBEMAP). */
static texel cube_texel(const mock_ptx_texture *t, long x, long y, uint32_t layer, long n) {
    bool ox = x < 0 || x >= n, oy = y < 0 || y >= n;
    if (!ox && !oy) return ptx__texel(t, x, y, 0, layer);
    if (ox && oy) {
        long cx = x < 0 ? 0 : n - 1, cy = y < 0 ? 0 : n - 1;
        texel a = ptx__texel(t, cx, cy, 0, layer), b = cube_texel(t, x, cy, layer, n),
              c = cube_texel(t, cx, y, layer, n), r;
        for (int e = 0; e < 4; e++) {
            r.f[e] = (a.f[e] + b.f[e] + c.f[e]) / 3.0f;
            r.i[e] = (int32_t)b32(r.f[e]);
        }
        return r;
    }
    uint64_t c[3];
    uint32_t base = layer - layer % 6, to = 0;
    face_direction((int)(layer % 6), 2.0f * ((float)x + 0.5f) / (float)n - 1.0f,
                   2.0f * ((float)y + 0.5f) / (float)n - 1.0f, c);
    ptx__tex_cube(c, &to, false);
    long nx = (long)floorf(f32(c[0]) * (float)n), ny = (long)floorf(f32(c[1]) * (float)n);
    nx = nx < 0 ? 0 : nx >= n ? n - 1 : nx;
    ny = ny < 0 ? 0 : ny >= n ? n - 1 : ny;
    return ptx__texel(t, nx, ny, 0, base + to);
}

/* Linear filtering on a cube map with CU_TRSF_SEAMLESS_CUBEMAP: the bilinear footprint of
 * (c[0], c[1]) on the face, its texels past an edge taken from the neighbouring face. */
void ptx__tex_seamless(const mock_ptx_texture *t, const uint64_t c[3], uint32_t layer, texel *r) {
    mock_ptx_texture b = *t;
    b.address[0] = b.address[1] = CU_TR_ADDRESS_MODE_BORDER; /* -1 marks the outside */
    long n = (long)t->width;
    axis ax[2] = {ptx__tex_axis(&b, 0, c[0], false, true), ptx__tex_axis(&b, 1, c[1], false, true)};
    float sum[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        int hx = k & 1, hy = k >> 1;
        float w = (hx ? ax[0].a : 1.0f - ax[0].a) * (hy ? ax[1].a : 1.0f - ax[1].a);
        long x = ax[0].i[hx] >= 0 ? ax[0].i[hx] : hx ? n : -1;
        long y = ax[1].i[hy] >= 0 ? ax[1].i[hy] : hy ? n : -1;
        if (w == 0.0f) continue;
        texel v = cube_texel(t, x, y, layer, n);
        for (int e = 0; e < 4; e++) sum[e] += w * v.f[e];
    }
    for (int e = 0; e < 4; e++) {
        r->f[e] = sum[e];
        r->i[e] = (int32_t)b32(sum[e]);
    }
}
