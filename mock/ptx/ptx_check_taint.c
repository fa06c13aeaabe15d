/* initcheck at use: which values came from memory that nothing wrote, and where they go.
 *
 * A load of bytes no one wrote (shared memory not stored to since the block started, or a device
 * allocation's bytes that no copy, set or store reached) is not an error by itself: code reads
 * ahead and then ignores what it read (a scan's partial sums beyond the last warp). The value is
 * tainted instead: each register slot of a warp's frame has a taint, the lanes whose value came
 * from such memory, which arithmetic carries to its result (the union of its sources'); selp and
 * shfl take the taint of the value they pick. A tainted value is reported when it is used as an
 * address or as a branch's condition. A tainted value stored marks the bytes as holding one (a
 * flag in the shadow of shared memory, the second half of an allocation's written bits for
 * global memory), so that a later load taints again, and a copy of them to the host reports
 * there (mock_check.c), naming the kernel and line that stored them (kept here).
 *
 * What the shadow does not follow is taken as defined: local memory, parameters, textures,
 * matrix fragments, a function's arguments and results. A report can be missed that way, never
 * made up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_check_report.h"
#include "ptx_check_src.h"
#include "ptx_check_taint.h"
#include "ptx_check_tmem.h"
#include "ptx_coll.h"
#include "ptx_val.h"

bool ptx__taint_alloc(pblock *b) {
    pcheck *c = b->chk;
    if (!(b->run->checks & MOCK_PTX_CHECK_INIT)) return true;
    c->tw = calloc(b->nwarps, sizeof *c->tw);
    return c->tw != NULL;
}

void ptx__taint_free(pblock *b) {
    pcheck *c = b->chk;
    if (c->tw == NULL) return;
    for (unsigned i = 0; i < b->nwarps; i++) {
        for (int d = 0; d < c->tw[i].nframe; d++) free(c->tw[i].frame[d]);
        free(c->tw[i].frame);
    }
    free(c->tw);
    c->tw = NULL;
}

void ptx__taint_start(pblock *b) {
    pcheck *c = b->chk;
    if (c == NULL || c->tw == NULL) return;
    for (unsigned i = 0; i < b->nwarps; i++) {
        for (int d = 0; d < c->tw[i].nframe; d++)
            memset(c->tw[i].frame[d], 0, b->run->nslots * sizeof(ptaint));
    }
    c->unoted = 0;
}

/* Warp w's taints at call depth d, made (clear) on first use; NULL when out of memory (then
 * nothing is followed: a report missed, none made up). */
static ptaint *frame(pblock *b, const pwarp *w, int d) {
    ptaint_warp *tw = &b->chk->tw[w->index];
    if (d < tw->nframe) return tw->frame[d];
    ptaint **f = realloc(tw->frame, (size_t)(d + 1) * sizeof *f);
    if (f == NULL) return NULL;
    tw->frame = f;
    while (tw->nframe <= d) {
        f[tw->nframe] = calloc(b->run->nslots, sizeof(ptaint));
        if (f[tw->nframe] == NULL) return NULL;
        tw->nframe++;
    }
    return f[d];
}

/* ------------------------------------------------------------------------------------------ */
/* Registers                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static const char *const use_names[] = {"the address of %s %zu-byte %s", "a branch's condition"};

/* A tainted value used as an address or a condition, by the first lane of `lanes`. */
static int report_use(pblock *b, pwarp *w, const pinst *in, uint32_t lanes, unsigned origin,
                      bool branch) {
    const pthr *t = &b->t[w->first + (unsigned)__builtin_ctz(lanes)];
    char what[96], from[200] = "", file[128];
    unsigned src = 0;
    bool st = in->op / T_COUNT == O_ST;
    size_t sz = (size_t)bits_of(in->op % T_COUNT) / 8 * (in->op / T_COUNT == O_ATOM ? 1 : in->vec);
    snprintf(what, sizeof what, use_names[branch], ptx__a(sz), sz,
             in->op / T_COUNT == O_ATOM ? "atomic"
             : st                       ? "write"
                                        : "read");
    if (origin != 0) {
        int n = snprintf(from, sizeof from, " loaded at PTX line %u", origin);
        if (ptx__src_line(b->run->k->mod, origin, file, sizeof file, &src))
            snprintf(from + n, sizeof from - (size_t)n, " (%s:%u)", file, src);
    }
    return ptx__check_report(b, t, in, 2, origin,
                             "%s is a value%s from memory that nothing wrote (no copy, set or "
                             "store; for shared memory, no thread of the block)",
                             what, from);
}

static inline bool slot_ok(uint32_t s) { return s >= SL_RESERVED; }

