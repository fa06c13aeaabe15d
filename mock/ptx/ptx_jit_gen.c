/* A kernel's decoded instructions as C for the compiling tier (ptx_jit.h).
 *
 * The text is made from the decoder's slots only (opcodes, register indexes, immediates, branch
 * targets: numbers), never from the module's PTX, so no PTX can put code of its own into what
 * the host's compiler reads. Each instruction compiled means what ptx_exec.c's case for it
 * means, bit for bit; everything else (and any case the interpreter would do otherwise, a guard
 * the lanes disagree on, an access it would check the slow way) returns to the interpreter.
 *
 * Runs of lane-wise instructions between entry points become one loop over the 32 lanes, their
 * registers in locals for the run, so that the compiler vectorises the whole run; a global load
 * or store is a loop of its own, after every lane's address is checked against the allocation
 * the interpreter found last. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_jit_int.h"
#include "ptx_val.h"

#define OPT(o, t) ((o)*T_COUNT + (t))

typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool bad;
} sbuf;

static void put(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *s, const char *fmt, ...) {
    if (s->bad) return;
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

/* What the tier does with an instruction. */
enum { K_NO, K_LANE, K_MEM, K_BRA, K_EXIT };

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
static bool lane_expr(const pinst *in, const mock_ptx_func *k, char *e, size_t n) {
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
static int lane_reads(const pinst *in, uint32_t *r) {
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

static int lane_writes(const pinst *in, uint32_t *w) {
    int op = in->op / T_COUNT, n = 0;
    if (op == O_NOP) return 0;
    w[n++] = in->d[0];
    if (op == O_SETP && in->d[1] != SL_SINK) w[n++] = in->d[1];
    return n;
}

static int kind(const pinst *in, const mock_ptx_func *k) {
    char e[256];
    int op = in->op / T_COUNT, ty = in->op % T_COUNT;
    if (op == O_BRA) return K_BRA;
    if (op == O_EXIT || op == O_RET) return K_EXIT; /* compiled code runs at the kernel's depth */
    if ((op == O_LD || op == O_ST) && (in->space == S_GLOBAL || in->space == S_SHARED) &&
        in->vec == 1 && plain_word(ty))
        return K_MEM;
    return lane_expr(in, k, e, sizeof e) ? K_LANE : K_NO;
}

static const char prelude[] =
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

/* Which registers a later instruction may read before writing them, at each instruction (live
 * on entry), so that a run stores only those: the interpreter, handed back at any later point,
 * reads its registers from the block, and an instruction the tier does not take counts as
 * reading every one. words 64-bit words a set; NULL (everything live) when too large. */
static uint64_t *liveness(const mock_ptx_func *k, const uint8_t *kinds, size_t words) {
    size_t nc = k->ncode;
    if (words == 0 || (nc + 1) > (64u << 20) / 8 / words) return NULL;
    uint64_t *in = calloc((nc + 1) * words, 8), *out = calloc(words, 8);
    if (in == NULL || out == NULL) {
        free(in);
        free(out);
        return NULL;
    }
    memset(in + nc * words, 0xff, words * 8); /* past the end: everything */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t j = nc; j-- > 0;) {
            const pinst *c = &k->code[j];
            uint64_t *li = in + j * words;
            int op = c->op / T_COUNT;
            if (op == O_EXIT || op == O_RET) {
                /* The kernel's end (compiled code runs at its depth only): the lanes that
                 * leave read nothing; those a guard keeps go on. */
                for (size_t q = 0; q < words; q++)
                    out[q] = c->guard != SL_TRUE ? in[(j + 1) * words + q] : 0;
                if (c->guard != SL_TRUE) out[c->guard / 64] |= 1ull << (c->guard % 64);
                if (memcmp(out, li, words * 8) != 0) {
                    memcpy(li, out, words * 8);
                    changed = true;
                }
                continue;
            }
            if (kinds[j] == K_NO) {
                if (li[0] != ~0ull) {
                    memset(li, 0xff, words * 8);
                    changed = true;
                }
                continue;
            }
            bool uncond_bra = kinds[j] == K_BRA && c->guard == SL_TRUE;
            size_t t = kinds[j] == K_BRA && (size_t)c->imm < nc ? (size_t)c->imm : nc;
            for (size_t q = 0; q < words; q++) {
                uint64_t o = uncond_bra ? 0 : in[(j + 1) * words + q];
                if (kinds[j] == K_BRA) o |= in[t * words + q];
                out[q] = o;
            }
            uint32_t r[8], w[2];
            int nr = 0, nw = 0;
            if (kinds[j] == K_LANE) {
                nr = lane_reads(c, r);
                nw = lane_writes(c, w);
            } else if (kinds[j] == K_MEM) {
                if (c->guard != SL_TRUE) r[nr++] = c->guard;
                r[nr++] = c->s[0];
                if (c->op / T_COUNT == O_ST)
                    r[nr++] = c->d[0];
                else
                    w[nw++] = c->d[0];
            } else if (c->guard != SL_TRUE) {
                r[nr++] = c->guard;
            }
            if (c->guard == SL_TRUE) {
                for (int q = 0; q < nw; q++) out[w[q] / 64] &= ~(1ull << (w[q] % 64));
            }
            for (int q = 0; q < nr; q++) out[r[q] / 64] |= 1ull << (r[q] % 64);
            if (memcmp(out, li, words * 8) != 0) {
                memcpy(li, out, words * 8);
                changed = true;
            }
        }
    }
    free(out);
    return in;
}

