/* Instruction families decoded apart from ptx_inst.c, each into an opcode of its own:
 * - O_HALF: f16, f16x2, bf16 and bf16x2 arithmetic, comparisons and conversions (PTX ISA
 *   "Half Precision Floating-Point Instructions", "Half Precision Comparison Instructions",
 *   "Data Movement and Conversion Instructions: cvt"), run by ptx_half.c;
 * - O_RND: f32 and f64 add, sub, mul, fma, div, sqrt, rcp rounded .rz, .rm or .rp ("Floating
 *   Point Instructions"), run by ptx_half.c;
 * - O_BARARV: bar.arrive ("Parallel Synchronization and Communication Instructions: bar,
 *   barrier"), O_MMA: wmma, mma.sync and ldmatrix ("Warp Level Matrix Multiply-Accumulate
 *   Instructions"), run by ptx_mma.c.
 * An instruction whose register lists do not fit one pinst (wmma.mma names 32 registers) is
 * preceded by MM_ARGS pinsts that carry the slots, eight each (d[0..3], s[0..3]); the
 * instruction's `vec` says how many. */
#include <string.h>

#include "ptx_inst_x.h"

#define IS(m, s) ptx__is((m)->op, (m)->oplen, s)

static bool has(const mods *m, const char *s) {
    for (int i = 0; i < m->nparts; i++) {
        if (!m->part[i].used && ptx__is(m->part[i].w, m->part[i].n, s)) return true;
    }
    return false;
}

static bool half_type(int t) { return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2; }

bool dec_family_wants(mods *m) {
    if (IS(m, "wmma") || IS(m, "mma") || IS(m, "ldmatrix")) return true;
    if ((IS(m, "bar") || IS(m, "barrier")) && has(m, "arrive")) return true;
    static const char *const ar[] = {"add", "sub",  "mul", "fma", "mad", "neg",  "abs", "min",
                                     "max", "setp", "set", "cvt", "div", "sqrt", "rcp"};
    bool arith = false;
    for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++) arith |= IS(m, ar[i]);
    if (!arith) return false;
    if (has(m, "bf16x2")) {
        /* Not a T_* type: put it where the type words are, the destination's first in cvt. */
        int n = 0;
        while (dec_take(m, "bf16x2")) n++;
        for (int i = 0; i < n && m->ntypes < 4; i++) {
            if (IS(m, "cvt") || m->ntypes == 0) {
                memmove(m->type + 1, m->type, (size_t)m->ntypes * sizeof m->type[0]);
                m->type[0] = T_BF16X2;
            } else {
                m->type[m->ntypes] = T_BF16X2;
            }
            m->ntypes++;
        }
        return true;
    }
    for (int i = 0; i < m->ntypes; i++) {
        if (half_type(m->type[i])) return true;
    }
    if (IS(m, "cvt") || IS(m, "setp") || IS(m, "set") || m->ntypes != 1) return false;
    int t = m->type[0];
    return (t == T_F32 || t == T_F64) && (has(m, "rz") || has(m, "rm") || has(m, "rp")) &&
           !IS(m, "neg") && !IS(m, "abs") && !IS(m, "min") && !IS(m, "max");
}

/* The slots of a register list (or of one register) into out; their count, -1 after a failure. */
static int regs(dec *d, const opnd *o, uint32_t *out) {
    if (o->kind == K_VEC) {
        memcpy(out, o->vec, (size_t)o->nvec * sizeof out[0]);
        return o->nvec;
    }
    if (o->kind == K_REG) {
        out[0] = o->slot;
        return 1;
    }
    return dec_fail(d, "a register list that is not registers"), -1;
}

/* Carriers of n slots, then the instruction itself (its vec: how many carriers). */
static pinst *with_args(dec *d, int op, const uint32_t *slots, int n) {
    int k = 0;
    for (int i = 0; i < n; i += 8, k++) {
        pinst *a = dec_op(d, O_MMA, T_NONE);
        if (a == NULL) return NULL;
        a->sub = MM_ARGS;
        for (int j = 0; j < 4; j++) {
            a->d[j] = i + j < n ? slots[i + j] : SL_SINK;
            a->s[j] = i + 4 + j < n ? slots[i + 4 + j] : SL_ZERO;
        }
    }
    pinst *in = dec_op(d, op, T_NONE);
    if (in != NULL) in->vec = (uint8_t)k;
    return in;
}

/* ------------------------------------------------------------------------------------------ */
/* Halves, and directed rounding                                                              */
/* ------------------------------------------------------------------------------------------ */

