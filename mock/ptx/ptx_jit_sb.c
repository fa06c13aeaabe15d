/* (Over 400 lines: the stretch's analysis and its C share the per-point sets of the stretch
 * structure below; apart, that structure and its helpers would sit in a header for one reader.)
 *
 * A straight-line stretch of compiled instructions as C (ptx_jit_int.h): the compiling tier's
 * unit of code. A stretch runs from an instruction the tier compiles to the next unconditional
 * branch or exit, or to an instruction it leaves to the interpreter; guarded branches inside it
 * leave it, jump forward within it, or loop back to its start.
 *
 * Each register slot the stretch touches lives in a local array of 32 lanes for the whole
 * stretch (32-bit lanes where the value is 32 bits, so that the compiler's vector instructions
 * take eight lanes at a time), loaded from the interpreter's register block where the stretch
 * may be entered and stored back only where it may be left, only the slots written and live
 * there. Which slots a point loads:
 *   - without a loop back: those read before written from there on (a guarded write counts as
 *     a read), and those written before it that a later read or exit uses (an entry in the
 *     middle finds them in the block, not in the arrays); a jump forward loads what its target
 *     needs and the code it skips did not write;
 *   - with a loop back: every slot touched, at every entry, so that every array holds the
 *     slot's value at every point and the loop's own jumps load nothing.
 * A slot's array is 32 bits wide when the slot always holds a zero-extended 32-bit value (zx),
 * or when the stretch never writes it and reads only its low half. */
#include <stdlib.h>
#include <string.h>

#include "ptx_jit_int.h"
#include "ptx_val.h"

#define HAS(set, q) (((set)[(q) / 64] >> ((q) % 64)) & 1)
#define ADD(set, q) ((set)[(q) / 64] |= 1ull << ((q) % 64))

typedef struct stretch {
    const pjit_kernel *g;
    pjit_sbuf *s;
    size_t s0, e, words;
    bool loop;
    uint64_t *W;   /* per point p in [s0, e]: written in [s0, p) */
    uint64_t *RBW; /* read before written from p on */
    uint64_t *U;   /* read from p on, or live where the stretch may be left from p on */
    uint64_t *touched, *written, *wide, *tmp;
    uint8_t *narrow, *jt; /* per slot; per point: a jump inside lands here */
} stretch;

static uint64_t *at(const stretch *t, uint64_t *sets, size_t p) {
    return sets + (p - t->s0) * t->words;
}

/* Live on entry to p (the interpreter's), into out. */
static void live_at(const stretch *t, size_t p, uint64_t *out) {
    if (t->g->live == NULL)
        memset(out, 0xff, t->words * 8);
    else
        memcpy(out, t->g->live + p * t->words, t->words * 8);
}

/* The slots in[j] reads (a guarded write counts) and those it writes whatever its guard. */
static int reads_of(const pinst *in, int kind, uint32_t *r) {
    int n = 0;
    if (kind == K_LANE) {
        uint32_t w[2];
        n = ptx__jit_lane_reads(in, r);
        int nw = ptx__jit_lane_writes(in, w);
        if (in->guard != SL_TRUE)
            for (int q = 0; q < nw; q++) r[n++] = w[q];
        return n;
    }
    if (in->guard != SL_TRUE) r[n++] = in->guard;
    if (kind == K_MEM) {
        r[n++] = in->s[0];
        if (in->op / T_COUNT == O_ST || in->guard != SL_TRUE) r[n++] = in->d[0];
    }
    return n;
}

static int writes_of(const pinst *in, int kind, uint32_t *w) {
    if (kind == K_LANE) return ptx__jit_lane_writes(in, w);
    if (kind == K_MEM && in->op / T_COUNT == O_LD) {
        w[0] = in->d[0];
        return 1;
    }
    return 0;
}

/* Where the branch at j goes: 0 out of the stretch, 1 forward within it, 2 back within it. */
static int branch_to(const stretch *t, size_t j) {
    size_t to = (size_t)t->g->k->code[j].imm;
    if (to >= t->g->nc || to < t->s0 || to >= t->e) return 0;
    return to > j ? 1 : 2;
}

