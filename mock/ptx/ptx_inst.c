/* Instructions: the opcode word's modifiers, the operands, and the specialised pinst. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_inst.h"
#include "ptx_tex.h"

int dec_type(const char *w, size_t n) {
    static const struct {
        const char *name;
        int t;
    } t[] = {{"u8", T_U8},     {"b8", T_U8},     {"s8", T_S8},      {"u16", T_U16}, {"b16", T_U16},
             {"s16", T_S16},   {"u32", T_U32},   {"b32", T_U32},    {"s32", T_S32}, {"u64", T_U64},
             {"b64", T_U64},   {"s64", T_S64},   {"f16", T_F16},    {"f32", T_F32}, {"f64", T_F64},
             {"pred", T_PRED}, {"bf16", T_BF16}, {"f16x2", T_F16X2}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (ptx__is(w, n, t[i].name)) return t[i].t;
    }
    return -1;
}

int dec_type_bytes(int t) {
    static const int b[T_COUNT] = {1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8, 1, 2, 4, 0};
    return t >= 0 && t < T_COUNT ? b[t] : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Modifiers                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static bool split(dec *d, const char *w, size_t n, mods *m) {
    memset(m, 0, sizeof *m);
    const char *end = w + n, *p = w;
    while (p < end && *p != '.') p++;
    m->op = w;
    m->oplen = (size_t)(p - w);
    while (p < end) {
        const char *s = ++p;
        while (p < end && *p != '.') p++;
        int t = dec_type(s, (size_t)(p - s));
        if (t >= 0 && m->ntypes < 4) {
            m->type[m->ntypes++] = t;
            continue;
        }
        if (m->nparts == 16) return dec_fail(d, "too many modifiers in '%.*s'", (int)n, w);
        m->part[m->nparts].w = s;
        m->part[m->nparts].n = (size_t)(p - s);
        m->nparts++;
    }
    return true;
}

static bool take(mods *m, const char *s) {
    for (int i = 0; i < m->nparts; i++) {
        if (!m->part[i].used && ptx__is(m->part[i].w, m->part[i].n, s)) {
            m->part[i].used = true;
            return true;
        }
    }
    return false;
}

/* The index of the first of `names` present (taken), -1 for none. */
static int take_one(mods *m, const char *const *names, int count) {
    for (int i = 0; i < count; i++) {
        if (take(m, names[i])) return i;
    }
    return -1;
}

/* Modifiers that do not change what the mock computes: memory ordering and scope (the mock's
 * accesses are sequentially consistent), cache hints, uniformity and alignment promises. */
static bool harmless(const char *w, size_t n) {
    static const char *const ok[] = {
        "volatile", "relaxed", "acquire", "release", "acq_rel", "sc",   "weak",  "cta",
        "gpu",      "sys",     "cluster", "nc",      "ca",      "cg",   "cs",    "lu",
        "cv",       "wb",      "wt",      "uni",     "aligned", "mmio", "noftz", "unified"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (ptx__is(w, n, ok[i])) return true;
    }
    return (n > 4 && (memcmp(w, "L1::", 4) == 0 || memcmp(w, "L2::", 4) == 0));
}

static bool all_used(dec *d, mods *m) {
    for (int i = 0; i < m->nparts; i++) {
        if (!m->part[i].used && !harmless(m->part[i].w, m->part[i].n)) {
            return dec_fail(d,
                            "the modifier '.%.*s' of '%.*s' is not supported by the mock's "
                            "interpreter",
                            (int)m->part[i].n, m->part[i].w, (int)m->oplen, m->op);
        }
    }
    return true;
}

static int space_of(mods *m) {
    static const char *const s[] = {"global", "shared", "local", "param", "const"};
    static const int v[] = {S_GLOBAL, S_SHARED, S_LOCAL, S_PARAM, S_CONST};
    int i = take_one(m, s, 5);
    if (take(m, "cta")) {
    } /* shared::cta */
    return i < 0 ? S_GENERIC : v[i];
}

static int rounding(mods *m) {
    static const char *const r[] = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna"};
    int i = take_one(m, r, 9);
    return i < 0 ? R_NONE : i + 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Operands                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    uint32_t slot;
} specials[] = {{"%tid.x", SL_TID},
                {"%tid.y", SL_TIDY},
                {"%tid.z", SL_TIDZ},
                {"%ntid.x", SL_NTID},
                {"%ntid.y", SL_NTIDY},
                {"%ntid.z", SL_NTIDZ},
                {"%ctaid.x", SL_CTAID},
                {"%ctaid.y", SL_CTAIDY},
                {"%ctaid.z", SL_CTAIDZ},
                {"%nctaid.x", SL_NCTAID},
                {"%nctaid.y", SL_NCTAIDY},
                {"%nctaid.z", SL_NCTAIDZ},
                {"%laneid", SL_LANE},
                {"%warpid", SL_WARP},
                {"%nwarpid", SL_NWARP},
                {"%smid", SL_SMID},
                {"%nsmid", SL_NSMID},
                {"%lanemask_eq", SL_LMEQ},
                {"%lanemask_lt", SL_LMLT},
                {"%lanemask_le", SL_LMLE},
                {"%lanemask_gt", SL_LMGT},
                {"%lanemask_ge", SL_LMGE},
                {"%dynamic_smem_size", SL_DYNSMEM},
                {"%total_smem_size", SL_TOTSMEM},
                {"%gridid", SL_GRIDID},
                {"%envreg1", SL_ENVREG1},
                {"%envreg2", SL_ENVREG2}};

static bool word_operand(dec *d, const char *w, size_t n, opnd *o) {
    uint32_t idx;
    const dname *x = dec_lookup(d, w, n, &idx);
    if (x != NULL) {
        if (x->kind == N_REG) {
            o->kind = K_REG;
            o->slot = x->slot + idx;
            o->bytes = x->bytes;
        } else {
            o->kind = K_SYM;
            o->is_sym = true;
            o->aspace = x->kind == N_PARAM ? S_PARAM : x->kind == N_SHARED ? S_SHARED : S_LOCAL;
            o->base = x->kind == N_LOCAL ? SL_FRAME : SL_ZERO;
            o->off = (int64_t)x->off;
        }
        return true;
    }
    if (ptx__is(w, n, "_")) {
        o->kind = K_REG;
        o->slot = SL_SINK;
        o->bytes = 8;
        return true;
    }
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        if (ptx__is(w, n, specials[i].name)) {
            o->kind = K_REG;
            o->slot = specials[i].slot;
            o->bytes = 4;
            return true;
        }
    }
    if (ptx__is(w, n, "%clock") || ptx__is(w, n, "%clock64") || ptx__is(w, n, "%globaltimer") ||
        ptx__is(w, n, "%globaltimer_lo")) {
        o->kind = K_SPECIAL;
        o->special = ptx__is(w, n, "%clock") ? 1 : ptx__is(w, n, "%clock64") ? 2 : 3;
        return true;
    }
    /* PTX ISA, "Special Registers" / "Predefined Identifiers": WARP_SZ, the warp size, a
     * run-time constant that nvcc writes for warpSize. */
    if (ptx__is(w, n, "WARP_SZ")) {
        o->kind = K_IMM;
        o->v = 32;
        o->fk = 0;
        return true;
    }
    if (w[0] == '%') return dec_fail(d, "'%.*s' is not a register of the function", (int)n, w);
    pvar *v = ptx__var(d->m, w, n);
    o->kind = K_SYM;
    o->name = w;
    o->nlen = n;
    if (v != NULL) {
        o->is_sym = true;
        o->base = SL_ZERO;
        if (v->space == S_SHARED) {
            o->aspace = S_SHARED;
            o->off = (int64_t)v->offset;
        } else {
            o->aspace = S_GENERIC;
            o->off = (int64_t)(uintptr_t)(d->m->storage + v->offset);
        }
    }
    return true;
}

