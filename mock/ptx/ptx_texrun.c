/* The texture and surface instructions, run for one lane (decoded by ptx_tex.c).
 *
 * Sampling follows the CUDA C++ Programming Guide, appendix "Texture Fetching": a coordinate x
 * (times the extent N when normalized) gives, for point filtering, texel i = floor(x); for
 * linear filtering, xB = x - 0.5, i = floor(xB) and the weight a = frac(xB) held in 9-bit
 * fixed point with 8 fraction bits, the result (1 - a) T[i] + a T[i + 1] (in 2D and 3D the
 * products of the weights of each dimension). The address mode maps each texel index: clamp
 * to [0, N - 1]; border gives the border colour; wrap (i mod N) and mirror only with
 * normalized coordinates (otherwise clamp, as the guide says they are not supported).
 * Integers read as normalized floats are divided by 2^8 - 1 or 2^16 - 1 (signed: by 2^7 - 1
 * or 2^15 - 1, and at least -1); missing channels read 0, and the fourth 1. */
#include <math.h>
#include <string.h>

#include "ptx_run.h"
#include "ptx_tex.h"
#include "ptx_texel.h"
#include "ptx_val.h"

/* The coordinates of the lane: layer (when layered) and x, y, z. */
static void coords(const pinst *in, const uint64_t *col, uint32_t *layer, uint64_t c[3]) {
    bool arr = in->space == G_A1D || in->space == G_A2D || in->space == G_ACUBE;
    *layer = arr ? (uint32_t)LANE_REG(col, in->s[1]) : 0;
    int first = arr ? 2 : 1;
    for (int k = 0; k < 3; k++) {
        int i = first + k;
        c[k] = i <= 3 ? LANE_REG(col, in->s[i]) : i == 4 ? LANE_REG(col, in->aux) : 0;
    }
}

static int dims_of(int g) { return g == G_1D || g == G_A1D ? 1 : g == G_3D ? 3 : 2; }

