/* CUSHIM_MOCK_CHECK inside the interpreter: racecheck and initcheck of memory (synccheck is in
 * ptx_check_sync.c, the reports in ptx_check_report.c).
 *
 * Shared memory has a shadow, a record per byte: the epoch (barriers the block completed, counted
 * from the block's first) and thread of the last write and of the last read. Two accesses of one
 * byte in one epoch by threads of different warps, one of them a write, are a race: nothing
 * orders them on a GPU, whose warps run in any order. Within a warp, independent thread
 * scheduling lets the lanes of divergent code run in any order too: two accesses of one byte by
 * lanes of one warp, one of them a write, race when the earlier one was made by a path that did
 * not hold the later lane (different sides of a branch, different iterations of a loop the lanes
 * left at different times) and no __syncwarp (bar.warp.sync) or barrier came between. Lanes that
 * ran the access together, converged, are not compared. An atomic is no race, and marks the
 * bytes written. A store that leaves the bytes as they were races only at the strict level
 * (racecheck-strict), and its report says so. The shadow's write epoch also tells initcheck
 * (ptx_check_taint.c) which shared bytes no thread of the block wrote since the block started
 * (the mock zeroes shared memory, a GPU leaves what was there). A kernel with cp.async or
 * mbarrier copies writes shared memory that the shadow does not see: initcheck of shared memory
 * is off for it.
 *
 * Most accesses are of whole words whose four records are alike (a flag per word, `uni`): one
 * record is worked out and copied to the other three, and a load that finds a reader of its
 * epoch and warp recorded is left at that. The shadow is made in ptx_check_block.c. */
#include <stdio.h>
#include <string.h>

#include "ptx_check.h"
#include "ptx_check_src.h"
#include "ptx_check_report.h"
#include "ptx_check_table.h"
#include "ptx_val.h"

static const char *const access_names[] = {"read", "write"};
static const char *const space_names[] = {"global", "shared"};

/* The thread of the block with linear index i and its PTX line, for the other side of a race. */
static void thread_text(const pblock *b, uint32_t i, unsigned line, char *buf, size_t len) {
    if (i >= b->n) {
        snprintf(buf, len, "a thread");
        return;
    }
    const pthr *t = &b->t[i];
    unsigned src = 0;
    char file[128], at[160] = "";
    if (ptx__src_line(b->run->k->mod, line, file, sizeof file, &src))
        snprintf(at, sizeof at, ", %s:%u", file, src);
    snprintf(buf, len, "thread (%u,%u,%u) (warp %u), PTX line %u%s", t->tid[0], t->tid[1],
             t->tid[2], t->warp, line, at);
}

/* Whether lane l's store would leave [q, q + nb) as it is. */
static bool same_bytes(const pinst *in, const uint64_t *R, unsigned l, const unsigned char *q,
                       size_t sz) {
    uint64_t keep = sz >= 8 ? ~0ull : (1ull << (sz * 8)) - 1;
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t v = R[((size_t)in->d[i] << 5) + l], cur = 0;
        switch (sz) { /* little-endian, as the mock's hosts */
        case 1: cur = q[i]; break;
        case 2: memcpy(&cur, q + i * 2, 2); break;
        case 4: memcpy(&cur, q + i * 4, 4); break;
        default: memcpy(&cur, q + i * 8, 8); break;
        }
        if (((cur ^ v) & keep) != 0) return false;
    }
    return true;
}

/* What one access does to the shadow of one of its bytes: a race reported (racecheck), then the
 * access recorded. `shared`: the byte is shared memory at offset addr, else global memory. */
typedef struct access {
    pblock *b;
    pthr *t;
    const pinst *in;
    size_t nb, sz;
    bool ld, atomic, shared;
    int unchanged; /* -1: not worked out yet (only a race needs it) */
    uint32_t path; /* the lanes of the accessing path */
    unsigned l;    /* the lane, and R the path's registers */
    const uint64_t *R;
    const unsigned char *q; /* the bytes accessed */
} access;

