/* Where a report or a fault happened: the kernel, block, thread and warp, the PTX line and, where
 * the PTX carries `.loc` and `.file` (nvcc -lineinfo or -G), the CUDA source file and line. The
 * source line is looked up in the module's text when a sentence is written, never while a kernel
 * runs, so that it costs nothing until something goes wrong. */
#include <stdio.h>
#include <string.h>

#include "ptx_check_src.h"

/* The unsigned number at *p (skipping blanks), advancing *p; false for none. */
static bool number(const char **p, const char *end, unsigned *v) {
    const char *q = *p;
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    if (q >= end || *q < '0' || *q > '9') return false;
    unsigned long n = 0;
    while (q < end && *q >= '0' && *q <= '9' && n < 100000000ul)
        n = n * 10 + (unsigned)(*q++ - '0');
    *p = q;
    *v = (unsigned)n;
    return true;
}

/* The directive `word` at the start of the line at p (after blanks): the text after it. */
static const char *directive(const char *p, const char *end, const char *word) {
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    size_t n = strlen(word);
    if ((size_t)(end - p) <= n || memcmp(p, word, n) != 0) return NULL;
    if (p[n] != ' ' && p[n] != '\t') return NULL;
    return p + n;
}

bool ptx__src_line(const mock_ptx_module *m, unsigned line, char *file, size_t filelen,
                   unsigned *src) {
    if (m == NULL || m->text == NULL || line == 0) return false;
    const char *p = m->text, *end = m->text + m->len;
    unsigned at = 1, fileno = 0, srcline = 0;
    bool found = false;
    /* The last .loc at or before the line; .file may come anywhere (nvcc puts it last). */
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        const char *q;
        if (at <= line && (q = directive(p, eol, ".loc")) != NULL) {
            unsigned f, l;
            /* Code inlined from a header (a CUDA intrinsic) is named by the line that
             * called it: `.loc 2 397 9, function_name ..., inlined_at 1 5 5`. */
            for (const char *s = q; s + 10 < eol; s++) {
                if (memcmp(s, "inlined_at", 10) == 0) {
                    q = s + 10;
                    break;
                }
            }
            if (number(&q, eol, &f) && number(&q, eol, &l)) {
                fileno = f;
                srcline = l;
                found = true;
            }
        }
        p = eol + 1;
        at++;
        if (at > line && !found) return false;
    }
    if (!found) return false;
    for (p = m->text; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        const char *q = directive(p, eol, ".file");
        unsigned f;
        if (q != NULL && number(&q, eol, &f) && f == fileno) {
            const char *a = memchr(q, '"', (size_t)(eol - q));
            const char *z = a != NULL ? memchr(a + 1, '"', (size_t)(eol - a - 1)) : NULL;
            if (z != NULL) {
                const char *base = a + 1;
                for (const char *s = a + 1; s < z; s++) {
                    if (*s == '/') base = s + 1;
                }
                snprintf(file, filelen, "%.*s", (int)(z - base), base);
                *src = srcline;
                return true;
            }
        }
        p = eol + 1;
    }
    return false;
}

int ptx__where_text(char *buf, size_t len, const pblock *b, const pthr *t, const pinst *in) {
    const prun *r = b->run;
    if (t == NULL) {
        return snprintf(buf, len, "kernel %s, block (%u,%u,%u): ", r->k->name, b->ctaid[0],
                        b->ctaid[1], b->ctaid[2]);
    }
    unsigned line = in != NULL ? in->line : 0, src = 0;
    char file[128];
    bool has_src = ptx__src_line(r->k->mod, line, file, sizeof file, &src);
    char where[176];
    if (has_src)
        snprintf(where, sizeof where, ", %s:%u", file, src);
    else
        where[0] = 0;
    return snprintf(buf, len,
                    "kernel %s, block (%u,%u,%u), thread (%u,%u,%u), PTX line %u (warp %u%s): ",
                    r->k->name, b->ctaid[0], b->ctaid[1], b->ctaid[2], t->tid[0], t->tid[1],
                    t->tid[2], line, t->warp, where);
}