/* tex and tld4 for one lane into r[4]: floats, or integers when the texture reads integers. */
static void filtered(const mock_ptx_texture *t, const pinst *in, const uint64_t c[3],
                     uint32_t layer, texel *r) {
    if (t->layers != 0 && layer >= t->layers) layer = t->layers - 1;
    if (t->layers == 0) layer = 0;
    bool integer = in->rnd == T_S32;
    bool linear = t->filter == CU_TR_FILTER_MODE_LINEAR && !ptx__tex_reads_int(t);
    if (in->sub == TX_TLD4) linear = true;
    int dims = dims_of(in->space);
    axis ax[3] = {{{0, 0}, 0}, {{0, 0}, 0}, {{0, 0}, 0}};
    for (int k = 0; k < dims; k++) ax[k] = ptx__tex_axis(t, k, c[k], integer, linear && !integer);
    if (in->sub == TX_TLD4) {
        /* PTX ISA 9.7.10.4: the four texels of the bilinear footprint, component imm, as
         * {(i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j)}. */
        static const int pick[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
        for (int e = 0; e < 4; e++) {
            long x = ax[0].i[pick[e][0]], y = ax[1].i[pick[e][1]];
            texel v = ptx__texel(t, x < 0 || y < 0 ? -1 : x, y, 0, layer);
            r->f[e] = v.f[in->imm];
            r->i[e] = v.i[in->imm];
        }
        return;
    }
    if (!linear) {
        long x = ax[0].i[0], y = ax[1].i[0], z = ax[2].i[0];
        *r = ptx__texel(t, x < 0 || y < 0 || z < 0 ? -1 : x, y, z, layer);
        return;
    }
    float sum[4] = {0, 0, 0, 0};
    int corners = 1 << dims;
    for (int k = 0; k < corners; k++) {
        float w = 1.0f;
        long at[3] = {0, 0, 0};
        bool border = false;
        for (int dd = 0; dd < dims; dd++) {
            int hi = (k >> dd) & 1;
            w *= hi ? ax[dd].a : 1.0f - ax[dd].a;
            at[dd] = ax[dd].i[hi];
            border |= at[dd] < 0;
        }
        if (w == 0.0f) continue;
        texel v = ptx__texel(t, border ? -1 : at[0], at[1], at[2], layer);
        for (int e = 0; e < 4; e++) sum[e] += w * v.f[e];
    }
    for (int e = 0; e < 4; e++) {
        r->f[e] = sum[e];
        r->i[e] = (int32_t)b32(sum[e]);
    }
}

/* The view of level i of t. */
static void at_level(mock_ptx_texture *v, const mock_ptx_texture *t, unsigned i) {
    *v = *t;
    v->data = t->level[i].data;
    v->width = t->level[i].width;
    v->height = t->level[i].height;
    v->depth = t->level[i].depth;
    v->pitch = t->level[i].pitch;
    v->slice = t->level[i].slice;
}

/* tex.grad's level of detail (the programming guide's tex2DGrad: from the gradients): the
 * isotropic one, log2 of the longer of dPdx and dPdy measured in texels of level 0 (normalized
 * coordinates scaled by the size), as OpenGL's specification defines the scale factor. */
static float grad_lod(const mock_ptx_texture *tx, uint64_t slots, const uint64_t *col) {
    float g[4];
    for (int i = 0; i < 4; i++) g[i] = f32(LANE_REG(col, (uint32_t)(slots >> (15 * i)) & 0x7fffu));
    bool norm = (tx->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    float sx = norm ? (float)tx->width : 1.0f, sy = norm ? (float)tx->height : 1.0f;
    float x = hypotf(g[0] * sx, g[1] * sy), y = hypotf(g[2] * sx, g[3] * sy);
    float rho = fmaxf(x, y);
    return rho > 0.0f ? log2f(rho) : -INFINITY;
}

static void sample(const mock_ptx_texture *tx, const pinst *in, const uint64_t *col, texel *r) {
    uint32_t layer;
    uint64_t c[3];
    coords(in, col, &layer, c);
    mock_ptx_texture view = *tx;
    if (in->space == G_CUBE || in->space == G_ACUBE) {
        /* A face is read with normalized coordinates, clamped at its edges. */
        ptx__tex_cube(c, &layer, in->space == G_ACUBE);
        view.flags |= CU_TRSF_NORMALIZED_COORDINATES;
        view.address[0] = view.address[1] = CU_TR_ADDRESS_MODE_CLAMP;
    }
    bool seam = (in->space == G_CUBE || in->space == G_ACUBE) && in->sub == TX_TEX &&
                (tx->flags & CU_TRSF_SEAMLESS_CUBEMAP) && tx->filter == CU_TR_FILTER_MODE_LINEAR &&
                !ptx__tex_reads_int(tx) && in->rnd == T_F32 && tx->width == tx->height;
    if (seam && (in->imm == 0 || tx->levels < 2)) {
        ptx__tex_seamless(&view, c, layer, r);
        return;
    }
    if (in->sub != TX_TEX || in->imm == 0 || tx->levels < 2) {
        filtered(&view, in, c, layer, r);
        return;
    }
    /* tex.level: the level of detail plus the bias, within the clamps and the levels; the
     * nearest level, or the two around it mixed with an 8-bit weight. tex.grad: the level of
     * detail from the gradients. */
    float lod = (in->imm > 0 ? f32(LANE_REG(col, (uint32_t)(in->imm - 1)))
                             : grad_lod(tx, (uint64_t)(-(in->imm + 1)), col)) +
                tx->lod_bias;
    lod = fminf(fmaxf(lod, tx->min_lod), tx->max_lod);
    lod = fminf(fmaxf(lod, 0.0f), (float)(tx->levels - 1));
    mock_ptx_texture lv;
    if (tx->mipmap_filter != CU_TR_FILTER_MODE_LINEAR || lod == floorf(lod)) {
        at_level(&lv, &view, (unsigned)floorf(lod + 0.5f));
        filtered(&lv, in, c, layer, r);
        return;
    }
    float w = roundf((lod - floorf(lod)) * 256.0f) / 256.0f;
    texel lo, hi;
    at_level(&lv, &view, (unsigned)floorf(lod));
    filtered(&lv, in, c, layer, &lo);
    at_level(&lv, &view, (unsigned)floorf(lod) + 1);
    filtered(&lv, in, c, layer, &hi);
    for (int e = 0; e < 4; e++) {
        r->f[e] = (1.0f - w) * lo.f[e] + w * hi.f[e];
        r->i[e] = (int32_t)b32(r->f[e]);
    }
}

/* txq and suq (PTX ISA 9.7.10.5, 9.7.11.4). Address modes as txq numbers them: wrap 0,
 * mirror 1, clamp_to_edge 3, clamp_to_border 4. */
static uint32_t query(const mock_ptx_texture *t, int q) {
    static const uint32_t modes[] = {[CU_TR_ADDRESS_MODE_WRAP] = 0,
                                     [CU_TR_ADDRESS_MODE_MIRROR] = 1,
                                     [CU_TR_ADDRESS_MODE_CLAMP] = 3,
                                     [CU_TR_ADDRESS_MODE_BORDER] = 4};
    switch (q) {
    case Q_WIDTH: return t->width;
    case Q_HEIGHT: return t->height;
    case Q_DEPTH: return t->depth;
    case Q_ARRAY_SIZE: return t->layers;
    case Q_LEVELS: return t->levels;
    case Q_NORMALIZED: return (t->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    case Q_FILTER: return (uint32_t)t->filter;
    case Q_ADDR0:
    case Q_ADDR1:
    case Q_ADDR2: return modes[t->address[q - Q_ADDR0] & 3];
    default: return 1; /* memory_layout: block linear */
    }
}

/* suld.b and sust.b (PTX ISA 9.7.11.1, 9.7.11.2): x in bytes, y and z in rows and slices. */
static int surface(pblock *b, pthr *th, const pinst *in, uint64_t *col, mock_ptx_texture *t) {
    uint32_t layer;
    uint64_t c[3];
    coords(in, col, &layer, c);
    int dims = dims_of(in->space);
    size_t size = (size_t)bits_of(in->type2) / 8, n = size * in->vec;
    int64_t x = (int32_t)c[0], y = dims > 1 ? (int32_t)c[1] : 0, z = dims > 2 ? (int32_t)c[2] : 0;
    int64_t row = (int64_t)t->width * (int64_t)t->elem;
    bool out = x < 0 || x + (int64_t)n > row || y < 0 || y >= t->height || z < 0 || z >= t->depth ||
               (t->layers != 0 && layer >= t->layers);
    if (out && in->imm == SC_TRAP) {
        return ptx__fault(b, th, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                          "a surface access of %zu bytes at (x %lld bytes, y %lld, z %lld, layer "
                          "%u) outside the surface of %ux%ux%u elements of %zu bytes",
                          n, (long long)x, (long long)y, (long long)z, layer, t->width, t->height,
                          t->depth, t->elem);
    }
    if (out && in->imm == SC_ZERO) {
        if (in->sub == TX_SULD) {
            for (int e = 0; e < in->vec; e++) {
                if (in->d[e] != SL_SINK) LANE_REG(col, in->d[e]) = 0;
            }
        }
        return TS_RUN;
    }
    if (out) { /* clamp: the nearest location inside */
        x = x < 0                  ? 0
            : x + (int64_t)n > row ? (row - (int64_t)n) / (int64_t)size * (int64_t)size
                                   : x;
        y = y < 0 ? 0 : y >= t->height ? t->height - 1 : y;
        z = z < 0 ? 0 : z >= t->depth ? t->depth - 1 : z;
        if (t->layers != 0 && layer >= t->layers) layer = t->layers - 1;
    }
    if (x % (int64_t)size != 0) {
        return ptx__fault(b, th, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                          "%s %zu-byte surface access at byte %lld of a row", ptx__a(size), size,
                          (long long)x);
    }
    unsigned char *p = t->data + (size_t)layer * t->slice + (size_t)z * t->slice +
                       (size_t)y * t->pitch + (size_t)x;
    for (int e = 0; e < in->vec; e++) {
        uint64_t v = 0;
        if (in->sub == TX_SULD) {
            memcpy(&v, p + e * size, size);
            if (in->d[e] != SL_SINK) LANE_REG(col, in->d[e]) = v;
        } else {
            v = LANE_REG(col, in->d[e]);
            memcpy(p + e * size, &v, size);
        }
    }
    return TS_RUN;
}

int ptx__tex(pblock *b, pthr *th, const pinst *in, uint64_t *col) {
    const mock_ptx_launch *l = b->run->l;
    bool surf = in->sub >= TX_SULD;
    uint64_t h = LANE_REG(col, in->s[0]);
    mock_ptx_texture t;
    char why[256] = "the launch has no texture or surface objects";
    if ((h & MOCK_PTX_REF_MASK) == MOCK_PTX_REF_TAG) {
        /* A reference of the module, as bound when the launch was made. */
        size_t i = (size_t)(h & ~MOCK_PTX_REF_MASK);
        const mock_ptx_ref *r = i < l->nrefs ? &l->refs[i] : NULL;
        if (r == NULL || !r->bound) {
            return ptx__fault(b, th, in, CUDA_ERROR_ILLEGAL_ADDRESS, "%s '%s' %s",
                              surf ? "surface reference" : "texture reference",
                              i < b->run->k->mod->nrefs ? b->run->k->mod->refs[i].name : "?",
                              r != NULL ? r->why : "was not bound when the kernel was launched");
        }
        t = r->t;
    } else if (l->texture == NULL || !l->texture(l->check_ctx, h, surf, &t, why, sizeof why)) {
        return ptx__fault(b, th, in, CUDA_ERROR_ILLEGAL_ADDRESS, "%s", why);
    }
    if (in->sub == TX_TXQ || in->sub == TX_SUQ) {
        LANE_REG(col, in->d[0]) = query(&t, (int)in->imm);
        return TS_RUN;
    }
    if (in->sub == TX_SULD || in->sub == TX_SUST) return surface(b, th, in, col, &t);
    texel r;
    sample(&t, in, col, &r);
    bool as_float = in->type2 == T_F32;
    bool ints = ptx__tex_reads_int(&t) && in->sub == TX_TEX;
    if (in->sub == TX_TLD4) ints = ptx__tex_reads_int(&t);
    for (int e = 0; e < 4; e++) {
        uint64_t v = as_float ? (ints ? b32((float)r.i[e]) : b32(r.f[e]))
                              : (ints ? (uint32_t)r.i[e] : (uint32_t)b32(r.f[e]));
        if (in->d[e] != SL_SINK) LANE_REG(col, in->d[e]) = v;
    }
    return TS_RUN;
}
