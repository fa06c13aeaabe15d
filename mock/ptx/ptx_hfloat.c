/* Half and bfloat16 arithmetic (O_HALF), and f32 and f64 arithmetic rounded toward zero, minus
 * or plus infinity (O_RND), for one lane: PTX ISA "Half Precision Floating-Point Instructions"
 * (add, sub, mul, fma, neg, abs, min, max), "Half Precision Comparison Instructions" (set,
 * setp), "Data Movement and Conversion Instructions: cvt", and "Floating Point Instructions"
 * with .rz, .rm, .rp.
 *
 * Results are IEEE 754 bit for bit. A half operation is computed in double rounded to odd (the
 * host's rounding toward zero, and the lowest bit set when the result was inexact), then
 * rounded once to the half's 11 or 8 bits in the instruction's mode by integer arithmetic:
 * double has more than two bits more than either, so the two roundings are one correct one.
 * f32 and f64 use the host's rounding mode for the one operation: the floating-point
 * environment is per thread (C11 7.6), so host threads running other blocks are not touched,
 * and the mode is put back before the lane's next instruction. NaN results are the canonical
 * NaN (0x7fff for halves), as on the GPU. */
#include <fenv.h>
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

static int host_mode(int r) {
    return r == R_RZ   ? FE_TOWARDZERO
           : r == R_RM ? FE_DOWNWARD
           : r == R_RP ? FE_UPWARD
                       : FE_TONEAREST;
}

/* x (exact, or rounded to odd) rounded to a 16-bit format in mode r. satfinite: overflow gives
 * the largest finite value. */
static uint32_t d2h(double x, int f, int r, bool satfinite) {
    int man = is_bf(f) ? 7 : 10, bias = is_bf(f) ? 127 : 15, emax = is_bf(f) ? 255 : 31;
    if (isnan(x)) return 0x7fffu;
    uint32_t sign = signbit(x) ? 0x8000u : 0;
    double a = fabs(x);
    uint32_t inf = sign | (uint32_t)emax << man, maxf = inf - 1;
    if (isinf(a)) return satfinite ? maxf : inf;
    if (a == 0) return sign;
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): the unbiased exponent is e - 1 */
    int q = e - 1 < 1 - bias ? 1 - bias - man : e - 1 - man;
    double s = ldexp(a, -q); /* the value in units of the last place: < 2^(man + 1) */
    double n = floor(s), frac = s - n;
    bool up = false;
    switch (r) {
    case R_RZ: break;
    case R_RM: up = frac > 0 && sign; break;
    case R_RP: up = frac > 0 && !sign; break;
    default: up = frac > 0.5 || (frac == 0.5 && fmod(n, 2.0) != 0); break;
    }
    uint64_t u = (uint64_t)n + up;
    /* The encoding is monotonic: a subnormal's units are its bits, a normal's the implicit one
     * plus the mantissa at exponent field (q + man + bias), and a carry out of the mantissa
     * steps the exponent. */
    uint64_t bits = q == 1 - bias - man ? u : ((uint64_t)(q + man + bias) << man) + u - (1u << man);
    if (bits >= (uint64_t)emax << man) {
        bool to_inf =
            !satfinite && (r == R_RN || r == R_NONE || (r == R_RP && !sign) || (r == R_RM && sign));
        return to_inf ? inf : maxf;
    }
    return sign | (uint32_t)bits;
}

/* op on doubles, rounded to odd: exact in the 53 bits when it can be, else truncated with the
 * lowest bit set. */