static const char *const cmps[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                   "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

static void half_flags(mods *m, pinst *in) {
    if (dec_take(m, "ftz")) in->flags |= F_FTZ;
    if (dec_take(m, "sat")) in->flags |= F_SAT;
    if (dec_take(m, "relu")) in->imm |= 1;
    if (dec_take(m, "NaN")) in->imm |= 2;
    if (dec_take(m, "satfinite")) in->imm |= 4;
    dec_take(m, "approx");
    in->rnd = (uint8_t)dec_rounding(m);
}

/* setp / set of halves: d[0] p (or d), d[1] q, s[0] a, s[1] b, s[2] c; aux the comparison, imm
 * the combining operation + 1 (0 none), space set's destination type. */
static bool half_compare(dec *d, mods *m, int t, opnd *o, int no) {
    static const char *const bop[] = {"and", "or", "xor"};
    bool set = IS(m, "set");
    int c = dec_take_one(m, cmps, 18), bo = dec_take_one(m, bop, 3);
    if (c < 0) return dec_fail(d, "%s without a comparison", set ? "set" : "setp");
    if (!dec_want(d, no, bo < 0 ? 3 : 4, m)) return false;
    int st = m->type[m->ntypes - 1];
    if (!half_type(st)) return dec_fail(d, "a half comparison of a type that is not a half");
    pinst *in = dec_op(d, O_HALF, T_NONE);
    if (in == NULL) return false;
    in->sub = (uint8_t)(set ? O_SET : O_SETP);
    in->type2 = (uint8_t)st;
    in->space = (uint8_t)(set ? m->type[0] : T_PRED);
    in->aux = (uint32_t)c;
    if (dec_take(m, "ftz")) in->flags |= F_FTZ;
    in->imm = bo + 1;
    if (!dec_dest(d, &o[0], &in->d[0])) return false;
    in->d[1] = o[0].has_pair ? o[0].pair : SL_SINK;
    in->s[0] = dec_value(d, &o[1], st);
    in->s[1] = dec_value(d, &o[2], st);
    in->s[2] = SL_TRUE;
    if (bo >= 0) {
        in->s[2] = dec_value(d, &o[3], T_PRED);
        if (o[3].neg) in->flags |= F_NEGC;
    }
    (void)t;
    return true;
}

static bool half_cvt(dec *d, mods *m, opnd *o, int no) {
    if (m->ntypes != 2) return dec_fail(d, "cvt needs two types");
    int dt = m->type[0], st = m->type[1];
    bool pair = dt == T_F16X2 || dt == T_BF16X2;
    if (pair && st != T_F32) return dec_fail(d, "cvt to a pair of halves from other than .f32");
    if (st == T_F16X2 || st == T_BF16X2 || dt == T_PRED || st == T_PRED)
        return dec_fail(d, "cvt of this type is not supported by the mock's interpreter");
    if (!dec_want(d, no, pair ? 3 : 2, m)) return false;
    pinst *in = dec_op(d, O_HALF, T_NONE);
    if (in == NULL) return false;
    in->sub = O_CVT;
    in->type2 = (uint8_t)dt;
    in->aux = (uint32_t)st;
    half_flags(m, in);
    if (!dec_dest(d, &o[0], &in->d[0])) return false;
    in->s[0] = dec_value(d, &o[1], st);
    in->s[1] = pair ? dec_value(d, &o[2], st) : SL_ZERO;
    return true;
}

static bool family_float(dec *d, mods *m, opnd *o, int no) {
    static const struct {
        const char *name;
        int op, n;
    } ops[] = {{"add", O_ADD, 2}, {"sub", O_SUB, 2}, {"mul", O_MUL, 2},   {"fma", O_FMA, 3},
               {"mad", O_FMA, 3}, {"neg", O_NEG, 1}, {"abs", O_ABS, 1},   {"min", O_MIN, 2},
               {"max", O_MAX, 2}, {"div", O_DIV, 2}, {"sqrt", O_SQRT, 1}, {"rcp", O_RCP, 1}};
    if (IS(m, "cvt")) return half_cvt(d, m, o, no);
    if (m->ntypes < 1) return dec_fail(d, "'%.*s' without a type", (int)m->oplen, m->op);
    int t = m->type[m->ntypes - 1];
    if (IS(m, "setp") || IS(m, "set")) return half_compare(d, m, t, o, no);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (!IS(m, ops[i].name)) continue;
        bool half = half_type(t);
        if (half && (ops[i].op == O_DIV || ops[i].op == O_SQRT || ops[i].op == O_RCP)) break;
        if (!half &&
            (ops[i].op == O_NEG || ops[i].op == O_ABS || ops[i].op == O_MIN || ops[i].op == O_MAX))
            break;
        if (!dec_want(d, no, ops[i].n + 1, m)) return false;
        pinst *in = dec_op(d, half ? O_HALF : O_RND, half ? T_NONE : t);
        if (in == NULL) return false;
        in->sub = (uint8_t)ops[i].op;
        in->type2 = (uint8_t)t;
        half_flags(m, in);
        dec_take(m, "full");
        if (!dec_dest(d, &o[0], &in->d[0])) return false;
        for (int k = 0; k < ops[i].n; k++) in->s[k] = dec_value(d, &o[1 + k], t);
        return true;
    }
    return dec_fail(d, "'%.*s' of this type is not supported by the mock's interpreter",
                    (int)m->oplen, m->op);
}