/* Whether the store would leave the bytes as they were (racecheck-strict's case), worked out
 * the first time a race asks. */
static bool unchanged(access *x) {
    if (x->unchanged < 0)
        x->unchanged = !x->ld && !x->atomic && same_bytes(x->in, x->R, x->l, x->q, x->sz);
    return x->unchanged != 0;
}

static const char warp_text[] =
    " (lanes of one warp in divergent code, with no __syncwarp between them)";

/* Whether an earlier access by thread `thr` of the same warp as x's, made by the path of lanes
 * `mask` at the warp's __syncwarp count `sync`, is unordered with x under independent thread
 * scheduling. */
static bool warp_race(const access *x, uint16_t thr, uint32_t mask, uint32_t sync) {
    const pcheck *c = x->b->chk;
    return thr != x->t->linear && c->wsync != NULL && sync == c->wsync[x->t->warp] &&
           !((mask >> x->t->lane) & 1);
}

static const char unchanged_text[] =
    "; the store leaves the bytes as they were, reported at the strict level only";

__attribute__((noinline)) static int race(access *x, const pshadow *s, uint64_t addr) {
    prun *r = x->b->run;
    uint32_t e = x->b->chk->epoch, warp = x->t->warp;
    bool strict = (r->checks & MOCK_PTX_CHECK_RACE_STRICT) != 0;
    char other[256];
    bool wwarp = s->wthr / 32 == warp;
    if (s->wep == e && s->wthr != PSH_ATOMIC &&
        (!wwarp || warp_race(x, s->wthr, s->wmask, s->wsync)) && (strict || !unchanged(x))) {
        thread_text(x->b, s->wthr, s->wline, other, sizeof other);
        return ptx__check_report(
            x->b, x->t, x->in, 1, s->wline,
            "%s %zu-byte %s of %s address 0x%llx races with a write by %s, with no "
            "barrier between them (%s)%s%s",
            ptx__a(x->nb), x->nb, access_names[!x->ld], space_names[x->shared],
            (unsigned long long)addr, other, x->ld ? "read after write" : "write after write",
            wwarp ? warp_text : "", unchanged(x) ? unchanged_text : "");
    }
    bool rwarp = s->rthr / 32 == warp && s->rthr2 == PSH_NOBODY;
    if (!x->ld && s->rep == e &&
        (s->rthr / 32 != warp || s->rthr2 != PSH_NOBODY ||
         warp_race(x, s->rthr, s->rmask, s->rsync)) &&
        (strict || !unchanged(x))) {
        /* The reader of another warp (the first, or the first of a second warp), or of this
         * warp in divergent code. */
        bool first = s->rthr / 32 != warp || rwarp;
        unsigned line = first ? s->rline : s->rline2;
        thread_text(x->b, first ? s->rthr : s->rthr2, line, other, sizeof other);
        return ptx__check_report(
            x->b, x->t, x->in, 1, line,
            "%s %zu-byte write of %s address 0x%llx races with a read by %s, with no "
            "barrier between them (write after read)%s%s",
            ptx__a(x->nb), x->nb, space_names[x->shared], (unsigned long long)addr, other,
            rwarp ? warp_text : "", unchanged(x) ? unchanged_text : "");
    }
    return TS_RUN;
}

/* A plain (not atomic) access recorded: thread `me` of warp `warp`, at PTX line `line`, by the
 * path of lanes `path` at the warp's __syncwarp count `sync`, in epoch e. */
static inline void record(pshadow *s, bool ld, uint32_t e, uint32_t me, uint32_t warp,
                          uint32_t line, uint32_t path, uint32_t sync) {
    if (!ld) {
        s->wep = e;
        s->wthr = (uint16_t)me;
        s->wline = line;
        s->wmask = path;
        s->wsync = sync;
    } else if (s->rep != e) {
        s->rep = e;
        s->rthr = (uint16_t)me;
        s->rline = line;
        s->rthr2 = PSH_NOBODY;
        s->rmask = path;
        s->rsync = sync;
    } else if (s->rthr2 == PSH_NOBODY && s->rthr / 32 != warp) {
        s->rthr2 = (uint16_t)me;
        s->rline2 = line;
    }
}

