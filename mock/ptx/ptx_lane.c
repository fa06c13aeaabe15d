/* One lane's arithmetic: every ALU operation of every type, conversions and comparisons, as
 * the PTX ISA defines them. The warp loop (ptx_exec.c) runs the common operations itself for
 * all its lanes at once and comes here, lane by lane, for the rest. A lane's registers are its
 * column of the warp's block: LANE_REG(col, slot).
 *
 * Over 400 lines: one job, the ISA's arithmetic, conversions and comparisons of every type,
 * moved here whole from the loop; splitting it by family would only spread its shared helpers
 * (ftz, rounding modes, integer views) over more files. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx_run.h"
#include "ptx_val.h"

static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

/* .ftz on inputs and output, .sat on the output. */
static float fin(const pinst *in, float x) { return (in->flags & F_FTZ) ? ftz(x) : x; }
static float fout(const pinst *in, float x) {
    if (in->flags & F_FTZ) x = ftz(x);
    if (in->flags & F_SAT) x = isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
    return x;
}
static double dout(const pinst *in, double x) {
    if (in->flags & F_SAT) x = isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
    return x;
}

static int fround(int r) {
    return r == R_RZ   ? FE_TOWARDZERO
           : r == R_RM ? FE_DOWNWARD
           : r == R_RP ? FE_UPWARD
                       : FE_TONEAREST;
}

/* Float to integer of type dt: rounded as r says (truncation by default), NaN to 0, clamped
 * to the type's range (PTX saturates these conversions). */
static uint64_t f2i(double x, int r, int dt) {
    if (isnan(x)) return 0;
    switch (r) {
    case R_RNI:
    case R_RN: x = nearbyint(x); break;
    case R_RMI:
    case R_RM: x = floor(x); break;
    case R_RPI:
    case R_RP: x = ceil(x); break;
    default: x = trunc(x); break;
    }
    int bits = bits_of(dt);
    if (is_signed(dt)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        if (x < lo) x = lo;
        if (x >= hi) return bits == 64 ? (uint64_t)INT64_MAX : (uint64_t)((1ull << (bits - 1)) - 1);
        return (uint64_t)(int64_t)x;
    }
    if (x <= 0) return 0;
    if (x >= ldexp(1.0, bits)) return bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    return (uint64_t)x;
}

uint64_t ptx__cvt(const pinst *in, uint64_t v) {
    int dt = in->op % T_COUNT, st = in->type2;
    bool sf = st == T_F16 || st == T_F32 || st == T_F64;
    bool df = dt == T_F16 || dt == T_F32 || dt == T_F64;
    if (!sf && !df) {
        int64_t x = ival(v, st);
        if (in->flags & F_SAT) {
            int bits = bits_of(dt);
            bool su = !is_signed(st) && st == T_U64;
            if (is_signed(dt)) {
                int64_t hi = bits == 64 ? INT64_MAX : (int64_t)((1ull << (bits - 1)) - 1);
                int64_t lo = bits == 64 ? INT64_MIN : -(int64_t)(1ull << (bits - 1));
                if (su && (uint64_t)x > (uint64_t)hi)
                    x = hi;
                else if (!su && x > hi)
                    x = hi;
                else if (!su && x < lo)
                    x = lo;
            } else {
                uint64_t hi = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
                if (is_signed(st) && x < 0)
                    x = 0;
                else if ((uint64_t)x > hi)
                    x = (int64_t)hi;
            }
        }
        return (uint64_t)x;
    }
    if (!sf) { /* integer to float */
        int64_t x = ival(v, st);
        bool u = !is_signed(st);
        int r = in->rnd;
        int old = 0;
        if (r == R_RZ || r == R_RM || r == R_RP) {
            old = fegetround();
            fesetround(fround(r));
        }
        volatile uint64_t out;
        if (dt == T_F64)
            out = b64(u ? (double)(uint64_t)x : (double)x);
        else if (dt == T_F32)
            out = b32(u ? (float)(uint64_t)x : (float)x);
        else
            out = ptx__half_from_float(u ? (float)(uint64_t)x : (float)x);
        if (r == R_RZ || r == R_RM || r == R_RP) fesetround(old);
        return out;
    }
    double x = st == T_F64   ? f64(v)
               : st == T_F32 ? (double)f32(v)
                             : (double)ptx__half_to_float((uint16_t)v);
    if (st == T_F32 && (in->flags & F_FTZ)) x = ftz((float)x);
    if (!df) return f2i(x, in->rnd, dt);
    switch (in->rnd) { /* to an integral value of the same or another float type */
    case R_RNI: x = nearbyint(x); break;
    case R_RZI: x = trunc(x); break;
    case R_RMI: x = floor(x); break;
    case R_RPI: x = ceil(x); break;
    default: break;
    }
    if (dt == T_F64) return b64(dout(in, x));
    if (dt == T_F16) return ptx__half_from_float((float)dout(in, x));
    int r = in->rnd;
    float f;
    if (st == T_F64 && (r == R_RZ || r == R_RM || r == R_RP)) {
        int old = fegetround();
        fesetround(fround(r));
        /* Stored to a volatile before the mode goes back: clang (no FENV_ACCESS) may otherwise
         * convert after fesetround(old), in the default mode. */
        volatile double vx = x;
        volatile float vf = (float)vx;
        f = vf;
        fesetround(old);
    } else {
        f = (float)x;
    }
    return b32(fout(in, f));
}

