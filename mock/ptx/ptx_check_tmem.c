/* initcheck's memory (ptx_check_taint.c follows values in registers): which bytes hold a value
 * nobody wrote. Shared memory by the shadow's records (ptx_check.c: the epoch of the last write,
 * and a flag of a byte stored undefined); a device allocation by its written bits and, after
 * them, as many bits of bytes stored undefined (kept by the driver, mock_check.c), with the
 * kernel and line that stored them for the report of a copy to the host. Local memory,
 * parameters and module variables are taken as defined. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ptx_check_report.h"
#include "ptx_check_src.h"
#include "ptx_check_tmem.h"

/* ------------------------------------------------------------------------------------------ */
/* Who stored undefined values, for the report of a copy to the host                          */
/* ------------------------------------------------------------------------------------------ */

#define NOTED_CAP 64
static struct {
    uintptr_t lo;
    char by[320];
} noted[NOTED_CAP];
static unsigned noted_next;
static pthread_mutex_t noted_lock = PTHREAD_MUTEX_INITIALIZER;

/* The kernel and line that stored an undefined value into the allocation at lo, kept once per
 * block and allocation (the latest launch's wins). */
static void note_store(pblock *b, const pthr *t, const pinst *in, uintptr_t lo, unsigned origin) {
    pcheck *c = b->chk;
    if (c->unoted == lo) return;
    c->unoted = lo;
    char where[512], file[128], from[200] = "";
    unsigned src = 0;
    ptx__where_text(where, sizeof where, b, t, in);
    if (origin != 0) {
        int n = snprintf(from, sizeof from, ", a value loaded at PTX line %u", origin);
        if (ptx__src_line(b->run->k->mod, origin, file, sizeof file, &src))
            snprintf(from + n, sizeof from - (size_t)n, " (%s:%u)", file, src);
    }
    size_t wl = strlen(where);
    if (wl >= 2 && where[wl - 2] == ':') where[wl - 2] = '\0'; /* "...): " */
    pthread_mutex_lock(&noted_lock);
    unsigned i = 0;
    while (i < NOTED_CAP && noted[i].lo != lo) i++;
    if (i == NOTED_CAP) {
        i = noted_next;
        noted_next = (noted_next + 1) % NOTED_CAP;
    }
    noted[i].lo = lo;
    snprintf(noted[i].by, sizeof noted[i].by, "stored by %s%s", where, from);
    pthread_mutex_unlock(&noted_lock);
}

bool mock__ptx_undef_by(uintptr_t lo, char *buf, size_t len) {
    bool found = false;
    pthread_mutex_lock(&noted_lock);
    for (unsigned i = 0; i < NOTED_CAP && !found; i++) {
        if (noted[i].lo == lo && noted[i].by[0] != '\0') {
            snprintf(buf, len, "%s", noted[i].by);
            found = true;
        }
    }
    pthread_mutex_unlock(&noted_lock);
    return found;
}

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* The written bits of the allocation holding global address a (NULL: none kept, or not an
 * allocation), with the block's cache of the last one looked up. */
static unsigned char *global_map(pblock *b, uint64_t a) {
    pcheck *c = b->chk;
    const mock_ptx_launch *l = b->run->l;
    if (a < c->ilo || a - c->ilo >= c->ihi - c->ilo) {
        uintptr_t lo = 0, hi = 0;
        unsigned char *map = l->init_map != NULL ? l->init_map(l->check_ctx, a, &lo, &hi) : NULL;
        if (hi == 0) return NULL; /* not an allocation (a module's variables) */
        c->ilo = lo;              /* remembered with or without bits */
        c->ihi = hi;
        c->imap = map;
    }
    return c->imap;
}

static void bits_clear(unsigned char *map, size_t off, size_t n) {
    for (size_t i = off; i < off + n; i++) {
        unsigned char bit = (unsigned char)(1u << (i % 8));
        if (__atomic_load_n(&map[i / 8], __ATOMIC_RELAXED) & bit)
            __atomic_fetch_and(&map[i / 8], (unsigned char)~bit, __ATOMIC_RELAXED);
    }
}

static bool bits_any(const unsigned char *map, size_t off, size_t n) {
    for (size_t i = off; i < off + n; i++) {
        if (__atomic_load_n(&map[i / 8], __ATOMIC_RELAXED) & (1u << (i % 8))) return true;
    }
    return false;
}

/* Where an access of nb bytes at a goes: 1 shared memory at *off, 2 an allocation's bytes at
 * *off of the map *map, 0 memory the shadow does not follow. */
static int where(pblock *b, const pthr *t, const pinst *in, uint64_t a, size_t nb, size_t *off,
                 unsigned char **map) {
    pcheck *c = b->chk;
    uintptr_t smem = (uintptr_t)b->smem;
    int sp = in->space;
    if (sp == S_SHARED || (sp == S_GENERIC && a >= smem && a - smem < b->smem_size)) {
        *off = sp == S_SHARED ? a : a - smem;
        bool ok = c->sh != NULL && b->run->chk_run->shared_init && *off <= b->smem_size &&
                  nb <= b->smem_size - *off;
        return ok ? 1 : 0;
    }
    if (sp != S_GLOBAL && sp != S_GENERIC) return 0;
    if (sp == S_GENERIC && (a - (uintptr_t)t->local < b->run->local_size ||
                            a - (uintptr_t)b->run->params < b->run->param_bytes))
        return 0;
    *map = global_map(b, a);
    if (*map == NULL || a + nb > c->ihi) return 0;
    *off = a - c->ilo;
    return 2;
}