/* The live sets of the ways out of the stretch at instruction j, added to out. */
static void exits_at(const stretch *t, size_t j, uint64_t *out) {
    const pinst *in = &t->g->k->code[j];
    int kind = t->g->kinds[j];
    bool here = kind == K_MEM || (kind != K_LANE && in->guard != SL_TRUE);
    if (kind == K_BRA && (size_t)in->imm >= t->g->nc) here = true;
    if (here) {
        live_at(t, j, t->tmp);
        for (size_t q = 0; q < t->words; q++) out[q] |= t->tmp[q];
    }
    if (kind == K_BRA && (size_t)in->imm < t->g->nc && branch_to(t, j) != 1) {
        live_at(t, (size_t)in->imm, t->tmp);
        for (size_t q = 0; q < t->words; q++) out[q] |= t->tmp[q];
    }
}

static bool analyse(stretch *t) {
    const pjit_kernel *g = t->g;
    size_t w = t->words, len = t->e - t->s0 + 1;
    if (w == 0 || len > (64u << 20) / 8 / w) return false;
    t->W = calloc(len * w, 8);
    t->RBW = calloc(len * w, 8);
    t->U = calloc(len * w, 8);
    t->touched = calloc(5 * w, 8);
    t->narrow = calloc(g->k->nslots + 1, 1);
    t->jt = calloc(len, 1);
    if (!t->W || !t->RBW || !t->U || !t->touched || !t->narrow || !t->jt) return false;
    t->written = t->touched + w;
    t->wide = t->touched + 2 * w;
    t->tmp = t->touched + 3 * w;
    for (size_t j = t->s0; j < t->e; j++) {
        const pinst *in = &g->k->code[j];
        uint32_t r[8], wr[2];
        int nr = reads_of(in, g->kinds[j], r), nw = writes_of(in, g->kinds[j], wr);
        memcpy(at(t, t->W, j + 1), at(t, t->W, j), w * 8);
        for (int q = 0; q < nw; q++) {
            if (g->konst[wr[q]]) continue;
            ADD(at(t, t->W, j + 1), wr[q]);
            ADD(t->written, wr[q]);
            ADD(t->touched, wr[q]);
        }
        for (int q = 0; q < nr; q++) {
            if (g->konst[r[q]]) continue;
            ADD(t->touched, r[q]);
            if (!ptx__jit_reads32(in, g->kinds[j], r[q])) ADD(t->wide, r[q]);
        }
        if (g->kinds[j] == K_BRA && branch_to(t, j) != 0) {
            t->jt[(size_t)in->imm - t->s0] = 1;
            if (branch_to(t, j) == 2) t->loop = true;
        }
    }
    /* Backwards: what is read before written, and what is used, from each point on. The end
     * (the interpreter's next instruction, or the end of the code) is left with its live set. */
    const pinst *last = &g->k->code[t->e - 1];
    bool falls =
        !((g->kinds[t->e - 1] == K_BRA && (last->guard == SL_TRUE || (size_t)last->imm >= g->nc)) ||
          (g->kinds[t->e - 1] == K_EXIT && last->guard == SL_TRUE));
    if (falls) live_at(t, t->e, at(t, t->U, t->e));
    for (size_t j = t->e; j-- > t->s0;) {
        const pinst *in = &g->k->code[j];
        uint32_t r[8], wr[2];
        int nr = reads_of(in, g->kinds[j], r), nw = writes_of(in, g->kinds[j], wr);
        uint64_t *rb = at(t, t->RBW, j), *u = at(t, t->U, j);
        memcpy(rb, at(t, t->RBW, j + 1), w * 8);
        memcpy(u, at(t, t->U, j + 1), w * 8);
        if (in->guard == SL_TRUE)
            for (int q = 0; q < nw; q++) rb[wr[q] / 64] &= ~(1ull << (wr[q] % 64));
        for (int q = 0; q < nr; q++) {
            if (g->konst[r[q]]) continue;
            ADD(rb, r[q]);
            ADD(u, r[q]);
        }
        exits_at(t, j, u);
        /* A jump forward uses what its target needs. */
        if (g->kinds[j] == K_BRA && branch_to(t, j) == 1) {
            const uint64_t *tu = at(t, t->U, (size_t)in->imm);
            for (size_t q = 0; q < w; q++) u[q] |= tu[q];
        }
    }
    for (uint32_t q = 0; q < g->k->nslots; q++)
        t->narrow[q] =
            HAS(t->touched, q) && (g->zx[q] || (!HAS(t->written, q) && !HAS(t->wide, q)));
    return true;
}

