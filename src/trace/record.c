/* A call's arguments copied into a record: each argument's bytes in a cell of the record's area,
 * an output's value copied from where the call wrote it (the cell of the pointer then points at
 * the copy), strings copied as far as a line prints them. The formatters read the copies as they
 * would read the arguments (format.c). */
#include <string.h>

#include "common/hints.h"

#include "trace/record.h"

/* Where an argument that was not copied points: zeros, enough for any reader. */
static const unsigned long long zero[2];
/* What a string that did not fit reads as. */
static const char cut_string[] = "...";

/* Where a record that is not dense keeps its copies: its table of offsets, then its area. */
typedef struct place {
    cushim__rec *r;
    cushim__rec_offs *a;
    char *area;
    size_t cap;
} place;

static place place_of(cushim__rec *r) {
    size_t at = r->kind == CUSHIM__REC_RT ? CUSHIM__REC_RT_AREA : CUSHIM__REC_CALL_AREA;
    place p = {r, r->kind == CUSHIM__REC_RT ? &r->u.rt.a : &r->u.c.a, (char *)r + at,
               CUSHIM__REC_SIZE - at};
    return p;
}

/* A cell of n bytes (rounded up to 8) of the area, zeroed; NULL when the area is full. */
static void *take(place *pl, size_t n) {
    n = (n + 7) & ~(size_t)7;
    if (n > pl->cap - pl->a->used) {
        pl->r->cut = 1;
        return NULL;
    }
    void *p = pl->area + pl->a->used;
    memset(p, 0, n);
    pl->a->used = (unsigned short)(pl->a->used + n);
    return p;
}

/* A line prints 64 characters of a string and "..." when there are more: 65 and the end. */
static const char *copy_string(place *r, const char *s) {
    if (s == NULL) return NULL;
    size_t n = strnlen(s, 65);
    char *d = take(r, n + 1);
    if (d == NULL) return cut_string;
    memcpy(d, s, n);
    return d;
}

/* A copy of the value at p as argument a reads it (its kind and size); NULL when full. */
static void *copy_value(place *r, const cushim__trace_arg *a, const void *p) {
    if (a->kind == CUSHIM__ARG_STRING) {
        const char **cell = take(r, sizeof *cell);
        if (cell != NULL) *cell = copy_string(r, *(const char *const *)p);
        return cell;
    }
    if (a->kind == CUSHIM__ARG_OPAQUE) return take(r, 8); /* printed as {...}: not read */
    size_t n = a->size > 16 ? 16 : a->size;
    void *cell = take(r, n < 8 ? 8 : n);
    if (cell != NULL) memcpy(cell, p, n);
    return cell;
}

static bool is_scalar(const cushim__trace_arg *a) {
    return !a->output && a->kind != CUSHIM__ARG_STRING && a->kind != CUSHIM__ARG_OPAQUE &&
           (a->size == 1 || a->size == 2 || a->size == 4 || a->size == 8);
}

/* The argument's bytes at the start of a zeroed word, as the formatters read them back. */
static void store(char *to, const void *p, unsigned size) {
    memset(to, 0, 8);
    switch (size) {
    case 1: memcpy(to, p, 1); break;
    case 2: memcpy(to, p, 2); break;
    case 4: memcpy(to, p, 4); break;
    default: memcpy(to, p, 8); break;
    }
}

bool cushim__rec_all_scalar(const cushim__trace_arg *desc, unsigned count) {
    if (count > CUSHIM__REC_ARGS) return false;
    for (unsigned k = 0; k < count; k++) {
        if (!is_scalar(&desc[k])) return false;
    }
    return true;
}

/* A word whose first bytes hold the argument as its type, as the formatters read it back. */
typedef union word {
    unsigned long long u64;
    unsigned u32;
    unsigned short u16;
    unsigned char u8;
} word;