static bool cmp_i(int c, int64_t a, int64_t b, bool u) {
    if (u) {
        uint64_t x = (uint64_t)a, y = (uint64_t)b;
        switch (c) {
        case C_EQ: return x == y;
        case C_NE: return x != y;
        case C_LT:
        case C_LO: return x < y;
        case C_LE:
        case C_LS: return x <= y;
        case C_GT:
        case C_HI: return x > y;
        case C_GE:
        case C_HS: return x >= y;
        default: return false;
        }
    }
    switch (c) {
    case C_EQ: return a == b;
    case C_NE: return a != b;
    case C_LT: return a < b;
    case C_LE: return a <= b;
    case C_GT: return a > b;
    case C_GE: return a >= b;
    case C_LO: return (uint64_t)a < (uint64_t)b;
    case C_LS: return (uint64_t)a <= (uint64_t)b;
    case C_HI: return (uint64_t)a > (uint64_t)b;
    case C_HS: return (uint64_t)a >= (uint64_t)b;
    default: return false;
    }
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
    uint64_t x = (uint64_t)b << 32 | a;
    uint8_t by[8];
    for (int i = 0; i < 8; i++) by[i] = (uint8_t)(x >> (8 * i));
    uint32_t r = 0;
    if (mode == 0) {
        for (int i = 0; i < 4; i++) {
            unsigned sel = (c >> (4 * i)) & 0xfu;
            uint8_t v = by[sel & 7];
            if (sel & 8) v = (v & 0x80) ? 0xff : 0;
            r |= (uint32_t)v << (8 * i);
        }
        return r;
    }
    static const uint8_t tab[6][4][4] = {
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, /* f4e */
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, /* b4e */
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, /* rc8 */
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, /* ecl */
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, /* ecr */
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, /* rc16 */
    };
    unsigned s = c & 3;
    for (int i = 0; i < 4; i++) r |= (uint32_t)by[tab[mode - 1][s][i]] << (8 * i);
    return r;
}

static uint64_t bfe(uint64_t a, unsigned pos, unsigned len, int t) {
    int msb = bits_of(t) - 1;
    pos &= 0xff;
    len &= 0xff;
    bool s = is_signed(t);
    int64_t x = ival(a, t);
    uint64_t r = 0;
    unsigned sbit_pos = pos + len - 1 > (unsigned)msb ? (unsigned)msb : pos + len - 1;
    bool sbit = s && len != 0 && ((uint64_t)x >> sbit_pos & 1);
    for (int i = 0; i <= msb; i++) {
        uint64_t bit = (unsigned)i < len && pos + (unsigned)i <= (unsigned)msb
                           ? ((uint64_t)x >> (pos + (unsigned)i)) & 1
                           : sbit;
        r |= bit << i;
    }
    return msb == 31 ? (uint32_t)r : r;
}