/* Whether race() has anything to look at: the byte written, or (for a write) read, in the
 * epoch, by another thread than `me` (its own accesses are ordered). */
static inline bool may_race(const pshadow *s, bool ld, uint32_t e, uint32_t me) {
    return (s->wep == e && s->wthr != me) ||
           (!ld && s->rep == e && (s->rthr != me || s->rthr2 != PSH_NOBODY));
}

static int touch(access *x, pshadow *s, uint64_t addr) {
    pcheck *c = x->b->chk;
    prun *r = x->b->run;
    uint32_t e = c->epoch;
    if (x->atomic) {
        s->wep = e;
        s->wthr = PSH_ATOMIC;
        s->wline = x->in->line;
        return TS_RUN;
    }
    if ((r->checks & MOCK_PTX_CHECK_RACE) && may_race(s, x->ld, e, x->t->linear)) {
        int st = race(x, s, addr);
        if (st != TS_RUN) return st;
    }
    uint32_t sync = c->wsync != NULL ? c->wsync[x->t->warp] : 0;
    record(s, x->ld, e, x->t->linear, x->t->warp, x->in->line, x->path, sync);
    return TS_RUN;
}

/* Words [off / 4, (off + nb + 3) / 4) of shared memory looked at again: a word's flag in uni
 * says its four records are alike (then an access of the whole word works out one record). */
void ptx__shadow_words(pcheck *c, size_t size, size_t off, size_t nb) {
    for (size_t w = off / 4; w * 4 < off + nb; w++) {
        const pshadow *s = &c->sh[w * 4];
        bool alike = w * 4 + 4 <= size;
        for (size_t i = 1; i < 4 && alike; i++) alike = memcmp(&s[i], s, sizeof *s) == 0;
        c->uni[w] = alike;
    }
}

/* One lane's access of [a, a + nb), any case: shared memory (initcheck, racecheck) or global
 * (racecheck within the block). Addresses the access itself would refuse are left to it. */
static int lane_access(access *x, uint64_t a) {
    pblock *b = x->b;
    pcheck *c = b->chk;
    uintptr_t smem = (uintptr_t)b->smem;
    int sp = x->in->space;
    uint64_t off = 0;
    x->shared = sp == S_SHARED || (sp == S_GENERIC && a >= smem && a - smem < b->smem_size);
    if (x->shared) {
        off = sp == S_SHARED ? a : a - smem;
        if (c->sh == NULL || off > b->smem_size || x->nb > b->smem_size - off) return TS_RUN;
    } else if (sp == S_GLOBAL || sp == S_GENERIC) {
        /* Global memory: racecheck only (initcheck's is in ptx_check_taint.c). */
        if (!(b->run->checks & MOCK_PTX_CHECK_RACE)) return TS_RUN;
        if (sp == S_GENERIC && (a - (uintptr_t)x->t->local < b->run->local_size ||
                                a - (uintptr_t)b->run->params < b->run->param_bytes))
            return TS_RUN;
        /* Checked as the access will check it (the same fault, first), before its bytes are
         * read here. */
        if (ptx__addr(b, x->t, x->in, sp, a, x->nb, !x->ld) == NULL) return TS_FAULT;
    } else {
        return TS_RUN;
    }
    x->q = x->shared ? b->smem + off : (const unsigned char *)(uintptr_t)a;
    if (!x->shared) {
        /* Global memory: one record per access, keyed by its first byte (accesses of other
         * sizes or starts that overlap it are not compared: a race missed, never a false one). */
        pshadow *s = ptx__table_get(&c->global, a);
        return s == NULL ? TS_RUN : touch(x, s, a); /* no memory for the shadow: unchecked */
    }
    /* The bytes of an access mostly have one history: then the first byte's outcome is every
     * byte's, and one is worked out and copied. */
    pshadow *sh = &c->sh[off];
    if (!x->ld) { /* bytes written for the first time in the block (initcheck's fast case) */
        for (size_t i = 0; i < x->nb; i++) c->sh_written += sh[i].wep < c->base;
    }
    bool uniform = x->nb > 1;
    for (size_t i = 1; i < x->nb && uniform; i++) uniform = memcmp(&sh[i], sh, sizeof *sh) == 0;
    int st = TS_RUN;
    if (uniform) {
        st = touch(x, sh, off);
        for (size_t i = 1; i < x->nb; i++) sh[i] = sh[0];
    } else {
        for (size_t i = 0; i < x->nb && st == TS_RUN; i++) st = touch(x, &c->sh[off + i], off + i);
    }
    ptx__shadow_words(c, b->smem_size, off, x->nb);
    return st;
}