/* What a point p needs in the arrays: everything touched in a loop; else what is read before
 * written from p on, and what was written before p and is used from p on. */
static void needs(const stretch *t, size_t p, uint64_t *out) {
    const uint64_t *rb = at(t, t->RBW, p), *wr = at(t, t->W, p), *u = at(t, t->U, p);
    for (size_t q = 0; q < t->words; q++) out[q] = t->loop ? t->touched[q] : rb[q] | (wr[q] & u[q]);
}

/* One loop over the lanes moving the slots of set between the arrays and the block (a scalar
 * loaded from lane 0, stored to every lane). */
static void move(stretch *t, const uint64_t *set, bool load) {
    const pjit_kernel *g = t->g;
    bool any = false;
    for (uint32_t q = 0; load && q < g->k->nslots; q++) {
        if (HAS(set, q) && g->uni[q] && pjit_blk(q) >= 0)
            ptx__jit_put(t->s, "  v%u = c->blk[%d];\n", q, pjit_blk(q));
        else if (HAS(set, q) && (g->uni[q] || g->lu[q]))
            ptx__jit_put(t->s, "  v%u = R[%uu * 32];\n", q, q);
    }
    for (uint32_t q = 0; q < g->k->nslots; q++) {
        if (!HAS(set, q) || (g->scalar[q] && (load || !g->lu[q]))) continue;
        if (!any) ptx__jit_put(t->s, "  for (unsigned l = 0; l < 32; l++) {");
        any = true;
        if (load)
            ptx__jit_put(t->s, " v%u[l] = %sR[%uu * 32 + l];", q, t->narrow[q] ? "(uint32_t)" : "",
                         q);
        else
            ptx__jit_put(t->s, " R[%uu * 32 + l] = v%u%s;", q, q, g->lu[q] ? "" : "[l]");
    }
    if (any) ptx__jit_put(t->s, " }\n");
}

/* After move loaded set: "  if (<a loaded lu slot's lanes disagree>)" for the caller's way
 * out, and true; false (nothing written) where set holds none. */
static bool lu_check(stretch *t, const uint64_t *set) {
    bool any = false;
    for (uint32_t q = 0; q < t->g->k->nslots; q++) {
        if (!HAS(set, q) || !t->g->lu[q]) continue;
        ptx__jit_put(t->s, any ? " | differ(R + %uu * 32)" : "  if (differ(R + %uu * 32)", q);
        any = true;
    }
    if (any) ptx__jit_put(t->s, ")");
    return any;
}

/* Leaving at instruction p towards `to` (live there): the written slots stored, then `go`. */
static void leave(stretch *t, size_t p, size_t to, const char *go) {
    live_at(t, to, t->tmp);
    const uint64_t *wr = t->loop ? t->written : at(t, t->W, p);
    for (size_t q = 0; q < t->words; q++) t->tmp[q] &= wr[q];
    ptx__jit_put(t->s, "  {\n");
    move(t, t->tmp, false);
    ptx__jit_put(t->s, "  %s }\n", go);
}

static void bail(stretch *t, size_t j) {
    char go[64];
    snprintf(go, sizeof go, "c->pc = %zu; goto bail;", j);
    leave(t, j, j, go);
}

