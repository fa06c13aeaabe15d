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
        int nr = ptx__jit_lane_reads(&code[j], r), nw = ptx__jit_lane_writes(&code[j], w);
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
        int nw = ptx__jit_lane_writes(in, w);
        if (nw == 0) continue;
        ptx__jit_lane_expr(in, k, ex, sizeof ex);
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
        kinds[j] = (uint8_t)ptx__jit_kind(&code[j], k);
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
        ptx__jit_prelude);
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
