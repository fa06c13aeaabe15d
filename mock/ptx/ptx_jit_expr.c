/* What each instruction means in the compiling tier's C (ptx_jit_int.h): its lane-wise
 * expression, the register slots it reads and writes, and what the tier does with it. Each
 * compiled case means what ptx_exec.c's case for it means, bit for bit; the text is made from the
 * decoder's slots only (opcodes, register indexes, immediates), never from the module's PTX;
 * and the helpers every compiled file starts with. */
#include <stdio.h>

#include "ptx_jit_int.h"
#include "ptx_val.h"

#define OPT(o, t) ((o)*T_COUNT + (t))

static bool plain_word(int ty) {
    return ty == T_U32 || ty == T_S32 || ty == T_F32 || ty == T_U64 || ty == T_S64 || ty == T_F64;
}

/* setp's compiled cases: those ptx_exec.c's setp_lanes takes. */
static const char *setp_op(const pinst *in) {
    int ty = in->op % T_COUNT;
    bool u = ty == T_U32 || ty == T_U64;
    switch (in->sub) {
    case C_EQ: return "==";
    case C_NE: return "!=";
    case C_LT: return "<";
    case C_LE: return "<=";
    case C_GT: return ">";
    case C_GE: return ">=";
    case C_LO: return u ? "<" : NULL;
    case C_LS: return u ? "<=" : NULL;
    case C_HI: return u ? ">" : NULL;
    case C_HS: return u ? ">=" : NULL;
    default: return NULL;
    }
}

/* The lane-wise expression of in, with its operands' locals X, Y, Z (v<slot>), in e; false when
 * the tier does not compile it. */
