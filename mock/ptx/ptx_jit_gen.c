/* A kernel's decoded instructions as C for the compiling tier (ptx_jit.h).
 *
 * The text is made from the decoder's slots only (opcodes, register indexes, immediates, branch
 * targets: numbers), never from the module's PTX, so no PTX can put code of its own into what
 * the host's compiler reads. Each instruction compiled means what ptx_exec.c's case for it
 * means, bit for bit; everything else (and any case the interpreter would do otherwise, a guard
 * the lanes disagree on, an access it would check the slow way) returns to the interpreter.
 *
 * Here: the entry points, the slots that hold one literal for the whole launch, those that always
 * hold a zero-extended 32-bit value, which slots are live where, and the kernel cut into
 * straight-line stretches (ptx_jit_sb.c makes each one's C). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_jit_int.h"
#include "ptx_val.h"

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
                nr = ptx__jit_lane_reads(c, r);
                nw = ptx__jit_lane_writes(c, w);
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

static uint64_t kval(const mock_ptx_func *k, uint32_t slot) {
    return slot == SL_TRUE ? 1 : slot == SL_FALSE || slot == SL_ZERO ? 0 : k->init[slot];
}

/* Slots that hold the same value in every lane for the whole launch: the decoder's constants
 * (from const_start) and true, false and zero, where no instruction may write them (none names
 * them as a destination, and none the tier leaves to the interpreter names a constant at all).
 * Their values are literals in the code. */
static void constants(const mock_ptx_func *k, const uint8_t *kinds, uint8_t *konst) {
    konst[SL_TRUE] = konst[SL_FALSE] = konst[SL_ZERO] = 1;
    for (uint32_t q = k->const_start; q < k->nslots; q++) konst[q] = 1;
    for (size_t j = 0; j < k->ncode; j++) {
        const pinst *c = &k->code[j];
        for (int q = 0; q < 4; q++) {
            if (c->d[q] < k->nslots) konst[c->d[q]] = 0;
            if (kinds[j] == K_NO && c->s[q] < k->nslots && c->s[q] >= k->const_start)
                konst[c->s[q]] = 0;
        }
        if (kinds[j] == K_NO && c->guard < k->nslots && c->guard >= k->const_start)
            konst[c->guard] = 0;
    }
}

/* Slots whose every lane always holds a 32-bit value zero-extended, in the register block and
 * so in what compiled code loads: special registers the launch sets (32-bit, never written),
 * constants below 2^32, and registers that only compiled instructions write (the interpreter
 * runs the same instructions to the same bits), each write 32 bits wide. The block starts
 * zeroed. */
static void zero_extended(const mock_ptx_func *k, const uint8_t *kinds, uint8_t *zx) {
    for (uint32_t q = 0; q < k->nslots; q++)
        zx[q] = q >= k->const_start ? k->init[q] >> 32 == 0
                                    : q != SL_SINK && q != SL_CARRY && q != SL_FRAME;
    for (size_t j = 0; j < k->ncode; j++) {
        const pinst *c = &k->code[j];
        if (kinds[j] != K_NO) continue;
        for (int q = 0; q < 4; q++) {
            if (c->d[q] < k->nslots) zx[c->d[q]] = 0;
            if (c->s[q] < k->nslots) zx[c->s[q]] = 0;
        }
        if (c->guard < k->nslots) zx[c->guard] = 0;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t j = 0; j < k->ncode; j++) {
            const pinst *c = &k->code[j];
            uint32_t w[2];
            int nw = 0;
            if (kinds[j] == K_LANE) nw = ptx__jit_lane_writes(c, w);
            if (kinds[j] == K_MEM && c->op / T_COUNT == O_LD) w[nw++] = c->d[0];
            if (nw == 0 || ptx__jit_writes_zx(c, kinds[j], zx)) continue;
            for (int q = 0; q < nw; q++) {
                changed |= zx[w[q]] != 0;
                zx[w[q]] = 0;
            }
        }
    }
}

/* Special registers that hold one value for every lane of a warp (the block's index, its and
 * the grid's dimensions, ...), where no instruction names them as a destination: compiled code
 * loads lane 0's into a scalar. */
