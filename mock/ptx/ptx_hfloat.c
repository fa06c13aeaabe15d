/* Half and bfloat16 arithmetic (O_HALF), and f32 and f64 arithmetic rounded toward zero, minus
 * or plus infinity (O_RND), for one lane: PTX ISA "Half Precision Floating-Point Instructions"
 * (add, sub, mul, fma, neg, abs, min, max), "Half Precision Comparison Instructions" (set,
 * setp), "Data Movement and Conversion Instructions: cvt", and "Floating Point Instructions"
 * with .rz, .rm, .rp.
 *
 * Results are IEEE 754 bit for bit, without the host's rounding modes (which valgrind does not
 * model): an operation's result is computed in double together with the sign of its exact error
 * (two-sum for sums, fma for a product's error and for the remainders of a quotient and a square
 * root; products of halves and of floats are exact in double), then rounded to the target
 * format in the instruction's mode by integer arithmetic on its units in the last place. The one
 * exception is f64 fma with .rz/.rm/.rp, rounded by the host's mode for that one operation (per
 * thread, C11 7.6). NaN results are the canonical NaN (0x7fff for halves), as on the GPU. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ptx_run.h"
#include "ptx_val.h"

#define REG(slot) LANE_REG(R, slot)

/* The format's mantissa bits and exponent bias: f16 10 and 15, bf16 7 and 127. */
static bool is_bf(int f) { return f == T_BF16 || f == T_BF16X2; }

static double h2d(uint32_t h, int f) {
    if (is_bf(f)) {
        uint32_t x = (h & 0xffffu) << 16;
        float v;
        memcpy(&v, &x, 4);
        return v;
    }
    return ptx__half_to_float((uint16_t)h);
}

/* A value as a double and the sign of what the double lacks: the exact value is x when sticky
 * is 0, else lies strictly between x and its neighbouring double away from zero (sticky > 0) or
 * toward zero (sticky < 0). No value or midpoint of a narrower format lies strictly between
 * two neighbouring doubles, so this rounds to any of them exactly as the exact value does. */
typedef struct xval {
    double x;
    int sticky;
} xval;

/* x + e, with e the exact error of a double sum or product that gave x. */
static xval with_error(double x, double e) {
    xval v = {x, 0};
    if (e != 0 && x != 0 && isfinite(x)) v.sticky = (e > 0) == (x > 0) ? 1 : -1;
    return v;
}

/* a + b exactly (Knuth's two-sum: the rounding error of the sum is itself a double). An exact
 * zero of two operands of different signs is -0 rounding down, +0 otherwise (IEEE 754). */
static xval sum(double a, double b, int r) {
    double s = a + b;
    if (s == 0)
        return (xval){signbit(a) && signbit(b)     ? -0.0
                      : !signbit(a) && !signbit(b) ? 0.0
                      : r == R_RM                  ? -0.0
                                                   : 0.0,
                      0};
    if (!isfinite(s)) return (xval){s, 0};
    double bb = s - a, e = (a - (s - bb)) + (b - bb);
    return with_error(s, e);
}

/* x / y and sqrt(x) in double with the sign of their remainder, which fma gives exactly. */
static xval quotient(double x, double y) {
    double q = x / y;
    if (!isfinite(q) || q == 0) return (xval){q, 0};
    double rem = fma(-q, y, x); /* x - q y: the true quotient is q + rem / y */
    return with_error(q, rem == 0 ? 0.0 : (rem > 0) == (y > 0) ? 1.0 : -1.0);
}

static xval root(double x) {
    double q = sqrt(x);
    if (!isfinite(q) || q == 0) return (xval){q, 0};
    return with_error(q, fma(-q, q, x));
}

/* A binary format: mantissa bits, exponent bias, the all-ones exponent field, the sign bit and
 * the canonical NaN. */
typedef struct fmt {
    int man, bias;
    uint64_t emax, sign, nan;
} fmt;
static const fmt FMT_F16 = {10, 15, 31, 0x8000u, 0x7fffu};
static const fmt FMT_BF16 = {7, 127, 255, 0x8000u, 0x7fffu};
static const fmt FMT_F32 = {23, 127, 255, 0x80000000u, 0x7fffffffu};