static bool number_operand(dec *d, opnd *o) {
    ptx__skip(&d->l);
    const char *p = d->l.p;
    bool minus = *p == '-';
    if (*p == '-') p++;
    o->fk = 0;
    if (p[0] == '0' && (p[1] == 'f' || p[1] == 'F')) o->fk = 2;
    if (p[0] == '0' && (p[1] == 'd' || p[1] == 'D')) o->fk = 3;
    bool fl;
    if (!ptx__number(&d->l, &o->v, &fl, &o->f)) return dec_fail(d, "a bad number");
    if (fl && o->fk == 0) o->fk = 1;
    if (minus && o->fk == 2) o->v ^= 0x80000000u; /* -0f...: the sign bit */
    if (minus && o->fk == 3) o->v ^= 0x8000000000000000u;
    o->kind = K_IMM;
    return true;
}

static bool operand(dec *d, opnd *o) {
    memset(o, 0, sizeof *o);
    ptx__skip(&d->l);
    if (d->l.p >= d->l.end) return dec_fail(d, "an operand is missing");
    const char *w;
    size_t n;
    if (ptx__eat(&d->l, '[')) {
        o->kind = K_ADDR;
        o->base = SL_ZERO;
        o->aspace = S_GENERIC;
        ptx__skip(&d->l);
        if ((n = ptx__word(&d->l, &w)) > 0) {
            opnd x;
            memset(&x, 0, sizeof x);
            if (!word_operand(d, w, n, &x)) return false;
            if (x.kind == K_REG) {
                o->base = x.slot;
                o->a32 = x.bytes == 4;
            } else if (x.kind == K_SYM && x.is_sym) {
                o->base = x.base;
                o->off = x.off;
                o->aspace = x.aspace;
                o->is_sym = true;
            } else {
                return dec_fail(d, "'%.*s' is not a variable or register", (int)n, w);
            }
            if (ptx__eat(&d->l, '+')) {
                opnd k;
                if (!number_operand(d, &k) || k.fk) return dec_fail(d, "a bad address offset");
                o->off += (int64_t)k.v;
            } else if (d->l.p < d->l.end && *d->l.p == '-') {
                opnd k;
                if (!number_operand(d, &k) || k.fk) return dec_fail(d, "a bad address offset");
                o->off += (int64_t)k.v;
            }
        } else {
            opnd k;
            if (!number_operand(d, &k) || k.fk) return dec_fail(d, "a bad address");
            o->off = (int64_t)k.v;
        }
        if (!ptx__eat(&d->l, ']')) return dec_fail(d, "an address without ']'");
        return true;
    }
    if (ptx__eat(&d->l, '{')) {
        o->kind = K_VEC;
        for (;;) {
            n = ptx__word(&d->l, &w);
            opnd x;
            memset(&x, 0, sizeof x);
            if (n == 0) {
                if (!number_operand(d, &x)) return false;
                x.slot = dec_const(d, x.v);
            } else if (!word_operand(d, w, n, &x) || x.kind != K_REG) {
                return dec_fail(d, "a vector element that is not a register");
            }
            if (o->nvec == 8) return dec_fail(d, "a vector of more than 8 elements");
            o->vec[o->nvec++] = x.slot;
            if (ptx__eat(&d->l, '}')) return true;
            if (!ptx__eat(&d->l, ',')) return dec_fail(d, "a vector without ',' or '}'");
        }
    }
    if (ptx__eat(&d->l, '!')) o->neg = true;
    ptx__skip(&d->l);
    char c = d->l.p < d->l.end ? *d->l.p : 0;
    if ((c >= '0' && c <= '9') || c == '-') return number_operand(d, o);
    n = ptx__word(&d->l, &w);
    if (n == 0) return dec_fail(d, "unexpected '%c' in an operand", c);
    if (!word_operand(d, w, n, o)) return false;
    if (o->kind == K_SYM && ptx__eat(&d->l, '+')) {
        opnd k;
        if (!number_operand(d, &k) || k.fk) return dec_fail(d, "a bad symbol offset");
        o->off += (int64_t)k.v;
    }
    if (ptx__eat(&d->l, '|')) {
        opnd q;
        memset(&q, 0, sizeof q);
        n = ptx__word(&d->l, &w);
        if (n == 0 || !word_operand(d, w, n, &q) || q.kind != K_REG)
            return dec_fail(d, "a bad second destination after '|'");
        o->has_pair = true;
        o->pair = q.slot;
    }
    return true;
}

/* The operands up to ';'. */
static bool operands(dec *d, opnd *o, int max, int *count) {
    *count = 0;
    if (ptx__eat(&d->l, ';')) return true;
    for (;;) {
        if (*count == max) return dec_fail(d, "too many operands");
        if (!operand(d, &o[*count])) return false;
        (*count)++;
        if (ptx__eat(&d->l, ';')) return true;
        if (!ptx__eat(&d->l, ',')) return dec_fail(d, "operands without ',' or ';'");
    }
}

/* An operand's value as a slot, for type t: registers as they are, immediates as constant
 * slots, symbols as their address (frame symbols by an add before the instruction). */
static uint32_t value(dec *d, const opnd *o, int t) {
    if (o->kind == K_REG) return o->slot;
    if (o->kind == K_IMM) {
        uint64_t v = o->v;
        if (t == T_F32) {
            float f = o->fk == 0 ? (float)(int64_t)o->v : o->fk == 2 ? 0 : (float)o->f;
            uint32_t b;
            memcpy(&b, &f, 4);
            v = o->fk == 2 ? (uint32_t)o->v : b;
        } else if (t == T_F64) {
            double f = o->fk == 0 ? (double)(int64_t)o->v : o->f;
            if (o->fk != 3) memcpy(&v, &f, 8);
        } else if (t == T_F16 && o->fk != 0) {
            v = ptx__half_from_float((float)o->f);
        } else if (t == T_PRED) {
            v = o->v != 0;
        }
        return dec_const(d, v);
    }
    if (o->kind == K_SYM && o->is_sym) {
        if (o->base == SL_ZERO) return dec_const(d, (uint64_t)o->off);
        if (!d->allow_emit) {
            dec_fail(d, "a local or parameter variable's address as an operand of this "
                        "instruction is not supported");
            return SL_ZERO;
        }
        uint32_t tmp = dec_const(d, 0);
        uint32_t off = dec_const(d, (uint64_t)o->off);
        pinst *in = dec_emit(d);
        if (in == NULL) return SL_ZERO;
        in->op = O_ADD * T_COUNT + T_U64;
        in->d[0] = tmp;
        in->s[0] = o->base;
        in->s[1] = off;
        return tmp;
    }
    if (o->kind == K_SYM) {
        dec_fail(d, "'%.*s' is not a register, variable or value the interpreter knows",
                 (int)o->nlen, o->name);
    } else {
        dec_fail(d, "an operand of the wrong kind");
    }
    return SL_ZERO;
}

