/* The decoder's helpers that the body (ptx_decode.c) and the instructions (ptx_inst.c) both
 * use: messages, constant slots, names, branch fixups and emitted instructions. A file below
 * both, so that neither calls the other back. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptx_dec.h"

bool dec_fail(dec *d, const char *fmt, ...) {
    if (d->failed) return false;
    d->failed = true;
    int n =
        d->oplen > 0
            ? snprintf(d->err, d->errlen, "PTX line %u (in %s, instruction '%.*s'): ", d->inst_line,
                       d->f->name, (int)d->oplen, d->op)
            : snprintf(d->err, d->errlen, "PTX line %u (in %s): ", d->inst_line, d->f->name);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < d->errlen) vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

uint32_t dec_const(dec *d, uint64_t v) {
    if (d->const_start == 0) d->const_start = d->nslots;
    if (!ptx__grow(&d->init, &d->capinit, (size_t)d->nslots + 1, sizeof *d->init)) {
        dec_fail(d, "out of memory");
        return SL_ZERO;
    }
    d->init[d->nslots] = v;
    return d->nslots++;
}

/* A name of the body: the latest declaration wins; `%r12` is found in `%r<N>`. */
const dname *dec_lookup(dec *d, const char *w, size_t n, uint32_t *index) {
    for (size_t i = d->nnames; i-- > 0;) {
        const dname *x = &d->names[i];
        if (x->count == 0) {
            if (x->len == n && memcmp(x->name, w, n) == 0) {
                *index = 0;
                return x;
            }
            continue;
        }
        if (n <= x->len || memcmp(x->name, w, x->len) != 0) continue;
        uint32_t v = 0;
        size_t k = x->len;
        if (w[k] == '0' && n > k + 1) continue;
        for (; k < n && w[k] >= '0' && w[k] <= '9' && v < 100000000; k++)
            v = v * 10 + (uint32_t)(w[k] - '0');
        if (k == n && v < x->count) {
            *index = v;
            return x;
        }
    }
    return NULL;
}

bool dec_fixup(dec *d, const char *w, size_t n) {
    if (!ptx__grow(&d->fix, &d->capfix, d->nfix + 1, sizeof *d->fix))
        return dec_fail(d, "out of memory");
    d->fix[d->nfix++] = (dfix){w, n, d->ncode};
    return true;
}

pinst *dec_emit(dec *d) {
    if (!ptx__grow(&d->code, &d->capcode, d->ncode + 1, sizeof *d->code)) {
        dec_fail(d, "out of memory");
        return NULL;
    }
    pinst *in = &d->code[d->ncode++];
    memset(in, 0, sizeof *in);
    in->guard = d->guard;
    in->gneg = d->gneg;
    in->line = d->inst_line;
    return in;
}