/* v rounded to format f in mode r by integer arithmetic on its units in the last place.
 * satfinite: an overflow gives the largest finite value. */
static uint64_t round_to(xval v, const fmt *f, int r, bool satfinite) {
    if (isnan(v.x)) return f->nan;
    uint64_t sign = signbit(v.x) ? f->sign : 0, inf = sign | f->emax << f->man, maxf = inf - 1;
    double a = fabs(v.x);
    if (isinf(a)) return satfinite ? maxf : inf;
    if (a == 0) return sign;
    int e, min_q = 1 - f->bias - f->man;
    frexp(a, &e); /* a = m 2^e, m in [0.5, 1): the unbiased exponent is e - 1 */
    int q = e - 1 - f->man < min_q ? min_q : e - 1 - f->man;
    double s = ldexp(a, -q); /* in units of the last place: below 2^(man + 1) */
    double n = floor(s), frac = s - n;
    /* The encoding is monotonic: a subnormal's units are its bits, a normal's are the implicit
     * one and the mantissa under exponent field (q + man + bias), and a carry steps it. */
    uint64_t lo = q == min_q ? (uint64_t)n
                             : ((uint64_t)(q + f->man + f->bias) << f->man) + (uint64_t)n -
                                   ((uint64_t)1 << f->man),
             hi = lo + 1;
    int near; /* -1 nearer lo, 1 nearer hi, 0 a tie */
    bool inexact = frac != 0 || v.sticky != 0;
    if (frac == 0 && v.sticky < 0) { /* just below a value of the format */
        hi = lo;
        lo = hi - 1;
        near = 1;
    } else if (frac != 0.5) {
        near = frac > 0.5 ? 1 : -1;
    } else {
        near = v.sticky;
    }
    uint64_t bits = lo;
    if (inexact) {
        switch (r) {
        case R_RZ: break;
        case R_RM: bits = sign ? hi : lo; break;
        case R_RP: bits = sign ? lo : hi; break;
        default: bits = near > 0 || (near == 0 && (lo & 1)) ? hi : lo; break;
        }
    }
    if (bits >= f->emax << f->man) {
        bool to_inf =
            !satfinite && (r == R_RN || r == R_NONE || (r == R_RP && !sign) || (r == R_RM && sign));
        return to_inf ? inf : maxf;
    }
    return sign | bits;
}

static uint32_t d2h(xval v, int f, int r, bool satfinite) {
    return (uint32_t)round_to(v, is_bf(f) ? &FMT_BF16 : &FMT_F16, r, satfinite);
}

static bool sub_normal16(uint32_t h, int f) {
    return ((h >> (is_bf(f) ? 7 : 10)) & (is_bf(f) ? 0xffu : 0x1fu)) == 0;
}

/* One half of an arithmetic instruction. */
static uint32_t half_op(const pinst *in, int f, uint32_t a, uint32_t b, uint32_t c) {
    bool ftz = (in->flags & F_FTZ) != 0;
    if (ftz) {
        if (sub_normal16(a, f)) a &= 0x8000u;
        if (sub_normal16(b, f)) b &= 0x8000u;
        if (sub_normal16(c, f)) c &= 0x8000u;
    }
    switch (in->sub) {
    case O_NEG: return a ^ 0x8000u;
    case O_ABS: return a & 0x7fffu;
    case O_MIN:
    case O_MAX: {
        double x = h2d(a, f), y = h2d(b, f);
        if (isnan(x) || isnan(y)) {
            if ((in->imm & 2) || (isnan(x) && isnan(y))) return 0x7fffu;
            return isnan(x) ? b : a;
        }
        bool a_first = x < y || (x == y && (a & 0x8000u)); /* -0 before +0 */
        return (in->sub == O_MIN) == a_first ? a : b;
    }
    default: break;
    }
    double x = h2d(a, f), y = h2d(b, f), z = h2d(c, f);
    xval r = in->sub == O_ADD   ? sum(x, y, in->rnd)
             : in->sub == O_SUB ? sum(x, -y, in->rnd)
             : in->sub == O_MUL ? (xval){x * y, 0} /* exact: 22 bits at most */
                                : sum(x * y, z, in->rnd);
    if (in->flags & F_SAT)
        r = isnan(r.x) ? (xval){0.0, 0} : r.x < 0 ? (xval){0.0, 0} : r.x >= 1 ? (xval){1.0, 0} : r;
    if ((in->imm & 1) && !isnan(r.x) && r.x <= 0) r = (xval){0.0, 0}; /* .relu (-0 too) */
    uint32_t h = d2h(r, f, in->rnd, false);
    if (ftz && sub_normal16(h, f)) h &= 0x8000u;
    return h;
}