static uint64_t bfi(uint64_t f, uint64_t b, unsigned pos, unsigned len, int bits) {
    pos &= 0xff;
    len &= 0xff;
    uint64_t r = b;
    for (unsigned i = 0; i < len && pos + i < (unsigned)bits; i++) {
        r = (r & ~(1ull << (pos + i))) | (((f >> i) & 1) << (pos + i));
    }
    return bits == 32 ? (uint32_t)r : r;
}

static uint32_t bfind(uint64_t a, int t, bool shiftamt) {
    int bits = bits_of(t);
    int64_t x = ival(a, t);
    uint64_t u = bits == 32 ? (uint32_t)x : (uint64_t)x;
    if (is_signed(t) && x < 0) u = bits == 32 ? (uint32_t)~x : ~(uint64_t)x;
    if (u == 0) return 0xffffffffu;
    int msb = 63 - __builtin_clzll(u);
    return shiftamt ? (uint32_t)(bits - 1 - msb) : (uint32_t)msb;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------------------------------ */
/* Arithmetic of every type, the slow path of the loop                                        */
/* ------------------------------------------------------------------------------------------ */

/* slct's choice: the first operand when c >= 0 (c of type s32 or f32; -0.0 counts as >= 0). */
static bool slct_pick(const pinst *in, uint64_t c) {
    return in->type2 == T_F32 ? !(f32(c) < 0.0f) : (int32_t)(uint32_t)c >= 0;
}

static float f32op(int op, const pinst *in, float x, float y, float z, uint64_t c) {
    switch (op) {
    case O_ADD: return x + y;
    case O_SUB: return x - y;
    case O_MUL: return x * y;
    case O_FMA:
    case O_MAD: return fmaf(x, y, z);
    case O_DIV: return x / y;
    case O_ABS: return fabsf(x);
    case O_NEG: return -x;
    case O_MIN: return fminf(x, y);
    case O_MAX: return fmaxf(x, y);
    case O_SQRT: return sqrtf(x);
    case O_RCP: return 1.0f / x;
    case O_RSQRT: return 1.0f / sqrtf(x);
    case O_SIN: return sinf(x);
    case O_COS: return cosf(x);
    case O_LG2: return log2f(x);
    case O_EX2: return exp2f(x);
    case O_TANH: return tanhf(x);
    case O_COPYSIGN: return copysignf(y, x);
    case O_SLCT: return slct_pick(in, c) ? x : y;
    default: return x;
    }
}

static double f64op(int op, const pinst *in, double x, double y, double z, uint64_t c) {
    switch (op) {
    case O_ADD: return x + y;
    case O_SUB: return x - y;
    case O_MUL: return x * y;
    case O_FMA:
    case O_MAD: return fma(x, y, z);
    case O_DIV: return x / y;
    case O_ABS: return fabs(x);
    case O_NEG: return -x;
    case O_MIN: return fmin(x, y);
    case O_MAX: return fmax(x, y);
    case O_SQRT: return sqrt(x);
    case O_RCP: return 1.0 / x;
    case O_RSQRT: return 1.0 / sqrt(x);
    case O_SIN: return sin(x);
    case O_COS: return cos(x);
    case O_LG2: return log2(x);
    case O_EX2: return exp2(x);
    case O_TANH: return tanh(x);
    case O_COPYSIGN: return copysign(y, x);
    case O_SLCT: return slct_pick(in, c) ? x : y;
    default: return x;
    }
}

static bool testp(int mode, double x) {
    switch (mode) {
    case 0: return isfinite(x);
    case 1: return isinf(x);
    case 2: return !isnan(x);
    case 3: return isnan(x);
    case 4: return isnormal(x);
    default: return fpclassify(x) == FP_SUBNORMAL;
    }
}

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static uint64_t mulhi(int64_t x, int64_t y, int bits, bool s) {
    if (bits < 64 && s) return (uint64_t)((x * y) >> bits); /* |x|, |y| < 2^31: no overflow */
    if (bits < 64) return ((uint64_t)x * (uint64_t)y) >> bits;
    if (s) return (uint64_t)(((i128)x * (i128)y) >> 64);
    return (uint64_t)(((u128)(uint64_t)x * (uint64_t)y) >> 64);
}

#define REG(slot) LANE_REG(R, slot)

/* Every ALU operation of every type; false for one the loop must do itself. */
static bool alu(const pinst *in, uint64_t *R) {
    int op = in->op / T_COUNT, t = in->op % T_COUNT;
    uint64_t a = REG(in->s[0]), bb = REG(in->s[1]), c = REG(in->s[2]), r;
    if (op == O_SELP) {
        REG(in->d[0]) = (c & 1) ? a : bb;
        return true;
    }
    if (op == O_TESTP) {
        REG(in->d[0]) = testp(in->sub, t == T_F64 ? f64(a) : (double)f32(a));
        return true;
    }
    if (t == T_F32) {
        float x = fin(in, f32(a)), y = fin(in, f32(bb)), z = fin(in, f32(c));
        REG(in->d[0]) = b32(fout(in, f32op(op, in, x, y, z, c)));
        return op != O_NOP;
    }
    if (t == T_F64) {
        REG(in->d[0]) = b64(dout(in, f64op(op, in, f64(a), f64(bb), f64(c), c)));
        return true;
    }
    if (t == T_F16) {
        float x = ptx__half_to_float((uint16_t)a), y = ptx__half_to_float((uint16_t)bb),
              z = ptx__half_to_float((uint16_t)c);
        float r16 =
            op == O_FMA || op == O_MAD ? (float)((double)x * y + z) : f32op(op, in, x, y, z, c);
        if (in->flags & F_SAT) r16 = isnan(r16) ? 0.0f : r16 < 0 ? 0.0f : r16 > 1 ? 1.0f : r16;
        REG(in->d[0]) = ptx__half_from_float(r16);
        return true;
    }
    int bits = bits_of(t);
    bool s = is_signed(t);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    int64_t x = ival(a, t), y = ival(bb, t), z = ival(c, t);
    switch (op) {
    case O_ADD:
        r = (uint64_t)x + (uint64_t)y;
        if ((in->flags & F_SAT) && t == T_S32) {
            int64_t w = x + y;
            r = (uint64_t)(w > INT32_MAX ? INT32_MAX : w < INT32_MIN ? INT32_MIN : w);
        }
        break;
    case O_SUB:
        r = (uint64_t)x - (uint64_t)y;
        if ((in->flags & F_SAT) && t == T_S32) {
            int64_t w = x - y;
            r = (uint64_t)(w > INT32_MAX ? INT32_MAX : w < INT32_MIN ? INT32_MIN : w);
        }
        break;
    case O_MUL: r = (uint64_t)x * (uint64_t)y; break;
    case O_MULHI: r = mulhi(x, y, bits, s); break;
    case O_MULWIDE:
        r = (uint64_t)x * (uint64_t)y;
        mask = bits >= 32 ? ~0ull : (1ull << 2 * bits) - 1;
        break;
    case O_MAD:
        r = (uint64_t)x * (uint64_t)y + (uint64_t)z;
        if ((in->flags & F_SAT) && t == T_S32) {
            int64_t w = (int64_t)((uint64_t)mulhi(x, y, 0, true)) + z;
            r = (uint64_t)(w > INT32_MAX ? INT32_MAX : w < INT32_MIN ? INT32_MIN : w);
        }
        break;
    case O_MADHI: r = mulhi(x, y, bits, s) + (uint64_t)z; break;
    case O_MADWIDE:
        r = (uint64_t)x * (uint64_t)y + c;
        mask = bits >= 32 ? ~0ull : (1ull << 2 * bits) - 1;
        break;
    case O_DIV:
        if (y == 0)
            r = mask;
        else if (s && y == -1)
            r = (uint64_t)0 - (uint64_t)x;
        else
            r = s ? (uint64_t)(x / y) : (uint64_t)x / (uint64_t)y;
        break;
    case O_REM:
        if (y == 0)
            r = (uint64_t)x;
        else if (s && y == -1)
            r = 0;
        else
            r = s ? (uint64_t)(x % y) : (uint64_t)x % (uint64_t)y;
        break;
    case O_ABS: r = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x; break;
    case O_NEG: r = (uint64_t)0 - (uint64_t)x; break;
    case O_MIN: r = (s ? x < y : (uint64_t)x < (uint64_t)y) ? (uint64_t)x : (uint64_t)y; break;
    case O_MAX: r = (s ? x > y : (uint64_t)x > (uint64_t)y) ? (uint64_t)x : (uint64_t)y; break;
    case O_AND: r = a & bb; break;
    case O_OR: r = a | bb; break;
    case O_XOR: r = a ^ bb; break;
    case O_NOT: r = ~a; break;
    case O_CNOT: r = (a & mask) == 0; break;
    case O_SHL: r = (uint32_t)bb >= (unsigned)bits ? 0 : a << (uint32_t)bb; break;
    case O_SHR: {
        uint32_t n = (uint32_t)bb;
        if (s)
            r = (uint64_t)(n >= (unsigned)bits ? (x < 0 ? -1 : 0) : x >> n);
        else
            r = n >= (unsigned)bits ? 0 : (a & mask) >> n;
        break;
    }
    case O_BFE: r = bfe(a, (uint32_t)bb, (uint32_t)c, t); break;
    case O_BFI: r = bfi(a, bb, (uint32_t)c, (uint32_t)REG(in->s[3]), bits); break;
    case O_BREV: {
        uint64_t v = a & mask;
        r = 0;
        for (int i = 0; i < bits; i++) r |= ((v >> i) & 1) << (bits - 1 - i);
        break;
    }
    case O_CLZ: {
        uint64_t v = a & mask;
        r = v == 0 ? (uint64_t)bits : (uint64_t)(__builtin_clzll(v) - (64 - bits));
        mask = 0xffffffffu;
        break;
    }
    case O_POPC:
        r = (uint64_t)__builtin_popcountll(a & mask);
        mask = 0xffffffffu;
        break;
    case O_BFIND:
        r = bfind(a, t, in->flags & F_SHIFTAMT);
        mask = 0xffffffffu;
        break;
    case O_PRMT: r = prmt((uint32_t)a, (uint32_t)bb, (uint32_t)c, in->sub ? in->sub : 0); break;
    case O_LOP3: {
        r = 0;
        for (int i = 0; i < 8; i++) {
            if (!((in->imm >> i) & 1)) continue;
            uint64_t ta = (i & 4) ? a : ~a, tb = (i & 2) ? bb : ~bb, tc = (i & 1) ? c : ~c;
            r |= ta & tb & tc;
        }
        break;
    }
    case O_SHFL_L:
    case O_SHFL_R: {
        uint32_t n = (uint32_t)c;
        n = (in->flags & F_CLAMP) ? (n > 32 ? 32 : n) : (n & 31);
        uint64_t v = (uint64_t)(uint32_t)bb << 32 | (uint32_t)a;
        r = op == O_SHFL_L ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
        break;
    }
    case O_SAD:
        r = (uint64_t)z + ((s ? x < y : (uint64_t)x < (uint64_t)y) ? (uint64_t)y - (uint64_t)x
                                                                   : (uint64_t)x - (uint64_t)y);
        break;
    case O_SLCT: r = slct_pick(in, c) ? a : bb; break;
    default: return false;
    }
    REG(in->d[0]) = r & mask;
    return true;
}

bool ptx__setp(const pinst *in, uint64_t a, uint64_t b) {
    int ty = in->op % T_COUNT;
    if (ty == T_F16)
        return cmp_f(in->sub, ptx__half_to_float((uint16_t)a), ptx__half_to_float((uint16_t)b));
    if (ty == T_F32) return cmp_f(in->sub, fin(in, f32(a)), fin(in, f32(b)));
    if (ty == T_F64) return cmp_f(in->sub, f64(a), f64(b));
    return cmp_i(in->sub, ival(a, ty), ival(b, ty), !is_signed(ty));
}

/* setp with its combining predicate: p and its complement q. */
static void setp(const pinst *in, uint64_t *R) {
    bool p = ptx__setp(in, REG(in->s[0]), REG(in->s[1]));
    bool c = (REG(in->s[2]) & 1) ^ ((in->flags & F_NEGC) != 0);
    bool q = !p;
    switch (in->imm) {
    case 0:
        p = p && c;
        q = q && c;
        break;
    case 1:
        p = p || c;
        q = q || c;
        break;
    default:
        p = p != c;
        q = q != c;
        break;
    }
    REG(in->d[0]) = p;
    REG(in->d[1]) = q;
}

bool ptx__alu(const pinst *in, uint64_t *R) {
    int op = in->op / T_COUNT, t = in->op % T_COUNT;
    switch (op) {
    case O_MOV: REG(in->d[0]) = REG(in->s[0]); return true;
    case O_SETP:
        if (t == T_U8 || t == T_S8 || t == T_BF16 || t == T_F16X2 || t == T_NONE) return false;
        setp(in, R);
        return true;
    case O_CVT:
        if (t == T_BF16 || t == T_F16X2 || t == T_PRED || t == T_NONE) return false;
        REG(in->d[0]) = ptx__cvt(in, REG(in->s[0]));
        return true;
    case O_CLOCK: REG(in->d[0]) = (uint32_t)now_ns(); return true;
    case O_CLOCK64:
    case O_GTIMER: REG(in->d[0]) = now_ns(); return true;
    case O_NOP: return true;
    case O_HALF: return ptx__half(in, R);
    case O_RND: return ptx__round(in, R);
    case O_PACK: {
        uint64_t v = 0;
        unsigned w = (unsigned)in->imm;
        uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
        for (unsigned i = 0; i < in->vec; i++) v |= (REG(in->s[i]) & m) << (w * i);
        REG(in->d[0]) = v;
        return true;
    }
    case O_UNPACK: {
        uint64_t v = REG(in->s[0]);
        unsigned w = (unsigned)in->imm;
        uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
        for (unsigned i = 0; i < in->vec; i++) REG(in->d[i]) = (v >> (w * i)) & m;
        return true;
    }
    case O_ADDC:
    case O_SUBC: {
        uint64_t cin = in->sub ? (REG(SL_CARRY) & 1) : 0;
        if (bits_of(in->op % T_COUNT) == 64) {
            u128 a = REG(in->s[0]), bb = REG(in->s[1]),
                 r = op == O_ADDC ? a + bb + cin : a - bb - cin;
            REG(in->d[0]) = (uint64_t)r;
            if (in->flags & F_CC) REG(SL_CARRY) = (uint64_t)(r >> 64) & 1;
        } else {
            uint64_t a = (uint32_t)REG(in->s[0]), bb = (uint32_t)REG(in->s[1]);
            uint64_t r = op == O_ADDC ? a + bb + cin : a - bb - cin;
            REG(in->d[0]) = (uint32_t)r;
            if (in->flags & F_CC) REG(SL_CARRY) = (r >> 32) & 1;
        }
        return true;
    }
    default: return alu(in, R);
    }
}