/* ------------------------------------------------------------------------------------------ */
/* bar.arrive, and the matrix instructions                                                    */
/* ------------------------------------------------------------------------------------------ */

static bool bar_arrive(dec *d, mods *m, opnd *o, int no) {
    dec_take(m, "cta");
    dec_take(m, "arrive");
    if (!dec_want(d, no, 2, m)) return false;
    pinst *in = dec_op(d, O_BARARV, T_NONE);
    if (in == NULL) return false;
    in->s[0] = dec_value(d, &o[0], T_U32);
    in->s[1] = dec_value(d, &o[1], T_U32);
    return true;
}

/* The space of a matrix access: .global, .shared (::cta), or generic. */
static int mat_space(mods *m) {
    if (dec_take(m, "global")) return S_GLOBAL;
    if (dec_take(m, "shared") || dec_take(m, "shared::cta")) return S_SHARED;
    return S_GENERIC;
}

/* The address operand into the instruction: s[0] its register, s[2] its offset (a constant
 * slot), flags F_ADDR32 for a 32-bit register; space the state space. */
static bool mat_addr(dec *d, pinst *in, int sp, const opnd *a) {
    if (a->kind != K_ADDR) return dec_fail(d, "an operand that is not an [address]");
    in->space = (uint8_t)dec_access_space(d, sp, a);
    in->s[0] = a->base;
    in->s[2] = dec_const(d, (uint64_t)a->off);
    if (a->a32) in->flags |= F_ADDR32;
    return true;
}

/* wmma.load.{a,b,c} and wmma.store.d of m16n16k16: rnd 0 row, 1 column major; type2 the element
 * type; s[1] the stride in elements. */
static bool wmma_access(dec *d, mods *m, opnd *o, int no, bool load) {
    static const char *const frag[] = {"a", "b", "c", "d"};
    int f = dec_take_one(m, frag, 4);
    dec_take(m, "sync");
    int lay = dec_take(m, "row") ? 0 : dec_take(m, "col") ? 1 : -1;
    if (f < 0 || lay < 0 || (load && f == 3) || (!load && f != 3))
        return dec_fail(d, "a wmma.%s without its matrix or layout", load ? "load" : "store");
    if (!dec_take(m, "m16n16k16"))
        return dec_fail(d, "wmma of a shape other than m16n16k16 is not supported by the mock's "
                           "interpreter");
    int sp = mat_space(m);
    int t = m->ntypes == 1 ? m->type[0] : -1;
    if (t != T_F16 && t != T_F32 && t != T_BF16)
        return dec_fail(d, "wmma of this type is not supported by the mock's interpreter");
    if ((f == 2 || f == 3) && t == T_BF16) return dec_fail(d, "a bf16 accumulator");
    if (no != 2 && no != 3) return dec_fail(d, "a bad wmma.%s", load ? "load" : "store");
    uint32_t slots[8];
    int n = regs(d, &o[load ? 0 : 1], slots);
    int want = f < 2 ? (t == T_F16 ? 8 : 4) : (t == T_F32 ? 8 : 4);
    if (n != want) return dec_fail(d, "a wmma fragment of %d registers, not %d", n, want);
    pinst *in = with_args(d, O_MMA, slots, n);
    if (in == NULL) return false;
    in->sub = (uint8_t)(load ? MM_LOAD_A + f : MM_STORE);
    in->rnd = (uint8_t)lay;
    in->type2 = (uint8_t)t;
    in->imm = n;
    in->s[1] = no == 3 ? dec_value(d, &o[2], T_U32) : dec_const(d, 16);
    return mat_addr(d, in, sp, &o[load ? 1 : 0]);
}