/* Whether the nb bytes at a hold a value no one wrote, or one stored undefined. */
bool ptx__init_undefined(pblock *b, const pthr *t, const pinst *in, uint64_t a, size_t nb) {
    size_t off = 0;
    unsigned char *map = NULL;
    switch (where(b, t, in, a, nb, &off, &map)) {
    case 1: {
        const pshadow *s = &b->chk->sh[off];
        for (size_t i = 0; i < nb; i++) {
            if (s[i].wep < b->chk->base || s[i].pad != 0) return true;
        }
        return false;
    }
    case 2: {
        size_t bytes = (size_t)(b->chk->ihi - b->chk->ilo + 7) / 8;
        return !mock_ptx_bits_all(map, off, nb) || bits_any(map + bytes, off, nb);
    }
    default: return false;
    }
}

/* Whether bits [off, off + n) are all set (any set: bits_any), a word's (n == 4, off a multiple
 * of 4) with one look. */
static inline bool bits_all_of(const unsigned char *map, size_t off, size_t n) {
    if (n != 4 || (off & 3)) return mock_ptx_bits_all(map, off, n);
    unsigned want = 0xfu << (off & 7);
    return (__atomic_load_n(&map[off / 8], __ATOMIC_RELAXED) & want) == want;
}
static inline bool bits_any_of(const unsigned char *map, size_t off, size_t n) {
    if (n != 4 || (off & 3)) return bits_any(map, off, n);
    return (__atomic_load_n(&map[off / 8], __ATOMIC_RELAXED) & (0xfu << (off & 7))) != 0;
}

/* A load, or a store of defined values (or an atomic), of global memory whose every lane's nb
 * bytes lie in the allocation looked up last: worked out as where() and undefined() or
 * written() would, lane by lane (dt[i]: the lanes whose element i is undefined), without the
 * lookup; false (nothing done) when a lane's bytes lie elsewhere. */
bool ptx__init_global_known(pblock *b, const pinst *in, uint32_t m, const uint64_t *x, size_t nb,
                            uint32_t *dt, unsigned vec, size_t sz) {
    pcheck *c = b->chk;
    uint64_t imm = (uint64_t)in->imm, a0 = x[__builtin_ctz(m)] + imm;
    bool a32 = (in->flags & F_ADDR32) != 0;
    if (a32) a0 = (uint32_t)a0;
    global_map(b, a0); /* the first lane's allocation, as where() would look it up */
    uint64_t lo = c->ilo, span = c->ihi - c->ilo;
    if (span < nb) return false;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        uint64_t a = x[__builtin_ctz(mm)] + imm;
        if (a32) a = (uint32_t)a;
        if (a - lo > span - nb) return false;
    }
    unsigned char *map = c->imap, *undef = map + (span + 7) / 8;
    bool ld = in->op / T_COUNT == O_LD;
    for (uint32_t mm = map != NULL ? m : 0; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint64_t a = x[l] + imm;
        if (a32) a = (uint32_t)a;
        for (unsigned i = 0; i < vec; i++) {
            size_t off = a - lo + i * sz;
            if (ld) {
                if (!bits_all_of(map, off, sz) || bits_any_of(undef, off, sz)) dt[i] |= 1u << l;
            } else {
                if (!bits_all_of(map, off, sz)) mock_ptx_bits_set(map, off, sz);
                if (bits_any_of(undef, off, sz)) bits_clear(undef, off, sz);
            }
        }
    }
    return true;
}

/* A store of defined values (or an atomic) to shared memory: written() of each lane's elements,
 * without where(). */
bool ptx__init_shared_defined(pblock *b, const pinst *in, uint32_t m, const uint64_t *x,
                              unsigned vec, size_t sz) {
    pcheck *c = b->chk;
    if (c->sh == NULL || !b->run->chk_run->shared_init || sz > b->smem_size) return false;
    uint64_t imm = (uint64_t)in->imm, lim = b->smem_size - sz;
    bool a32 = (in->flags & F_ADDR32) != 0;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        uint64_t a = x[__builtin_ctz(mm)] + imm;
        if (a32) a = (uint32_t)a;
        for (unsigned i = 0; i < vec; i++) {
            uint64_t off = a + i * sz;
            if (off > lim) continue; /* where() leaves it */
            for (size_t j = 0; j < sz; j++) c->sh[off + j].pad = 0;
            if ((off | sz) & 3) ptx__shadow_words(c, b->smem_size, off, sz);
        }
    }
    return true;
}

/* The nb bytes at a written with a defined value or not (`undef`). */
void ptx__init_written(pblock *b, const pthr *t, const pinst *in, uint64_t a, size_t nb, bool undef,
                       unsigned origin) {
    size_t off = 0;
    unsigned char *map = NULL;
    switch (where(b, t, in, a, nb, &off, &map)) {
    case 1:
        /* Its epoch is the racecheck's (ptx_check.c), written after this. */
        for (size_t i = 0; i < nb; i++) b->chk->sh[off + i].pad = undef;
        b->chk->sh_undef += undef;
        /* Whole words stay as alike as they were; a part of one may not. */
        if ((off | nb) & 3) ptx__shadow_words(b->chk, b->smem_size, off, nb);
        break;
    case 2: {
        size_t bytes = (size_t)(b->chk->ihi - b->chk->ilo + 7) / 8;
        if (!undef) {
            mock_ptx_bits_set(map, off, nb);
            bits_clear(map + bytes, off, nb);
            break;
        }
        bits_clear(map, off, nb);
        mock_ptx_bits_set(map + bytes, off, nb);
        note_store(b, t, in, b->chk->ilo, origin);
        break;
    }
    default: break;
    }
}
