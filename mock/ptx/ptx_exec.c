/* The interpreter loop: one path of a warp (its lanes share a program counter), one decoded
 * instruction at a time for all its lanes, until the lanes wait at a barrier or a warp
 * collective, exit, disagree at a branch (the path splits), fault, or have used their budget.
 *
 * An operation is a loop over the lanes inside its case: where the path holds all 32 lanes the
 * loop has no test and the compiler vectorises it; otherwise it visits the set bits of the
 * mask. What is not common enough to have a case here runs lane by lane in ptx_lane.c. A
 * whole warp's load or store of consecutive words (a coalesced access) is one copy, checked at
 * the two ends of its run.
 *
 * Over 400 lines: the loop is one function, by design (its locals live in registers and every
 * case jumps back to the top); the accesses, calls, returns and meeting points it needs are
 * beside it, inlined into it. */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ptx_check.h"
#include "ptx_check_taint.h"
#include "ptx_coll.h"
#include "ptx_run.h"
#include "ptx_val.h"

#define OPT(o, t) ((o)*T_COUNT + (t))
#define C(o, t) case OPT(o, t)
#define FULL 0xffffffffu

/* d[l] = expr for every lane l of m. Where the path is whole: straight into d when it is none of
 * the operands x, y, z (so the compiler may vectorise without fearing an overlap), else through
 * a local array. */
