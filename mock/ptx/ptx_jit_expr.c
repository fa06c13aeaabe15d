/* What each instruction means in the compiling tier's C (ptx_jit_int.h): its lane-wise
 * expression, the register slots it reads and writes, and what the tier does with it. Each
 * compiled case means what ptx_exec.c's case for it means, bit for bit; the text is made from the
 * decoder's slots only (opcodes, register indexes, immediates), never from the module's PTX;
 * the helpers every compiled file starts with, and the text buffer the source is made in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptx_jit_int.h"
#include "ptx_val.h"

/* Text being made: appended to, grown as it needs. */
void ptx__jit_put(pjit_sbuf *s, const char *fmt, ...) {
    /* No caller passes NULL; said so that gcc -O3 with UBSan's null checks sees no path where
     * vsnprintf gets one (it stopped CI's sanitizer build with -Werror=format-truncation). */
    if (s->bad || fmt == NULL) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(s->p + s->n, s->cap - s->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            s->bad = true;
            return;
        }
        if ((size_t)k < s->cap - s->n) {
            s->n += (size_t)k;
            return;
        }
        size_t cap = s->cap * 2 + (size_t)k + 4096;
        char *q = realloc(s->p, cap);
        if (q == NULL) {
            s->bad = true;
            return;
        }
        s->p = q;
        s->cap = cap;
    }
}

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

/* An operand's name in the generated C: v<slot>, or its lane of a lane array widened to 64 bits
 * (the expressions are written over 64-bit values; a 32-bit array holds zero-extended ones). */
void ptx__jit_name(uint32_t slot, const uint8_t *scalar, char *out, size_t n) {
    snprintf(out, n, scalar == NULL || scalar[slot] ? "v%u" : "((uint64_t)v%u[l])", slot);
}

/* The lane-wise expression of in, with its operands X, Y, Z (ptx__jit_name), in e; false when
 * the tier does not compile it. */
bool ptx__jit_lane_expr(const pinst *in, const mock_ptx_func *k, const uint8_t *scalar, char *e,
                        size_t n) {
    char X[40], Y[40], Z[40];
    ptx__jit_name(in->s[0], scalar, X, sizeof X);
    ptx__jit_name(in->s[1], scalar, Y, sizeof Y);
    ptx__jit_name(in->s[2], scalar, Z, sizeof Z);
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

static bool word32(int ty) { return ty == T_U32 || ty == T_S32 || ty == T_F32; }

/* The arithmetic whose 32-bit forms read and write only 32 bits a lane. */
static bool arith(int op) {
    return op == O_ADD || op == O_SUB || op == O_MUL || op == O_MAD || op == O_FMA || op == O_MIN ||
           op == O_MAX || op == O_NEG;
}

/* Whether in (of kind K_*) reads only the low 32 bits of slot wherever it names it as a source
 * (a guard reads its bit 0): then a 32-bit local may hold it. */
bool ptx__jit_reads32(const pinst *in, int kind, uint32_t slot) {
    int op = in->op / T_COUNT, ty = in->op % T_COUNT;
    if (kind == K_MEM) {
        bool st = op == O_ST;
        if (in->s[0] == slot && !(in->flags & F_ADDR32)) return false;
        return !(st && in->d[0] == slot && bits_of(ty) != 32);
    }
    if (kind != K_LANE) return true;
    uint32_t r[8];
    int nr = ptx__jit_lane_reads(in, r);
    bool named = false;
    for (int q = 0; q < nr; q++) named |= r[q] == slot && !(q == 0 && in->guard == slot);
    if (!named) return true;
    if (arith(op) || op == O_MULWIDE || op == O_SETP) return word32(ty);
    switch (op) {
    case O_SHL:
    case O_SHR: return ty == T_U32 || ty == T_S32;
    case O_NOT: return true;                                  /* of a predicate: its bit 0 */
    case O_SELP: return in->s[0] != slot && in->s[1] != slot; /* the choice: bit 0 */
    case O_CVT: return ty == T_U32 || ty == T_S32 || in->type2 == T_U32 || in->type2 == T_S32;
    default: return false;
    }
}

/* Whether what in (of kind K_*) writes is a 32-bit value with its upper half zero in every lane,
 * given zx: the slots that always hold one. */
bool ptx__jit_writes_zx(const pinst *in, int kind, const uint8_t *zx) {
    int op = in->op / T_COUNT, ty = in->op % T_COUNT;
    if (kind == K_MEM) return op == O_LD && bits_of(ty) == 32 && ty != T_S32;
    if (arith(op) || op == O_SHL || op == O_SHR) return word32(ty);
    switch (op) {
    case O_MOV: return zx[in->s[0]];
    case O_AND:
    case O_OR:
    case O_XOR:
    case O_SELP: return zx[in->s[0]] && zx[in->s[1]];
    case O_SETP:
    case O_NOT: return true;
    case O_CVT:
        if (ty == T_U32 || ty == T_S32 || in->type2 == T_U32) return true;
        return (in->type2 == T_U64 || in->type2 == T_S64) && zx[in->s[0]];
    case O_LD: return bits_of(ty) == 32 && ty != T_S32;
    default: return false;
    }
}

int ptx__jit_kind(const pinst *in, const mock_ptx_func *k) {
    char e[256];
    int op = in->op / T_COUNT, ty = in->op % T_COUNT;
    if (op == O_BRA) return K_BRA;
    if (op == O_EXIT || op == O_RET) return K_EXIT; /* compiled code runs at the kernel's depth */
    if ((op == O_LD || op == O_ST) && (in->space == S_GLOBAL || in->space == S_SHARED) &&
        in->vec == 1 && plain_word(ty))
        return K_MEM;
    return ptx__jit_lane_expr(in, k, NULL, e, sizeof e) ? K_LANE : K_NO;
}

/* What every compiled file starts with: the context structure (ptx_jit_int.h), the bit casts
 * and loads the expressions use, and a guard's lanes as a mask (as ptx_exec.c's guard_mask),
 * from a 32-bit or a 64-bit array of lanes. */
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
    "static inline int differ(const uint64_t *r) { uint64_t d = 0;\n"
    "  for (unsigned l = 0; l < 32; l++) d |= r[l] ^ r[0];\n  return d != 0; }\n"
    "#if defined(__AVX2__)\n#include <immintrin.h>\n"
    "static inline uint32_t gmask32(const uint32_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l += 8) { __m256i v = _mm256_slli_epi32(_mm256_loadu_si256("
    "(const __m256i *)(g + l)), 31);\n"
    "    m |= (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(v)) << l; }\n  return m; }\n"
    "static inline uint32_t gmask64(const uint64_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l += 4) { __m256i v = _mm256_slli_epi64(_mm256_loadu_si256("
    "(const __m256i *)(g + l)), 63);\n"
    "    m |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(v)) << l; }\n  return m; }\n"
    "#else\n"
    "static inline uint32_t gmask32(const uint32_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l++) m |= (g[l] & 1u) << l;\n  return m; }\n"
    "static inline uint32_t gmask64(const uint64_t *g) { uint32_t m = 0;\n"
    "  for (unsigned l = 0; l < 32; l++) m |= (uint32_t)(g[l] & 1) << l;\n  return m; }\n"
    "#endif\n";