bool ptx__jit_lane_expr(const pinst *in, const mock_ptx_func *k, char *e, size_t n) {
    char X[24], Y[24], Z[24];
    snprintf(X, sizeof X, "v%u", in->s[0]);
    snprintf(Y, sizeof Y, "v%u", in->s[1]);
    snprintf(Z, sizeof Z, "v%u", in->s[2]);
#define E(...) (snprintf(e, n, __VA_ARGS__), true)
    switch (in->op) {
    case OPT(O_NOP, T_NONE): return E("0");
    case OPT(O_MOV, T_NONE): return E("%s", X);
    case OPT(O_ADD, T_U32):
    case OPT(O_ADD, T_S32): return in->flags == 0 && E("(uint32_t)(%s + %s)", X, Y);
    case OPT(O_ADD, T_U64):
    case OPT(O_ADD, T_S64): return E("%s + %s", X, Y);
    case OPT(O_SUB, T_U32):
    case OPT(O_SUB, T_S32): return in->flags == 0 && E("(uint32_t)(%s - %s)", X, Y);
    case OPT(O_SUB, T_U64):
    case OPT(O_SUB, T_S64): return E("%s - %s", X, Y);
    case OPT(O_MUL, T_U32):
    case OPT(O_MUL, T_S32): return E("(uint32_t)((uint32_t)%s * (uint32_t)%s)", X, Y);
    case OPT(O_MUL, T_U64):
    case OPT(O_MUL, T_S64): return E("%s * %s", X, Y);
    case OPT(O_MULWIDE, T_S32): return E("(uint64_t)((int64_t)(int32_t)%s * (int32_t)%s)", X, Y);
    case OPT(O_MULWIDE, T_U32): return E("(uint64_t)(uint32_t)%s * (uint32_t)%s", X, Y);
    case OPT(O_MAD, T_U32):
    case OPT(O_MAD, T_S32):
        return in->flags == 0 &&
               E("(uint32_t)((uint32_t)%s * (uint32_t)%s + (uint32_t)%s)", X, Y, Z);
    case OPT(O_MAD, T_U64):
    case OPT(O_MAD, T_S64): return E("%s * %s + %s", X, Y, Z);
    case OPT(O_SHL, T_U32):
        return E("(uint32_t)%s >= 32 ? 0 : (uint32_t)((uint32_t)%s << (uint32_t)%s)", Y, X, Y);
    case OPT(O_SHL, T_U64): return E("(uint32_t)%s >= 64 ? 0 : %s << (uint32_t)%s", Y, X, Y);
    case OPT(O_SHR, T_U32):
        return E("(uint32_t)%s >= 32 ? 0 : (uint32_t)%s >> (uint32_t)%s", Y, X, Y);
    case OPT(O_SHR, T_S32):
        return E("(uint32_t)((int32_t)(uint32_t)%s >> ((uint32_t)%s >= 32 ? 31 : (uint32_t)%s))", X,
                 Y, Y);
    case OPT(O_AND, T_U32):
    case OPT(O_AND, T_S32):
    case OPT(O_AND, T_U64):
    case OPT(O_AND, T_S64):
    case OPT(O_AND, T_PRED): return E("%s & %s", X, Y);
    case OPT(O_OR, T_U32):
    case OPT(O_OR, T_S32):
    case OPT(O_OR, T_U64):
    case OPT(O_OR, T_S64):
    case OPT(O_OR, T_PRED): return E("%s | %s", X, Y);
    case OPT(O_XOR, T_U32):
    case OPT(O_XOR, T_S32):
    case OPT(O_XOR, T_U64):
    case OPT(O_XOR, T_S64):
    case OPT(O_XOR, T_PRED): return E("%s ^ %s", X, Y);
    case OPT(O_NOT, T_PRED): return E("(uint64_t)!(%s & 1)", X);
    case OPT(O_NEG, T_S32): return E("(uint32_t)(0u - (uint32_t)%s)", X);
    case OPT(O_NEG, T_S64): return E("0 - %s", X);
    case OPT(O_MIN, T_U32):
        return E("(uint32_t)%s < (uint32_t)%s ? (uint32_t)%s : (uint32_t)%s", X, Y, X, Y);
    case OPT(O_MAX, T_U32):
        return E("(uint32_t)%s > (uint32_t)%s ? (uint32_t)%s : (uint32_t)%s", X, Y, X, Y);
    case OPT(O_MIN, T_S32):
        return E("(uint32_t)((int32_t)%s < (int32_t)%s ? (int32_t)%s : (int32_t)%s)", X, Y, X, Y);
    case OPT(O_MAX, T_S32):
        return E("(uint32_t)((int32_t)%s > (int32_t)%s ? (int32_t)%s : (int32_t)%s)", X, Y, X, Y);
    case OPT(O_MIN, T_U64): return E("%s < %s ? %s : %s", X, Y, X, Y);
    case OPT(O_MAX, T_U64): return E("%s > %s ? %s : %s", X, Y, X, Y);
    case OPT(O_MIN, T_S64): return E("(int64_t)%s < (int64_t)%s ? %s : %s", X, Y, X, Y);
    case OPT(O_MAX, T_S64): return E("(int64_t)%s > (int64_t)%s ? %s : %s", X, Y, X, Y);
    case OPT(O_SELP, T_U32):
    case OPT(O_SELP, T_S32):
    case OPT(O_SELP, T_U64):
    case OPT(O_SELP, T_S64):
    case OPT(O_SELP, T_F32):
    case OPT(O_SELP, T_F64):
    case OPT(O_SELP, T_U16):
    case OPT(O_SELP, T_S16): return E("(%s & 1) ? %s : %s", Z, X, Y);
    case OPT(O_ADD, T_F32): return in->flags == 0 && E("b32(f32(%s) + f32(%s))", X, Y);
    case OPT(O_SUB, T_F32): return in->flags == 0 && E("b32(f32(%s) - f32(%s))", X, Y);
    case OPT(O_MUL, T_F32): return in->flags == 0 && E("b32(f32(%s) * f32(%s))", X, Y);
    case OPT(O_FMA, T_F32):
        return in->flags == 0 && E("b32(__builtin_fmaf(f32(%s), f32(%s), f32(%s)))", X, Y, Z);
    case OPT(O_ADD, T_F64): return E("b64(f64(%s) + f64(%s))", X, Y);
    case OPT(O_MUL, T_F64): return E("b64(f64(%s) * f64(%s))", X, Y);
    case OPT(O_FMA, T_F64): return E("b64(__builtin_fma(f64(%s), f64(%s), f64(%s)))", X, Y, Z);
    case OPT(O_SETP, T_U32):
    case OPT(O_SETP, T_S32):
    case OPT(O_SETP, T_U64):
    case OPT(O_SETP, T_S64):
    case OPT(O_SETP, T_F32): {
        int ty = in->op % T_COUNT;
        const char *op = setp_op(in);
        if (in->s[2] != SL_TRUE || (in->flags & F_NEGC) || in->imm != 0 || op == NULL) return false;
        if (ty == T_F32) {
            if ((in->flags & F_FTZ) || in->sub > C_GE) return false;
            if (in->sub == C_NE)
                return E("(uint64_t)(f32(%s) < f32(%s) || f32(%s) > f32(%s))", X, Y, X, Y);
            return E("(uint64_t)(f32(%s) %s f32(%s))", X, op, Y);
        }
        static const char *const cast[T_COUNT] = {
            [T_U32] = "uint32_t", [T_S32] = "int32_t", [T_U64] = "uint64_t", [T_S64] = "int64_t"};
        if ((ty == T_S32 || ty == T_S64) && in->sub > C_GE) return false;
        return E("(uint64_t)((%s)%s %s (%s)%s)", cast[ty], X, op, cast[ty], Y);
    }
    case OPT(O_CVT, T_U64):
    case OPT(O_CVT, T_S64):
    case OPT(O_CVT, T_U32):
    case OPT(O_CVT, T_S32): {
        bool narrow = in->op % T_COUNT == T_U32 || in->op % T_COUNT == T_S32;
        if (in->flags & F_SAT) return false;
        switch (in->type2) {
        case T_U32: return E("(uint32_t)%s", X);
        case T_S32: return narrow ? E("(uint32_t)%s", X) : E("(uint64_t)(int64_t)(int32_t)%s", X);
        case T_U64:
        case T_S64: return narrow ? E("(uint32_t)%s", X) : E("%s", X);
        default: return false;
        }
    }
    case OPT(O_LD, T_U32):
    case OPT(O_LD, T_S32):
    case OPT(O_LD, T_U64):
    case OPT(O_LD, T_S64):
    case OPT(O_LD, T_F32):
    case OPT(O_LD, T_F64): {
        /* A kernel parameter: the same word for every lane, its bounds known here. */
        int ty = in->op % T_COUNT;
        uint64_t a = (uint64_t)in->imm, nb = (uint64_t)bits_of(ty) / 8;
        if (in->flags & F_ADDR32) a = (uint32_t)a;
        if (in->space != S_PARAM || in->s[0] != SL_ZERO || in->vec != 1 || nb > k->param_bytes ||
            a > k->param_bytes - nb || (a & (nb - 1)) != 0)
            return false;
        static const char *const rd[T_COUNT] = {
            [T_U32] = "ld_u32", [T_F32] = "ld_u32", [T_S32] = "ld_s32",
            [T_U64] = "ld_u64", [T_S64] = "ld_u64", [T_F64] = "ld_u64"};
        return E("%s(params + %llu)", rd[ty], (unsigned long long)a);
    }
    default: return false;
    }
#undef E
}