/* Whether a load would change nothing in a record and report nothing: no write in its epoch,
 * and a reader of the epoch recorded already, of this warp or of a second warp. */
static inline bool read_known(const pshadow *s, uint32_t e, uint32_t warp) {
    return s->wep != e && s->rep == e && (s->rthr2 != PSH_NOBODY || s->rthr / 32 == warp);
}

/* Copies a record over the n - 1 after it (the bytes of an access with one history). */
static inline void spread(pshadow *s, size_t n) {
    if (n == 4) {
        s[1] = s[2] = s[3] = s[0];
        return;
    }
    for (size_t i = 1; i < n; i++) s[i] = s[0];
}

/* The lanes' accesses, each by lane_access, or at less cost (the same records, the same
 * reports) in the common cases: shared memory at whole words whose records are alike, and global
 * memory in an allocation the host thread looked up lately (so not shared, local or parameter
 * memory, and no fault). */
/* The rare cases of one lane, out of the loops below: lane_access, or race(). */
__attribute__((noinline)) static int lane_slow(access *acc, pthr *lanes, unsigned l, uint64_t a) {
    acc->t = &lanes[l];
    acc->l = l;
    acc->unchanged = -1;
    return lane_access(acc, a);
}

__attribute__((noinline)) static int lane_race(access *acc, pthr *lanes, unsigned l, pshadow *s,
                                               uint64_t addr, const unsigned char *q) {
    acc->t = &lanes[l];
    acc->l = l;
    acc->unchanged = -1;
    acc->q = q;
    return race(acc, s, addr);
}

/* What the lanes of one instruction share: its warp, the epoch, its line, the warp's
 * __syncwarp count. */
typedef struct shared_by {
    uint32_t warp, e, line, path, sync;
    bool racing;
} shared_by;

/* Plain accesses of shared words (S_SHARED, 4 bytes): lane_access's case of bytes with one
 * history, where the word's records are alike, without its calls. */
static int shared_words(access *acc, pthr *lanes, uint32_t m, const uint64_t *x, uint64_t imm,
                        bool a32, const shared_by *k) {
    pblock *b = acc->b;
    pcheck *c = b->chk;
    const uint8_t *uni = c->uni;
    pshadow *sh = c->sh;
    uint64_t lim = b->smem_size - 4;
    bool ld = acc->ld;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t o = x[l] + imm;
        if (a32) o = (uint32_t)o;
        if ((o & 3) || o > lim || !uni[o / 4]) {
            acc->shared = true;
            int st = lane_slow(acc, lanes, l, o);
            if (st != TS_RUN) return st;
            continue;
        }
        pshadow *s = &sh[o];
        if (ld && read_known(s, k->e, k->warp)) continue;
        if (!ld) c->sh_written += (s->wep < c->base) * 4;
        if (k->racing && may_race(s, ld, k->e, lanes[l].linear)) {
            acc->shared = true;
            int st = lane_race(acc, lanes, l, s, o, b->smem + o);
            if (st != TS_RUN) {
                spread(s, 4);
                return st;
            }
        }
        record(s, ld, k->e, lanes[l].linear, k->warp, k->line, k->path, k->sync);
        spread(s, 4);
    }
    return TS_RUN;
}