void cushim__rec_capture_dense(cushim__rec *r, const cushim__trace_arg *desc, unsigned count,
                               void *const *args, bool failed) {
    r->dense = 1;
    r->cut = 0;
    r->failed = failed;
    r->argc = (unsigned char)count;
    for (unsigned k = 0; k < count; k++) {
        word w = {0};
        const void *p = args[k];
        switch (desc[k].size) {
        case 1: w.u8 = *(const unsigned char *)p; break;
        case 2: w.u16 = *(const unsigned short *)p; break;
        case 4: w.u32 = *(const unsigned *)p; break;
        default: w.u64 = *(const unsigned long long *)p; break;
        }
        r->u.word[k] = w.u64;
    }
}

void cushim__rec_capture(cushim__rec *r, const cushim__trace_arg *desc, unsigned count,
                         void *const *args, bool failed) {
    place pl = place_of(r);
    cushim__rec_offs *ta = pl.a;
    r->dense = 0;
    ta->used = 0;
    r->cut = 0;
    r->failed = failed;
    if (count > CUSHIM__REC_ARGS) {
        count = CUSHIM__REC_ARGS;
        r->cut = 1;
    }
    unsigned k = 0;
    for (; k < count; k++) {
        const cushim__trace_arg *a = &desc[k];
        void *cell;
        if (CUSHIM__LIKELY(is_scalar(a) && pl.cap - ta->used >= 8)) {
            /* Most arguments: a handle, a size, an enum; one word. */
            store(pl.area + ta->used, args[k], a->size);
            ta->off[k] = ta->used;
            ta->used = (unsigned short)(ta->used + 8);
            continue;
        }
        if (a->output) {
            /* The pointer's cell: the pointer itself after a failure or when NULL, else the
             * address of the copy of what the call wrote there. */
            const void *to = *(const void *const *)args[k];
            const void **ptr = take(&pl, sizeof *ptr);
            if (ptr != NULL) *ptr = failed || to == NULL ? to : copy_value(&pl, a, to);
            if (ptr != NULL && *ptr == NULL && to != NULL) ptr = NULL; /* no room for the value */
            cell = ptr;
        } else {
            cell = copy_value(&pl, a, args[k]);
        }
        if (cell == NULL) break; /* the arguments from here on are left out, and r is cut */
        ta->off[k] = (unsigned short)((char *)cell - pl.area);
    }
    r->argc = (unsigned char)k;
}

void cushim__rec_args(const cushim__rec *r, void *out[CUSHIM__REC_ARGS]) {
    /* A driver call's formatters read its first argc (a launch's dimensions, read three at a
     * time, at most two more, which a record cut short does not have: zeros); a runtime call's
     * read as many as its entry has. */
    unsigned n = r->kind == CUSHIM__REC_CALL && r->argc + 2u < CUSHIM__REC_ARGS ? r->argc + 2u
                                                                                : CUSHIM__REC_ARGS;
    if (r->dense) {
        for (unsigned k = 0; k < n; k++) {
            out[k] = k < r->argc ? (void *)(uintptr_t)&r->u.word[k] : (void *)(uintptr_t)zero;
        }
        return;
    }
    place pl = place_of((cushim__rec *)(uintptr_t)r);
    for (unsigned k = 0; k < n; k++) {
        out[k] = k < r->argc ? (void *)(pl.area + pl.a->off[k]) : (void *)(uintptr_t)zero;
    }
}

size_t cushim__rec_bytes(const cushim__rec *r) {
    switch (r->kind) {
    case CUSHIM__REC_CALL:
        if (r->dense) return CUSHIM__REC_HEAD + 8 * (size_t)r->argc;
        return CUSHIM__REC_CALL_AREA + r->u.c.a.used;
    case CUSHIM__REC_RT: return CUSHIM__REC_RT_AREA + r->u.rt.a.used;
    case CUSHIM__REC_KERNEL: return offsetof(cushim__rec, u.k) + sizeof r->u.k;
    default: return CUSHIM__REC_HEAD;
    }
}