/* Slots an instruction reads (up to 4) and writes (up to 2), for a lane-wise one. */
int ptx__jit_lane_reads(const pinst *in, uint32_t *r) {
    int n = 0;
    if (in->guard != SL_TRUE) r[n++] = in->guard;
    int op = in->op / T_COUNT;
    if (op == O_NOP || op == O_LD) return n;
    int ns = op == O_MOV || op == O_NOT || op == O_NEG || op == O_CVT ? 1
             : op == O_MAD || op == O_FMA || op == O_SELP             ? 3
                                                                      : 2;
    for (int i = 0; i < ns; i++) r[n++] = in->s[i];
    return n;
}

int ptx__jit_lane_writes(const pinst *in, uint32_t *w) {
    int op = in->op / T_COUNT, n = 0;
    if (op == O_NOP) return 0;
    w[n++] = in->d[0];
    if (op == O_SETP && in->d[1] != SL_SINK) w[n++] = in->d[1];
    return n;
}

int ptx__jit_kind(const pinst *in, const mock_ptx_func *k) {
    char e[256];
    int op = in->op / T_COUNT, ty = in->op % T_COUNT;
    if (op == O_BRA) return K_BRA;
    if (op == O_EXIT || op == O_RET) return K_EXIT; /* compiled code runs at the kernel's depth */
    if ((op == O_LD || op == O_ST) && (in->space == S_GLOBAL || in->space == S_SHARED) &&
        in->vec == 1 && plain_word(ty))
        return K_MEM;
    return ptx__jit_lane_expr(in, k, e, sizeof e) ? K_LANE : K_NO;
}