static bool combine(const pinst *in, bool t, uint64_t *R) {
    bool c = (REG(in->s[2]) & 1) ^ ((in->flags & F_NEGC) != 0);
    switch (in->imm) {
    case 1: return t && c;
    case 2: return t || c;
    case 3: return t != c;
    default: return t;
    }
}

/* setp: p the low half's result, q the high half's (one half: q its complement); set: each
 * half of the destination 1.0 or 0.0 as a half, or all ones or zero as an integer. */
static void compare(const pinst *in, uint64_t *R) {
    int f = in->type2, halves = f == T_F16X2 || f == T_BF16X2 ? 2 : 1;
    uint32_t a = (uint32_t)REG(in->s[0]), b = (uint32_t)REG(in->s[1]);
    bool t[2];
    for (int i = 0; i < halves; i++) {
        uint32_t x = (a >> (16 * i)) & 0xffffu, y = (b >> (16 * i)) & 0xffffu;
        if (in->flags & F_FTZ) {
            if (sub_normal16(x, f)) x &= 0x8000u;
            if (sub_normal16(y, f)) y &= 0x8000u;
        }
        t[i] = cmp_f((int)in->aux, h2d(x, f), h2d(y, f));
    }
    if (in->sub == O_SETP) {
        REG(in->d[0]) = combine(in, t[0], R);
        REG(in->d[1]) = combine(in, halves == 2 ? t[1] : !t[0], R);
        return;
    }
    int dt = in->space;
    uint64_t v = 0;
    for (int i = 0; i < halves; i++) {
        bool p = combine(in, t[i], R);
        uint32_t one = dt == T_F16 || dt == T_F16X2     ? 0x3c00u
                       : dt == T_BF16 || dt == T_BF16X2 ? 0x3f80u
                                                        : 0xffffu;
        if (halves == 1 && dt == T_F32) one = 0x3f800000u;
        if (halves == 1 && (dt == T_U32 || dt == T_S32)) one = 0xffffffffu;
        v |= (uint64_t)(p ? one : 0) << (16 * i);
    }
    REG(in->d[0]) = v;
}

/* A value of format t (a float, a half, or an integer type) as a double. */
static double widen(uint64_t v, int t) {
    switch (t) {
    case T_F16:
    case T_BF16: return h2d((uint32_t)v, t);
    case T_F32: return f32(v);
    case T_F64: return f64(v);
    default: return is_signed(t) ? (double)ival(v, t) : (double)(uint64_t)ival(v, t);
    }
}

static double round_int(double x, int r) {
    switch (r) {
    case R_RNI: return nearbyint(x);
    case R_RZI: return trunc(x);
    case R_RMI: return floor(x);
    case R_RPI: return ceil(x);
    default: return x;
    }
}

