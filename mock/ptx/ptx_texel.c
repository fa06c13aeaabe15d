/* Reading a texture's texels (for ptx_texrun.c and ptx_texcube.c): the channels of an element
 * in every format, the address modes, and the footprint of a coordinate along one axis, as
 * ptx_texrun.c's opening comment describes. */
#include <math.h>
#include <string.h>

#include "ptx_texel.h"
#include "ptx_val.h"

/* A texel's four channels: as floats, or as integers (read as integers from an integer
 * format). */

static bool is_float_format(int f) { return f == CU_AD_FORMAT_HALF || f == CU_AD_FORMAT_FLOAT; }

bool ptx__tex_reads_int(const mock_ptx_texture *t) {
    return (t->flags & CU_TRSF_READ_AS_INTEGER) && !is_float_format(t->format);
}

/* Channel c of the element at p. */
static void channel(const mock_ptx_texture *t, const unsigned char *p, int c, texel *out) {
    bool norm = !(t->flags & CU_TRSF_READ_AS_INTEGER);
    int32_t i = 0;
    float f;
    switch (t->format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
        i = p[c];
        f = norm ? (float)i / 255.0f : (float)i;
        /* sRGB: red, green and blue decoded to linear (IEC 61966-2-1), alpha as it is. */
        if (norm && c < 3 && (t->flags & CU_TRSF_SRGB)) {
            f = f <= 0.04045f ? f / 12.92f : powf((f + 0.055f) / 1.055f, 2.4f);
        }
        break;
    case CU_AD_FORMAT_SIGNED_INT8:
        i = (int8_t)p[c];
        f = norm ? fmaxf((float)i / 127.0f, -1.0f) : (float)i;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT16: {
        uint16_t v;
        memcpy(&v, p + 2 * c, 2);
        i = v;
        f = norm ? (float)i / 65535.0f : (float)i;
        break;
    }
    case CU_AD_FORMAT_SIGNED_INT16: {
        int16_t v;
        memcpy(&v, p + 2 * c, 2);
        i = v;
        f = norm ? fmaxf((float)i / 32767.0f, -1.0f) : (float)i;
        break;
    }
    case CU_AD_FORMAT_HALF: {
        uint16_t v;
        memcpy(&v, p + 2 * c, 2);
        f = ptx__half_to_float(v);
        memcpy(&i, &f, 4);
        break;
    }
    case CU_AD_FORMAT_FLOAT:
        memcpy(&f, p + 4 * c, 4);
        memcpy(&i, &f, 4);
        break;
    default: /* 32-bit integers: never normalized */
        memcpy(&i, p + 4 * c, 4);
        f = t->format == CU_AD_FORMAT_SIGNED_INT32 ? (float)i : (float)(uint32_t)i;
        break;
    }
    out->f[c] = f;
    out->i[c] = i;
}

/* The element at (x, y, z) of layer `layer`, or the border colour (x < 0). */
texel ptx__texel(const mock_ptx_texture *t, long x, long y, long z, uint32_t layer) {
    /* A channel the format lacks reads 0, w too (the H200, a tex.2d.v4.f32 of one- and
     * two-channel float textures: (x, 0, 0, 0) and (x, y, 0, 0)). */
    texel v = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    if (x < 0) {
        for (int c = 0; c < 4; c++) {
            v.f[c] = t->border[c];
            v.i[c] = (int32_t)t->border[c];
        }
        return v;
    }
    const unsigned char *p = t->data + (size_t)layer * t->slice + (size_t)z * t->slice +
                             (size_t)y * t->pitch + (size_t)x * t->elem;
    for (int c = 0; c < t->channels; c++) channel(t, p, c, &v);
    return v;
}

/* A texel index of extent n under address mode `mode`: -1 for the border. */
static long address(long i, long n, int mode, bool normalized) {
    if (!normalized && (mode == CU_TR_ADDRESS_MODE_WRAP || mode == CU_TR_ADDRESS_MODE_MIRROR)) {
        mode = CU_TR_ADDRESS_MODE_CLAMP;
    }
    switch (mode) {
    case CU_TR_ADDRESS_MODE_WRAP: return ((i % n) + n) % n;
    case CU_TR_ADDRESS_MODE_MIRROR: {
        long m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m >= n ? 2 * n - 1 - m : m;
    }
    case CU_TR_ADDRESS_MODE_BORDER: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

/* floor(v) as an index, saturated far outside any extent (NaN reads index 0). */
static long index_of(float v) {
    if (!(v > -1e9f)) return v != v ? 0 : -1000000000L;
    if (v > 1e9f) return 1000000000L;
    return (long)floorf(v);
}

/* Point sampling's texel for a normalized coordinate c of extent n, as the H200 picks it: c in
 * fixed point with 21 fraction bits (rounded towards minus infinity), times n, floor. Measured
 * (gpu_kernel_texture; 1791 coordinates within 4 ulps of k / n for nine extents from 3 to 65536
 * agree); the guide's floor(c * n) in float takes the other texel at about one edge in five,
 * where c, the float nearest k / n, lies just above it and the product rounds up to k. */
static long point_index(float c, long n) {
    if (!(c > -1e3f && c < 1e3f)) return index_of(c * (float)n);
    double fixed = floor((double)c * 2097152.0) / 2097152.0; /* 2^21 */
    double x = fixed * (double)n;                            /* exact: 24 + 17 bits */
    return x < -1e9 ? -1000000000L : x > 1e9 ? 1000000000L : (long)floor(x);
}

/* Per dimension: the two texel indexes (after the address mode) and the second's weight. */

axis ptx__tex_axis(const mock_ptx_texture *t, int k, uint64_t raw, bool integer, bool linear) {
    long n = k == 0 ? t->width : k == 1 ? t->height : t->depth;
    bool norm = (t->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0 && !integer;
    int mode = t->address[k];
    axis a = {{0, 0}, 0};
    float u = norm ? f32(raw) * (float)n : f32(raw);
    if (integer || !linear) {
        long i = integer ? (long)(int32_t)raw : norm ? point_index(f32(raw), n) : index_of(u);
        a.i[0] = a.i[1] = address(i, n, mode, norm);
        return a;
    }
    float xb = u - 0.5f;
    long i = index_of(xb);
    float frac = xb - floorf(xb);
    a.a = roundf(frac * 256.0f) / 256.0f; /* 9-bit fixed point, 8 fraction bits */
    a.i[0] = address(i, n, mode, norm);
    a.i[1] = address(i + 1, n, mode, norm);
    return a;
}