/* wmma.mma (m16n16k16) and mma.sync (m16n8k16): d, a, b, c register lists in the carriers;
 * imm their counts (8 bits each); type2 the inputs' type, space the accumulators' (d's in the
 * low 4 bits, c's in the high). */
static bool mma_op(dec *d, mods *m, opnd *o, int no, bool wmma) {
    dec_take(m, "sync");
    dec_take(m, "row");
    dec_take(m, "col");
    dec_take(m, "row");
    dec_take(m, "col");
    if (!dec_take(m, wmma ? "m16n16k16" : "m16n8k16"))
        return dec_fail(d, "%s of this shape is not supported by the mock's interpreter",
                        wmma ? "wmma.mma" : "mma");
    if (m->ntypes != 4 && !(wmma && m->ntypes == 2))
        return dec_fail(d, "%s needs its types", wmma ? "wmma.mma" : "mma");
    int dt = m->type[0], ct = m->type[m->ntypes - 1],
        at = wmma && m->ntypes == 2 ? T_F16 : m->type[1];
    if ((at != T_F16 && at != T_BF16) || (dt != T_F32 && dt != T_F16) ||
        (ct != T_F32 && ct != T_F16) || (at == T_BF16 && (dt != T_F32 || ct != T_F32)))
        return dec_fail(d, "this mma's types are not supported by the mock's interpreter");
    dec_take(m, "satfinite");
    if (!dec_want(d, no, 4, m)) return false;
    uint32_t slots[32];
    int n[4], total = 0;
    for (int i = 0; i < 4; i++) {
        n[i] = regs(d, &o[i], slots + total);
        if (n[i] < 0) return false;
        total += n[i];
    }
    int acc_d = wmma ? (dt == T_F32 ? 8 : 4) : (dt == T_F32 ? 4 : 2);
    int acc_c = wmma ? (ct == T_F32 ? 8 : 4) : (ct == T_F32 ? 4 : 2);
    int na = wmma ? (at == T_F16 ? 8 : 4) : 4, nb = wmma ? (at == T_F16 ? 8 : 4) : 2;
    if (n[0] != acc_d || n[1] != na || n[2] != nb || n[3] != acc_c)
        return dec_fail(d, "the register lists of this mma have the wrong lengths");
    pinst *in = with_args(d, O_MMA, slots, total);
    if (in == NULL) return false;
    in->sub = wmma ? MM_WMMA : MM_MMA;
    in->type2 = (uint8_t)at;
    in->space = (uint8_t)(dt | ct << 4);
    in->imm = n[0] | n[1] << 8 | n[2] << 16 | n[3] << 24;
    return true;
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared}.b16: imm the matrices, rnd 1 .trans. */
static bool ldmatrix(dec *d, mods *m, opnd *o, int no) {
    static const char *const num[] = {"x1", "x2", "x4"};
    dec_take(m, "sync");
    if (!dec_take(m, "m8n8")) return dec_fail(d, "ldmatrix of a shape other than m8n8");
    int k = dec_take_one(m, num, 3);
    bool trans = dec_take(m, "trans");
    int sp = mat_space(m);
    if (k < 0 || m->ntypes != 1 || m->type[0] != T_U16)
        return dec_fail(d, "ldmatrix other than .x1, .x2 or .x4 of .b16");
    if (!dec_want(d, no, 2, m)) return false;
    uint32_t slots[4];
    int n = regs(d, &o[0], slots);
    if (n != 1 << k) return dec_fail(d, "ldmatrix.x%d into %d registers", 1 << k, n);
    pinst *in = with_args(d, O_MMA, slots, n);
    if (in == NULL) return false;
    in->sub = MM_LDMATRIX;
    in->imm = n;
    in->rnd = trans;
    in->s[1] = SL_ZERO;
    return mat_addr(d, in, sp == S_GENERIC ? S_GENERIC : S_SHARED, &o[1]);
}

bool dec_family(dec *d, mods *m, opnd *o, int no, bool *handled) {
    *handled = true;
    if (IS(m, "bar") || IS(m, "barrier")) return bar_arrive(d, m, o, no);
    if (IS(m, "ldmatrix")) return ldmatrix(d, m, o, no);
    if (IS(m, "mma")) return mma_op(d, m, o, no, false);
    if (IS(m, "wmma")) {
        if (dec_take(m, "load")) return wmma_access(d, m, o, no, true);
        if (dec_take(m, "store")) return wmma_access(d, m, o, no, false);
        if (dec_take(m, "mma")) return mma_op(d, m, o, no, true);
        return dec_fail(d, "a wmma other than load, store and mma");
    }
    return family_float(d, m, o, no);
}