#define OP(expr)                                                                                   \
    do {                                                                                           \
        if (m == FULL && d != x && d != y && d != z) {                                             \
            uint64_t *restrict d_ = d;                                                             \
            for (unsigned l = 0; l < 32; l++) d_[l] = (expr);                                      \
        } else if (m == FULL) {                                                                    \
            uint64_t t_[32];                                                                       \
            for (unsigned l = 0; l < 32; l++) t_[l] = (expr);                                      \
            memcpy(d, t_, sizeof t_);                                                              \
        } else {                                                                                   \
            for (uint32_t m_ = m; m_ != 0; m_ &= m_ - 1) {                                         \
                unsigned l = (unsigned)__builtin_ctz(m_);                                          \
                d[l] = (expr);                                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The lanes of m, one by one. */
#define EACH(m)                                                                                    \
    for (uint32_t m_ = (m), l; m_ != 0 && (l = (unsigned)__builtin_ctz(m_), 1); m_ &= m_ - 1)

#define X (x[l])
#define Y (y[l])
#define Z (z[l])

/* The lanes whose predicate register g holds true, as a mask. */
static inline uint32_t guard_mask(const uint64_t *g) {
    uint32_t gm = 0;
#if defined(__SSE2__)
    for (unsigned l = 0; l < 32; l += 2) {
        __m128i v = _mm_slli_epi64(_mm_loadu_si128((const __m128i *)(g + l)), 63);
        gm |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(v)) << l;
    }
#else
    for (unsigned l = 0; l < 32; l++) gm |= (uint32_t)(g[l] & 1) << l;
#endif
    return gm;
}

/* setp without a combining predicate, of the common types and comparisons: d[l] = x op y for
 * the lanes of m (and its complement where the second destination is used). false: not one of
 * them. */
static inline __attribute__((always_inline)) bool
setp_lanes(const pinst *in, uint32_t m, uint64_t *d, const uint64_t *x, const uint64_t *y) {
    const uint64_t *z = x; /* for OP: no third operand */
#define CMP(type, op)                                                                              \
    OP((uint64_t)((type)X op(type) Y));                                                            \
    break
#define CMPF(op)                                                                                   \
    OP((uint64_t)(f32(X) op f32(Y)));                                                              \
    break
#define CMPSET(type)                                                                               \
    switch (in->sub) {                                                                             \
    case C_EQ: CMP(type, ==);                                                                      \
    case C_NE: CMP(type, !=);                                                                      \
    case C_LT: CMP(type, <);                                                                       \
    case C_LE: CMP(type, <=);                                                                      \
    case C_GT: CMP(type, >);                                                                       \
    case C_GE: CMP(type, >=);                                                                      \
    default: return false;                                                                         \
    }                                                                                              \
    break
#define CMPSETU(type)                                                                              \
    switch (in->sub) {                                                                             \
    case C_EQ: CMP(type, ==);                                                                      \
    case C_NE: CMP(type, !=);                                                                      \
    case C_LT:                                                                                     \
    case C_LO: CMP(type, <);                                                                       \
    case C_LE:                                                                                     \
    case C_LS: CMP(type, <=);                                                                      \
    case C_GT:                                                                                     \
    case C_HI: CMP(type, >);                                                                       \
    case C_GE:                                                                                     \
    case C_HS: CMP(type, >=);                                                                      \
    default: return false;                                                                         \
    }                                                                                              \
    break
    switch (in->op % T_COUNT) {
    case T_S32: CMPSET(int32_t);
    case T_S64: CMPSET(int64_t);
    case T_U32: CMPSETU(uint32_t);
    case T_U64: CMPSETU(uint64_t);
    case T_F32:
        if (in->flags & F_FTZ) return false;
        switch (in->sub) {
        case C_EQ: CMPF(==);
        case C_NE: OP((uint64_t)(f32(X) < f32(Y) || f32(X) > f32(Y))); break;
        case C_LT: CMPF(<);
        case C_LE: CMPF(<=);
        case C_GT: CMPF(>);
        case C_GE: CMPF(>=);
        default: return false;
        }
        break;
    default: return false;
    }
#undef CMP
#undef CMPF
#undef CMPSET
#undef CMPSETU
    return true;
}

/* The types whose load() and store() are a plain word of 4 or 8 bytes. */
static inline bool plain_word(int ty) {
    return ty == T_U32 || ty == T_S32 || ty == T_F32 || ty == T_U64 || ty == T_S64 || ty == T_F64;
}

/* A whole warp's access of consecutive words (a coalesced one: lane l at q + l * size), its
 * range checked: one block copy, which the compiler vectorises. A plain copy where the lanes'
 * accesses are relaxed atomics (ptx_val.h): on x86 both are the same moves, but a racing kernel
 * would be a report under ThreadSanitizer, whose builds take the lane-by-lane path. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COALESCED 0
#endif
#endif
#if !defined(COALESCED) && defined(__SANITIZE_THREAD__)
#define COALESCED 0
#endif
#if !defined(COALESCED)
#define COALESCED 1
#endif

#if COALESCED
/* Nonzero when the lanes' addresses x[l] + imm (truncated to 32 bits where a32) are not a0,
 * a0 + sz, a0 + 2 sz, ... (32-bit ones that wrap are not). In vectors of four, which the
 * compiler keeps to vector instructions (its own vectoriser left this reduction scalar). */
typedef uint64_t u64x4 __attribute__((vector_size(32)));
/* The same for the n lanes from x (n a multiple of 4) against a0, a0 + sz, ... (sz 0: all a0). */
static inline __attribute__((always_inline)) uint64_t
off_stride(const uint64_t *x, unsigned n, uint64_t imm, bool a32, uint64_t a0, uint64_t sz) {
    u64x4 acc = {0, 0, 0, 0}, want = {a0, a0 + sz, a0 + 2 * sz, a0 + 3 * sz};
    u64x4 add = {imm, imm, imm, imm}, step = {4 * sz, 4 * sz, 4 * sz, 4 * sz};
    uint64_t km = a32 ? 0xffffffffu : ~(uint64_t)0;
    u64x4 keep = {km, km, km, km};
    for (unsigned l = 0; l < n; l += 4) {
        u64x4 v;
        memcpy(&v, x + l, sizeof v);
        acc |= ((v + add) & keep) ^ want;
        want += step;
    }
    return acc[0] | acc[1] | acc[2] | acc[3];
}
static inline __attribute__((always_inline)) uint64_t
not_consecutive(const uint64_t *x, uint64_t imm, bool a32, uint64_t a0, uint64_t sz) {
    return off_stride(x, 32, imm, a32, a0, sz);
}

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef int32_t s32x4 __attribute__((vector_size(16)));
typedef int64_t s64x4 __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) void coalesced(unsigned char *q, uint64_t *d, int ty,
                                                            bool ld, unsigned lanes) {
    if (bits_of(ty) == 64) {
        if (ld)
            memcpy(d, q, lanes * 8);
        else
            memcpy(q, d, lanes * 8);
        return;
    }
    /* Four lanes a step, widened or narrowed by vector conversions. */
    for (unsigned l = 0; l < lanes; l += 4) {
        if (ld && ty == T_S32) {
            s32x4 v;
            memcpy(&v, q + l * 4, sizeof v);
            s64x4 w = __builtin_convertvector(v, s64x4);
            memcpy(d + l, &w, sizeof w);
        } else if (ld) {
            u32x4 v;
            memcpy(&v, q + l * 4, sizeof v);
            u64x4 w = __builtin_convertvector(v, u64x4);
            memcpy(d + l, &w, sizeof w);
        } else {
            u64x4 w;
            memcpy(&w, d + l, sizeof w);
            u32x4 v = __builtin_convertvector(w, u32x4);
            memcpy(q + l * 4, &v, sizeof v);
        }
    }
}

/* A warp's load whose two halves (lanes 0-15, 16-31) each read one word (a broadcast) or 16
 * consecutive ones: the rows and columns of a 16x16 tile in shared memory (As[ty][k] and
 * Bs[k][tx] with two rows of threads a warp), or one row of a 32-wide tile read by every
 * lane. Both halves' runs checked within [base, base + lim) and aligned, then a word or a
 * copy each; false (nothing done) for any other pattern, or a run out of bounds. */
static inline __attribute__((always_inline)) bool halves(const uint64_t *x, uint64_t imm, bool a32,
                                                         uint64_t sz, uint64_t base, uint64_t lim,
                                                         unsigned char *mem, uint64_t *d, int ty) {
    uint64_t km = a32 ? 0xffffffffu : ~(uint64_t)0;
    uint64_t h[2], st[2];
    for (unsigned i = 0; i < 2; i++) {
        h[i] = (x[16 * i] + imm) & km;
        st[i] = ((x[16 * i + 1] + imm) & km) - h[i];
        uint64_t s = st[i], run = 15 * s + sz;
        if ((s != 0 && s != sz) || run > lim || h[i] - base > lim - run || (h[i] & (sz - 1)) ||
            off_stride(x + 16 * i, 16, imm, a32, h[i], s) != 0)
            return false;
    }
    for (unsigned i = 0; i < 2; i++) {
        unsigned char *q = mem != NULL ? mem + h[i] : (unsigned char *)(uintptr_t)h[i];
        if (st[i] != 0) {
            coalesced(q, d + 16 * i, ty, true, 16);
            continue;
        }
        uint64_t v = load(q, ty);
        u64x4 w = {v, v, v, v};
        for (unsigned l = 0; l < 16; l += 4) memcpy(d + 16 * i + l, &w, sizeof w);
    }
    return true;
}
#endif

/* Loads (or stores) of the lanes of m: the cases a kernel spends its time in inline (checks
 * that cannot wrap), a kernel parameter or a uniform address once for all lanes, the rest
 * through ptx__addr. false after a fault. */
static inline __attribute__((always_inline)) bool
access(pblock *b, pthr *lanes, const pinst *in, uint32_t m, uint64_t *R, int sp, int ty, bool ld) {
    pworker *wk = b->w;
    const uint64_t *x = R + ((size_t)in->s[0] << 5);
    uint64_t *d = R + ((size_t)in->d[0] << 5);
    size_t sz = (size_t)bits_of(ty) / 8, nb = sz * in->vec;
    uint64_t ssz = b->smem_size, imm = (uint64_t)in->imm;
    /* The allocation the first lane's address lies in, if it is one of those seen last. */
    unsigned k = 0;
    if (sp == S_GLOBAL) {
        uint64_t a0 = x[__builtin_ctz(m)] + imm;
        if (in->flags & F_ADDR32) a0 = (uint32_t)a0;
        while (k < 3 && a0 - wk->lo[k] >= wk->hi[k] - wk->lo[k]) k++;
    }
    uint64_t lo = wk->lo[k], span = wk->hi[k] - wk->lo[k];
    uint64_t pbytes = b->run->param_bytes;
    bool a32 = (in->flags & F_ADDR32) != 0;
    if (ld && in->s[0] == SL_ZERO) {
        /* One address for every lane: checked and read once. */
        unsigned l0 = (unsigned)__builtin_ctz(m);
        uint64_t a = x[l0] + imm;
        if (a32) a = (uint32_t)a;
        const unsigned char *q;
        if (sp == S_PARAM && nb <= pbytes && a <= pbytes - nb && !(a & (nb - 1)))
            q = b->run->params + a;
        else if ((q = ptx__addr(b, &lanes[l0], in, sp, a, nb, false)) == NULL)
            return false;
        for (unsigned i = 0; i < in->vec; i++) {
            uint64_t v = load(q + i * sz, ty);
            uint64_t *di = R + ((size_t)in->d[i] << 5);
            if (m == FULL) {
                for (unsigned l = 0; l < 32; l++) di[l] = v;
            } else {
                EACH(m) di[l] = v;
            }
        }
        return true;
    }
    if (m == FULL && in->vec == 1 && (sp == S_SHARED || sp == S_GLOBAL)) {
        /* A whole warp: every address checked in one pass without a branch, then the
         * accesses; any lane out of bounds or misaligned takes the loop below. */
        uint64_t a[32], bad = 0, base = sp == S_SHARED ? 0 : lo, lim = sp == S_SHARED ? ssz : span;
#if COALESCED
        if (plain_word(ty)) {
            /* Lanes at consecutive words (a coalesced access): the run's two ends checked,
             * then one copy. The last lane first: a cheap no for most others. */
            uint64_t a0 = a32 ? (uint32_t)(x[0] + imm) : x[0] + imm, run = 32 * sz;
            uint64_t apart = (a32 ? (uint32_t)(x[31] + imm) : x[31] + imm) ^ (a0 + 31 * sz);
            if (apart == 0) apart = not_consecutive(x, imm, a32, a0, sz);
            if (apart == 0 && run <= lim && a0 - base <= lim - run && !(a0 & (sz - 1))) {
                coalesced(sp == S_SHARED ? b->smem + a0 : (unsigned char *)(uintptr_t)a0, d, ty, ld,
                          32);
                return true;
            }
            if (ld && apart != 0 &&
                halves(x, imm, a32, sz, base, lim, sp == S_SHARED ? b->smem : NULL, d, ty))
                return true;
        }
#endif
        for (unsigned l = 0; l < 32; l++) {
            uint64_t v = x[l] + imm;
            if (a32) v = (uint32_t)v;
            a[l] = v;
            bad |= (uint64_t)(v - base > lim - nb) | (v & (nb - 1));
        }
        if (bad == 0 && nb <= lim) {
            for (unsigned l = 0; l < 32; l++) {
                unsigned char *q =
                    sp == S_SHARED ? b->smem + a[l] : (unsigned char *)(uintptr_t)a[l];
                if (ld)
                    d[l] = load(q, ty);
                else
                    store(q, sz, d[l]);
            }
            return true;
        }
    }
    EACH(m) {
        uint64_t a = x[l] + imm;
        if (a32) a = (uint32_t)a;
        unsigned char *q;
        if (sp == S_SHARED && nb <= ssz && a <= ssz - nb && !(a & (nb - 1))) {
            q = b->smem + a;
        } else if (ld && sp == S_PARAM && nb <= pbytes && a <= pbytes - nb && !(a & (nb - 1))) {
            q = b->run->params + a;
        } else if (sp == S_GLOBAL && a - lo < span && nb <= span - (a - lo) && !(a & (nb - 1))) {
            q = (unsigned char *)(uintptr_t)a;
        } else {
            q = ptx__addr(b, &lanes[l], in, sp, a, nb, !ld);
            if (q == NULL) return false;
            k = (wk->next - 1) % 4;
            lo = wk->lo[k];
            span = wk->hi[k] - wk->lo[k];
        }
        if (in->vec == 1) {
            if (ld)
                d[l] = load(q, ty);
            else
                store(q, sz, d[l]);
            continue;
        }
        for (unsigned i = 0; i < in->vec; i++) {
            uint64_t *di = R + ((size_t)in->d[i] << 5);
            if (ld)
                di[l] = load(q + i * sz, ty);
            else
                store(q + i * sz, sz, di[l]);
        }
    }
    return true;
}

/* ld.param of a kernel parameter (one address for every lane) in bounds and aligned: read
 * once into the lanes of m. false: not that case (access() checks it and says why). */
static inline __attribute__((always_inline)) bool param_whole(const prun *r, const pinst *in,
                                                              uint32_t m, uint64_t *d, int ty) {
    uint64_t a = (uint64_t)in->imm, nb = (uint64_t)bits_of(ty) / 8, pb = r->param_bytes;
    if (in->flags & F_ADDR32) a = (uint32_t)a;
    if (nb > pb || a > pb - nb || (a & (nb - 1)) != 0) return false;
    uint64_t v = load(r->params + a, ty);
    if (m == FULL) {
        for (unsigned l = 0; l < 32; l++) d[l] = v;
    } else {
        EACH(m) d[l] = v;
    }
    return true;
}

static __attribute__((noinline)) bool access_any(pblock *b, pthr *lanes, const pinst *in,
                                                 uint32_t m, uint64_t *R, bool ld) {
    return access(b, lanes, in, m, R, in->space, in->op % T_COUNT, ld);
}

static int call(pblock *b, pwarp *w, ppath *p, const pinst *in, uint32_t pc) {
    prun *r = b->run;
    pframe *cur = &p->frames[p->depth];
    const pcall *c = &cur->f->calls[in->aux];
    const mock_ptx_func *g = c->callee;
    size_t base = cur->base + cur->f->frame_bytes;
    pthr *lane0 = &b->t[w->first + (unsigned)__builtin_ctz(p->mask)];
    if (g == NULL) { /* an indirect call (ptx_heap.c finds and checks the function) */
        g = ptx__callee(b, w, p, in, c);
        if (g == NULL) return TS_FAULT;
    }
    if (base + g->frame_bytes > r->local_size || p->depth >= 1000) {
        return ptx__fault(b, lane0, in, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                          "the call of %s overflows the thread's %zu bytes of stack (recursion "
                          "too deep?)",
                          g->name, r->local_size);
    }
    int d = p->depth + 1;
    if (d >= p->capframes) {
        int n = p->capframes * 2;
        pframe *f = realloc(p->frames, (size_t)n * sizeof *f);
        if (f == NULL) return ptx__fault(b, lane0, in, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
        p->frames = f;
        p->capframes = n;
        cur = &p->frames[p->depth];
    }
    if (d >= w->nregs) {
        uint64_t **regs = realloc(w->regs, (size_t)(d + 1) * sizeof *regs);
        if (regs == NULL)
            return ptx__fault(b, lane0, in, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
        w->regs = regs;
        regs[d] = calloc((size_t)r->nslots * 32, sizeof *regs[d]);
        if (regs[d] == NULL)
            return ptx__fault(b, lane0, in, CUDA_ERROR_OUT_OF_MEMORY, "out of memory");
        w->nregs = d + 1;
    }
    uint64_t *R = w->regs[p->depth], *N = w->regs[d];
    EACH(p->mask) {
        for (uint32_t s = 0; s < SL_RESERVED; s++) N[s << 5 | l] = R[s << 5 | l];
        for (uint32_t s = SL_RESERVED; s < g->nslots; s++) N[s << 5 | l] = g->init[s];
        N[SL_FRAME << 5 | l] = base;
        unsigned char *loc = b->t[w->first + l].local;
        for (int i = 0; i < c->nargs; i++)
            memcpy(loc + base + g->params[i].offset, loc + cur->base + c->arg_off[i],
                   c->callee != NULL ? c->arg_size[i] : g->params[i].size);
    }
    cur->ret_pc = pc;
    p->frames[d] = (pframe){g, 0, base, c};
    p->depth = d;
    return TS_RUN;
}

static void ret(pblock *b, pwarp *w, ppath *p) {
    pframe *fr = &p->frames[p->depth], *up = &p->frames[p->depth - 1];
    const pcall *c = fr->call;
    if (c->ret_off >= 0 && fr->f->ret_off >= 0) {
        EACH(p->mask) {
            unsigned char *loc = b->t[w->first + l].local;
            memcpy(loc + up->base + (size_t)c->ret_off, loc + fr->base + (size_t)fr->f->ret_off,
                   c->callee != NULL ? c->ret_size : fr->f->ret_size);
        }
    }
    p->depth--;
}

static int assertfail(pblock *b, pthr *t, const pframe *cur, const pinst *in) {
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

static int printf_lanes(pblock *b, pwarp *w, const pframe *cur, const pinst *in, uint32_t m) {
    const pcall *c = &cur->f->calls[in->aux];
    EACH(m) {
        pthr *t = &b->t[w->first + l];
        uint64_t fmt, args;
        memcpy(&fmt, t->local + cur->base + c->arg_off[0], 8);
        memcpy(&args, t->local + cur->base + c->arg_off[1], 8);
        int n = ptx__printf(b, t, in, fmt, args);
        if (n < 0) return TS_FAULT;
        if (c->ret_off >= 0) {
            int32_t v = n;
            memcpy(t->local + cur->base + (size_t)c->ret_off, &v, 4);
        }
    }
    return TS_RUN;
}

/* shfl.sync of a whole warp whose operands agree in every lane (the mask all 32): computed at
 * once, with no meeting. false: not that case. */
static inline __attribute__((always_inline)) bool shfl_whole(const pinst *in, uint64_t *R) {
    const uint64_t *x = R + ((size_t)in->s[0] << 5), *y = R + ((size_t)in->s[1] << 5),
                   *z = R + ((size_t)in->s[2] << 5), *mk = R + ((size_t)in->s[3] << 5);
    uint64_t diff = 0;
    for (unsigned l = 0; l < 32; l++)
        diff |= ((uint32_t)y[l] ^ (uint32_t)y[0]) | ((uint32_t)z[l] ^ (uint32_t)z[0]) |
                ((uint32_t)mk[l] ^ FULL);
    if (diff != 0) return false;
    uint64_t t[32], pvs[32];
    uint32_t b = (uint32_t)y[0] & 31, c = (uint32_t)z[0];
    if (((c >> 8) & 31) == 0 && in->sub == 1) { /* shfl.down with no segments: the common one */
        for (unsigned l = 0; l < 32; l++) {
            unsigned j = l + b;
            bool pv = j <= (c & 31);
            t[l] = (uint32_t)x[pv ? j : l];
            pvs[l] = pv;
        }
    } else {
        for (unsigned l = 0; l < 32; l++) {
            bool pv;
            int j = ptx__shfl_lane(in->sub, (int)l, (uint32_t)y[0], c, &pv);
            if (!pv || j < 0 || j > 31) j = (int)l;
            t[l] = (uint32_t)x[j];
            pvs[l] = pv;
        }
    }
    memcpy(R + ((size_t)in->d[0] << 5), t, sizeof t);
    if (in->d[1] != SL_SINK) memcpy(R + ((size_t)in->d[1] << 5), pvs, sizeof pvs);
    return true;
}

/* The lanes of m arrive at a meeting point; true when they may go on at once (a warp
 * collective every member of which is in the path). */
static void wait_lanes(pblock *b, pwarp *w, const pinst *in, uint32_t m, uint64_t *R, int state) {
    pthr *lanes = b->t + w->first;
    if (m == FULL) {
        for (unsigned l = 0; l < 32; l++) {
            lanes[l].state = (uint8_t)state;
            lanes[l].wait = in;
            lanes[l].col = R + l;
        }
    } else {
        EACH(m) {
            lanes[l].state = (uint8_t)state;
            lanes[l].wait = in;
            lanes[l].col = R + l;
        }
    }
}

static inline __attribute__((always_inline)) bool arrive(pblock *b, pwarp *w, const pinst *in,
                                                         uint32_t m, uint64_t *R, int state) {
    w->waiting |= m;
    if (state == TS_BAR) {
        b->waiting_bar += lanes_in(m);
        /* The common case, kept per warp and not lane by lane, so that the barrier completes
         * without a visit to every lane: bar.sync with one id and count for the whole path. */
        const uint64_t *ids = R + ((size_t)in->s[0] << 5), *cs = R + ((size_t)in->s[1] << 5);
        unsigned l0 = (unsigned)__builtin_ctz(m);
        uint32_t id = (uint32_t)ids[l0] % 16, c = (uint32_t)cs[l0], same = in->sub == 0;
        if (m == FULL) {
            for (unsigned l = 0; l < 32; l++)
                same &= ((uint32_t)ids[l] % 16 == id) & ((uint32_t)cs[l] == c);
        } else {
            EACH(m) same &= (uint32_t)ids[l] % 16 == id && (uint32_t)cs[l] == c;
        }
        if (same && (w->bar_mask == 0 || (w->bar_id == id && w->bar_count == c))) {
            w->bar_mask |= m;
            w->bar_id = id;
            w->bar_count = c;
            w->bar_in = in;
        } else {
            wait_lanes(b, w, in, m, R, TS_BAR);
            b->bar_general += lanes_in(m);
        }
        return false;
    }
    wait_lanes(b, w, in, m, R, state);
    b->waiting_warp += lanes_in(m);
    /* The common case: every lane the collective names (that has not exited) is here. */
    uint32_t slot = in->op / T_COUNT == O_WARPSYNC ? in->s[0]
                    : in->op / T_COUNT == O_SHFL   ? in->s[3]
                                                   : in->s[1];
    const uint64_t *mv = R + ((size_t)slot << 5);
    uint32_t want = (uint32_t)mv[__builtin_ctz(m)], same = 1;
    EACH(m) same &= (uint32_t)mv[l] == want;
    if (same && (want & w->live) == m) {
        ptx__warp_resolve(b, w->index, in, m);
        return true;
    }
    ptx__warp_try(b, w->index);
    uint32_t still = 0;
    EACH(m) {
        if (b->t[w->first + l].state != TS_RUN) still |= 1u << l;
    }
    return still == 0;
}

/* n0: warp-instructions the path ran before in this turn (the compiling tier's); stop: where a
 * whole path at the kernel's depth returns TS_RUN after at least one instruction (the compiling
 * tier's entry points; NULL for none); *ran: the turn's count when it returns. */
static inline __attribute__((always_inline)) int exec(pblock *b, pwarp *w, ppath *p,
                                                      uint64_t budget, uint64_t n0,
                                                      const uint8_t *stop, uint64_t *ran) {
    prun *r = b->run;
    const unsigned char *params = r->params;
    pthr *lanes = b->t + w->first;
    uint64_t *R = w->regs[p->depth];
    const pinst *code = p->frames[p->depth].f->code;
    uint32_t pc = p->pc, mask = p->mask;
    uint64_t n = n0, steps = 0, pop = lanes_in(mask);
    int st = TS_RUN;
    /* CUSHIM_MOCK_CHECK: read once here, so that a memory instruction tests a register. */
    const bool checking = r->checks != 0;
    const bool tainting = checking && (r->checks & MOCK_PTX_CHECK_INIT);
    for (;;) {
        if (stop != NULL && stop[pc] && n > n0 && mask == FULL && p->depth == 0) goto out;
        const pinst *in = &code[pc++];
        n++;
        steps += pop;
        /* initcheck: definedness followed through every instruction (ptx_check_taint.c). */
        if (__builtin_expect(tainting, 0) && ptx__taint_step(b, w, p, in, mask, R) != TS_RUN) {
            st = TS_FAULT;
            goto out;
        }
        uint32_t m = mask;
        if (in->guard != SL_TRUE) {
            const uint64_t *g = R + ((size_t)in->guard << 5);
            uint32_t gm = guard_mask(g);
            m &= in->gneg ? ~gm : gm;
            if (m == 0) continue;
        }
        uint64_t *d = R + ((size_t)in->d[0] << 5);
        const uint64_t *x = R + ((size_t)in->s[0] << 5), *y = R + ((size_t)in->s[1] << 5),
                       *z = R + ((size_t)in->s[2] << 5);
        switch (in->op) {
            C(O_MOV, T_NONE) : OP(X);
            break;
            C(O_ADD, T_U32) : C(O_ADD, T_S32) : if (in->flags) goto slow;
            OP((uint32_t)(X + Y));
            break;
            C(O_ADD, T_U64) : C(O_ADD, T_S64) : OP(X + Y);
            break;
            C(O_SUB, T_U32) : C(O_SUB, T_S32) : if (in->flags) goto slow;
            OP((uint32_t)(X - Y));
            break;
            C(O_SUB, T_U64) : C(O_SUB, T_S64) : OP(X - Y);
            break;
            C(O_MUL, T_U32) : C(O_MUL, T_S32) : OP((uint32_t)((uint32_t)X * (uint32_t)Y));
            break;
            C(O_MUL, T_U64) : C(O_MUL, T_S64) : OP(X * Y);
            break;
            C(O_MULWIDE, T_S32) : OP((uint64_t)((int64_t)(int32_t)X * (int32_t)Y));
            break;
            C(O_MULWIDE, T_U32) : OP((uint64_t)(uint32_t)X * (uint32_t)Y);
            break;
            C(O_MAD, T_U32) : C(O_MAD, T_S32) : if (in->flags) goto slow;
            OP((uint32_t)((uint32_t)X * (uint32_t)Y + (uint32_t)Z));
            break;
            C(O_MAD, T_U64) : C(O_MAD, T_S64) : OP(X * Y + Z);
            break;
            C(O_SHL, T_U32) : OP((uint32_t)Y >= 32 ? 0 : (uint32_t)((uint32_t)X << (uint32_t)Y));
            break;
            C(O_SHL, T_U64) : OP((uint32_t)Y >= 64 ? 0 : X << (uint32_t)Y);
            break;
            C(O_SHR, T_U32) : OP((uint32_t)Y >= 32 ? 0 : (uint32_t)X >> (uint32_t)Y);
            break;
            C(O_SHR, T_S32)
                : OP((uint32_t)((int32_t)(uint32_t)X >> ((uint32_t)Y >= 32 ? 31 : (uint32_t)Y)));
            break;
            C(O_AND, T_U32)
                : C(O_AND, T_S32)
                : C(O_AND, T_U64) : C(O_AND, T_S64) : C(O_AND, T_PRED) : OP(X & Y);
            break;
            C(O_OR, T_U32)
                : C(O_OR, T_S32) : C(O_OR, T_U64) : C(O_OR, T_S64) : C(O_OR, T_PRED) : OP(X | Y);
            break;
            C(O_XOR, T_U32)
                : C(O_XOR, T_S32)
                : C(O_XOR, T_U64) : C(O_XOR, T_S64) : C(O_XOR, T_PRED) : OP(X ^ Y);
            break;
            C(O_NOT, T_PRED) : OP(!(X & 1));
            break;
            C(O_NEG, T_S32) : OP((uint32_t)(0u - (uint32_t)X));
            break;
            C(O_NEG, T_S64) : OP(0 - X);
            break;
            C(O_MIN, T_U32) : OP((uint32_t)X < (uint32_t)Y ? (uint32_t)X : (uint32_t)Y);
            break;
            C(O_MAX, T_U32) : OP((uint32_t)X > (uint32_t)Y ? (uint32_t)X : (uint32_t)Y);
            break;
            C(O_MIN, T_S32) : OP((uint32_t)((int32_t)X < (int32_t)Y ? (int32_t)X : (int32_t)Y));
            break;
            C(O_MAX, T_S32) : OP((uint32_t)((int32_t)X > (int32_t)Y ? (int32_t)X : (int32_t)Y));
            break;
            C(O_MIN, T_U64) : OP(X < Y ? X : Y);
            break;
            C(O_MAX, T_U64) : OP(X > Y ? X : Y);
            break;
            C(O_MIN, T_S64) : OP((int64_t)X < (int64_t)Y ? X : Y);
            break;
            C(O_MAX, T_S64) : OP((int64_t)X > (int64_t)Y ? X : Y);
            break;
            C(O_SELP, T_U32)
                : C(O_SELP, T_S32)
                : C(O_SELP, T_U64)
                : C(O_SELP, T_S64)
                : C(O_SELP, T_F32)
                : C(O_SELP, T_F64) : C(O_SELP, T_U16) : C(O_SELP, T_S16) : OP((Z & 1) ? X : Y);
            break;
            C(O_ADD, T_F32) : if (in->flags) goto slow;
            OP(b32(f32(X) + f32(Y)));
            break;
            C(O_SUB, T_F32) : if (in->flags) goto slow;
            OP(b32(f32(X) - f32(Y)));
            break;
            C(O_MUL, T_F32) : if (in->flags) goto slow;
            OP(b32(f32(X) * f32(Y)));
            break;
            C(O_FMA, T_F32) : if (in->flags) goto slow;
            OP(b32(__builtin_fmaf(f32(X), f32(Y), f32(Z))));
            break;
            C(O_ADD, T_F64) : OP(b64(f64(X) + f64(Y)));
            break;
            C(O_MUL, T_F64) : OP(b64(f64(X) * f64(Y)));
            break;
            C(O_FMA, T_F64) : OP(b64(__builtin_fma(f64(X), f64(Y), f64(Z))));
            break;
            C(O_SETP, T_U32)
                : C(O_SETP, T_S32) : C(O_SETP, T_U64) : C(O_SETP, T_S64) : C(O_SETP, T_F32) : {
                if (in->s[2] != SL_TRUE || (in->flags & F_NEGC) || in->imm != 0 ||
                    !setp_lanes(in, m, d, x, y))
                    goto slow;
                if (in->d[1] != SL_SINK) {
                    uint64_t *q = R + ((size_t)in->d[1] << 5);
                    EACH(m) q[l] = !d[l];
                }
                break;
            }
            C(O_CVT, T_U64) : C(O_CVT, T_S64) : C(O_CVT, T_U32) : C(O_CVT, T_S32) : {
                if (in->flags & F_SAT) goto slow;
                switch (in->type2) {
                case T_U32: OP((uint32_t)X); break;
                case T_S32:
                    if (in->op % T_COUNT == T_U32 || in->op % T_COUNT == T_S32)
                        OP((uint32_t)X);
                    else
                        OP((uint64_t)(int64_t)(int32_t)X);
                    break;
                case T_U64:
                case T_S64:
                    if (in->op % T_COUNT == T_U32 || in->op % T_COUNT == T_S32)
                        OP((uint32_t)X);
                    else
                        OP(X);
                    break;
                default: goto slow;
                }
                break;
            }
            C(O_CVTA, T_NONE) : EACH(m) {
                uint64_t a = x[l];
                if (in->space == S_SHARED)
                    a = (uint64_t)(uintptr_t)b->smem + (uint32_t)a;
                else if (in->space == S_LOCAL)
                    a = (uint64_t)(uintptr_t)lanes[l].local + a;
                else
                    a = (uint64_t)(uintptr_t)params + a;
                d[l] = a;
            }
            break;
            C(O_CVTA_TO, T_NONE) : EACH(m) {
                uint64_t a = x[l];
                if (in->space == S_SHARED)
                    a -= (uint64_t)(uintptr_t)b->smem;
                else if (in->space == S_LOCAL)
                    a -= (uint64_t)(uintptr_t)lanes[l].local;
                else
                    a -= (uint64_t)(uintptr_t)params;
                d[l] = a;
            }
            break;
            C(O_LD, T_U8)
                : C(O_LD, T_S8)
                : C(O_LD, T_U16)
                : C(O_LD, T_S16)
                : C(O_LD, T_U32)
                : C(O_LD, T_S32)
                : C(O_LD, T_U64)
                : C(O_LD, T_S64)
                : C(O_LD, T_F32)
                : C(O_LD, T_F64)
                : C(O_LD, T_F16)
                : C(O_ST, T_U8)
                : C(O_ST, T_S8)
                : C(O_ST, T_U16)
                : C(O_ST, T_S16)
                : C(O_ST, T_U32)
                : C(O_ST, T_S32)
                : C(O_ST, T_U64)
                : C(O_ST, T_S64) : C(O_ST, T_F32) : C(O_ST, T_F64) : C(O_ST, T_F16) : {
                bool ok;
                int ty = in->op % T_COUNT, sp = in->space;
                bool ld = in->op / T_COUNT == O_LD;
                if (__builtin_expect(checking, 0) &&
                    ptx__check_mem(b, lanes, in, m, mask, R, ld, false) != TS_RUN) {
                    st = TS_FAULT;
                    goto out;
                }
                /* The common kinds with their type and space known to the compiler. */
#define MEM(s_, t_)                                                                                \
    (ld ? access(b, lanes, in, m, R, s_, t_, true) : access(b, lanes, in, m, R, s_, t_, false))
                if (ld && sp == S_PARAM && in->s[0] == SL_ZERO && in->vec == 1 && plain_word(ty) &&
                    param_whole(r, in, m, d, ty))
                    ok = true;
                else if (in->s[0] == SL_ZERO || sp == S_PARAM)
                    ok = access_any(b, lanes, in, m, R, ld);
                else if (sp == S_GLOBAL && ty == T_S32)
                    ok = MEM(S_GLOBAL, T_S32);
                else if (sp == S_SHARED && ty == T_S32)
                    ok = MEM(S_SHARED, T_S32);
                else if (sp == S_GLOBAL && (ty == T_U32 || ty == T_F32))
                    ok = MEM(S_GLOBAL, T_U32);
                else if (sp == S_GLOBAL && (ty == T_U64 || ty == T_S64 || ty == T_F64))
                    ok = MEM(S_GLOBAL, T_U64);
                else if (sp == S_SHARED && (ty == T_U32 || ty == T_F32))
                    ok = MEM(S_SHARED, T_U32);
                else if (sp == S_SHARED && (ty == T_U64 || ty == T_S64 || ty == T_F64))
                    ok = MEM(S_SHARED, T_U64);
                else
                    ok = access_any(b, lanes, in, m, R, ld);
#undef MEM
                if (!ok) {
                    st = TS_FAULT;
                    goto out;
                }
                break;
            }
            C(O_ATOM, T_U32)
                : C(O_ATOM, T_S32)
                : C(O_ATOM, T_U64) : C(O_ATOM, T_S64) : C(O_ATOM, T_F32) : C(O_ATOM, T_F64) : {
                int ty = in->op % T_COUNT;
                size_t sz = (size_t)bits_of(ty) / 8;
                if (__builtin_expect(checking, 0) &&
                    ptx__check_mem(b, lanes, in, m, mask, R, false, true) != TS_RUN) {
                    st = TS_FAULT;
                    goto out;
                }
                EACH(m) {
                    void *q =
                        ptx__addr(b, &lanes[l], in, in->space, x[l] + (uint64_t)in->imm, sz, true);
                    if (q == NULL) {
                        st = TS_FAULT;
                        goto out;
                    }
                    uint64_t old = ptx__atom(q, in->sub, ty, y[l], z[l]);
                    if (in->d[0] != SL_SINK) d[l] = old;
                }
                break;
            }
            C(O_ASYNC, T_NONE) : {
                bool waiting = false;
                EACH(m) {
                    if (ptx__async(b, &lanes[l], in, R + l) != TS_RUN) {
                        st = TS_FAULT;
                        goto out;
                    }
                    waiting |= (in->sub == AS_TEST || in->sub == AS_PARITY) && d[l] == 0;
                }
                /* An mbarrier phase not complete: the others run before this lane spins on */
                if (waiting) {
                    st = TS_YIELD;
                    goto out;
                }
                break;
            }
            C(O_TEX, T_NONE) : EACH(m) {
                if (ptx__tex(b, &lanes[l], in, R + l) != TS_RUN) {
                    st = TS_FAULT;
                    goto out;
                }
            }
            break;
            C(O_BRA, T_NONE) : if (m != mask) {
                w->split_mask = m;
                w->split_pc = (uint32_t)in->imm;
                mask &= ~m;
                st = TS_SPLIT;
                goto out;
            }
            if ((uint32_t)in->imm < pc && n >= budget) {
                pc = (uint32_t)in->imm;
                st = TS_YIELD;
                goto out;
            }
            pc = (uint32_t)in->imm;
            break;
            C(O_RET, T_NONE) : if (p->depth > 0) {
                if (m != mask) goto split;
                ret(b, w, p);
                R = w->regs[p->depth];
                code = p->frames[p->depth].f->code;
                pc = p->frames[p->depth].ret_pc;
                break;
            }
            __attribute__((fallthrough)); /* a kernel's ret */
            /* An exited lane is one out of w->live; its pthr keeps TS_RUN (not written: for a
             * short kernel those stores were a tenth of its time). */
            C(O_EXIT, T_NONE) : b->exited += lanes_in(m);
            w->live &= ~m;
            mask &= ~m;
            pop = lanes_in(mask);
            if (mask == 0) {
                st = TS_EXIT;
                goto out;
            }
            break;
            C(O_CALL, T_NONE) : if (m != mask) goto split;
            /* An indirect call whose lanes hold different functions: the first lane's call now,
             * the others from the call again as a path of their own (ptx_heap.c). */
            uint32_t others = ptx__call_others(w, p, in, mask);
            mask &= ~others;
            p->mask = mask;
            if (call(b, w, p, in, pc) == TS_FAULT) {
                st = TS_FAULT;
                goto out;
            }
            R = w->regs[p->depth];
            code = p->frames[p->depth].f->code;
            if (others != 0) {
                w->split_mask = others;
                w->split_pc = pc - 1;
                w->split_up = true;
                pc = 0;
                st = TS_SPLIT;
                goto out;
            }
            pc = 0;
            if (n >= budget) {
                st = TS_YIELD;
                goto out;
            }
            break;
            C(O_TRAP, T_NONE)
                : st = ptx__fault(b, &lanes[__builtin_ctz(m)], in, CUDA_ERROR_LAUNCH_FAILED,
                                  "the thread executed trap");
            goto out;
            C(O_ASSERT, T_NONE)
                : st = assertfail(b, &lanes[__builtin_ctz(m)], &p->frames[p->depth], in);
            goto out;
            C(O_PRINTF, T_NONE) : if (printf_lanes(b, w, &p->frames[p->depth], in, m) == TS_FAULT) {
                st = TS_FAULT;
                goto out;
            }
            break;
            C(O_ACTIVEMASK, T_NONE) : OP(m);
            break;
            C(O_BAR, T_NONE) : if (m != mask) goto split;
            arrive(b, w, in, m, R, TS_BAR);
            p->blocked = true;
            st = TS_BAR;
            goto out;
            C(O_SHFL, T_U32) : if (m == FULL && w->live == FULL && shfl_whole(in, R)) break;
            __attribute__((fallthrough));
            C(O_VOTE, T_U32)
                : C(O_MATCH, T_U32)
                : C(O_MATCH, T_U64)
                : C(O_REDUX, T_U32)
                : C(O_REDUX, T_S32) : C(O_WARPSYNC, T_NONE) : if (m != mask) goto split;
            if (arrive(b, w, in, m, R, TS_WARP)) break;
            p->blocked = true;
            st = TS_WARP;
            goto out;
            C(O_NOP, T_NONE) : break;
            C(O_HEAP, T_NONE) : if (ptx__heap_call(b, w, &p->frames[p->depth], in, m) == TS_FAULT) {
                st = TS_FAULT;
                goto out;
            }
            break;
            C(O_BARARV, T_NONE) : ptx__bar_arrive(b, in, m, R);
            break;
            C(O_MMA, T_NONE) : if (in->sub == MM_ARGS) break;
            if (m != mask) goto split;
            if (ptx__mma(b, w, in, m, R) != TS_RUN) {
                st = TS_FAULT;
                goto out;
            }
            break;
        default:
        slow:
            EACH(m) {
                if (!ptx__alu(in, R + l)) {
                    st = ptx__fault(b, &lanes[l], in, CUDA_ERROR_NOT_SUPPORTED,
                                    "the interpreter has no implementation of this instruction "
                                    "(opcode %d, type %d)",
                                    in->op / T_COUNT, in->op % T_COUNT);
                    goto out;
                }
            }
            break;
        }
        continue;
    split:
        /* Lanes of the path that the guard leaves out go on past the instruction; those it
         * holds run it as a path of their own. */
        w->split_mask = m;
        w->split_pc = pc - 1;
        mask &= ~m;
        st = TS_SPLIT;
        goto out;
    }
out:
    p->pc = pc;
    p->mask = mask;
    b->steps += steps;
    if (ran != NULL) *ran = n;
    return st;
}

/* The loop built twice on x86-64: for the baseline and for CPUs with AVX2, FMA and POPCNT (four
 * lanes of the 64-bit register file per operation, fma.rn in one instruction), chosen once by the
 * CPU's features; each also with the compiling tier's stops (ptx_jit.c). Builds with sanitizers
 * (PTX_EXEC_ONE, from mock/meson.build) have it once: four instrumented copies of this loop took
 * clang over eight minutes of one core in CI, and speed is not what those builds are for. */
#if defined(PTX_EXEC_ONE)
static __attribute__((noinline)) int exec_one(pblock *b, pwarp *w, ppath *p, uint64_t budget,
                                              uint64_t n0, const uint8_t *stop, uint64_t *ran) {
    return exec(b, w, p, budget, n0, stop, ran);
}

int ptx__exec(pblock *b, pwarp *w, ppath *p, uint64_t budget) {
    return exec_one(b, w, p, budget, 0, NULL, NULL);
}

int ptx__exec_from(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0, const uint8_t *stop,
                   uint64_t *ran) {
    return exec_one(b, w, p, budget, n0, stop, ran);
}
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2,fma,popcnt"))) static int exec_avx2(pblock *b, pwarp *w, ppath *p,
                                                                uint64_t budget) {
    return exec(b, w, p, budget, 0, NULL, NULL);
}

static int exec_base(pblock *b, pwarp *w, ppath *p, uint64_t budget) {
    return exec(b, w, p, budget, 0, NULL, NULL);
}

__attribute__((target("avx2,fma,popcnt"))) static int exec_avx2_from(pblock *b, pwarp *w, ppath *p,
                                                                     uint64_t budget, uint64_t n0,
                                                                     const uint8_t *stop,
                                                                     uint64_t *ran) {
    return exec(b, w, p, budget, n0, stop, ran);
}

static int exec_base_from(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0,
                          const uint8_t *stop, uint64_t *ran) {
    return exec(b, w, p, budget, n0, stop, ran);
}

static bool has_avx2(void) {
    static int avx2; /* 0 unknown, 1 no, 2 yes */
    int v = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
    if (v == 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("popcnt")
                ? 2
                : 1;
        __atomic_store_n(&avx2, v, __ATOMIC_RELAXED);
    }
    return v == 2;
}

int ptx__exec(pblock *b, pwarp *w, ppath *p, uint64_t budget) {
    return has_avx2() ? exec_avx2(b, w, p, budget) : exec_base(b, w, p, budget);
}

int ptx__exec_from(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0, const uint8_t *stop,
                   uint64_t *ran) {
    return has_avx2() ? exec_avx2_from(b, w, p, budget, n0, stop, ran)
                      : exec_base_from(b, w, p, budget, n0, stop, ran);
}
#else
int ptx__exec(pblock *b, pwarp *w, ppath *p, uint64_t budget) {
    return exec(b, w, p, budget, 0, NULL, NULL);
}

int ptx__exec_from(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0, const uint8_t *stop,
                   uint64_t *ran) {
    return exec(b, w, p, budget, n0, stop, ran);
}
#endif
