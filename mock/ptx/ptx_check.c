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
 * Epochs go on growing across the blocks a host thread runs, so a block starts without clearing
 * its shadow: what an earlier block recorded is of an older epoch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_check.h"
#include "ptx_check_src.h"
#include "ptx_check_report.h"
#include "ptx_check_table.h"
#include "ptx_check_taint.h"
#include "ptx_val.h"

/* Whether any function of the kernel's module copies asynchronously into shared memory. */
static bool has_async(const mock_ptx_module *m) {
    for (size_t i = 0; i < m->nfuncs; i++) {
        const mock_ptx_func *f = &m->funcs[i];
        if (!f->decoded || f->error != NULL) continue;
        for (size_t j = 0; j < f->ncode; j++) {
            if (f->code[j].op / T_COUNT == O_ASYNC) return true;
        }
    }
    return false;
}

bool ptx__check_run_begin(prun *r) {
    r->checks = r->l->checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT | MOCK_PTX_CHECK_SYNC |
                                MOCK_PTX_CHECK_RACE_STRICT);
    if (r->checks & MOCK_PTX_CHECK_RACE_STRICT) r->checks |= MOCK_PTX_CHECK_RACE;
    if (r->checks == 0) return true;
    r->chk_run = calloc(1, sizeof *r->chk_run);
    if (r->chk_run == NULL) return false;
    r->chk_run->shared_init = (r->checks & MOCK_PTX_CHECK_INIT) && !has_async(r->k->mod);
    return true;
}

void ptx__check_run_end(prun *r) {
    free(r->chk_run);
    r->chk_run = NULL;
}

bool ptx__check_block_alloc(pblock *b) {
    prun *r = b->run;
    if (r->checks == 0) return true;
    b->chk = calloc(1, sizeof *b->chk);
    if (b->chk == NULL) return false;
    if ((r->checks & MOCK_PTX_CHECK_RACE) &&
        (b->chk->wsync = calloc(b->nwarps, sizeof *b->chk->wsync)) == NULL)
        return false;
    if ((r->checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT)) && b->smem_size > 0) {
        b->chk->sh = calloc(b->smem_size, sizeof *b->chk->sh);
        if (b->chk->sh == NULL) return false;
    }
    return ptx__taint_alloc(b);
}

void ptx__check_block_start(pblock *b) {
    pcheck *c = b->chk;
    if (c == NULL) return;
    if (c->epoch >= 0xfff00000u) { /* epochs about to wrap: start the shadow over */
        if (c->sh != NULL) memset(c->sh, 0, b->smem_size * sizeof *c->sh);
        c->epoch = 0;
    }
    c->base = ++c->epoch;
    c->sh_written = c->sh_undef = 0;
    if (c->wsync != NULL) memset(c->wsync, 0, b->nwarps * sizeof *c->wsync);
    ptx__taint_start(b);
}

void ptx__check_block_free(pblock *b) {
    if (b->chk == NULL) return;
    ptx__taint_free(b);
    ptx__table_free(&b->chk->global);
    free(b->chk->wsync);
    free(b->chk->sh);
    free(b->chk);
    b->chk = NULL;
}

static const char *const access_names[] = {"read", "write"};

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
    size_t nb;
    bool ld, atomic, unchanged, shared;
    uint32_t path; /* the lanes of the accessing path */
} access;

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

static int race(const access *x, const pshadow *s, uint64_t addr) {
    prun *r = x->b->run;
    uint32_t e = x->b->chk->epoch, warp = x->t->warp;
    bool strict = (r->checks & MOCK_PTX_CHECK_RACE_STRICT) != 0;
    const char *space = x->shared ? "shared" : "global";
    char other[256];
    bool wwarp = s->wthr / 32 == warp;
    if (s->wep == e && s->wthr != PSH_ATOMIC &&
        (!wwarp || warp_race(x, s->wthr, s->wmask, s->wsync)) && (!x->unchanged || strict)) {
        thread_text(x->b, s->wthr, s->wline, other, sizeof other);
        return ptx__check_report(
            x->b, x->t, x->in, 1, s->wline,
            "a %zu-byte %s of %s address 0x%llx races with a write by %s, with no "
            "barrier between them (%s)%s%s",
            x->nb, access_names[!x->ld], space, (unsigned long long)addr, other,
            x->ld ? "read after write" : "write after write", wwarp ? warp_text : "",
            x->unchanged ? unchanged_text : "");
    }
    bool rwarp = s->rthr / 32 == warp && s->rthr2 == PSH_NOBODY;
    if (!x->ld && s->rep == e &&
        (s->rthr / 32 != warp || s->rthr2 != PSH_NOBODY ||
         warp_race(x, s->rthr, s->rmask, s->rsync)) &&
        (!x->unchanged || strict)) {
        /* The reader of another warp (the first, or the first of a second warp), or of this
         * warp in divergent code. */
        bool first = s->rthr / 32 != warp || rwarp;
        unsigned line = first ? s->rline : s->rline2;
        thread_text(x->b, first ? s->rthr : s->rthr2, line, other, sizeof other);
        return ptx__check_report(
            x->b, x->t, x->in, 1, line,
            "a %zu-byte write of %s address 0x%llx races with a read by %s, with no "
            "barrier between them (write after read)%s%s",
            x->nb, space, (unsigned long long)addr, other, rwarp ? warp_text : "",
            x->unchanged ? unchanged_text : "");
    }
    return TS_RUN;
}

