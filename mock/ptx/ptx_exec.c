/* The interpreter loop: one thread's instructions, until it meets a barrier or a warp
 * collective, exits, faults, or has used its quantum. */
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx_run.h"

#define OPT(o, t) ((o)*T_COUNT + (t))
#define C(o, t) case OPT(o, t)

static inline float f32(uint64_t v) {
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, 4);
    return f;
}
static inline double f64(uint64_t v) {
    double f;
    memcpy(&f, &v, 8);
    return f;
}
static inline uint64_t b32(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
static inline uint64_t b64(double f) {
    uint64_t b;
    memcpy(&b, &f, 8);
    return b;
}

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

static bool is_signed(int t) { return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64; }
static int bits_of(int t) {
    static const int b[T_COUNT] = {8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 1, 16, 32, 0};
    return b[t];
}

/* Integer value of a slot read as type t, sign- or zero-extended. */
static int64_t ival(uint64_t v, int t) {
    switch (t) {
    case T_U8: return (uint8_t)v;
    case T_U16: return (uint16_t)v;
    case T_U32: return (uint32_t)v;
    case T_S8: return (int8_t)(uint8_t)v;
    case T_S16: return (int16_t)(uint16_t)v;
    case T_S32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
    }
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

static uint64_t cvt(const pinst *in, uint64_t v) {
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
        volatile double vx = x;
        f = (float)vx;
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

static bool cmp_f(int c, double a, double b) {
    bool un = isnan(a) || isnan(b);
    switch (c) {
    case C_EQ: return !un && a == b;
    case C_NE: return !un && a != b;
    case C_LT: return !un && a < b;
    case C_LE: return !un && a <= b;
    case C_GT: return !un && a > b;
    case C_GE: return !un && a >= b;
    case C_EQU: return un || a == b;
    case C_NEU: return un || a != b;
    case C_LTU: return un || a < b;
    case C_LEU: return un || a <= b;
    case C_GTU: return un || a > b;
    case C_GEU: return un || a >= b;
    case C_NUM: return !un;
    case C_NAN: return un;
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
/* Atomics: real ones, since blocks run on several host threads                              */
/* ------------------------------------------------------------------------------------------ */

static uint64_t atom_new(int op, int t, uint64_t old, uint64_t b, uint64_t c) {
    bool wide = bits_of(t) == 64;
    switch (op) {
    case A_ADD:
        if (t == T_F32) return b32(f32(old) + f32(b));
        if (t == T_F64) return b64(f64(old) + f64(b));
        return old + b;
    case A_MIN:
    case A_MAX: {
        bool less = is_signed(t) ? ival(b, t) < ival(old, t)
                                 : (wide ? b < old : (uint32_t)b < (uint32_t)old);
        return (op == A_MIN) == less ? b : old;
    }
    case A_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1;
    case A_DEC:
        return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b
                                                                   : (uint32_t)old - 1;
    case A_AND: return old & b;
    case A_OR: return old | b;
    case A_XOR: return old ^ b;
    case A_EXCH: return b;
    case A_CAS: return old == b ? c : old;
    default: return old;
    }
}

static uint64_t atom(void *p, int op, int t, uint64_t b, uint64_t c) {
    if (bits_of(t) == 64) {
        uint64_t *q = p;
        if (op == A_ADD && t != T_F64) return __atomic_fetch_add(q, b, __ATOMIC_SEQ_CST);
        if (op == A_EXCH) return __atomic_exchange_n(q, b, __ATOMIC_SEQ_CST);
        if (op == A_CAS) {
            uint64_t e = b;
            __atomic_compare_exchange_n(q, &e, c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return e;
        }
        uint64_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
        while (!__atomic_compare_exchange_n(q, &old, atom_new(op, t, old, b, c), true,
                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        }
        return old;
    }
    uint32_t *q = p, bb = (uint32_t)b;
    switch (op) {
    case A_ADD:
        if (t != T_F32) return __atomic_fetch_add(q, bb, __ATOMIC_SEQ_CST);
        break;
    case A_AND: return __atomic_fetch_and(q, bb, __ATOMIC_SEQ_CST);
    case A_OR: return __atomic_fetch_or(q, bb, __ATOMIC_SEQ_CST);
    case A_XOR: return __atomic_fetch_xor(q, bb, __ATOMIC_SEQ_CST);
    case A_EXCH: return __atomic_exchange_n(q, bb, __ATOMIC_SEQ_CST);
    case A_CAS: {
        uint32_t e = bb;
        __atomic_compare_exchange_n(q, &e, (uint32_t)c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return e;
    }
    default: break;
    }
    uint32_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(q, &old, (uint32_t)atom_new(op, t, old, b, c), true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void *global(pblock *b, pthr *t, const pinst *in, uint64_t a, size_t n, bool write) {
    pworker *w = b->w;
    if (a >= w->lo && a + n <= w->hi && a + n >= a) return (void *)(uintptr_t)a;
    const mock_ptx_module *m = b->run->k->mod;
    uintptr_t ws = (uintptr_t)b->run->workspace;
    if (a >= ws && a + n <= ws + sizeof b->run->workspace) return (void *)(uintptr_t)a;
    uintptr_t s = (uintptr_t)m->storage;
    if (a >= s && a + n <= s + m->storage_bytes && a + n >= a) return (void *)(uintptr_t)a;
    const mock_ptx_launch *l = b->run->l;
    char why[256] = "";
    uintptr_t lo = 0, hi = 0;
    if (a != 0 && a + n > a && l->check != NULL &&
        l->check(l->check_ctx, (uintptr_t)a, n, &lo, &hi, why, sizeof why)) {
        w->lo = lo;
        w->hi = hi;
        return (void *)(uintptr_t)a;
    }
    if (why[0] == 0) snprintf(why, sizeof why, "%s", a == 0 ? "a null pointer" : "no allocation");
    ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS, "a %zu-byte %s at address 0x%llx: %s", n,
               write ? "write" : "read", (unsigned long long)a, why);
    return NULL;
}

void *ptx__addr(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, size_t n, bool write) {
    prun *r = b->run;
    if (in->flags & F_ADDR32) a = (uint32_t)a;
    if (n > 1 && (a & (n - 1)) != 0) {
        ptx__fault(b, t, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                   "a %zu-byte %s at address 0x%llx, not aligned to %zu bytes", n,
                   write ? "write" : "read", (unsigned long long)a, n);
        return NULL;
    }
    switch (space) {
    case S_SHARED:
        if (a + n <= b->smem_size && a + n >= a) return b->smem + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "a %zu-byte %s at shared address 0x%llx, past the block's %zu bytes of "
                   "shared memory",
                   n, write ? "write" : "read", (unsigned long long)a, b->smem_size);
        return NULL;
    case S_LOCAL:
        if (a + n <= r->local_size && a + n >= a) return t->local + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "a %zu-byte %s at local address 0x%llx, past the thread's %zu bytes of "
                   "local memory",
                   n, write ? "write" : "read", (unsigned long long)a, r->local_size);
        return NULL;
    case S_PARAM:
        if (!write && a + n <= r->param_bytes && a + n >= a) return r->params + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "a %zu-byte %s at parameter offset %llu, past the kernel's %zu bytes of "
                   "parameters",
                   n, write ? "write" : "read", (unsigned long long)a, r->param_bytes);
        return NULL;
    case S_GENERIC: {
        uintptr_t s = (uintptr_t)b->smem, lc = (uintptr_t)t->local, p = (uintptr_t)r->params;
        if (a >= s && a + n <= s + b->smem_size) return (void *)(uintptr_t)a;
        if (a >= lc && a + n <= lc + r->local_size) return (void *)(uintptr_t)a;
        if (!write && a >= p && a + n <= p + r->param_bytes) return (void *)(uintptr_t)a;
        return global(b, t, in, a, n, write);
    }
    default: return global(b, t, in, a, n, write);
    }
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

/* Every ALU operation of every type; false for one the loop must do itself. */
static bool alu(const pinst *in, uint64_t *R) {
    int op = in->op / T_COUNT, t = in->op % T_COUNT;
    uint64_t a = R[in->s[0]], bb = R[in->s[1]], c = R[in->s[2]], r;
    if (op == O_SELP) {
        R[in->d[0]] = (c & 1) ? a : bb;
        return true;
    }
    if (op == O_TESTP) {
        R[in->d[0]] = testp(in->sub, t == T_F64 ? f64(a) : (double)f32(a));
        return true;
    }
    if (t == T_F32) {
        float x = fin(in, f32(a)), y = fin(in, f32(bb)), z = fin(in, f32(c));
        R[in->d[0]] = b32(fout(in, f32op(op, in, x, y, z, c)));
        return op != O_NOP;
    }
    if (t == T_F64) {
        R[in->d[0]] = b64(dout(in, f64op(op, in, f64(a), f64(bb), f64(c), c)));
        return true;
    }
    if (t == T_F16) {
        float x = ptx__half_to_float((uint16_t)a), y = ptx__half_to_float((uint16_t)bb),
              z = ptx__half_to_float((uint16_t)c);
        float r16 =
            op == O_FMA || op == O_MAD ? (float)((double)x * y + z) : f32op(op, in, x, y, z, c);
        if (in->flags & F_SAT) r16 = isnan(r16) ? 0.0f : r16 < 0 ? 0.0f : r16 > 1 ? 1.0f : r16;
        R[in->d[0]] = ptx__half_from_float(r16);
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
    case O_BFI: r = bfi(a, bb, (uint32_t)c, (uint32_t)R[in->s[3]], bits); break;
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
    R[in->d[0]] = r & mask;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* The loop                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Loads and stores are relaxed atomics of their natural size (the address was checked to be
 * aligned): other host threads may change the same word with atom, as other blocks do on the
 * GPU, and a plain access would be a data race in C. On x86 they are plain moves. */
#define RELAXED_LOAD(type, p) __atomic_load_n((const type *)(p), __ATOMIC_RELAXED)

static inline __attribute__((always_inline)) uint64_t load(const void *p, int t) {
    switch (t) {
    case T_U8: return RELAXED_LOAD(uint8_t, p);
    case T_S8: return (uint64_t)(int64_t)RELAXED_LOAD(int8_t, p);
    case T_U16:
    case T_F16:
    case T_BF16: return RELAXED_LOAD(uint16_t, p);
    case T_S16: return (uint64_t)(int64_t)RELAXED_LOAD(int16_t, p);
    case T_U32:
    case T_F32: return RELAXED_LOAD(uint32_t, p);
    case T_S32: return (uint64_t)(int64_t)RELAXED_LOAD(int32_t, p);
    default: return RELAXED_LOAD(uint64_t, p);
    }
}

static void store(void *p, size_t n, uint64_t v) {
    switch (n) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED); break;
    }
}

static int call(pblock *b, pthr *t, const pinst *in) {
    prun *r = b->run;
    pframe *cur = &t->frames[t->depth];
    const pcall *c = &cur->f->calls[in->aux];
    const mock_ptx_func *g = c->callee;
    size_t base = cur->base + cur->f->frame_bytes;
    if (base + g->frame_bytes > r->local_size || t->depth >= 1000) {
        return ptx__fault(b, t, in, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                          "the call of %s overflows the thread's %zu bytes of stack (recursion "
                          "too deep?)",
                          g->name, r->local_size);
    }
    if (t->depth + 1 >= t->capframes) {
        int n = t->capframes < 8 ? 8 : t->capframes * 2;
        pframe *f = realloc(t->frames == &t->f0 ? NULL : t->frames, (size_t)n * sizeof *f);
        if (f == NULL) return ptx__fault(b, t, in, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
        if (t->frames == &t->f0) f[0] = t->f0;
        memset(f + t->capframes, 0, (size_t)(n - t->capframes) * sizeof *f);
        t->frames = f;
        t->capframes = n;
        cur = &t->frames[t->depth];
    }
    pframe *nf = &t->frames[t->depth + 1];
    /* Frames above the first own their registers; their size is the largest callee's. */
    uint64_t *R = realloc(nf->R, g->nslots * sizeof *R);
    if (R == NULL) return ptx__fault(b, t, in, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(R, t->R, SL_RESERVED * sizeof *R);
    memcpy(R + SL_RESERVED, g->init + SL_RESERVED, (g->nslots - SL_RESERVED) * sizeof *R);
    R[SL_FRAME] = base;
    for (int i = 0; i < c->nargs; i++) {
        memcpy(t->local + base + g->params[i].offset, t->local + cur->base + c->arg_off[i],
               c->arg_size[i]);
    }
    cur->ret_pc = t->pc;
    nf->f = g;
    nf->R = R;
    nf->base = base;
    nf->call = c;
    t->depth++;
    t->R = R;
    t->code = g->code;
    t->pc = 0;
    return TS_RUN;
}

static void ret(pthr *t) {
    pframe *fr = &t->frames[t->depth], *up = &t->frames[t->depth - 1];
    const pcall *c = fr->call;
    if (c->ret_off >= 0 && fr->f->ret_off >= 0) {
        memcpy(t->local + up->base + (size_t)c->ret_off,
               t->local + fr->base + (size_t)fr->f->ret_off, c->ret_size);
    }
    t->depth--;
    t->R = up->R;
    t->code = up->f->code;
    t->pc = up->ret_pc;
}

static int assertfail(pblock *b, pthr *t, const pinst *in) {
    pframe *cur = &t->frames[t->depth];
    const pcall *c = &cur->f->calls[in->aux];
    uint64_t arg[4];
    for (int i = 0; i < 4; i++) memcpy(&arg[i], t->local + cur->base + c->arg_off[i], 8);
    char text[3][160];
    for (int i = 0; i < 3; i++) {
        uint64_t p = arg[i == 2 ? 3 : i];
        size_t n = 0;
        for (; n + 1 < sizeof text[i]; n++) {
            const char *q = ptx__addr(b, t, in, S_GENERIC, p + n, 1, false);
            if (q == NULL) return TS_FAULT;
            if ((text[i][n] = *q) == 0) break;
        }
        text[i][n] = 0;
    }
    uint32_t line = (uint32_t)arg[2];
    return ptx__fault(b, t, in, CUDA_ERROR_ASSERT, "%s:%u: %s: Assertion `%s' failed", text[1],
                      line, text[2], text[0]);
}

#define RS(i) R[in->s[i]]
#define RD R[in->d[0]]
#define U32(i) ((uint32_t)R[in->s[i]])
#define S32(i) ((int32_t)(uint32_t)R[in->s[i]])
#define SYNC()                                                                                     \
    do {                                                                                           \
        t->pc = pc;                                                                                \
        t->R = R;                                                                                  \
    } while (0)
#define LOAD()                                                                                     \
    do {                                                                                           \
        R = t->R;                                                                                  \
        code = t->code;                                                                            \
        pc = t->pc;                                                                                \
    } while (0)

int ptx__exec(pblock *b, pthr *t, uint64_t budget) {
    pworker *w = b->w;
    const unsigned char *params = b->run->params;
    size_t pbytes = b->run->param_bytes;
    uint64_t *R = t->R;
    const pinst *code = t->code;
    uint32_t pc = t->pc;
    uint64_t steps = 0;
    int st = TS_RUN;
    for (;;) {
        const pinst *in = &code[pc++];
        steps++;
        if (in->guard != SL_TRUE && !((R[in->guard] ^ in->gneg) & 1)) continue;
        switch (in->op) {
            C(O_MOV, T_NONE) : RD = RS(0);
            break;
            C(O_ADD, T_U32) : C(O_ADD, T_S32) : if (in->flags) goto slow;
            RD = (uint32_t)(U32(0) + U32(1));
            break;
            C(O_ADD, T_U64) : C(O_ADD, T_S64) : RD = RS(0) + RS(1);
            break;
            C(O_SUB, T_U32) : C(O_SUB, T_S32) : if (in->flags) goto slow;
            RD = (uint32_t)(U32(0) - U32(1));
            break;
            C(O_SUB, T_U64) : C(O_SUB, T_S64) : RD = RS(0) - RS(1);
            break;
            C(O_MUL, T_U32) : C(O_MUL, T_S32) : RD = (uint32_t)(U32(0) * U32(1));
            break;
            C(O_MUL, T_U64) : C(O_MUL, T_S64) : RD = RS(0) * RS(1);
            break;
            C(O_MULWIDE, T_S32) : RD = (uint64_t)((int64_t)S32(0) * (int64_t)S32(1));
            break;
            C(O_MULWIDE, T_U32) : RD = (uint64_t)U32(0) * U32(1);
            break;
            C(O_MAD, T_U32) : C(O_MAD, T_S32) : if (in->flags) goto slow;
            RD = (uint32_t)(U32(0) * U32(1) + U32(2));
            break;
            C(O_MAD, T_U64) : C(O_MAD, T_S64) : RD = RS(0) * RS(1) + RS(2);
            break;
            C(O_SHL, T_U32) : RD = U32(1) >= 32 ? 0 : (uint32_t)(U32(0) << U32(1));
            break;
            C(O_SHL, T_U64) : RD = U32(1) >= 64 ? 0 : RS(0) << U32(1);
            break;
            C(O_SHR, T_U32) : RD = U32(1) >= 32 ? 0 : U32(0) >> U32(1);
            break;
            C(O_SHR, T_S32) : RD = (uint32_t)(S32(0) >> (U32(1) >= 32 ? 31 : U32(1)));
            break;
            C(O_AND, T_U32)
                : C(O_AND, T_S32)
                : C(O_AND, T_U64) : C(O_AND, T_S64) : C(O_AND, T_PRED) : RD = RS(0) & RS(1);
            break;
            C(O_OR, T_U32)
                : C(O_OR, T_S32)
                : C(O_OR, T_U64) : C(O_OR, T_S64) : C(O_OR, T_PRED) : RD = RS(0) | RS(1);
            break;
            C(O_XOR, T_U32)
                : C(O_XOR, T_S32)
                : C(O_XOR, T_U64) : C(O_XOR, T_S64) : C(O_XOR, T_PRED) : RD = RS(0) ^ RS(1);
            break;
            C(O_NOT, T_PRED) : RD = !(RS(0) & 1);
            break;
            C(O_SELP, T_U32)
                : C(O_SELP, T_S32)
                : C(O_SELP, T_U64)
                : C(O_SELP, T_S64)
                : C(O_SELP, T_F32)
                : C(O_SELP, T_F64)
                : C(O_SELP, T_U16) : C(O_SELP, T_S16) : RD = (RS(2) & 1) ? RS(0) : RS(1);
            break;
            C(O_ADD, T_F32) : if (in->flags) goto slow;
            RD = b32(f32(RS(0)) + f32(RS(1)));
            break;
            C(O_MUL, T_F32) : if (in->flags) goto slow;
            RD = b32(f32(RS(0)) * f32(RS(1)));
            break;
            C(O_FMA, T_F32) : if (in->flags) goto slow;
            RD = b32(fmaf(f32(RS(0)), f32(RS(1)), f32(RS(2))));
            break;
            C(O_ADD, T_F64) : RD = b64(f64(RS(0)) + f64(RS(1)));
            break;
            C(O_MUL, T_F64) : RD = b64(f64(RS(0)) * f64(RS(1)));
            break;
            C(O_FMA, T_F64) : RD = b64(fma(f64(RS(0)), f64(RS(1)), f64(RS(2))));
            break;
            C(O_SETP, T_U32)
                : C(O_SETP, T_S32)
                : C(O_SETP, T_U64)
                : C(O_SETP, T_S64)
                : C(O_SETP, T_U16)
                : C(O_SETP, T_S16)
                : C(O_SETP, T_F32) : C(O_SETP, T_F64) : C(O_SETP, T_PRED) : C(O_SETP, T_F16) : {
                int ty = in->op % T_COUNT;
                bool p;
                if (ty == T_F16) {
                    p = cmp_f(in->sub, ptx__half_to_float((uint16_t)RS(0)),
                              ptx__half_to_float((uint16_t)RS(1)));
                } else if (ty == T_F32) {
                    float x = fin(in, f32(RS(0))), y = fin(in, f32(RS(1)));
                    p = cmp_f(in->sub, x, y);
                } else if (ty == T_F64) {
                    p = cmp_f(in->sub, f64(RS(0)), f64(RS(1)));
                } else {
                    p = cmp_i(in->sub, ival(RS(0), ty), ival(RS(1), ty), !is_signed(ty));
                }
                bool c = (RS(2) & 1) ^ ((in->flags & F_NEGC) != 0);
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
                RD = p;
                R[in->d[1]] = q;
                break;
            }
            C(O_CVT, T_U64)
                : C(O_CVT, T_S64)
                : C(O_CVT, T_U32)
                : C(O_CVT, T_S32)
                : C(O_CVT, T_U16)
                : C(O_CVT, T_S16)
                : C(O_CVT, T_U8)
                : C(O_CVT, T_S8)
                : C(O_CVT, T_F32) : C(O_CVT, T_F64) : C(O_CVT, T_F16) : RD = cvt(in, RS(0));
            break;
            C(O_CVTA, T_NONE) : {
                uint64_t a = RS(0);
                if (in->space == S_SHARED)
                    a = (uint64_t)(uintptr_t)b->smem + (uint32_t)a;
                else if (in->space == S_LOCAL)
                    a = (uint64_t)(uintptr_t)t->local + a;
                else
                    a = (uint64_t)(uintptr_t)b->run->params + a;
                RD = a;
                break;
            }
            C(O_CVTA_TO, T_NONE) : {
                uint64_t a = RS(0);
                if (in->space == S_SHARED)
                    a -= (uint64_t)(uintptr_t)b->smem;
                else if (in->space == S_LOCAL)
                    a -= (uint64_t)(uintptr_t)t->local;
                else
                    a -= (uint64_t)(uintptr_t)b->run->params;
                RD = a;
                break;
            }
            C(O_LD, T_U8)
                : C(O_LD, T_S8)
                : C(O_LD, T_U16)
                : C(O_LD, T_S16)
                : C(O_LD, T_U32)
                : C(O_LD, T_S32)
                : C(O_LD, T_U64)
                : C(O_LD, T_S64) : C(O_LD, T_F32) : C(O_LD, T_F64) : C(O_LD, T_F16) : {
                int ty = in->op % T_COUNT;
                size_t n = (size_t)bits_of(ty) / 8, nb = n * in->vec;
                uint64_t a = RS(0) + (uint64_t)in->imm;
                if (in->flags & F_ADDR32) a = (uint32_t)a;
                const unsigned char *p;
                /* The common cases inline: a kernel parameter, the allocation last used. */
                if (in->space == S_PARAM && a + nb <= pbytes && !(a & (nb - 1))) {
                    p = params + a;
                } else if (in->space == S_GLOBAL && a >= w->lo && a + nb <= w->hi &&
                           !(a & (nb - 1))) {
                    p = (const unsigned char *)(uintptr_t)a;
                } else {
                    SYNC();
                    p = ptx__addr(b, t, in, in->space, a, nb, false);
                    if (p == NULL) {
                        st = TS_FAULT;
                        goto out;
                    }
                }
                if (in->vec == 1) {
                    RD = load(p, ty);
                    break;
                }
                for (unsigned i = 0; i < in->vec; i++) R[in->d[i]] = load(p + i * n, ty);
                break;
            }
            C(O_ST, T_U8)
                : C(O_ST, T_S8)
                : C(O_ST, T_U16)
                : C(O_ST, T_S16)
                : C(O_ST, T_U32)
                : C(O_ST, T_S32)
                : C(O_ST, T_U64)
                : C(O_ST, T_S64) : C(O_ST, T_F32) : C(O_ST, T_F64) : C(O_ST, T_F16) : {
                int ty = in->op % T_COUNT;
                size_t n = (size_t)bits_of(ty) / 8, nb = n * in->vec;
                uint64_t a = RS(0) + (uint64_t)in->imm;
                if (in->flags & F_ADDR32) a = (uint32_t)a;
                unsigned char *p;
                if (in->space == S_GLOBAL && a >= w->lo && a + nb <= w->hi && !(a & (nb - 1))) {
                    p = (unsigned char *)(uintptr_t)a;
                } else {
                    SYNC();
                    p = ptx__addr(b, t, in, in->space, a, nb, true);
                    if (p == NULL) {
                        st = TS_FAULT;
                        goto out;
                    }
                }
                for (unsigned i = 0; i < in->vec; i++) store(p + i * n, n, R[in->d[i]]);
                break;
            }
            C(O_ATOM, T_U32)
                : C(O_ATOM, T_S32)
                : C(O_ATOM, T_U64) : C(O_ATOM, T_S64) : C(O_ATOM, T_F32) : C(O_ATOM, T_F64) : {
                int ty = in->op % T_COUNT;
                size_t n = (size_t)bits_of(ty) / 8;
                SYNC();
                void *p = ptx__addr(b, t, in, in->space, RS(0) + (uint64_t)in->imm, n, true);
                if (p == NULL) {
                    st = TS_FAULT;
                    goto out;
                }
                uint64_t old = atom(p, in->sub, ty, RS(1), RS(2));
                if (in->d[0] != SL_SINK) RD = old;
                break;
            }
            C(O_BRA, T_NONE) : if ((uint32_t)in->imm < pc && steps >= budget) {
                pc = (uint32_t)in->imm;
                st = TS_YIELD;
                goto out;
            }
            pc = (uint32_t)in->imm;
            break;
            C(O_EXIT, T_NONE) : st = TS_EXIT;
            goto out;
            C(O_RET, T_NONE) : if (t->depth == 0) {
                st = TS_EXIT;
                goto out;
            }
            SYNC();
            ret(t);
            LOAD();
            break;
            C(O_CALL, T_NONE) : SYNC();
            if (call(b, t, in) == TS_FAULT) {
                st = TS_FAULT;
                goto out;
            }
            LOAD();
            if (steps >= budget) {
                st = TS_YIELD;
                goto out;
            }
            break;
            C(O_TRAP, T_NONE) : SYNC();
            st = ptx__fault(b, t, in, CUDA_ERROR_LAUNCH_FAILED, "the thread executed trap");
            goto out;
            C(O_ASSERT, T_NONE) : SYNC();
            st = assertfail(b, t, in);
            goto out;
            C(O_PRINTF, T_NONE) : {
                SYNC();
                pframe *cur = &t->frames[t->depth];
                const pcall *c = &cur->f->calls[in->aux];
                uint64_t fmt, args;
                memcpy(&fmt, t->local + cur->base + c->arg_off[0], 8);
                memcpy(&args, t->local + cur->base + c->arg_off[1], 8);
                int n = ptx__printf(b, t, in, fmt, args);
                if (n < 0) {
                    st = TS_FAULT;
                    goto out;
                }
                if (c->ret_off >= 0) {
                    int32_t v = n;
                    memcpy(t->local + cur->base + (size_t)c->ret_off, &v, 4);
                }
                break;
            }
            C(O_BAR, T_NONE) : t->wait = in;
            st = TS_BAR;
            goto out;
            C(O_SHFL, T_U32)
                : C(O_VOTE, T_U32)
                : C(O_MATCH, T_U32)
                : C(O_MATCH, T_U64)
                : C(O_REDUX, T_U32)
                : C(O_REDUX, T_S32)
                : C(O_ACTIVEMASK, T_NONE) : C(O_WARPSYNC, T_NONE) : t->wait = in;
            st = TS_WARP;
            goto out;
            C(O_CLOCK, T_NONE) : RD = (uint32_t)now_ns();
            break;
            C(O_CLOCK64, T_NONE) : C(O_GTIMER, T_NONE) : RD = now_ns();
            break;
            C(O_PACK, T_NONE) : {
                uint64_t v = 0;
                unsigned w = (unsigned)in->imm;
                uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
                for (unsigned i = 0; i < in->vec; i++) v |= (R[in->s[i]] & m) << (w * i);
                RD = v;
                break;
            }
            C(O_UNPACK, T_NONE) : {
                uint64_t v = RS(0);
                unsigned w = (unsigned)in->imm;
                uint64_t m = w == 64 ? ~0ull : (1ull << w) - 1;
                for (unsigned i = 0; i < in->vec; i++) R[in->d[i]] = (v >> (w * i)) & m;
                break;
            }
            C(O_ADDC, T_U32) : C(O_ADDC, T_S32) : C(O_SUBC, T_U32) : C(O_SUBC, T_S32) : {
                uint64_t cin = in->sub ? (R[SL_CARRY] & 1) : 0;
                uint64_t a = U32(0), bb = U32(1), r;
                if (in->op / T_COUNT == O_ADDC)
                    r = a + bb + cin;
                else
                    r = a - bb - cin;
                RD = (uint32_t)r;
                if (in->flags & F_CC) R[SL_CARRY] = (r >> 32) & 1;
                break;
            }
            C(O_ADDC, T_U64) : C(O_ADDC, T_S64) : C(O_SUBC, T_U64) : C(O_SUBC, T_S64) : {
                uint64_t cin = in->sub ? (R[SL_CARRY] & 1) : 0;
                u128 a = RS(0), bb = RS(1), r;
                if (in->op / T_COUNT == O_ADDC)
                    r = a + bb + cin;
                else
                    r = a - bb - cin;
                RD = (uint64_t)r;
                if (in->flags & F_CC) R[SL_CARRY] = (uint64_t)(r >> 64) & 1;
                break;
            }
            C(O_NOP, T_NONE) : break;
        default:
        slow:
            if (!alu(in, R)) {
                SYNC();
                st = ptx__fault(b, t, in, CUDA_ERROR_NOT_SUPPORTED,
                                "the interpreter has no implementation of this instruction "
                                "(opcode %d, type %d)",
                                in->op / T_COUNT, in->op % T_COUNT);
                goto out;
            }
            break;
        }
    }
out:
    t->pc = pc;
    t->R = R;
    t->code = code;
    t->steps += steps;
    return st;
}