/* What every compiled file starts with: the context structure (ptx_jit_int.h), the bit casts
 * and loads the expressions use, a guard's mask and a warp's address check. */
const char ptx__jit_prelude[] =
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "struct pjit_ctx { " PJIT_CTX_FIELDS_TEXT " };\n"
    "static inline float f32(uint64_t v) { uint32_t b = (uint32_t)v; float f; memcpy(&f, &b, 4); "
    "return f; }\n"
    "static inline double f64(uint64_t v) { double f; memcpy(&f, &v, 8); return f; }\n"
    "static inline uint64_t b32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }\n"
    "static inline uint64_t b64(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }\n"
    "static inline uint64_t ld_u32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }\n"
    "static inline uint64_t ld_s32(const void *p) { int32_t v; memcpy(&v, p, 4); return "
    "(uint64_t)(int64_t)v; }\n"
    "static inline uint64_t ld_u64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }\n"
    "#define GUARD(g, neg) (((g) & 1) != (neg))\n"
    /* A guard's lanes as a mask, as ptx_exec.c's guard_mask. */
    "#if defined(__SSE2__)\n#include <emmintrin.h>\n"
    "static inline uint32_t gmask(const uint64_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l += 2) { __m128i v = _mm_slli_epi64(_mm_loadu_si128((const "
    "__m128i *)(g + l)), 63);\n"
    "    m |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(v)) << l; }\n  return m; }\n"
    "#else\n"
    "static inline uint32_t gmask(const uint64_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l++) m |= (uint32_t)(g[l] & 1) << l;\n  return m; }\n"
    "#endif\n"
    /* A whole warp's addresses x[l] + imm (kept to 32 bits where keep says): nonzero when one
     * lies outside [base, base + lim] or is not a multiple of alm + 1; *cons nonzero when they
     * are not a0, a0 + sz, ... In vectors of four, which the compiler keeps to vector
     * instructions. */
    "typedef uint64_t u4 __attribute__((vector_size(32)));\n"
    "static inline uint64_t addr_check(const uint64_t *x, uint64_t imm, uint64_t keep, uint64_t "
    "base, uint64_t lim, uint64_t alm, uint64_t a0, uint64_t sz, uint64_t *cons) {\n"
    "  u4 bad = {0, 0, 0, 0}, nc = {0, 0, 0, 0}, want = {a0, a0 + sz, a0 + 2 * sz, a0 + 3 * sz};\n"
    "  u4 I = {imm, imm, imm, imm}, K = {keep, keep, keep, keep}, B = {base, base, base, base};\n"
    "  u4 L = {lim, lim, lim, lim}, A = {alm, alm, alm, alm}, S = {4 * sz, 4 * sz, 4 * sz, 4 * "
    "sz};\n"
    "  for (unsigned l = 0; l < 32; l += 4) { u4 v; memcpy(&v, x + l, sizeof v); v = (v + I) & K;\n"
    "    bad |= (u4)((v - B) > L) | (v & A); nc |= v ^ want; want += S; }\n"
    "  *cons = nc[0] | nc[1] | nc[2] | nc[3];\n  return bad[0] | bad[1] | bad[2] | bad[3]; }\n";