/* A run of lane-wise instructions [i, e) as one loop over the lanes. */
static void emit_run(sbuf *s, const mock_ptx_func *k, size_t i, size_t e, const uint64_t *live,
                     const uint8_t *konst) {
    const pinst *code = k->code;
    /* Locals for the slots the run touches: loaded first where it reads them before writing
     * them (or writes them under a guard), stored at the end where it writes them. */
    uint32_t *slots = calloc(2 * (e - i) * 6 + 1, sizeof *slots);
    uint8_t *flag = calloc(k->nslots + 1, 1); /* 1: loaded, 2: written */
    if (slots == NULL || flag == NULL) {
        s->bad = true;
        free(slots);
        free(flag);
        return;
    }
    size_t ns = 0;
    for (size_t j = i; j < e; j++) {
        uint32_t r[6], w[2];
        int nr = lane_reads(&code[j], r), nw = lane_writes(&code[j], w);
        if (code[j].guard != SL_TRUE) {
            for (int q = 0; q < nw; q++) r[nr++] = w[q];
        }
        for (int q = 0; q < nr; q++) {
            if (flag[r[q]] == 0) slots[ns++] = r[q];
            if (!(flag[r[q]] & 2)) flag[r[q]] |= 1;
        }
        for (int q = 0; q < nw; q++) {
            if (flag[w[q]] == 0) slots[ns++] = w[q];
            flag[w[q]] |= 2;
        }
    }
    put(s, "  n += %zu;\n#pragma GCC ivdep\n  for (unsigned l = 0; l < 32; l++) {\n", e - i);
    for (size_t q = 0; q < ns; q++) {
        if ((flag[slots[q]] & 1) && konst[slots[q]])
            put(s, "    const uint64_t v%u = 0x%llxull;\n", slots[q],
                (unsigned long long)k->init[slots[q]]);
        else if (flag[slots[q]] & 1)
            put(s, "    uint64_t v%u = R[%uu * 32 + l];\n", slots[q], slots[q]);
        else
            put(s, "    uint64_t v%u;\n", slots[q]);
    }
    for (size_t j = i; j < e; j++) {
        const pinst *in = &code[j];
        char ex[256];
        uint32_t w[2];
        int nw = lane_writes(in, w);
        if (nw == 0) continue;
        lane_expr(in, k, ex, sizeof ex);
        put(s, "    { uint64_t t = %s;", ex);
        if (in->guard != SL_TRUE) put(s, " if (GUARD(v%u, %d))", in->guard, in->gneg != 0);
        if (nw == 2)
            put(s, " { v%u = t; v%u = !t; } }\n", w[0], w[1]);
        else
            put(s, " v%u = t; }\n", w[0]);
    }
    for (size_t q = 0; q < ns; q++) {
        bool needed = live == NULL || (live[slots[q] / 64] >> (slots[q] % 64) & 1);
        if ((flag[slots[q]] & 2) && needed)
            put(s, "    R[%uu * 32 + l] = v%u;\n", slots[q], slots[q]);
    }
    put(s, "  }\n");
    free(slots);
    free(flag);
}

/* The lanes' guard as a mask in gm. */
static void emit_guard(sbuf *s, const pinst *in) {
    put(s, "  gm = gmask(R + %uu * 32);\n", in->guard);
    if (in->gneg) put(s, "  gm = ~gm;\n");
}

