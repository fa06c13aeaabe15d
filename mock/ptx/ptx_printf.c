/* Device printf (vprintf): the format string and the argument buffer as nvcc lays them out
 * (each argument at its natural alignment; floats promoted to double, small integers to int),
 * formatted by the host's printf and written whole, one call at a time.
 *
 * Bounded: a width or precision past PRINTF_MAX_WIDTH (512) is taken as 512, so that one
 * conversion prints at most about a kilobyte (the host's printf would otherwise pad up to 2^31
 * characters: 10 s of CPU for one call); every address it reads (the format, the arguments, a
 * %s string) is checked by ptx__addr, a range that would wrap past 2^64 first. */
#include <stdlib.h>
#include <string.h>

#include "ptx_run.h"

#define PRINTF_MAX_WIDTH 512

/* A read of n bytes at base + off, a range that must not wrap past 2^64 (a fault otherwise,
 * naming what was read). */
static const void *read_at(pblock *b, pthr *t, const pinst *in, uint64_t base, uint64_t off,
                           size_t n, const char *what) {
    uint64_t a = base + off;
    if (a < base || a + n < a) {
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "printf reads %s at 0x%llx + %llu, a range that runs past the end of the "
                   "address space",
                   what, (unsigned long long)base, (unsigned long long)off);
        return NULL;
    }
    return ptx__addr(b, t, in, S_GENERIC, a, n, false);
}

static bool read_string(pblock *b, pthr *t, const pinst *in, uint64_t p, char *out, size_t cap,
                        const char *what) {
    size_t n = 0;
    for (; n + 1 < cap; n++) {
        const char *q = read_at(b, t, in, p, n, 1, what);
        if (q == NULL) return false;
        if ((out[n] = *q) == 0) return true;
    }
    out[n] = 0;
    return true;
}

typedef struct obuf {
    char *s;
    size_t n, cap;
} obuf;

static void put(obuf *o, const char *s, size_t n) {
    if (o->n + n + 1 > o->cap) {
        size_t c = o->cap ? o->cap * 2 : 256;
        while (c < o->n + n + 1) c *= 2;
        char *q = realloc(o->s, c);
        if (q == NULL) return;
        o->s = q;
        o->cap = c;
    }
    memcpy(o->s + o->n, s, n);
    o->n += n;
    o->s[o->n] = 0;
}

static bool arg(pblock *b, pthr *t, const pinst *in, uint64_t args, size_t *off, size_t size,
                uint64_t *v) {
    *v = 0;
    if (args == 0) {
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "printf reads an argument it was not given");
        return false;
    }
    *off = (*off + size - 1) / size * size;
    const void *p = read_at(b, t, in, args, *off, size, "an argument");
    if (p == NULL) return false;
    memcpy(v, p, size);
    *off += size;
    return true;
}

/* A width or precision: '*' (an int argument) or digits, as a number no larger than
 * PRINTF_MAX_WIDTH; -1 for none. A negative '*' width is the '-' flag and its size (*left). */
static bool width(pblock *b, pthr *t, const pinst *in, uint64_t args, size_t *off, const char **pp,
                  long *out, bool *left) {
    const char *p = *pp;
    long w = -1;
    if (*p == '*') {
        uint64_t v;
        if (!arg(b, t, in, args, off, 4, &v)) return false;
        w = (int32_t)v;
        if (w < 0 && left != NULL) {
            *left = true;
            w = -w;
        }
        p++;
    } else if (*p >= '0' && *p <= '9') {
        for (w = 0; *p >= '0' && *p <= '9'; p++) {
            if (w <= PRINTF_MAX_WIDTH) w = w * 10 + (*p - '0');
        }
    }
    *out = w > PRINTF_MAX_WIDTH ? PRINTF_MAX_WIDTH : w;
    *pp = p;
    return true;
}