/* The guard of in as a mask in gm. */
static void guard(stretch *t, const pinst *in) {
    uint32_t g = in->guard;
    if (t->g->scalar[g])
        ptx__jit_put(t->s, "  gm = (v%u & 1) ? 0xffffffffu : 0;\n", g);
    else
        ptx__jit_put(t->s, "  gm = gmask%d(v%u);\n", t->narrow[g] ? 32 : 64, g);
    if (in->gneg) ptx__jit_put(t->s, "  gm = ~gm;\n");
}

static void name(const stretch *t, uint32_t q, const char *lane, char *out, size_t n) {
    if (t->g->scalar[q])
        snprintf(out, n, "v%u", q);
    else
        snprintf(out, n, "v%u[%s]", q, lane);
}

/* Whether lane-wise instruction j writes scalars (lu slots: all it writes, or none). */
static bool writes_scalar(const stretch *t, size_t j) {
    uint32_t w[2];
    return ptx__jit_lane_writes(&t->g->k->code[j], w) > 0 && t->g->lu[w[0]];
}

/* A run [i, e) of lane-wise instructions as one loop over the lanes, or, where they write
 * scalars (sc: their operands are scalars too), as plain statements in order. */
static void lanes(stretch *t, size_t i, size_t e, bool sc) {
    const pjit_kernel *g = t->g;
    if (sc)
        ptx__jit_put(t->s, "  n += %zu;\n  {\n", e - i);
    else
        ptx__jit_put(
            t->s, "  n += %zu;\n#pragma GCC ivdep\n  for (unsigned l = 0; l < 32; l++) {\n", e - i);
    for (size_t j = i; j < e; j++) {
        const pinst *in = &g->k->code[j];
        char ex[512], a[24], b[24], gd[24];
        uint32_t w[2];
        int nw = ptx__jit_lane_writes(in, w);
        if (nw == 0) continue;
        ptx__jit_lane_expr(in, g->k, g->scalar, ex, sizeof ex);
        name(t, w[0], "l", a, sizeof a);
        ptx__jit_put(t->s, "    { uint64_t x = %s;", ex);
        if (in->guard != SL_TRUE) {
            name(t, in->guard, "l", gd, sizeof gd);
            ptx__jit_put(t->s, " if (GUARD(%s, %d))", gd, in->gneg != 0);
        }
        if (nw == 2) {
            name(t, w[1], "l", b, sizeof b);
            ptx__jit_put(t->s, " { %s = x; %s = !x; } }\n", a, b);
        } else {
            ptx__jit_put(t->s, " %s = x; }\n", a);
        }
    }
    ptx__jit_put(t->s, "  }\n");
}