static void convert(const pinst *in, uint64_t *R) {
    int dt = in->type2, st = (int)in->aux, r = in->rnd;
    bool relu = in->imm & 1, satfinite = (in->imm & 4) != 0;
    if (dt == T_F16X2 || dt == T_BF16X2) { /* a to the high half, b to the low */
        int f = dt == T_F16X2 ? T_F16 : T_BF16;
        uint32_t h[2];
        for (int i = 0; i < 2; i++) {
            double x = f32(REG(in->s[i]));
            if (relu && !isnan(x) && x < 0) x = 0.0;
            h[i] = d2h((xval){x, 0}, f, r, satfinite);
        }
        REG(in->d[0]) = (uint64_t)h[0] << 16 | h[1];
        return;
    }
    uint64_t v = REG(in->s[0]);
    double x = widen(v, st);
    if ((in->flags & F_FTZ) && st == T_F32 && fpclassify((float)x) == FP_SUBNORMAL)
        x = copysign(0.0, x);
    bool sf = st == T_F16 || st == T_BF16 || st == T_F32 || st == T_F64;
    /* Between halves, f32 and f64 (one side a half: widening is exact), or from an integer to
     * a half. */
    if (dt == T_F16 || dt == T_BF16 || dt == T_F32 || dt == T_F64) {
        xval xv = {x, 0};
        if (st == T_U64 || st == T_S64) { /* 64-bit integers may not fit a double exactly */
            int64_t iv = ival(v, st);
            double hi = st == T_U64 ? (double)((uint64_t)iv >> 11 << 11) : (double)(iv >> 11 << 11);
            double lo = st == T_U64 ? (double)((uint64_t)iv & 0x7ff) : (double)(iv & 0x7ff);
            xv = sum(hi, lo, R_RN);
        }
        if (sf) xv.x = round_int(xv.x, r);
        if (in->flags & F_SAT)
            xv = isnan(xv.x) ? (xval){0.0, 0}
                 : xv.x < 0  ? (xval){0.0, 0}
                 : xv.x >= 1 ? (xval){1.0, 0}
                             : xv;
        if (relu && !isnan(xv.x) && xv.x < 0) xv = (xval){0.0, 0};
        int rr = r >= R_RNI ? R_RN : r;
        if (dt == T_F16 || dt == T_BF16)
            REG(in->d[0]) = d2h(xv, dt, rr, satfinite);
        else if (dt == T_F32)
            REG(in->d[0]) = round_to(xv, &FMT_F32, rr, false);
        else
            REG(in->d[0]) = isnan(xv.x) ? 0x7fffffffffffffffull : b64(xv.x);
        return;
    }
    /* To an integer: rounded as the mode says (truncated by default), NaN to 0, clamped. */
    if (isnan(x)) {
        REG(in->d[0]) = 0;
        return;
    }
    x = r == R_RN || r == R_RNI   ? nearbyint(x)
        : r == R_RM || r == R_RMI ? floor(x)
        : r == R_RP || r == R_RPI ? ceil(x)
                                  : trunc(x);
    int bits = bits_of(dt);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (is_signed(dt)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        int64_t iv = x < lo ? (int64_t)lo : x >= hi ? (int64_t)(hi - 1) : (int64_t)x;
        if (x >= hi) iv = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
        REG(in->d[0]) = (uint64_t)iv & mask;
    } else {
        REG(in->d[0]) = x <= 0 ? 0 : x >= ldexp(1.0, bits) ? mask : (uint64_t)x;
    }
}

bool ptx__half(const pinst *in, uint64_t *R) {
    if (in->sub == O_SETP || in->sub == O_SET) {
        compare(in, R);
        return true;
    }
    if (in->sub == O_CVT) {
        convert(in, R);
        return true;
    }
    int f = in->type2;
    uint32_t a = (uint32_t)REG(in->s[0]), b = (uint32_t)REG(in->s[1]), c = (uint32_t)REG(in->s[2]);
    if (f == T_F16X2 || f == T_BF16X2) {
        int hf = f == T_F16X2 ? T_F16 : T_BF16;
        uint32_t lo = half_op(in, hf, a & 0xffffu, b & 0xffffu, c & 0xffffu);
        uint32_t hi = half_op(in, hf, a >> 16, b >> 16, c >> 16);
        REG(in->d[0]) = hi << 16 | lo;
    } else {
        REG(in->d[0]) = half_op(in, f, a & 0xffffu, b & 0xffffu, c & 0xffffu);
    }
    return true;
}

/* A double result rounded in mode r from v (round to nearest is v.x itself): one step to the
 * neighbouring double where the exact value lies on the mode's side; an overflow (v.x infinite
 * from finite operands) gives the largest finite value where the mode rounds toward zero. */