/* Destination slot s takes taint `lanes` (of the lanes m) from line `origin`. */
static inline void set(ptaint *T, uint32_t s, uint32_t m, uint32_t lanes, unsigned origin) {
    if (!slot_ok(s)) return;
    T[s].lanes = (T[s].lanes & ~m) | (lanes & m);
    if (lanes & m) T[s].line = origin;
}

static inline uint32_t taint_of(const ptaint *T, uint32_t s, unsigned *origin) {
    if (!slot_ok(s) || T[s].lanes == 0) return 0;
    if (*origin == 0) *origin = T[s].line;
    return T[s].lanes;
}

/* A load, store or atomic: its address checked, then memory's definedness read into the
 * destinations or written from the values. */
static int memory(pblock *b, pwarp *w, ptaint *T, const pinst *in, uint32_t m, uint32_t gt,
                  unsigned gorigin, const uint64_t *R) {
    unsigned origin = 0;
    uint32_t at = taint_of(T, in->s[0], &origin) & m;
    if (at != 0) {
        int st = report_use(b, w, in, at, origin, false);
        if (st != TS_RUN) return st;
    }
    int op = in->op / T_COUNT;
    const uint64_t *x = R + ((size_t)in->s[0] << 5);
    size_t sz = (size_t)bits_of(in->op % T_COUNT) / 8;
    unsigned vec = op == O_ATOM ? 1 : in->vec;
    uint32_t vt[4] = {0}, dt[4] = {0};
    unsigned vo[4] = {0};
    if (op == O_ST) {
        for (unsigned i = 0; i < vec; i++) {
            vo[i] = gorigin;
            vt[i] = taint_of(T, in->d[i], &vo[i]) | gt;
        }
    }
    /* Shared memory all written in the block, none of it undefined: a load of it is defined.
     * Memory the shadow does not follow, and global memory in the allocation looked up last,
     * need no lookup lane by lane either. */
    int sp = in->space;
    bool all_defined = op == O_LD && sp == S_SHARED && b->chk->sh != NULL &&
                       b->chk->sh_written >= b->smem_size && b->chk->sh_undef == 0;
    bool clean = op != O_ST || (vt[0] | vt[1] | vt[2] | vt[3]) == 0;
    uint32_t each = m; /* the lanes looked at one by one */
    if (all_defined || (sp != S_SHARED && sp != S_GLOBAL && sp != S_GENERIC) ||
        (sp == S_GLOBAL && clean && ptx__init_global_known(b, in, m, x, vec * sz, dt, vec, sz)) ||
        (sp == S_SHARED && clean && op != O_LD && ptx__init_shared_defined(b, in, m, x, vec, sz)))
        each = 0;
    for (uint32_t mm = each; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        const pthr *t = &b->t[w->first + l];
        uint64_t a = x[l] + (uint64_t)in->imm;
        if (in->flags & F_ADDR32) a = (uint32_t)a;
        for (unsigned i = 0; i < vec; i++) {
            uint64_t ea = a + i * sz;
            if (op == O_LD) {
                if (ptx__init_undefined(b, t, in, ea, sz)) dt[i] |= 1u << l;
            } else {
                bool u = op == O_ST && ((vt[i] >> l) & 1);
                ptx__init_written(b, t, in, ea, sz, u, vo[i]);
            }
        }
    }
    if (op == O_LD) {
        for (unsigned i = 0; i < vec; i++) set(T, in->d[i], m, dt[i], in->line);
    } else if (op == O_ATOM) {
        set(T, in->d[0], m, 0, 0);
    }
    return TS_RUN;
}

/* shfl: each lane takes the taint of the lane whose value it takes. */
static void shfl(ptaint *T, const pinst *in, uint32_t m, const uint64_t *R) {
    unsigned origin = 0;
    uint32_t src = taint_of(T, in->s[0], &origin);
    uint32_t ops = taint_of(T, in->s[1], &origin) | taint_of(T, in->s[2], &origin);
    const uint64_t *y = R + ((size_t)in->s[1] << 5), *z = R + ((size_t)in->s[2] << 5);
    uint32_t out = ops;
    for (uint32_t mm = m; mm != 0 && (src | ops) != 0; mm &= mm - 1) {
        int l = __builtin_ctz(mm), j;
        bool pv;
        j = ptx__shfl_lane(in->sub, l, (uint32_t)y[l], (uint32_t)z[l], &pv);
        if (!pv || j < 0 || j > 31 || !((m >> j) & 1)) j = l;
        out |= ((src >> j) & 1u) << l;
    }
    set(T, in->d[0], m, out, origin);
    set(T, in->d[1], m, ops, origin);
}