static double odd(int op, double a, double b, double c) {
    fenv_t env;
    feholdexcept(&env);
    fesetround(FE_TOWARDZERO);
    volatile double x = a, y = b, z = c, r;
    switch (op) {
    case O_ADD: r = x + y; break;
    case O_SUB: r = x - y; break;
    case O_MUL: r = x * y; break;
    default: r = fma(x, y, z); break;
    }
    bool inexact = fetestexcept(FE_INEXACT) != 0;
    fesetenv(&env);
    double v = r;
    if (inexact && isfinite(v)) {
        uint64_t u;
        memcpy(&u, &v, 8);
        u |= 1;
        memcpy(&v, &u, 8);
    }
    return v;
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
    double r = odd(in->sub, h2d(a, f), h2d(b, f), h2d(c, f));
    if (in->flags & F_SAT) r = isnan(r) ? 0.0 : r < 0 ? 0.0 : r > 1 ? 1.0 : r;
    if ((in->imm & 1) && !isnan(r) && r < 0) r = 0.0; /* .relu (-0 too) */
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
            h[i] = d2h(x, f, r, satfinite);
        }
        REG(in->d[0]) = (uint64_t)h[0] << 16 | h[1];
        return;
    }
    uint64_t v = REG(in->s[0]);
    double x = widen(v, st);
    if ((in->flags & F_FTZ) && st == T_F32 && fpclassify((float)x) == FP_SUBNORMAL)
        x = copysign(0.0, x);
    bool sf = st == T_F16 || st == T_BF16 || st == T_F32 || st == T_F64;
    if (dt == T_F16 || dt == T_BF16 || dt == T_F32 || dt == T_F64) {
        if (st == T_U64 || st == T_S64) { /* 64-bit integers may not fit a double exactly */
            int64_t iv = ival(v, st);
            double hi = st == T_U64 ? (double)((uint64_t)iv >> 11 << 11) : (double)(iv >> 11 << 11);
            double lo = st == T_U64 ? (double)((uint64_t)iv & 0x7ff) : (double)(iv & 0x7ff);
            x = odd(O_ADD, hi, lo, 0);
        }
        if (sf) x = round_int(x, r);
        if (in->flags & F_SAT) x = isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x;
        if (relu && !isnan(x) && x < 0) x = 0.0;
        int rr = r >= R_RNI ? R_RN : r;
        if (dt == T_F16 || dt == T_BF16) {
            REG(in->d[0]) = d2h(x, dt, rr, satfinite);
        } else if (dt == T_F32) {
            int old = fegetround();
            fesetround(host_mode(rr));
            volatile double vx = x;
            volatile float fx = (float)vx;
            fesetround(old);
            REG(in->d[0]) = b32(isnan(fx) ? f32(0x7fffffffu) : fx);
        } else {
            REG(in->d[0]) = b64(x);
        }
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

/* f32 (with .ftz and .sat) and f64 arithmetic in the host's rounding mode r. */
bool ptx__round(const pinst *in, uint64_t *R) {
    int t = in->op % T_COUNT;
    uint64_t a = REG(in->s[0]), b = REG(in->s[1]), c = REG(in->s[2]);
    int old = fegetround();
    fesetround(host_mode(in->rnd));
    if (t == T_F64) {
        volatile double x = f64(a), y = f64(b), z = f64(c), r;
        switch (in->sub) {
        case O_ADD: r = x + y; break;
        case O_SUB: r = x - y; break;
        case O_MUL: r = x * y; break;
        case O_FMA: r = fma(x, y, z); break;
        case O_DIV: r = x / y; break;
        case O_SQRT: r = sqrt(x); break;
        default: r = 1.0 / x; break;
        }
        fesetround(old);
        double v = r;
        REG(in->d[0]) = isnan(v) ? 0x7fffffffffffffffull : b64(v);
        return true;
    }
    bool ftz = (in->flags & F_FTZ) != 0;
    float fa = f32(a), fb = f32(b), fc = f32(c);
    if (ftz) {
        if (fpclassify(fa) == FP_SUBNORMAL) fa = copysignf(0.0f, fa);
        if (fpclassify(fb) == FP_SUBNORMAL) fb = copysignf(0.0f, fb);
        if (fpclassify(fc) == FP_SUBNORMAL) fc = copysignf(0.0f, fc);
    }
    volatile float x = fa, y = fb, z = fc, r;
    switch (in->sub) {
    case O_ADD: r = x + y; break;
    case O_SUB: r = x - y; break;
    case O_MUL: r = x * y; break;
    case O_FMA: r = fmaf(x, y, z); break;
    case O_DIV: r = x / y; break;
    case O_SQRT: r = sqrtf(x); break;
    default: r = 1.0f / x; break;
    }
    fesetround(old);
    float v = r;
    if (ftz && fpclassify(v) == FP_SUBNORMAL) v = copysignf(0.0f, v);
    if (in->flags & F_SAT) v = isnan(v) ? 0.0f : v < 0 ? 0.0f : v > 1 ? 1.0f : v;
    REG(in->d[0]) = isnan(v) ? 0x7fffffffu : b32(v);
    return true;
}