static double directed64(xval v, int r, bool overflow) {
    if (overflow && (r == R_RZ || (r == R_RM && v.x > 0) || (r == R_RP && v.x < 0)))
        return copysign(DBL_MAX, v.x);
    if (v.sticky == 0 || r == R_RN || r == R_NONE) return v.x;
    bool below = (v.sticky < 0) == (v.x > 0); /* the exact value is below v.x */
    if (r == R_RZ) return v.sticky < 0 ? nextafter(v.x, 0.0) : v.x;
    if (r == R_RM) return below ? nextafter(v.x, -INFINITY) : v.x;
    return below ? v.x : nextafter(v.x, INFINITY);
}

/* f64 fma: the one operation whose exact error no double transformation gives cheaply, so the
 * host's rounding mode (per thread, C11 7.6) rounds it; valgrind rounds it to nearest. */
static double fma_in_mode(double x, double y, double z, int r) {
    int old = fegetround();
    fesetround(r == R_RZ ? FE_TOWARDZERO : r == R_RM ? FE_DOWNWARD : FE_UPWARD);
    volatile double a = x, b = y, c = z, v;
    v = fma(a, b, c);
    double out = v;
    fesetround(old);
    return out;
}

/* f32 (with .ftz and .sat) and f64 add, sub, mul, fma, div, sqrt, rcp rounded .rz, .rm or .rp:
 * the result in double with the sign of its error (exact for f32's sums and products in double),
 * then rounded by round_to or directed64. */
bool ptx__round(const pinst *in, uint64_t *R) {
    int t = in->op % T_COUNT, r = in->rnd;
    uint64_t a = REG(in->s[0]), b = REG(in->s[1]), c = REG(in->s[2]);
    double x, y, z;
    bool ftz = t == T_F32 && (in->flags & F_FTZ);
    if (t == T_F64) {
        x = f64(a), y = f64(b), z = f64(c);
    } else {
        float fa = f32(a), fb = f32(b), fc = f32(c);
        if (ftz) {
            if (fpclassify(fa) == FP_SUBNORMAL) fa = copysignf(0.0f, fa);
            if (fpclassify(fb) == FP_SUBNORMAL) fb = copysignf(0.0f, fb);
            if (fpclassify(fc) == FP_SUBNORMAL) fc = copysignf(0.0f, fc);
        }
        x = fa, y = fb, z = fc;
    }
    xval v;
    switch (in->sub) {
    case O_ADD: v = sum(x, y, r); break;
    case O_SUB: v = sum(x, -y, r); break;
    case O_MUL: v = t == T_F64 ? with_error(x * y, fma(x, y, -(x * y))) : (xval){x * y, 0}; break;
    case O_FMA:
        if (t == T_F64) {
            REG(in->d[0]) = b64(fma_in_mode(x, y, z, r));
            if (isnan(f64(REG(in->d[0])))) REG(in->d[0]) = 0x7fffffffffffffffull;
            return true;
        }
        v = sum(x * y, z, r); /* the product exact in double: 48 bits */
        break;
    case O_DIV: v = quotient(x, y); break;
    case O_SQRT: v = root(x); break;
    default: v = quotient(1.0, x); break;
    }
    if (t == T_F64) {
        bool overflow = isinf(v.x) && isfinite(x) && (in->sub == O_SQRT || isfinite(y)) &&
                        !(in->sub == O_DIV && y == 0) && !(in->sub == O_RCP && x == 0);
        double out = directed64(v, r, overflow);
        REG(in->d[0]) = isnan(out) ? 0x7fffffffffffffffull : b64(out);
        return true;
    }
    float out = f32(round_to(v, &FMT_F32, r, false));
    if (ftz && fpclassify(out) == FP_SUBNORMAL) out = copysignf(0.0f, out);
    if (in->flags & F_SAT) out = isnan(out) ? 0.0f : out < 0 ? 0.0f : out > 1 ? 1.0f : out;
    REG(in->d[0]) = isnan(out) ? 0x7fffffffu : b32(out);
    return true;
}