/* The lanes of `mask` whose guard holds. */
static uint32_t guarded(const pinst *in, uint32_t mask, const uint64_t *R) {
    if (in->guard == SL_TRUE) return mask;
    const uint64_t *g = R + ((size_t)in->guard << 5);
    uint32_t gm = 0;
    for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        gm |= (uint32_t)(g[l] & 1) << l;
    }
    return mask & (in->gneg ? ~gm : gm);
}

/* Whether an instruction of the generic kind (its destinations d[0] and d[1] take the union of
 * its sources' taints) has nothing to do: no tainted source or guard, no tainted destination.
 * The common case, answered without working out the guard. */
static inline bool generic_clean(const ptaint *T, const pinst *in, uint32_t mask) {
    uint32_t t = 0;
    for (int i = 0; i < 4; i++) t |= slot_ok(in->s[i]) ? T[in->s[i]].lanes : 0;
    for (int i = 0; i < 2; i++) t |= slot_ok(in->d[i]) ? T[in->d[i]].lanes : 0;
    if (in->guard != SL_TRUE) t |= T[in->guard].lanes;
    return (t & mask) == 0;
}

int ptx__taint_step(pblock *b, pwarp *w, const ppath *p, const pinst *in, uint32_t mask,
                    const uint64_t *R) {
    const ptaint_warp *tw = &b->chk->tw[w->index];
    ptaint *T = p->depth < tw->nframe ? tw->frame[p->depth] : frame(b, w, p->depth);
    if (T == NULL) return TS_RUN;
    int op = in->op / T_COUNT;
    bool generic = op < O_LD || op == O_VOTE || op == O_MATCH || op == O_REDUX || op == O_PACK ||
                   op == O_COPYSIGN || op == O_TESTP || op == O_SAD || op == O_ADDC ||
                   op == O_SUBC || op == O_SET || op == O_DP4A || op == O_MADC || op == O_HALF ||
                   op == O_RND;
    if (generic && generic_clean(T, in, mask)) return TS_RUN;
    unsigned origin = 0;
    uint32_t gt = 0;
    if (in->guard != SL_TRUE) {
        gt = taint_of(T, in->guard, &origin) & mask;
        if (gt != 0 && (op == O_BRA || op == O_RET || op == O_EXIT || op == O_CALL))
            return report_use(b, w, in, gt, origin, true);
    }
    uint32_t m = guarded(in, mask, R);
    if (m == 0) return TS_RUN;
    switch (op) {
    case O_LD:
    case O_ST:
    case O_ATOM: return memory(b, w, T, in, m, gt, origin, R);
    case O_SELP: {
        const uint64_t *z = R + ((size_t)in->s[2] << 5);
        uint32_t tx = taint_of(T, in->s[0], &origin), ty = taint_of(T, in->s[1], &origin);
        uint32_t out = taint_of(T, in->s[2], &origin) | gt, pick = 0;
        for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
            unsigned l = (unsigned)__builtin_ctz(mm);
            pick |= (uint32_t)(z[l] & 1) << l;
        }
        set(T, in->d[0], m, out | (tx & pick) | (ty & ~pick), origin);
        return TS_RUN;
    }
    case O_SHFL: shfl(T, in, m, R); return TS_RUN;
    case O_CALL: {
        /* The callee's frame starts defined (its arguments come through memory). */
        ptaint *N = frame(b, w, p->depth + 1);
        for (uint32_t s = 0; N != NULL && s < b->run->nslots; s++) N[s].lanes &= ~m;
        return TS_RUN;
    }
    case O_BRA:
    case O_RET:
    case O_EXIT:
    case O_BAR:
    case O_BARARV:
    case O_WARPSYNC:
    case O_NOP:
    case O_TRAP:
    case O_ASSERT:
    case O_PRINTF: return TS_RUN;
    case O_TEX:
    case O_ASYNC:
    case O_MMA:
    case O_HEAP:
    case O_CLOCK:
    case O_CLOCK64:
    case O_GTIMER:
    case O_ACTIVEMASK:
        /* Defined results; operands among d[] that are sources (a surface store's values, an
         * async copy's sizes) lose their taint: a report missed, none made up. */
        for (int i = 0; i < (op == O_TEX || op == O_MMA ? 4 : 1); i++) set(T, in->d[i], m, 0, 0);
        return TS_RUN;
    default: {
        uint32_t t = gt;
        for (int i = 0; i < 4; i++) t |= taint_of(T, in->s[i], &origin);
        if (op == O_UNPACK) {
            for (unsigned i = 0; i < in->vec; i++) set(T, in->d[i], m, t, origin);
        } else {
            set(T, in->d[0], m, t, origin);
            set(T, in->d[1], m, t, origin);
        }
        return TS_RUN;
    }
    }
}
