/* cp.async and mbarrier, lane by lane (PTX ISA 9.7.9.25 "cp.async", 9.7.9.25.4 "cp.async.bulk",
 * 9.7.13.15 "mbarrier").
 *
 * The copies are done at issue: a thread sees its own copies complete when it waits on their
 * group, and the groups and waits need no state. An mbarrier object is the 64-bit word in shared
 * memory that the program gives (its layout is the implementation's, PTX ISA 9.7.13.15.1), here:
 * bits 0-20 the expected arrival count, 21-41 the pending arrivals, 42-62 the pending
 * transaction bytes (signed: a copy may complete before its bytes are expected), 63 the phase's
 * parity. A phase completes when the pending arrivals and bytes are both zero: the parity flips
 * and the pending count is reset to the expected one. A block's warps run on one host thread,
 * so an operation on the word is atomic. */
#include <string.h>

#include "ptx_run.h"

#define MB_MASK 0x1fffffull
#define MB_EXPECTED(v) ((v)&MB_MASK)
#define MB_PENDING(v) (((v) >> 21) & MB_MASK)
#define MB_PHASE(v) ((v) >> 63)

static int64_t mb_tx(uint64_t v) {
    int64_t t = (int64_t)((v >> 42) & MB_MASK);
    return t >= (1 << 20) ? t - (1 << 21) : t;
}

static uint64_t mb_make(uint64_t expected, uint64_t pending, int64_t tx, uint64_t phase) {
    return (expected & MB_MASK) | (pending & MB_MASK) << 21 | ((uint64_t)tx & MB_MASK) << 42 |
           phase << 63;
}

/* Applies an arrival of `count` (and `drop` of the expected count) and `tx` more pending bytes;
 * completes the phase when nothing is pending. */
static void mb_update(uint64_t *w, uint64_t count, uint64_t drop, int64_t tx) {
    uint64_t v = *w, exp = MB_EXPECTED(v) - drop, pend = MB_PENDING(v) - count, ph = MB_PHASE(v);
    int64_t t = mb_tx(v) + tx;
    if (pend == 0 && t == 0) {
        pend = exp;
        ph ^= 1;
    }
    *w = mb_make(exp, pend, t, ph);
}

static void *addr(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, size_t n) {
    pinst one = *in;
    one.flags &= (uint8_t)~F_ADDR32;
    if (space == S_SHARED) a = (uint32_t)a;
    return ptx__addr(b, t, &one, space, a, n, true);
}

/* n bytes from a, aligned to `align`: the first's host address, NULL after a fault. */
static void *range(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, uint64_t n,
                   size_t align, bool write) {
    if (space == S_SHARED) a = (uint32_t)a;
    if (a % align != 0) {
        ptx__fault(b, t, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                   "a cp.async at 0x%llx, not aligned to %zu bytes", (unsigned long long)a, align);
        return NULL;
    }
    pinst one = *in;
    one.flags &= (uint8_t)~F_ADDR32;
    unsigned char *p = ptx__addr(b, t, &one, space, a, 1, write);
    if (p == NULL || (n > 1 && ptx__addr(b, t, &one, space, a + n - 1, 1, write) == NULL))
        return NULL;
    return p;
}

static int bad_count(pblock *b, pthr *t, const pinst *in, uint64_t c) {
    return ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                      "an mbarrier count of %llu, outside 0 to 2^20 - 1 (PTX ISA 9.7.13.15)",
                      (unsigned long long)c);
}

int ptx__async(pblock *b, pthr *t, const pinst *in, uint64_t *R) {
#define REG(slot) LANE_REG(R, slot)
    if (in->sub == AS_COPY) {
        uint64_t size = REG(in->d[1]), src_size = REG(in->d[2]);
        if (in->flags & F_CLAMP) /* an ignore-src predicate: true reads nothing, zero fills */
            src_size = ((src_size & 1) != 0) != ((in->flags & F_NEGC) != 0) ? 0 : size;
        if (src_size > size)
            return ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                              "cp.async with a src-size of %llu, above its cp-size of %llu",
                              (unsigned long long)src_size, (unsigned long long)size);
        /* Both ends aligned to the copy's size (16 for .bulk, whose sizes are multiples) */
        size_t align = in->imm || in->d[3] != SL_ZERO ? 16 : (size_t)size;
        unsigned char *dst =
            range(b, t, in, in->space, REG(in->s[0]) + REG(in->s[1]), size, align, true);
        if (dst == NULL) return TS_FAULT;
        if (src_size > 0) {
            const unsigned char *src =
                range(b, t, in, S_GLOBAL, REG(in->s[2]) + REG(in->s[3]), src_size, align, false);
            if (src == NULL) return TS_FAULT;
            memmove(dst, src, (size_t)src_size);
        }
        memset(dst + src_size, 0, (size_t)(size - src_size));
        if (in->imm) {
            uint64_t *w = addr(b, t, in, S_SHARED, REG(in->d[3]) + REG(in->aux), 8);
            if (w == NULL) return TS_FAULT;
            mb_update(w, 0, 0, -(int64_t)size);
        }
        return 0;
    }
    if (in->sub == AS_PENDING) {
        REG(in->d[0]) = MB_PENDING(REG(in->s[0]));
        return 0;
    }
    uint64_t *w = addr(b, t, in, in->space, REG(in->s[0]) + REG(in->s[1]), 8);
    if (w == NULL) return TS_FAULT;
    uint64_t v = *w, c = REG(in->s[2]);
    switch (in->sub) {
    case AS_INIT:
        if (c == 0 || c > (1u << 20) - 1) return bad_count(b, t, in, c);
        *w = mb_make(c, c, 0, 0);
        break;
    case AS_INVAL: *w = 0; break;
    case AS_EXPECT:
    case AS_COMPLETE:
        if (c > (1u << 20) - 1) return bad_count(b, t, in, c);
        mb_update(w, 0, 0, in->sub == AS_EXPECT ? (int64_t)c : -(int64_t)c);
        break;
    case AS_ARRIVE: {
        uint64_t n = REG(in->s[3]);
        if (n == 0 || n > MB_PENDING(v) || (in->imm && n > MB_EXPECTED(v)))
            return ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                              "an mbarrier arrival of %llu with %llu pending (PTX ISA "
                              "9.7.13.15.13: undefined behaviour)",
                              (unsigned long long)n, (unsigned long long)MB_PENDING(v));
        if (c > (1u << 20) - 1) return bad_count(b, t, in, c);
        if (c) mb_update(w, 0, 0, (int64_t)c);
        mb_update(w, n, in->imm ? n : 0, 0);
        REG(in->d[0]) = v;
        break;
    }
    case AS_CPARRIVE:
        /* Without .noinc the pending count goes up by one and the copies' arrival takes it
         * down again; with .noinc the arrival counts. */
        if (in->imm) {
            if (MB_PENDING(v) == 0) return bad_count(b, t, in, 0);
            mb_update(w, 1, 0, 0);
        }
        break;
    case AS_TEST: REG(in->d[0]) = MB_PHASE(v) != MB_PHASE(c); break;
    case AS_PARITY: REG(in->d[0]) = MB_PHASE(v) != (c & 1); break;
    default: return ptx__fault(b, t, in, CUDA_ERROR_NOT_SUPPORTED, "an unknown mbarrier operation");
    }
    return 0;
#undef REG
}