/* A global load or store of a whole warp, instruction j. */
static void emit_mem(sbuf *s, const pinst *in, size_t j) {
    int ty = in->op % T_COUNT;
    bool ld = in->op / T_COUNT == O_LD, a32 = (in->flags & F_ADDR32) != 0;
    bool shared = in->space == S_SHARED;
    unsigned nb = (unsigned)bits_of(ty) / 8;
    unsigned long long imm = (unsigned long long)in->imm;
    const char *tr = a32 ? "(uint32_t)" : "";
    /* Where an address a points: in the block's shared memory (offsets from 0), or the host's
     * own address for global memory. */
    const char *at = shared ? "(sm + " : "((unsigned char *)(uintptr_t)";
    if (in->guard != SL_TRUE) {
        emit_guard(s, in);
        put(s,
            "  if (gm == 0) goto skip%zu;\n  if (gm != 0xffffffffu) { c->pc = %zu; goto bail; }\n",
            j, j);
    }
    put(s, "  {\n    const uint64_t *x = R + %uu * 32;\n    uint64_t *d = R + %uu * 32;\n",
        in->s[0], in->d[0]);
    put(s, "    uint64_t a0 = %s(x[0] + %lluull), cons;\n", tr, imm);
    if (shared) {
        put(s, "    unsigned char *sm = c->smem;\n    uint64_t base = 0, span = c->smem_size;\n");
    } else {
        put(s, "    unsigned k = 0;\n    while (k < 3 && a0 - lo[k] >= hi[k] - lo[k]) k++;\n");
        put(s, "    uint64_t base = lo[k], span = hi[k] - lo[k];\n");
    }
    put(s,
        "    uint64_t bad = span < %u || addr_check(x, %lluull, %s, base, span - %u, %u, a0, %u, "
        "&cons);\n",
        nb, imm, a32 ? "0xffffffffull" : "~0ull", nb, nb - 1, nb);
    put(s, "    if (bad) { c->pc = %zu; goto bail; }\n", j);
    const char *rd = nb == 8 ? "ld_u64" : ty == T_S32 ? "ld_s32" : "ld_u32";
    if (ld) {
        put(s,
            "    if (cons == 0) { const unsigned char *q = %sa0);\n"
            "      for (unsigned l = 0; l < 32; l++) d[l] = %s(q + l * %u); }\n",
            at, rd, nb);
        put(s,
            "    else { uint64_t t[32];\n"
            "      for (unsigned l = 0; l < 32; l++) t[l] = %s(%s%s(x[l] + %lluull)));\n"
            "      memcpy(d, t, sizeof t); }\n",
            rd, at, tr, imm);
    } else {
        const char *wt = nb == 8 ? "uint64_t" : "uint32_t";
        put(s,
            "    if (cons == 0) { unsigned char *q = %sa0);\n"
            "      for (unsigned l = 0; l < 32; l++) { %s v = (%s)d[l]; memcpy(q + l * %u, &v, "
            "%u); } }\n",
            at, wt, wt, nb, nb);
        put(s,
            "    else for (unsigned l = 0; l < 32; l++) { %s v = (%s)d[l]; memcpy(%s%s(x[l] + "
            "%lluull)), &v, %u); }\n",
            wt, wt, at, tr, imm, nb);
    }
    put(s, "  }\n");
    if (in->guard != SL_TRUE) put(s, "skip%zu:\n", j);
    put(s, "  n++;\n");
}

static void emit_bra(sbuf *s, const pinst *in, size_t j) {
    size_t t = (size_t)in->imm;
    const char *go = "";
    char yield[160] = "";
    if (t <= j)
        snprintf(yield, sizeof yield, " if (n >= c->budget) { c->pc = %zu; goto yield; }", t);
    if (in->guard == SL_TRUE) {
        put(s, "  n++;%s goto L%zu;\n", yield, t);
        return;
    }
    emit_guard(s, in);
    put(s, "  if (gm == 0xffffffffu) { n++;%s goto L%zu; }\n%s", yield, t, go);
    put(s, "  if (gm != 0) { c->pc = %zu; goto bail; }\n  n++;\n", j);
}