/* A global or shared load or store of the whole warp, instruction j. */
static void mem(stretch *t, size_t j) {
    const pinst *in = &t->g->k->code[j];
    int ty = in->op % T_COUNT;
    bool ld = in->op / T_COUNT == O_LD, a32 = (in->flags & F_ADDR32) != 0;
    bool shared = in->space == S_SHARED, dn = t->narrow[in->d[0]] && !t->g->scalar[in->d[0]];
    unsigned nb = (unsigned)bits_of(ty) / 8;
    unsigned long long imm = (unsigned long long)in->imm;
    const char *keep = a32 ? "(uint32_t)" : "";
    const char *base = shared ? "(sm + " : "((unsigned char *)(uintptr_t)";
    char x[24], x0[24], d[24];
    name(t, in->s[0], "l", x, sizeof x);
    name(t, in->s[0], "0", x0, sizeof x0);
    name(t, in->d[0], "l", d, sizeof d);
    if (in->guard != SL_TRUE) {
        guard(t, in);
        ptx__jit_put(t->s, "  if (gm == 0) goto skip%zu;\n  if (gm != 0xffffffffu)", j);
        bail(t, j);
    }
    ptx__jit_put(t->s, "  {\n    uint64_t a0 = %s(%s + %lluull);\n", keep, x0, imm);
    if (shared) {
        ptx__jit_put(t->s, "    unsigned char *sm = c->smem;\n    uint64_t lb = 0, "
                           "span = c->smem_size;\n");
    } else {
        ptx__jit_put(t->s,
                     "    unsigned k = 0;\n    while (k < 3 && a0 - lo[k] >= hi[k] - lo[k]) k++;\n"
                     "    uint64_t lb = lo[k], span = hi[k] - lo[k];\n");
    }
    /* cons: the lanes' addresses are not a0, a0 + nb, ... (then the first and the last say
     * whether all lie in [lb, lb + span - nb], aligned). A load whose halves (lanes 0-15 and
     * 16-31) each read one word or 16 consecutive ones (hd == 0: a 16x16 tile's row or column,
     * two rows of threads a warp) has each half's run checked so; else each lane's is. */
    ptx__jit_put(t->s,
                 "    uint64_t cons = 0, bad%s;\n"
                 "    for (unsigned l = 0; l < 32; l++) cons |= %s(%s + %lluull) ^ (a0 + l * %u);\n"
                 "    if (cons == 0) bad = span < %u || a0 - lb > span - %u || (a0 & %u);\n"
                 "    else {\n",
                 ld ? ", hd = 1, h0 = 0, h1 = 0, s0 = 0, s1 = 0" : "", keep, x, imm, nb, 32 * nb,
                 32 * nb, nb - 1);
    if (ld) {
        char x16[24], xl16[32], x1[24], x17[24];
        name(t, in->s[0], "16", x16, sizeof x16);
        name(t, in->s[0], "l + 16", xl16, sizeof xl16);
        name(t, in->s[0], "1", x1, sizeof x1);
        name(t, in->s[0], "17", x17, sizeof x17);
        ptx__jit_put(
            t->s,
            "      h0 = a0; h1 = %s(%s + %lluull); s0 = %s(%s + %lluull) - h0;\n"
            "      s1 = %s(%s + %lluull) - h1;\n"
            "      hd = (s0 != 0 && s0 != %u) | (s1 != 0 && s1 != %u);\n"
            "      for (unsigned l = 0; l < 16; l++)\n"
            "        hd |= (%s(%s + %lluull) ^ (h0 + l * s0)) | (%s(%s + %lluull) ^ (h1 + l "
            "* s1));\n"
            "    }\n"
            "    if (cons != 0 && hd == 0) {\n"
            "      uint64_t r0 = 15 * s0 + %u, r1 = 15 * s1 + %u;\n"
            "      bad = span < r0 || span < r1 || h0 - lb > span - r0 || h1 - lb > span - "
            "r1 || ((h0 | h1) & %u);\n"
            "    } else if (cons != 0) {\n",
            keep, x16, imm, keep, x1, imm, keep, x17, imm, nb, nb, keep, x, imm, keep, xl16, imm,
            nb, nb, nb - 1);
    }
    ptx__jit_put(t->s,
                 "      uint64_t lim = span - %u; bad = span < %u;\n"
                 "      for (unsigned l = 0; l < 32; l++) { uint64_t a = %s(%s + %lluull);\n"
                 "        bad |= (uint64_t)(a - lb > lim) | (a & %u); } }\n"
                 "    if (bad)",
                 nb, nb, keep, x, imm, nb - 1);
    bail(t, j);
    ptx__jit_put(t->s, "    unsigned char *q = %sa0);\n", base);
    const char *rd = nb == 8 ? "ld_u64" : ty == T_S32 ? "ld_s32" : "ld_u32";
    const char *wt = nb == 8 ? "uint64_t" : "uint32_t";
    bool whole = !t->g->scalar[in->d[0]] && (nb == 8 || (dn && ty != T_S32)) && (nb == 4) == dn;
    if (ld) {
        /* A loop even for a whole array, not memcpy: gcc copies 128 bytes in 16-byte moves,
         * and the next loop's 32-byte loads of the array then wait for those stores (no store
         * forwarding). */
        char d16[32];
        name(t, in->d[0], "l + 16", d16, sizeof d16);
        ptx__jit_put(t->s,
                     "    if (cons == 0) for (unsigned l = 0; l < 32; l++) %s = %s(q + l * %u);\n",
                     d, rd, nb);
        /* Each half a word read once or a run of 16 (constant strides: vector loops). */
        ptx__jit_put(t->s,
                     "    else if (hd == 0) {\n"
                     "      unsigned char *p0 = %sh0), *p1 = %sh1);\n"
                     "      if (s0 == 0) { uint64_t w = %s(p0); for (unsigned l = 0; l < 16; l++) "
                     "%s = w; }\n"
                     "      else for (unsigned l = 0; l < 16; l++) %s = %s(p0 + l * %u);\n"
                     "      if (s1 == 0) { uint64_t w = %s(p1); for (unsigned l = 0; l < 16; l++) "
                     "%s = w; }\n"
                     "      else for (unsigned l = 0; l < 16; l++) %s = %s(p1 + l * %u);\n"
                     "    }\n",
                     base, base, rd, d, d, rd, nb, rd, d16, d16, rd, nb);
        ptx__jit_put(t->s,
                     "    else for (unsigned l = 0; l < 32; l++) %s = %s(%s%s(%s + %lluull)));\n",
                     d, rd, base, keep, x, imm);
    } else {
        if (whole)
            ptx__jit_put(t->s, "    if (cons == 0) memcpy(q, v%u, %u);\n", in->d[0], 32 * nb);
        else
            ptx__jit_put(t->s,
                         "    if (cons == 0) for (unsigned l = 0; l < 32; l++) { %s v = (%s)%s; "
                         "memcpy(q + l * %u, &v, %u); }\n",
                         wt, wt, d, nb, nb);
        ptx__jit_put(t->s,
                     "    else for (unsigned l = 0; l < 32; l++) { %s v = (%s)%s; memcpy(%s%s(%s + "
                     "%lluull)), &v, %u); }\n",
                     wt, wt, d, base, keep, x, imm, nb);
    }
    ptx__jit_put(t->s, "  }\n");
    if (in->guard != SL_TRUE) ptx__jit_put(t->s, "skip%zu:\n", j);
    ptx__jit_put(t->s, "  n++;\n");
}