int ptx__printf(pblock *b, pthr *t, const pinst *in, uint64_t fmtp, uint64_t args) {
    char fmt[4096];
    if (!read_string(b, t, in, fmtp, fmt, sizeof fmt, "its format")) return -1;
    obuf o = {0};
    size_t off = 0;
    int nargs = 0;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            put(&o, p, n);
            p += n;
            continue;
        }
        if (p[1] == '%') {
            put(&o, "%", 1);
            p += 2;
            continue;
        }
        /* The width and precision are written into spec as numbers ('*' read, both bounded),
         * so that every conversion below is one snprintf of one value. A negative width is the
         * '-' flag and its size, as printf reads it; a negative precision is as if none were
         * given. */
        char spec[80];
        size_t sn = 0;
        spec[sn++] = *p++;
        for (; *p && strchr("-+ #0", *p); p++) {
            if (sn < 40) spec[sn++] = *p;
        }
        long w, prec = -1;
        bool left = false;
        if (!width(b, t, in, args, &off, &p, &w, &left)) goto fail;
        if (*p == '.') {
            p++;
            if (!width(b, t, in, args, &off, &p, &prec, NULL)) goto fail;
            if (prec < 0 && p[-1] != '*') prec = 0; /* "%.d": a precision of 0 */
        }
        if (left) spec[sn++] = '-';
        if (w >= 0) sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "%ld", w);
        if (prec >= 0) sn += (size_t)snprintf(spec + sn, sizeof spec - sn, ".%ld", prec);
        bool wide = false;
        while (*p && strchr("hlLqjzt", *p)) {
            if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't')
                wide = true;
            p++;
        }
        char conv = *p ? *p++ : 0;
        if (conv == 0) break;
        char out[1024]; /* PRINTF_MAX_WIDTH of padding, a number and a precision of digits */
        int len = 0;
        uint64_t v;
        nargs++;
        if (strchr("diouxXc", conv)) {
            if (!arg(b, t, in, args, &off, wide ? 8 : 4, &v)) goto fail;
            spec[sn++] = 'l';
            spec[sn++] = 'l';
            spec[sn++] = conv;
            spec[sn] = 0;
            long long x =
                wide ? (long long)v
                     : (strchr("di", conv) ? (long long)(int32_t)v : (long long)(uint32_t)v);
            if (conv == 'c') {
                spec[sn - 3] = 'c';
                spec[sn - 2] = 0;
                len = snprintf(out, sizeof out, spec, (int)x);
            } else {
                len = snprintf(out, sizeof out, spec, x);
            }
        } else if (strchr("feEgGaAF", conv)) {
            if (!arg(b, t, in, args, &off, 8, &v)) goto fail;
            double d;
            memcpy(&d, &v, 8);
            spec[sn++] = conv;
            spec[sn] = 0;
            len = snprintf(out, sizeof out, spec, d);
        } else if (conv == 's') {
            if (!arg(b, t, in, args, &off, 8, &v)) goto fail;
            char str[1024];
            if (v == 0) {
                strcpy(str, "(null)");
            } else if (!read_string(b, t, in, v, str, sizeof str, "a %s argument")) {
                goto fail;
            }
            spec[sn++] = 's';
            spec[sn] = 0;
            len = snprintf(out, sizeof out, spec, str);
        } else if (conv == 'p') {
            if (!arg(b, t, in, args, &off, 8, &v)) goto fail;
            len = snprintf(out, sizeof out, "%p", (void *)(uintptr_t)v);
        } else {
            put(&o, spec, sn);
            put(&o, &conv, 1);
            continue;
        }
        if (len > 0) put(&o, out, (size_t)len < sizeof out ? (size_t)len : sizeof out - 1);
    }
    FILE *f = b->run->l->out != NULL ? b->run->l->out : stdout;
    pthread_mutex_lock(&b->run->out_lock);
    if (o.n > 0) fwrite(o.s, 1, o.n, f);
    pthread_mutex_unlock(&b->run->out_lock);
    free(o.s);
    return nargs;
fail:
    free(o.s);
    return -1;
}