char *ptx__jit_source(const mock_ptx_func *k, uint8_t *entry) {
    size_t nc = k->ncode;
    const pinst *code = k->code;
    uint8_t *kinds = malloc(nc + 1), *leader = calloc(nc + 1, 1);
    sbuf s = {0};
    if (kinds == NULL || leader == NULL) {
        free(kinds);
        free(leader);
        return NULL;
    }
    /* Entry points: the start, branch targets, and what follows a branch or an instruction
     * the interpreter runs (where it hands back). */
    leader[0] = 1;
    for (size_t j = 0; j < nc; j++) {
        kinds[j] = (uint8_t)kind(&code[j], k);
        if (kinds[j] == K_BRA && (size_t)code[j].imm < nc) leader[code[j].imm] = 1;
        if (kinds[j] == K_BRA || kinds[j] == K_NO || kinds[j] == K_EXIT) leader[j + 1] = 1;
    }
    /* Slots that hold the same value in every lane for the whole launch: the decoder's
     * constants (from const_start), where no instruction may write them (none names them as
     * a destination, and none the tier leaves to the interpreter names them at all). Their
     * values are literals in the code. */
    uint8_t *konst = calloc((size_t)k->nslots + 1, 1);
    if (konst == NULL) {
        free(kinds);
        free(leader);
        return NULL;
    }
    for (uint32_t q = k->const_start; q < k->nslots; q++) konst[q] = 1;
    for (size_t j = 0; j < nc; j++) {
        const pinst *c = &code[j];
        for (int q = 0; q < 4; q++) {
            if (c->d[q] < k->nslots) konst[c->d[q]] = 0;
            if (kinds[j] == K_NO && c->s[q] < k->nslots) konst[c->s[q]] = 0;
        }
        if (kinds[j] == K_NO && c->guard < k->nslots) konst[c->guard] = 0;
    }
    size_t words = ((size_t)k->nslots + 63) / 64;
    uint64_t *live = liveness(k, kinds, words);
    put(&s, "/* cushim mock: kernel code compiled from decoded PTX, %zu instructions */\n%s", nc,
        prelude);
    put(&s, "int pjit_run(struct pjit_ctx *c) {\n  uint64_t *restrict R = c->R;\n");
    put(&s, "  const unsigned char *params = c->params;\n  const uintptr_t *lo = c->lo, *hi = "
            "c->hi;\n  uint64_t n = c->n;\n  uint32_t gm;\n  (void)params; (void)lo; (void)hi; "
            "(void)gm;\n");
    put(&s, "  switch (c->pc) {\n");
    for (size_t j = 0; j < nc; j++) {
        entry[j] = leader[j] && kinds[j] != K_NO;
        if (entry[j]) put(&s, "  case %zu: goto L%zu;\n", j, j);
    }
    put(&s, "  default: goto bail;\n  }\n");
    for (size_t j = 0; j < nc;) {
        if (leader[j]) put(&s, "L%zu:;\n", j);
        if (kinds[j] == K_NO) {
            put(&s, "  c->pc = %zu; goto bail;\n", j);
            j++;
        } else if (kinds[j] == K_BRA) {
            if ((size_t)code[j].imm >= nc) {
                put(&s, "  c->pc = %zu; goto bail;\n", j);
            } else {
                emit_bra(&s, &code[j], j);
            }
            j++;
        } else if (kinds[j] == K_MEM) {
            emit_mem(&s, &code[j], j);
            j++;
        } else if (kinds[j] == K_EXIT) {
            /* The whole warp leaves (ptx_jit.c marks its lanes); none of it goes on past. */
            if (code[j].guard != SL_TRUE) {
                emit_guard(&s, &code[j]);
                put(&s, "  if (gm != 0 && gm != 0xffffffffu) { c->pc = %zu; goto bail; }\n", j);
                put(&s, "  if (gm == 0xffffffffu) { n++; c->pc = %zu; goto leave; }\n  n++;\n",
                    j + 1);
            } else {
                put(&s, "  n++; c->pc = %zu; goto leave;\n", j + 1);
            }
            j++;
        } else {
            size_t e = j + 1;
            while (e < nc && kinds[e] == K_LANE && !leader[e]) e++;
            emit_run(&s, k, j, e, live != NULL ? live + e * words : NULL, konst);
            j = e;
        }
    }
    put(&s,
        "L%zu:\n  c->pc = %zu;\nbail:\n  c->n = n;\n  return 0;\nyield:\n  c->n = n;\n  "
        "return 1;\nleave:\n  c->n = n;\n  return 2;\n}\n",
        nc, nc);
    free(kinds);
    free(leader);
    free(live);
    free(konst);
    if (s.bad) {
        free(s.p);
        return NULL;
    }
    return s.p;
}