/* Plain accesses of global memory (S_GLOBAL) in the allocation [lo, lo + span) that the host
 * thread looked up lately (so no fault), by lane_access's rule, without its calls. */
static int global_lanes(access *acc, pthr *lanes, uint32_t m, const uint64_t *x, uint64_t imm,
                        bool a32, const shared_by *k, uint64_t lo, uint64_t span) {
    ptable *t = &acc->b->chk->global;
    size_t nb = acc->nb;
    bool ld = acc->ld;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t a = x[l] + imm;
        if (a32) a = (uint32_t)a;
        if (a - lo > span - nb || (a & (nb - 1))) {
            acc->shared = false;
            int st = lane_slow(acc, lanes, l, a);
            if (st != TS_RUN) return st;
            continue;
        }
        pshadow *s = ptx__table_get(t, a);
        if (s == NULL) continue; /* no memory for the shadow: unchecked */
        if (ld && read_known(s, k->e, k->warp)) continue;
        if (may_race(s, ld, k->e, lanes[l].linear)) {
            acc->shared = false;
            int st = lane_race(acc, lanes, l, s, a, (const unsigned char *)(uintptr_t)a);
            if (st != TS_RUN) return st;
        }
        record(s, ld, k->e, lanes[l].linear, k->warp, k->line, k->path, k->sync);
    }
    return TS_RUN;
}

int ptx__check_mem(pblock *b, pthr *lanes, const pinst *in, uint32_t m, uint32_t path,
                   const uint64_t *R, bool ld, bool atomic) {
    pcheck *c = b->chk;
    unsigned checks = b->run->checks;
    if (c == NULL || !(checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT))) return TS_RUN;
    int sp = in->space;
    if (sp != S_SHARED && sp != S_GLOBAL && sp != S_GENERIC) return TS_RUN;
    const uint64_t *x = R + ((size_t)in->s[0] << 5);
    size_t sz = (size_t)bits_of(in->op % T_COUNT) / 8, nb = sz * (atomic ? 1 : in->vec);
    access acc = {b, NULL, in, nb, sz, ld, atomic, false, -1, path, 0, R, NULL};
    uint64_t imm = (uint64_t)in->imm;
    bool a32 = (in->flags & F_ADDR32) != 0;
    unsigned first = (unsigned)__builtin_ctz(m);
    shared_by k = {
        lanes[first].warp, c->epoch, in->line, path, 0, (checks & MOCK_PTX_CHECK_RACE) != 0};
    if (c->wsync != NULL) k.sync = c->wsync[k.warp];
    if (!atomic && sp == S_SHARED && nb == 4 && c->sh != NULL && b->smem_size >= 4)
        return shared_words(&acc, lanes, m, x, imm, a32, &k);
    if (sp == S_GLOBAL && !k.racing) return TS_RUN; /* initcheck's is in ptx_check_taint.c */
    if (!atomic && sp == S_GLOBAL && !(nb & (nb - 1))) {
        /* The allocation of the first lane's address, if the host thread looked it up lately
         * (none: every lane by lane_access, which looks it up). */
        const pworker *wk = b->w;
        uint64_t a0 = x[first] + imm;
        if (a32) a0 = (uint32_t)a0;
        unsigned i = 0;
        while (i < 3 && a0 - wk->lo[i] >= wk->hi[i] - wk->lo[i]) i++;
        uint64_t lo = wk->lo[i], span = wk->hi[i] - wk->lo[i];
        if (nb <= span) return global_lanes(&acc, lanes, m, x, imm, a32, &k, lo, span);
    }
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t a = x[l] + imm;
        if (a32) a = (uint32_t)a;
        int st = lane_slow(&acc, lanes, l, a);
        if (st != TS_RUN) return st;
    }
    return TS_RUN;
}