static bool dest(dec *d, const opnd *o, uint32_t *slot) {
    if (o->kind != K_REG || o->slot < SL_SINK) {
        if (o->kind == K_REG && o->slot == SL_SINK) {
            *slot = SL_SINK;
            return true;
        }
        return dec_fail(d, "a destination that is not a register");
    }
    *slot = o->slot;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Opcodes                                                                                    */
/* ------------------------------------------------------------------------------------------ */

#define OPT(o, t) ((uint16_t)((o)*T_COUNT + (t)))

static pinst *emit(dec *d, int op, int t) {
    pinst *in = dec_emit(d);
    if (in != NULL) in->op = OPT(op, t);
    return in;
}

static bool want(dec *d, int have, int need, const mods *m) {
    if (have == need) return true;
    return dec_fail(d, "'%.*s' takes %d operands, not %d", (int)m->oplen, m->op, need, have);
}

static bool float_flags(mods *m, pinst *in) {
    if (take(m, "ftz")) in->flags |= F_FTZ;
    if (take(m, "sat")) in->flags |= F_SAT;
    take(m, "approx");
    take(m, "full");
    in->rnd = (uint8_t)rounding(m);
    return true;
}

static bool is_float(int t) { return t == T_F32 || t == T_F64 || t == T_F16 || t == T_BF16; }

/* Scalar f16 arithmetic is computed in f32 and rounded once to f16 (exact for add, sub, mul). */
static bool f16_op(const mods *m) {
    static const char *const ok[] = {"add", "sub", "mul", "fma", "neg",
                                     "abs", "min", "max", "setp"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (ptx__is(m->op, m->oplen, ok[i])) return true;
    }
    return false;
}

static bool typed(dec *d, mods *m, int t) {
    if (t == T_NONE || t == T_F16X2 || t == T_BF16 || (t == T_F16 && !f16_op(m))) {
        return dec_fail(d, "'%.*s' of this type is not supported by the mock's interpreter",
                        (int)m->oplen, m->op);
    }
    return true;
}

static bool binary(dec *d, mods *m, int op, int t, opnd *o, int no) {
    if (!want(d, no, 3, m) || !typed(d, m, t)) return false;
    int st = t;
    if (op == O_MUL && take(m, "hi"))
        op = O_MULHI;
    else if (op == O_MUL && take(m, "wide"))
        op = O_MULWIDE;
    else if (op == O_MUL)
        take(m, "lo");
    if ((op == O_ADD || op == O_SUB) && take(m, "cc")) op = op == O_ADD ? O_ADDC : O_SUBC;
    if (op == O_MULWIDE && dec_type_bytes(t) > 4) return dec_fail(d, "mul.wide of a 64-bit type");
    uint32_t a = value(d, &o[1], st), b = value(d, &o[2], op == O_SHL || op == O_SHR ? T_U32 : st);
    pinst *in = emit(d, op, t);
    if (in == NULL) return false;
    if (op == O_ADDC || op == O_SUBC) in->flags |= F_CC;
    if (is_float(t)) {
        float_flags(m, in);
        if (in->rnd > R_RN && in->rnd != R_NONE)
            return dec_fail(d, "the rounding modifier of '%.*s' is not supported (only .rn)",
                            (int)m->oplen, m->op);
    } else if (take(m, "sat")) {
        in->flags |= F_SAT;
    }
    in->s[0] = a;
    in->s[1] = b;
    return dest(d, &o[0], &in->d[0]);
}

static bool carry_op(dec *d, mods *m, int op, int t, opnd *o, int no) {
    if (!want(d, no, 3, m) || !typed(d, m, t)) return false;
    pinst *in = emit(d, op, t);
    if (in == NULL) return false;
    in->sub = 1; /* reads the carry */
    if (take(m, "cc")) in->flags |= F_CC;
    if (!dest(d, &o[0], &in->d[0])) return false;
    in->s[0] = value(d, &o[1], t);
    in->s[1] = value(d, &o[2], t);
    return true;
}

static bool unary(dec *d, mods *m, int op, int t, opnd *o, int no) {
    if (!want(d, no, 2, m) || !typed(d, m, t)) return false;
    pinst *in = emit(d, op, t);
    if (in == NULL) return false;
    if (is_float(t)) float_flags(m, in);
    if (take(m, "shiftamt")) in->flags |= F_SHIFTAMT;
    if (!dest(d, &o[0], &in->d[0])) return false;
    in->s[0] = value(d, &o[1], t);
    return true;
}

static bool ternary(dec *d, mods *m, int op, int t, opnd *o, int no) {
    if (!want(d, no, 4, m) || !typed(d, m, t)) return false;
    int t2 = t, t3 = t;
    if (op == O_MAD && take(m, "hi"))
        op = O_MADHI;
    else if (op == O_MAD && take(m, "wide"))
        op = O_MADWIDE;
    else if (op == O_MAD && take(m, "lo"))
        op = O_MAD;
    else if (op == O_MAD && is_float(t))
        op = O_FMA;
    if (op == O_MAD && take(m, "cc")) return dec_fail(d, "mad.cc is not supported");
    if (op == O_MADWIDE && dec_type_bytes(t) > 4) return dec_fail(d, "mad.wide of a 64-bit type");
    if (op == O_BFE) t2 = t3 = T_U32;
    if (op == O_SELP) t3 = T_PRED;
    if (op == O_SLCT) {
        t3 = m->type[1];
        t = m->type[0];
        t2 = t;
    }
    if (op == O_MADWIDE) t3 = t == T_S32 ? T_S64 : t == T_U32 ? T_U64 : t;
    pinst *in = emit(d, op, t);
    if (in == NULL) return false;
    if (is_float(t)) float_flags(m, in);
    if ((op == O_FMA || op == O_MAD) && in->rnd > R_RN)
        return dec_fail(d, "the rounding modifier of '%.*s' is not supported (only .rn)",
                        (int)m->oplen, m->op);
    if (!dest(d, &o[0], &in->d[0])) return false;
    in->s[0] = value(d, &o[1], t);
    in->s[1] = value(d, &o[2], t2);
    in->s[2] = value(d, &o[3], t3);
    if (op == O_SLCT) in->type2 = (uint8_t)t3;
    return true;
}

static bool setp(dec *d, mods *m, int t, opnd *o, int no) {
    static const char *const cmp[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                      "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    static const char *const bop[] = {"and", "or", "xor"};
    if (!typed(d, m, t)) return false;
    int c = take_one(m, cmp, 18), b = take_one(m, bop, 3);
    if (c < 0) return dec_fail(d, "setp without a comparison");
    if (!want(d, no, b < 0 ? 3 : 4, m)) return false;
    pinst *in = emit(d, O_SETP, t);
    if (in == NULL) return false;
    if (take(m, "ftz")) in->flags |= F_FTZ;
    in->sub = (uint8_t)c;
    in->imm = b < 0 ? 0 : b;
    if (!dest(d, &o[0], &in->d[0])) return false;
    in->d[1] = o[0].has_pair ? o[0].pair : SL_SINK;
    in->s[0] = value(d, &o[1], t);
    in->s[1] = value(d, &o[2], t);
    in->s[2] = SL_TRUE;
    if (b >= 0) {
        in->s[2] = value(d, &o[3], T_PRED);
        if (o[3].neg) in->flags |= F_NEGC;
    }
    return true;
}

static bool mov(dec *d, mods *m, int t, opnd *o, int no) {
    if (!want(d, no, 2, m)) return false;
    if (o[0].kind == K_VEC || o[1].kind == K_VEC) {
        bool pack = o[1].kind == K_VEC;
        const opnd *v = pack ? &o[1] : &o[0];
        if (v->nvec > 4) return dec_fail(d, "a mov of a vector of more than 4 elements");
        pinst *in = emit(d, pack ? O_PACK : O_UNPACK, T_NONE);
        if (in == NULL) return false;
        in->vec = (uint8_t)v->nvec;
        in->imm = dec_type_bytes(t) * 8 / v->nvec; /* bits per element */
        for (int i = 0; i < v->nvec; i++) (pack ? in->s : in->d)[i] = v->vec[i];
        if (pack) return dest(d, &o[0], &in->d[0]);
        in->s[0] = value(d, &o[1], t);
        return true;
    }
    if (o[1].kind == K_SPECIAL) {
        pinst *in = emit(d,
                         o[1].special == 1   ? O_CLOCK
                         : o[1].special == 2 ? O_CLOCK64
                                             : O_GTIMER,
                         T_NONE);
        return in != NULL && dest(d, &o[0], &in->d[0]);
    }
    mock_ptx_func *fn = NULL;
    if (o[1].kind == K_SYM && !o[1].is_sym &&
        (fn = ptx__func(d->m, o[1].name, o[1].nlen)) != NULL) {
        /* A function's address (for an indirect call): its record's host address. It is named
         * as a callee, so that it is decoded and its frames count in the caller's stack. */
        if (fn->entry || fn->body == NULL)
            return dec_fail(d, "the address of %s, which is not a function the module defines",
                            fn->name);
        pcall *calls = realloc(d->calls, (d->ncalls + 1) * sizeof *calls);
        if (calls == NULL) return dec_fail(d, "out of memory");
        d->calls = calls;
        d->calls[d->ncalls++] = (pcall){.callee = fn, .ret_off = -1};
        pinst *in = emit(d, O_MOV, T_NONE);
        if (in == NULL) return false;
        in->s[0] = dec_const(d, (uint64_t)(uintptr_t)fn);
        return dest(d, &o[0], &in->d[0]);
    }
    d->allow_emit = true;
    uint32_t s = value(d, &o[1], t);
    d->allow_emit = false;
    pinst *in = emit(d, O_MOV, T_NONE);
    if (in == NULL) return false;
    in->s[0] = s;
    return dest(d, &o[0], &in->d[0]);
}

static bool cvt(dec *d, mods *m, opnd *o, int no) {
    if (m->ntypes != 2) return dec_fail(d, "cvt needs two types");
    if (!want(d, no, 2, m)) return false;
    int dt = m->type[0], st = m->type[1];
    if (dt == T_F16X2 || st == T_F16X2 || dt == T_BF16 || st == T_BF16 || dt == T_PRED ||
        st == T_PRED)
        return dec_fail(d, "cvt of this type is not supported by the mock's interpreter");
    pinst *in = emit(d, O_CVT, dt);
    if (in == NULL) return false;
    in->type2 = (uint8_t)st;
    float_flags(m, in);
    if (!dest(d, &o[0], &in->d[0])) return false;
    in->s[0] = value(d, &o[1], st);
    return true;
}

static bool cvta(dec *d, mods *m, opnd *o, int no) {
    if (!want(d, no, 2, m)) return false;
    bool to = take(m, "to");
    int sp = space_of(m);
    d->allow_emit = true;
    uint32_t s = value(d, &o[1], T_U64);
    d->allow_emit = false;
    pinst *in;
    if (sp == S_GLOBAL || sp == S_CONST) {
        in = emit(d, O_MOV, T_NONE);
    } else if (sp == S_SHARED || sp == S_LOCAL || sp == S_PARAM) {
        in = emit(d, to ? O_CVTA_TO : O_CVTA, T_NONE);
        if (in != NULL) in->space = (uint8_t)(sp == S_PARAM && !d->f->entry ? S_LOCAL : sp);
    } else {
        return dec_fail(d, "cvta without a state space");
    }
    if (in == NULL) return false;
    in->s[0] = s;
    return dest(d, &o[0], &in->d[0]);
}

/* The state space an access really goes to, from the instruction's and the symbol's. */
static int access_space(dec *d, int sp, const opnd *a) {
    if (a->is_sym) {
        if (a->aspace == S_GENERIC) return S_GLOBAL;
        return a->aspace;
    }
    if (sp == S_CONST) return S_GLOBAL;
    if (sp == S_PARAM && !d->f->entry) return S_LOCAL;
    return sp;
}

static bool memory(dec *d, mods *m, bool load, int t, opnd *o, int no) {
    if (!want(d, no, 2, m)) return false;
    int sp = space_of(m);
    int vec = take(m, "v2") ? 2 : take(m, "v4") ? 4 : 1;
    if (t == T_BF16) t = T_U16; /* the bits, as .b16 and .b32 */
    if (t == T_F16X2) t = T_U32;
    if (t == T_NONE || t == T_PRED)
        return dec_fail(d, "%s of this type is not supported", load ? "ld" : "st");
    const opnd *a = load ? &o[1] : &o[0], *v = load ? &o[0] : &o[1];
    if (a->kind != K_ADDR) return dec_fail(d, "an access without an [address]");
    if ((v->kind == K_VEC) != (vec > 1) || (vec > 1 && v->nvec != vec))
        return dec_fail(d, "the vector operand does not match .v%d", vec);
    uint32_t vals[4];
    for (int i = 0; i < vec; i++) {
        if (vec > 1) {
            vals[i] = v->vec[i];
        } else if (load) {
            if (!dest(d, v, &vals[i])) return false;
        } else {
            vals[i] = value(d, v, t);
        }
    }
    pinst *in = emit(d, load ? O_LD : O_ST, t);
    if (in == NULL) return false;
    in->space = (uint8_t)access_space(d, sp, a);
    in->vec = (uint8_t)vec;
    in->s[0] = a->base;
    in->imm = a->off;
    if (a->a32) in->flags |= F_ADDR32;
    memcpy(in->d, vals, (size_t)vec * sizeof vals[0]);
    return true;
}

static bool atomic(dec *d, mods *m, bool red, int t, opnd *o, int no) {
    static const char *const ops[] = {"add", "min", "max", "inc",  "dec",
                                      "and", "or",  "xor", "exch", "cas"};
    int sp = space_of(m);
    int a = take_one(m, ops, 10);
    if (a < 0) return dec_fail(d, "an atomic without an operation");
    if (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_NONE || dec_type_bytes(t) < 4 ||
        (is_float(t) && a != A_ADD && a != A_EXCH))
        return dec_fail(d, "this atomic's type is not supported by the mock's interpreter");
    int need = (red ? 2 : 3) + (a == A_CAS);
    if (!want(d, no, need, m)) return false;
    const opnd *ad = &o[red ? 0 : 1];
    if (ad->kind != K_ADDR) return dec_fail(d, "an atomic without an [address]");
    uint32_t b = value(d, &o[red ? 1 : 2], t);
    uint32_t c = a == A_CAS ? value(d, &o[red ? 2 : 3], t) : SL_ZERO;
    pinst *in = emit(d, O_ATOM, t);
    if (in == NULL) return false;
    in->sub = (uint8_t)a;
    in->space = (uint8_t)access_space(d, sp, ad);
    if (in->space == S_LOCAL || in->space == S_PARAM)
        return dec_fail(d, "an atomic on local or parameter memory");
    in->s[0] = ad->base;
    in->imm = ad->off;
    if (ad->a32) in->flags |= F_ADDR32;
    in->s[1] = b;
    in->s[2] = c;
    in->d[0] = SL_SINK;
    return red || dest(d, &o[0], &in->d[0]);
}

static bool collective(dec *d, mods *m, const char *op, size_t ol, int t, opnd *o, int no) {
    if (ptx__is(op, ol, "shfl")) {
        static const char *const modes[] = {"up", "down", "bfly", "idx"};
        bool sync = take(m, "sync");
        int md = take_one(m, modes, 4);
        if (md < 0 || !want(d, no, sync ? 5 : 4, m)) return dec_fail(d, "a bad shfl");
        pinst *in = emit(d, O_SHFL, T_U32);
        if (in == NULL || !dest(d, &o[0], &in->d[0])) return false;
        in->sub = (uint8_t)md;
        in->d[1] = o[0].has_pair ? o[0].pair : SL_SINK;
        for (int i = 0; i < 3; i++) in->s[i] = value(d, &o[1 + i], T_U32);
        in->s[3] = sync ? value(d, &o[4], T_U32) : dec_const(d, 0xffffffffu);
        return true;
    }
    if (ptx__is(op, ol, "vote")) {
        static const char *const modes[] = {"all", "any", "uni", "ballot"};
        bool sync = take(m, "sync");
        int md = take_one(m, modes, 4);
        if (md < 0 || !want(d, no, sync ? 3 : 2, m)) return dec_fail(d, "a bad vote");
        pinst *in = emit(d, O_VOTE, T_U32);
        if (in == NULL || !dest(d, &o[0], &in->d[0])) return false;
        in->sub = (uint8_t)md;
        in->s[0] = value(d, &o[1], T_PRED);
        if (o[1].neg) in->flags |= F_NEGC;
        in->s[1] = sync ? value(d, &o[2], T_U32) : dec_const(d, 0xffffffffu);
        return true;
    }
    if (ptx__is(op, ol, "match")) {
        static const char *const modes[] = {"any", "all"};
        take(m, "sync");
        int md = take_one(m, modes, 2);
        if (md < 0 || !want(d, no, 3, m)) return dec_fail(d, "a bad match");
        pinst *in = emit(d, O_MATCH, t == T_U64 || t == T_S64 ? T_U64 : T_U32);
        if (in == NULL || !dest(d, &o[0], &in->d[0])) return false;
        in->sub = (uint8_t)md;
        in->d[1] = o[0].has_pair ? o[0].pair : SL_SINK;
        in->s[0] = value(d, &o[1], t);
        in->s[1] = value(d, &o[2], T_U32);
        return true;
    }
    if (ptx__is(op, ol, "redux")) {
        static const char *const ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
        take(m, "sync");
        int a = take_one(m, ops, 8);
        if (a < 0 || a == A_INC || a == A_DEC || !want(d, no, 3, m) || (t != T_U32 && t != T_S32))
            return dec_fail(d, "this redux is not supported by the mock's interpreter");
        pinst *in = emit(d, O_REDUX, t);
        if (in == NULL || !dest(d, &o[0], &in->d[0])) return false;
        in->sub = (uint8_t)a;
        in->s[0] = value(d, &o[1], t);
        in->s[1] = value(d, &o[2], T_U32);
        return true;
    }
    /* bar, barrier */
    if (take(m, "warp")) {
        take(m, "sync");
        if (!want(d, no, 1, m)) return false;
        pinst *in = emit(d, O_WARPSYNC, T_NONE);
        if (in != NULL) in->s[0] = value(d, &o[0], T_U32);
        return in != NULL;
    }
    take(m, "cta");
    static const char *const reds[] = {"popc", "and", "or"};
    int r = -1;
    if (take(m, "red")) {
        r = take_one(m, reds, 3);
        if (r < 0) return dec_fail(d, "bar.red without an operation");
    } else if (!take(m, "sync")) {
        if (take(m, "arrive"))
            return dec_fail(d, "bar.arrive is not supported by the mock's interpreter");
    }
    int first = r >= 0 ? 1 : 0, last = r >= 0 ? no - 1 : no;
    if (last - first < 1 || last - first > 2) return dec_fail(d, "a bad barrier");
    pinst *in = emit(d, O_BAR, T_NONE);
    if (in == NULL) return false;
    in->sub = (uint8_t)(r + 1);
    in->s[0] = value(d, &o[first], T_U32);
    in->s[1] = last - first == 2 ? value(d, &o[first + 1], T_U32) : SL_ZERO;
    in->d[0] = SL_SINK;
    if (r >= 0) {
        if (!dest(d, &o[0], &in->d[0])) return false;
        in->s[2] = value(d, &o[no - 1], T_PRED);
        if (o[no - 1].neg) in->flags |= F_NEGC;
    }
    return true;
}

/* `call[.uni] [(ret),] name[, (args)];` */
static bool call(dec *d, mods *m) {
    const char *w;
    size_t n;
    const dname *ret = NULL;
    uint32_t idx;
    if (ptx__eat(&d->l, '(')) {
        n = ptx__word(&d->l, &w);
        ret = n ? dec_lookup(d, w, n, &idx) : NULL;
        if (ret == NULL || ret->kind != N_LOCAL || !ptx__eat(&d->l, ')') || !ptx__eat(&d->l, ','))
            return dec_fail(d, "a call whose return value is not a .param of the caller");
    }
    const char *name;
    size_t nlen = ptx__word(&d->l, &name);
    if (nlen == 0) return dec_fail(d, "a call without a function name");
    pcall c = {.ret_off = -1};
    if (ret != NULL) c.ret_off = (long)ret->off;
    /* An indirect call: `call (ret), %reg, (args), prototype;` (PTX ISA "Control Flow
     * Instructions: call"; the callee is the function whose address the register holds, found
     * at run time, with the prototype's parameters, which are the caller's .params here). */
    const dname *target = name[0] == '%' ? dec_lookup(d, name, nlen, &idx) : NULL;
    if (name[0] == '%' && (target == NULL || target->kind != N_REG))
        return dec_fail(d, "an indirect call through '%.*s', which is not a register", (int)nlen,
                        name);
    uint32_t target_slot = target != NULL ? target->slot + idx : 0;
    if (ptx__eat(&d->l, ',')) {
        ptx__skip(&d->l);
        if (target != NULL && d->l.p < d->l.end && *d->l.p != '(') goto prototype;
        if (!ptx__eat(&d->l, '('))
            return dec_fail(d, "a call whose arguments are not in parentheses");
        while (!ptx__eat(&d->l, ')')) {
            n = ptx__word(&d->l, &w);
            const dname *a = n ? dec_lookup(d, w, n, &idx) : NULL;
            if (a == NULL || a->kind != N_LOCAL || c.nargs == 32)
                return dec_fail(d, "a call argument that is not a .param of the caller");
            c.arg_off[c.nargs++] = a->off;
            if (!ptx__eat(&d->l, ',') && !(ptx__skip(&d->l), *d->l.p == ')'))
                return dec_fail(d, "a call's arguments without ','");
        }
        if (target != NULL && !ptx__eat(&d->l, ','))
            return dec_fail(d, "an indirect call without its prototype");
    prototype:
        if (target != NULL && ptx__word(&d->l, &name) == 0)
            return dec_fail(d, "an indirect call without its prototype");
    }
    if (!ptx__eat(&d->l, ';')) return dec_fail(d, "a call without ';'");
    take(m, "uni");
    if (!all_used(d, m)) return false;
    int op = O_CALL;
    mock_ptx_func *f = target != NULL ? NULL : ptx__func(d->m, name, nlen);
    if (target != NULL) {
        pcall *calls = realloc(d->calls, (d->ncalls + 1) * sizeof *calls);
        if (calls == NULL) return dec_fail(d, "out of memory");
        d->calls = calls;
        d->calls[d->ncalls] = c; /* callee NULL: found at run time */
        pinst *in = emit(d, O_CALL, T_NONE);
        if (in == NULL) return false;
        in->aux = (uint32_t)d->ncalls++;
        in->s[0] = target_slot;
        return true;
    }
    if (f == NULL || f->body == NULL) {
        if (ptx__is(name, nlen, "vprintf") && c.nargs == 2)
            op = O_PRINTF;
        else if (ptx__is(name, nlen, "__assertfail") && c.nargs >= 4)
            op = O_ASSERT;
        else if ((ptx__is(name, nlen, "malloc") || ptx__is(name, nlen, "free")) && c.nargs == 1)
            op = O_HEAP; /* device-side malloc and free (ptx_heap.c) */
        else
            return dec_fail(d,
                            "the call of %.*s, a function the module does not define (the "
                            "mock links no device code)",
                            (int)nlen, name);
    } else {
        if (c.nargs != f->nparams)
            return dec_fail(d, "the call of %s passes %d arguments for %d parameters", f->name,
                            c.nargs, f->nparams);
        for (int i = 0; i < c.nargs; i++) c.arg_size[i] = f->params[i].size;
        c.ret_size = f->ret_size;
        if (c.ret_off >= 0 && f->ret_off < 0) c.ret_off = -1;
        c.callee = f;
        /* Decoded after this body (ptx_decode.c); one declared only cannot run. */
        if (f->body == NULL) {
            return dec_fail(d, "the function %s is declared but not defined in the module",
                            f->name);
        } else if (f->decoded && f->error != NULL) {
            return dec_fail(d, "%s", f->error);
        }
    }
    pcall *calls = realloc(d->calls, (d->ncalls + 1) * sizeof *calls);
    if (calls == NULL) return dec_fail(d, "out of memory");
    d->calls = calls;
    d->calls[d->ncalls] = c;
    pinst *in = emit(d, op, T_NONE);
    if (in == NULL) return false;
    in->aux = (uint32_t)d->ncalls++;
    if (op == O_HEAP) in->sub = ptx__is(name, nlen, "free");
    return true;
}

/* An address operand into s[base] and a constant slot of its offset (shared addresses are 32-bit
 * offsets whatever the register's width). */
static int async_addr(dec *d, int sp, const opnd *a, uint32_t *base, uint32_t *off) {
    if (a->kind != K_ADDR) return dec_fail(d, "an operand that is not an [address]"), -1;
    *base = a->base;
    *off = dec_const(d, (uint64_t)a->off);
    return access_space(d, sp, a);
}

/* The shared-memory space words: .shared, .shared::cta, .shared::cluster (one CTA per cluster on
 * the mock, so the same memory). */
static int async_space(mods *m, int dflt) {
    if (take(m, "shared") || take(m, "shared::cta") || take(m, "shared::cluster")) return S_SHARED;
    return dflt;
}

/* PTX ISA 9.7.9.25 "Data Movement and Conversion Instructions: cp.async" (and its
 * commit_group / wait_group / wait_all, and cp.async.bulk), 9.7.13.15 "Parallel Synchronization
 * and Communication Instructions: mbarrier". The mock copies at issue, so that the groups are
 * complete when they are committed and the waits are no-ops. */
static bool async_op(dec *d, mods *m, bool mbar, opnd *o, int no) {
    pinst *in;
    int sp;
    if (!mbar) {
        if (!take(m, "async")) return dec_fail(d, "'cp' without '.async'");
        if (take(m, "commit_group") || take(m, "wait_all")) return no == 0 || want(d, no, 0, m);
        if (take(m, "wait_group")) return want(d, no, 1, m) && o[0].kind == K_IMM;
        if (take(m, "mbarrier")) {
            take(m, "arrive");
            bool noinc = take(m, "noinc");
            sp = async_space(m, S_GENERIC);
            if (!want(d, no, 1, m) || (in = emit(d, O_ASYNC, T_NONE)) == NULL) return false;
            in->sub = AS_CPARRIVE;
            in->imm = noinc;
            in->space = (uint8_t)async_addr(d, sp, &o[0], &in->s[0], &in->s[1]);
            return in->space != (uint8_t)-1;
        }
        bool bulk = take(m, "bulk");
        if (!bulk && !take(m, "ca") && !take(m, "cg"))
            return dec_fail(d, "cp.async without .ca, .cg or .bulk");
        if (!async_space(m, -1) || !take(m, "global"))
            return dec_fail(d, "cp.async other than shared from global");
        take(m, "mbarrier::complete_tx::bytes");
        if (!bulk && take(m, "L2::cache_hint")) no--;
        if (no < 3 || no > (bulk ? 4 : 4)) return dec_fail(d, "a bad cp.async");
        if ((in = emit(d, O_ASYNC, T_NONE)) == NULL) return false;
        in->sub = AS_COPY;
        in->d[0] = SL_SINK;
        in->space = (uint8_t)async_addr(d, S_SHARED, &o[0], &in->s[0], &in->s[1]);
        if (async_addr(d, S_GLOBAL, &o[1], &in->s[2], &in->s[3]) < 0) return false;
        if (o[2].kind != K_IMM && !bulk) return dec_fail(d, "cp.async with a cp-size not a number");
        if (!bulk && o[2].v != 4 && o[2].v != 8 && o[2].v != 16)
            return dec_fail(d, "cp.async of %llu bytes, not 4, 8 or 16",
                            (unsigned long long)o[2].v);
        in->d[1] = value(d, &o[2], T_U32);                               /* cp-size */
        in->d[2] = no == 4 && !bulk ? value(d, &o[3], T_U32) : in->d[1]; /* src-size */
        if (no == 4 && !bulk && o[3].kind == K_REG && o[3].bytes == 1) { /* ignore-src */
            in->flags |= F_CLAMP;
            if (o[3].neg) in->flags |= F_NEGC;
        }
        in->d[3] = SL_ZERO;
        in->imm = 0;
        if (bulk && no == 4) {
            uint32_t base, off;
            if (async_addr(d, S_SHARED, &o[3], &base, &off) < 0) return false;
            in->d[3] = base;
            in->aux = off;
            in->imm = 1;
        }
        return in->space != (uint8_t)-1;
    }
    static const char *const ops[] = {"init",      "arrive",        "arrive_drop",
                                      "expect_tx", "complete_tx",   "test_wait",
                                      "try_wait",  "pending_count", "inval"};
    int k = take_one(m, ops, 9);
    if (k < 0) return dec_fail(d, "an mbarrier without an operation");
    sp = async_space(m, S_GENERIC);
    bool parity = take(m, "parity"), expect = take(m, "expect_tx");
    take(m, "noComplete");
    if ((in = emit(d, O_ASYNC, T_NONE)) == NULL) return false;
    in->d[0] = SL_SINK;
    in->s[2] = SL_ZERO;
    if (k == 7) { /* pending_count count, state */
        in->sub = AS_PENDING;
        in->s[0] = value(d, &o[1], T_U64);
        return want(d, no, 2, m) && dest(d, &o[0], &in->d[0]);
    }
    bool hasdst = k == 1 || k == 2 || k == 5 || k == 6;
    const opnd *a = &o[hasdst ? 1 : 0];
    if (no < (hasdst ? 2 : 1)) return dec_fail(d, "a bad mbarrier");
    in->space = (uint8_t)async_addr(d, sp, a, &in->s[0], &in->s[1]);
    if (in->space == (uint8_t)-1) return false;
    if (hasdst && !dest(d, &o[0], &in->d[0])) return false;
    int rest = no - (hasdst ? 2 : 1);
    if (k == 0 || k == 3 || k == 4) {
        in->sub = k == 0 ? AS_INIT : k == 3 ? AS_EXPECT : AS_COMPLETE;
        if (rest != 1) return dec_fail(d, "a bad mbarrier.%s", ops[k]);
        in->s[2] = value(d, &o[no - 1], T_U32);
    } else if (k == 1 || k == 2) {
        in->sub = AS_ARRIVE;
        in->imm = k == 2;
        if (rest > 1) return dec_fail(d, "a bad mbarrier.%s", ops[k]);
        in->s[3] = rest == 1 ? value(d, &o[no - 1], T_U32) : dec_const(d, 1);
        if (expect) { /* arrive.expect_tx: the count is the tx-count, the arrival is one */
            in->s[2] = in->s[3];
            in->s[3] = dec_const(d, 1);
        }
    } else if (k == 5 || k == 6) {
        in->sub = parity ? AS_PARITY : AS_TEST;
        if (rest < 1 || rest > 2) return dec_fail(d, "a bad mbarrier.%s", ops[k]);
        in->s[2] = value(d, &o[2], T_U64); /* the state or the parity; a time limit is ignored */
    } else {
        in->sub = AS_INVAL;
        if (rest != 0) return dec_fail(d, "a bad mbarrier.inval");
    }
    return true;
}

static bool nop(dec *d) {
    while (d->l.p < d->l.end && *d->l.p != ';') d->l.p++;
    return ptx__eat(&d->l, ';');
}

bool dec_instruction(dec *d, const char *w, size_t n) {
    mods m;
    if (!split(d, w, n, &m)) return false;
    const char *op = m.op;
    size_t ol = m.oplen;
#define IS(s) ptx__is(op, ol, s)
    if (IS("call")) return call(d, &m);
    if (IS("membar") || IS("fence") || IS("nanosleep") || IS("prefetch") || IS("prefetchu") ||
        IS("pmevent") || IS("griddepcontrol") || IS("setmaxnreg") || IS("discard") ||
        IS("applypriority")) {
        return nop(d);
    }
    if (ptx__is_tex(op, ol)) return ptx__dec_tex(d, w, n);
    static const char *const known[] = {
        "add",     "sub",  "mul",   "div",   "rem",        "min",   "max",          "and",
        "or",      "xor",  "shl",   "shr",   "copysign",   "abs",   "neg",          "not",
        "cnot",    "sqrt", "rcp",   "rsqrt", "sin",        "cos",   "lg2",          "ex2",
        "tanh",    "brev", "clz",   "popc",  "bfind",      "mad",   "fma",          "bfe",
        "selp",    "slct", "prmt",  "sad",   "addc",       "subc",  "bfi",          "lop3",
        "shf",     "setp", "mov",   "cvt",   "cvta",       "ld",    "ldu",          "st",
        "atom",    "red",  "bra",   "ret",   "exit",       "trap",  "bar",          "barrier",
        "shfl",    "vote", "match", "redux", "activemask", "testp", "createpolicy", "cp",
        "mbarrier"};
    bool is_known = false;
    for (size_t i = 0; i < sizeof known / sizeof known[0] && !is_known; i++) {
        is_known = IS(known[i]);
    }
    opnd o[8];
    int no;
    if (d->family_wants != NULL && d->family_wants(&m)) { /* ptx_inst_x.c */
        bool handled;
        return operands(d, o, 8, &no) && d->family(d, &m, o, no, &handled) && all_used(d, &m);
    }
    if (!is_known) {
        return dec_fail(d, "the instruction '%.*s' is not supported by the mock's interpreter",
                        (int)n, w);
    }
    if (!operands(d, o, 8, &no)) return false;
    int t = m.ntypes ? m.type[m.ntypes - 1] : T_NONE;
    bool ok;
    static const struct {
        const char *name;
        int op, kind; /* 2 binary, 1 unary, 3 ternary */
    } table[] = {{"add", O_ADD, 2},           {"sub", O_SUB, 2},     {"mul", O_MUL, 2},
                 {"div", O_DIV, 2},           {"rem", O_REM, 2},     {"min", O_MIN, 2},
                 {"max", O_MAX, 2},           {"and", O_AND, 2},     {"or", O_OR, 2},
                 {"xor", O_XOR, 2},           {"shl", O_SHL, 2},     {"shr", O_SHR, 2},
                 {"copysign", O_COPYSIGN, 2}, {"abs", O_ABS, 1},     {"neg", O_NEG, 1},
                 {"not", O_NOT, 1},           {"cnot", O_CNOT, 1},   {"sqrt", O_SQRT, 1},
                 {"rcp", O_RCP, 1},           {"rsqrt", O_RSQRT, 1}, {"sin", O_SIN, 1},
                 {"cos", O_COS, 1},           {"lg2", O_LG2, 1},     {"ex2", O_EX2, 1},
                 {"tanh", O_TANH, 1},         {"brev", O_BREV, 1},   {"clz", O_CLZ, 1},
                 {"popc", O_POPC, 1},         {"bfind", O_BFIND, 1}, {"mad", O_MAD, 3},
                 {"fma", O_FMA, 3},           {"bfe", O_BFE, 3},     {"selp", O_SELP, 3},
                 {"slct", O_SLCT, 3},         {"prmt", O_PRMT, 3},   {"sad", O_SAD, 3}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!IS(table[i].name)) continue;
        if (table[i].op == O_PRMT) {
            static const char *const pm[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
            int md = take_one(&m, pm, 6);
            ok = ternary(d, &m, O_PRMT, t, o, no);
            if (ok) d->code[d->ncode - 1].sub = (uint8_t)(md + 1);
        } else if (table[i].kind == 2) {
            ok = binary(d, &m, table[i].op, t, o, no);
        } else if (table[i].kind == 1) {
            ok = unary(d, &m, table[i].op, t, o, no);
        } else {
            ok = ternary(d, &m, table[i].op, t, o, no);
        }
        return ok && all_used(d, &m);
    }
    if (IS("addc") || IS("subc"))
        ok = carry_op(d, &m, IS("addc") ? O_ADDC : O_SUBC, t, o, no);
    else if (IS("bfi")) {
        ok = want(d, no, 5, &m) && typed(d, &m, t);
        pinst *in = ok ? emit(d, O_BFI, t) : NULL;
        ok = in != NULL && dest(d, &o[0], &in->d[0]);
        if (ok) {
            in->s[0] = value(d, &o[1], t);
            in->s[1] = value(d, &o[2], t);
            in->s[2] = value(d, &o[3], T_U32);
            in->s[3] = value(d, &o[4], T_U32);
        }
    } else if (IS("lop3")) {
        ok = want(d, no, 5, &m) && o[4].kind == K_IMM;
        pinst *in = ok ? emit(d, O_LOP3, t) : NULL;
        ok = in != NULL && dest(d, &o[0], &in->d[0]);
        if (ok) {
            for (int i = 0; i < 3; i++) in->s[i] = value(d, &o[1 + i], t);
            in->imm = (int64_t)(o[4].v & 0xff);
        }
    } else if (IS("shf")) {
        bool left = take(&m, "l");
        if (!left) take(&m, "r");
        bool clamp = take(&m, "clamp");
        if (!clamp) take(&m, "wrap");
        ok = want(d, no, 4, &m);
        pinst *in = ok ? emit(d, left ? O_SHFL_L : O_SHFL_R, T_U32) : NULL;
        ok = in != NULL && dest(d, &o[0], &in->d[0]);
        if (ok) {
            for (int i = 0; i < 3; i++) in->s[i] = value(d, &o[1 + i], T_U32);
            if (clamp) in->flags |= F_CLAMP;
        }
    } else if (IS("setp"))
        ok = setp(d, &m, t, o, no);
    else if (IS("mov"))
        ok = mov(d, &m, t, o, no);
    else if (IS("cvt"))
        ok = cvt(d, &m, o, no);
    else if (IS("cvta"))
        ok = cvta(d, &m, o, no);
    else if (IS("ld") || IS("ldu"))
        ok = memory(d, &m, true, t, o, no);
    else if (IS("st"))
        ok = memory(d, &m, false, t, o, no);
    else if (IS("atom") || IS("red"))
        ok = atomic(d, &m, IS("red"), t, o, no);
    else if (IS("bra")) {
        ok = want(d, no, 1, &m) && o[0].kind == K_SYM && o[0].name != NULL;
        if (!ok) return dec_fail(d, "a branch whose target is not a label");
        ok = dec_fixup(d, o[0].name, o[0].nlen) && emit(d, O_BRA, T_NONE) != NULL;
        take(&m, "uni");
    } else if (IS("ret") || IS("exit") || IS("trap")) {
        ok = want(d, no, 0, &m) && emit(d,
                                        IS("ret")    ? O_RET
                                        : IS("exit") ? O_EXIT
                                                     : O_TRAP,
                                        T_NONE);
        if (IS("ret") && d->f->entry && ok) d->code[d->ncode - 1].op = OPT(O_EXIT, T_NONE);
    } else if (IS("bar") || IS("barrier") || IS("shfl") || IS("vote") || IS("match") ||
               IS("redux")) {
        ok = collective(d, &m, op, ol, t, o, no);
    } else if (IS("activemask")) {
        pinst *in = want(d, no, 1, &m) ? emit(d, O_ACTIVEMASK, T_NONE) : NULL;
        ok = in != NULL && dest(d, &o[0], &in->d[0]);
    } else if (IS("testp")) {
        static const char *const tp[] = {"finite",     "infinite", "number",
                                         "notanumber", "normal",   "subnormal"};
        int md = take_one(&m, tp, 6);
        ok = md >= 0 && unary(d, &m, O_TESTP, t, o, no);
        if (ok) d->code[d->ncode - 1].sub = (uint8_t)md;
    } else if (IS("createpolicy")) {
        for (int i = 0; i < m.nparts; i++) m.part[i].used = true;
        pinst *in = no >= 1 ? emit(d, O_MOV, T_NONE) : NULL;
        ok = in != NULL && dest(d, &o[0], &in->d[0]);
        if (ok) in->s[0] = SL_ZERO;
    } else if (IS("cp") || IS("mbarrier")) {
        ok = async_op(d, &m, IS("mbarrier"), o, no);
    } else {
        return dec_fail(d, "the instruction '%.*s' is not supported by the mock's interpreter",
                        (int)n, w);
    }
#undef IS
    return ok && all_used(d, &m);
}

/* ------------------------------------------------------------------------------------------ */
/* For the families decoded in ptx_inst_x.c                                                   */
/* ------------------------------------------------------------------------------------------ */

bool dec_take(mods *m, const char *s) { return take(m, s); }
int dec_take_one(mods *m, const char *const *names, int count) { return take_one(m, names, count); }
int dec_rounding(mods *m) { return rounding(m); }
uint32_t dec_value(dec *d, const opnd *o, int t) { return value(d, o, t); }
bool dec_dest(dec *d, const opnd *o, uint32_t *slot) { return dest(d, o, slot); }
bool dec_want(dec *d, int have, int need, const mods *m) { return want(d, have, need, m); }
pinst *dec_op(dec *d, int op, int t) { return emit(d, op, t); }
int dec_access_space(dec *d, int sp, const opnd *a) { return access_space(d, sp, a); }