static int touch(const access *x, pshadow *s, uint64_t addr) {
    pcheck *c = x->b->chk;
    prun *r = x->b->run;
    uint32_t e = c->epoch, me = x->t->linear;
    if (x->atomic) {
        s->wep = e;
        s->wthr = PSH_ATOMIC;
        s->wline = x->in->line;
        return TS_RUN;
    }
    if (r->checks & MOCK_PTX_CHECK_RACE) {
        int st = race(x, s, addr);
        if (st != TS_RUN) return st;
    }
    uint32_t sync = c->wsync != NULL ? c->wsync[x->t->warp] : 0;
    if (!x->ld) {
        s->wep = e;
        s->wthr = (uint16_t)me;
        s->wline = x->in->line;
        s->wmask = x->path;
        s->wsync = sync;
    } else if (s->rep != e) {
        s->rep = e;
        s->rthr = (uint16_t)me;
        s->rline = x->in->line;
        s->rthr2 = PSH_NOBODY;
        s->rmask = x->path;
        s->rsync = sync;
    } else if (s->rthr2 == PSH_NOBODY && s->rthr / 32 != x->t->warp) {
        s->rthr2 = (uint16_t)me;
        s->rline2 = x->in->line;
    }
    return TS_RUN;
}

/* One lane's access of [a, a + nb): shared memory (initcheck, racecheck) or global (racecheck
 * within the block). Addresses the access itself would refuse are left to it. */
static int lane_access(access *x, const uint64_t *R, unsigned l, uint64_t a, size_t sz) {
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
    const unsigned char *q = x->shared ? b->smem + off : (const unsigned char *)(uintptr_t)a;
    x->unchanged = !x->ld && !x->atomic && (b->run->checks & MOCK_PTX_CHECK_RACE) &&
                   same_bytes(x->in, R, l, q, sz);
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
    if (uniform) {
        int st = touch(x, sh, off);
        for (size_t i = 1; i < x->nb; i++) sh[i] = sh[0];
        return st;
    }
    for (size_t i = 0; i < x->nb; i++) {
        int st = touch(x, &c->sh[off + i], off + i);
        if (st != TS_RUN) return st;
    }
    return TS_RUN;
}

int ptx__check_mem(pblock *b, pthr *lanes, const pinst *in, uint32_t m, uint32_t path,
                   const uint64_t *R, bool ld, bool atomic) {
    pcheck *c = b->chk;
    if (c == NULL || !(b->run->checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT))) return TS_RUN;
    if (in->space != S_SHARED && in->space != S_GLOBAL && in->space != S_GENERIC) return TS_RUN;
    const uint64_t *x = R + ((size_t)in->s[0] << 5);
    size_t sz = (size_t)bits_of(in->op % T_COUNT) / 8;
    access acc = {b, NULL, in, sz * (atomic ? 1 : in->vec), ld, atomic, false, false, path};
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t a = x[l] + (uint64_t)in->imm;
        if (in->flags & F_ADDR32) a = (uint32_t)a;
        acc.t = &lanes[l];
        int st = lane_access(&acc, R, l, a, sz);
        if (st != TS_RUN) return st;
    }
    return TS_RUN;
}

void ptx__check_heap_new(pblock *b, uint64_t p, uint64_t n) {
    if (b->chk != NULL && p != 0) ptx__table_forget(&b->chk->global, p, n);
}