static void uniforms(const mock_ptx_func *k, uint8_t *uni) {
    static const uint32_t same[] = {SL_NTID,   SL_NTIDY,  SL_NTIDZ,   SL_CTAID,   SL_CTAIDY,
                                    SL_CTAIDZ, SL_NCTAID, SL_NCTAIDY, SL_NCTAIDZ, SL_NWARP,
                                    SL_SMID,   SL_NSMID,  SL_DYNSMEM, SL_TOTSMEM, SL_GRIDID};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (same[i] < k->nslots) uni[same[i]] = 1;
    for (size_t j = 0; j < k->ncode; j++) {
        for (int q = 0; q < 4; q++)
            if (k->code[j].d[q] < k->nslots) uni[k->code[j].d[q]] = 0;
    }
}

/* Registers likely to hold one value in every lane of a warp wherever compiled code reads them
 * (lu): written only by compiled lane-wise instructions whose operands and guard are such values
 * (or constants, or uniform special registers), outside code that a branch the lanes may
 * disagree on skips or repeats. Compiled code keeps each in one C scalar. That is exact
 * within a stretch (compiled code runs whole warps only); where a stretch loads one from the
 * register block (the interpreter may have written lanes apart), it checks that the 32 lanes
 * agree and hands back to the interpreter where they do not, so this only guesses well, and
 * a wrong guess costs speed, not correctness. */
static void warp_uniform(const mock_ptx_func *k, const uint8_t *kinds, const uint8_t *konst,
                         const uint8_t *uni, const uint64_t *live, size_t words, uint8_t *lu) {
    size_t nc = k->ncode;
    for (uint32_t q = SL_RESERVED; q < k->nslots; q++) lu[q] = !konst[q];
    for (size_t j = 0; j < nc; j++) {
        const pinst *c = &k->code[j];
        if (kinds[j] == K_LANE) continue;
        for (int q = 0; q < 4; q++)
            if (c->d[q] < k->nslots) lu[c->d[q]] = 0;
    }
#define SCALAR(q) (konst[q] || uni[q] || lu[q])
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t j = 0; j < nc; j++) {
            const pinst *c = &k->code[j];
            uint32_t r[8], w[2];
            int nw = kinds[j] == K_LANE ? ptx__jit_lane_writes(c, w) : 0;
            bool same = true;
            if (kinds[j] == K_LANE) {
                int nr = ptx__jit_lane_reads(c, r);
                for (int q = 0; q < nr; q++) same &= SCALAR(r[q]) != 0;
                for (int q = 0; q < nw; q++) same &= lu[w[q]] != 0; /* all or none */
            }
            if (!same) {
                for (int q = 0; q < nw; q++) {
                    changed |= lu[w[q]] != 0;
                    lu[w[q]] = 0;
                }
            }
            /* A branch the lanes may disagree on: what the code it skips (forward, to the
             * join, past an else part's unconditional jump) or repeats (backward) writes
             * differs between lanes after it, where it is read after the join (live there). */
            if (c->op / T_COUNT != O_BRA || SCALAR(c->guard) || (size_t)c->imm >= nc) continue;
            size_t from = (size_t)c->imm <= j ? (size_t)c->imm : j + 1;
            size_t to = (size_t)c->imm <= j ? j + 1 : (size_t)c->imm;
            for (size_t i = from; i < to && i < nc; i++) {
                const pinst *x = &k->code[i];
                if (x->op / T_COUNT == O_BRA && x->guard == SL_TRUE && (size_t)x->imm > to &&
                    (size_t)x->imm <= nc)
                    to = (size_t)x->imm;
            }
            const uint64_t *after = live != NULL && to <= nc ? live + to * words : NULL;
            for (size_t i = from; i < to && i < nc; i++) {
                const pinst *x = &k->code[i];
                for (int q = 0; q < 4; q++) {
                    uint32_t d = x->d[q];
                    if (d >= k->nslots || !lu[d]) continue;
                    if (after != NULL && !((after[d / 64] >> (d % 64)) & 1)) continue;
                    lu[d] = 0;
                    changed = true;
                }
            }
        }
    }
#undef SCALAR
}

/* Where a stretch ends: after an unconditional branch or exit, or a branch out of the code. */
static bool ends_stretch(const pinst *c, int kind, size_t nc) {
    return (kind == K_BRA && (c->guard == SL_TRUE || (size_t)c->imm >= nc)) ||
           (kind == K_EXIT && c->guard == SL_TRUE);
}

