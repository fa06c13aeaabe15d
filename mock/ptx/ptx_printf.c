/* Device printf (vprintf): the format string and the argument buffer as nvcc lays them out
 * (each argument at its natural alignment; floats promoted to double, small integers to int),
 * formatted by the host's printf and written whole, one call at a time. */
#include <stdlib.h>
#include <string.h>

#include "ptx_run.h"

static bool read_string(pblock *b, pthr *t, const pinst *in, uint64_t p, char *out, size_t cap) {
    size_t n = 0;
    for (; n + 1 < cap; n++) {
        const char *q = ptx__addr(b, t, in, S_GENERIC, p + n, 1, false);
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
    if (args == 0)
        return ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                          "printf reads an argument it was not given") != TS_FAULT;
    *off = (*off + size - 1) / size * size;
    const void *p = ptx__addr(b, t, in, S_GENERIC, args + *off, size, false);
    if (p == NULL) return false;
    *v = 0;
    memcpy(v, p, size);
    *off += size;
    return true;
}

int ptx__printf(pblock *b, pthr *t, const pinst *in, uint64_t fmtp, uint64_t args) {
    char fmt[4096];
    if (!read_string(b, t, in, fmtp, fmt, sizeof fmt)) return -1;
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
        /* A '*' width or precision is written into spec as its number, so that every
         * conversion below is one snprintf of one value. */
        char spec[80];
        size_t sn = 0;
        spec[sn++] = *p++;
        while (*p && strchr("-+ #0", *p) && sn < 40) spec[sn++] = *p++;
        for (int part = 0; part < 2; part++) {
            if (part == 1) {
                if (*p != '.') break;
                spec[sn++] = *p++;
            }
            if (*p == '*') {
                uint64_t v;
                if (!arg(b, t, in, args, &off, 4, &v)) goto fail;
                int w = (int)(int32_t)v;
                p++;
                /* A negative width is the '-' flag and its size, as printf reads it; a negative
                 * precision is as if none were given. */
                if (part == 1 && w < 0) {
                    sn--;
                } else {
                    sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "%d", w);
                }
            } else {
                while (*p >= '0' && *p <= '9' && sn < 50) spec[sn++] = *p++;
            }
        }
        bool wide = false;
        while (*p && strchr("hlLqjzt", *p)) {
            if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't')
                wide = true;
            p++;
        }
        char conv = *p ? *p++ : 0;
        if (conv == 0) break;
        char out[512];
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
            } else if (!read_string(b, t, in, v, str, sizeof str)) {
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