/* The branch at j taken by the whole warp. */
static void taken(stretch *t, size_t j) {
    size_t to = (size_t)t->g->k->code[j].imm;
    int where = branch_to(t, j);
    char go[96];
    ptx__jit_put(t->s, "  n++;\n");
    if (where == 1) { /* forward within: what the target needs that the skipped code wrote */
        needs(t, to, t->tmp);
        const uint64_t *wr = at(t, t->W, j);
        for (size_t q = 0; q < t->words; q++) t->tmp[q] &= ~wr[q];
        if (!t->loop) {
            move(t, t->tmp, true);
            snprintf(go, sizeof go, "c->pc = %zu; goto bail;", to);
            if (lu_check(t, t->tmp)) leave(t, j, to, go);
        }
        ptx__jit_put(t->s, "  goto I%zu;\n", to);
        return;
    }
    if (to <= j) {
        snprintf(go, sizeof go, "c->pc = %zu; goto yield;", to);
        ptx__jit_put(t->s, "  if (n >= c->budget)");
        leave(t, j, to, go);
    }
    if (where == 2) {
        ptx__jit_put(t->s, "  goto I%zu;\n", to);
        return;
    }
    if (t->g->entry[to])
        snprintf(go, sizeof go, "goto L%zu;", to);
    else
        snprintf(go, sizeof go, "c->pc = %zu; goto bail;", to);
    leave(t, j, to, go);
}

static void branch(stretch *t, size_t j) {
    const pinst *in = &t->g->k->code[j];
    if ((size_t)in->imm >= t->g->nc) {
        bail(t, j);
        return;
    }
    if (in->guard == SL_TRUE) {
        taken(t, j);
        return;
    }
    guard(t, in);
    ptx__jit_put(t->s, "  if (gm == 0xffffffffu) {\n");
    taken(t, j);
    ptx__jit_put(t->s, "  }\n  if (gm != 0)");
    bail(t, j);
    ptx__jit_put(t->s, "  n++;\n");
}