char *ptx__jit_source(const mock_ptx_func *k, uint8_t *entry, bool *whole) {
    size_t nc = k->ncode;
    const pinst *code = k->code;
    uint8_t *kinds = malloc(nc + 1), *leader = calloc(nc + 1, 1);
    uint8_t *konst = calloc((size_t)k->nslots + 1, 1), *zx = calloc((size_t)k->nslots + 1, 1);
    uint8_t *uni = calloc((size_t)k->nslots + 1, 1), *scalar = calloc((size_t)k->nslots + 1, 1);
    uint8_t *lu = calloc((size_t)k->nslots + 1, 1);
    pjit_sbuf s = {0};
    if (kinds == NULL || leader == NULL || konst == NULL || zx == NULL || uni == NULL ||
        scalar == NULL || lu == NULL) {
        s.bad = true;
        goto out;
    }
    /* Entry points: the start, branch targets, and what follows a branch or an instruction
     * the interpreter runs (where it hands back). */
    leader[0] = 1;
    for (size_t j = 0; j < nc; j++) {
        kinds[j] = (uint8_t)ptx__jit_kind(&code[j], k);
        if (kinds[j] == K_BRA && (size_t)code[j].imm < nc) leader[code[j].imm] = 1;
        if (kinds[j] == K_BRA || kinds[j] == K_NO || kinds[j] == K_EXIT) leader[j + 1] = 1;
    }
    for (size_t j = 0; j < nc; j++) entry[j] = leader[j] && kinds[j] != K_NO;
    constants(k, kinds, konst);
    zero_extended(k, kinds, zx);
    uniforms(k, uni);
    /* A kernel with an instruction left to the interpreter (a barrier, a collective, a call)
     * stops every warp there: its blocks gain nothing from a first turn run compiled. */
    *whole = uni[SL_CTAID] && uni[SL_CTAIDY] && uni[SL_CTAIDZ] && uni[SL_SMID];
    for (size_t j = 0; j < nc; j++) *whole = *whole && kinds[j] != K_NO;
    size_t words = ((size_t)k->nslots + 63) / 64;
    uint64_t *live = liveness(k, kinds, words);
    warp_uniform(k, kinds, konst, uni, live, words, lu);
    for (uint32_t q = 0; q < k->nslots; q++) scalar[q] = konst[q] || uni[q] || lu[q];
    pjit_kernel g = {k, nc, words, kinds, entry, konst, uni, lu, scalar, zx, live};
    ptx__jit_put(&s,
                 "/* cushim mock: kernel code compiled from decoded PTX, %zu instructions */\n%s",
                 nc, ptx__jit_prelude);
    ptx__jit_put(&s, "int pjit_run(struct pjit_ctx *c) {\n  uint64_t *restrict R = c->R;\n");
    ptx__jit_put(&s, "  const unsigned char *params = c->params;\n  const uintptr_t *lo = c->lo, "
                     "*hi = c->hi;\n  uint64_t n = c->n;\n  uint32_t gm;\n  (void)params; "
                     "(void)lo; (void)hi; (void)gm;\n");
    for (uint32_t q = 0; q < k->nslots; q++) {
        if (konst[q])
            ptx__jit_put(&s, "  const uint64_t v%u = 0x%llxull;\n", q,
                         (unsigned long long)kval(k, q));
    }
    ptx__jit_put(&s, "  switch (c->pc) {\n");
    for (size_t j = 0; j < nc; j++) {
        if (entry[j]) ptx__jit_put(&s, "  case %zu: goto L%zu;\n", j, j);
    }
    ptx__jit_put(&s, "  default: goto bail;\n  }\n");
    for (size_t j = 0; j < nc && !s.bad;) {
        if (kinds[j] == K_NO) {
            j++;
            continue;
        }
        size_t e = j;
        while (e < nc && kinds[e] != K_NO && !ends_stretch(&code[e], kinds[e], nc)) e++;
        if (e < nc && kinds[e] != K_NO) e++; /* the branch or exit that ends it */
        if (!ptx__jit_stretch(&s, &g, j, e)) s.bad = true;
        j = e;
    }
    ptx__jit_put(&s, "bail:\n  c->n = n;\n  return 0;\nyield:\n  c->n = n;\n  return 1;\nleave:\n "
                     " c->n = n;\n  return 2;\n}\n");
    free((void *)g.live);
out:
    free(kinds);
    free(leader);
    free(konst);
    free(zx);
    free(uni);
    free(lu);
    free(scalar);
    if (s.bad) {
        free(s.p);
        return NULL;
    }
    return s.p;
}