static void exits(stretch *t, size_t j) {
    const pinst *in = &t->g->k->code[j];
    if (in->guard == SL_TRUE) {
        ptx__jit_put(t->s, "  n++; c->pc = %zu; goto leave;\n", j + 1);
        return;
    }
    guard(t, in);
    ptx__jit_put(t->s, "  if (gm == 0xffffffffu) { n++; c->pc = %zu; goto leave; }\n", j + 1);
    ptx__jit_put(t->s, "  if (gm != 0)");
    bail(t, j);
    ptx__jit_put(t->s, "  n++;\n");
}

/* The most stack a stretch's arrays may take: compiled code runs on whatever thread launched
 * the kernel, whose stack may be small. A larger stretch is left to the interpreter. */
#define STACK_MAX (64u << 10)

static void emit(stretch *t) {
    const pjit_kernel *g = t->g;
    size_t bytes = 0;
    for (uint32_t q = 0; q < g->k->nslots; q++)
        if (HAS(t->touched, q) && !g->uni[q] && !g->lu[q]) bytes += t->narrow[q] ? 128 : 256;
    if (bytes > STACK_MAX) {
        for (size_t j = t->s0; j < t->e; j++)
            if (g->entry[j]) ptx__jit_put(t->s, "L%zu:\n  c->pc = %zu; goto bail;\n", j, j);
        return;
    }
    ptx__jit_put(t->s, "  { /* instructions %zu to %zu */\n", t->s0, t->e - 1);
    for (uint32_t q = 0; q < g->k->nslots; q++) {
        if (HAS(t->touched, q) && (g->uni[q] || g->lu[q]))
            ptx__jit_put(t->s, "  uint64_t v%u;\n", q);
        else if (HAS(t->touched, q))
            ptx__jit_put(t->s, "  uint%d_t v%u[32] __attribute__((aligned(32)));\n",
                         t->narrow[q] ? 32 : 64, q);
    }
    for (size_t j = t->s0; j < t->e;) {
        if (g->entry[j]) {
            if (j != t->s0) ptx__jit_put(t->s, "  goto I%zu;\n", j);
            ptx__jit_put(t->s, "L%zu:;\n", j);
            needs(t, j, t->tmp);
            move(t, t->tmp, true);
            if (lu_check(t, t->tmp)) ptx__jit_put(t->s, " { c->pc = %zu; goto bail; }\n", j);
        }
        if (g->entry[j] || t->jt[j - t->s0]) ptx__jit_put(t->s, "I%zu:;\n", j);
        int kind = g->kinds[j];
        if (kind == K_LANE) {
            size_t e = j + 1;
            bool sc = writes_scalar(t, j);
            while (e < t->e && g->kinds[e] == K_LANE && !g->entry[e] && !t->jt[e - t->s0] &&
                   writes_scalar(t, e) == sc)
                e++;
            lanes(t, j, e, sc);
            j = e;
            continue;
        }
        if (kind == K_MEM) mem(t, j);
        if (kind == K_BRA) branch(t, j);
        if (kind == K_EXIT) exits(t, j);
        j++;
    }
    const pinst *last = &g->k->code[t->e - 1];
    bool ends =
        (g->kinds[t->e - 1] == K_BRA && (last->guard == SL_TRUE || (size_t)last->imm >= g->nc)) ||
        (g->kinds[t->e - 1] == K_EXIT && last->guard == SL_TRUE);
    if (!ends) bail(t, t->e);
    ptx__jit_put(t->s, "  }\n");
}

bool ptx__jit_stretch(pjit_sbuf *out, const pjit_kernel *g, size_t s, size_t e) {
    stretch t = {.g = g, .s = out, .s0 = s, .e = e, .words = g->words};
    bool ok = analyse(&t);
    if (ok) emit(&t);
    free(t.W);
    free(t.RBW);
    free(t.U);
    free(t.touched);
    free(t.narrow);
    free(t.jt);
    return ok;
}
