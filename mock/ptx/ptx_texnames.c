/* The objects of a module's texture and surface instructions, checked at load (PTX ISA 9.7.10
 * and 9.7.11: the object is a .u64 register or a `.texref`/`.surfref` of the module): bodies are
 * decoded at a kernel's first launch, so the parser has each body scanned once after the parse,
 * and a name that is neither a register nor a reference is refused at load, as ptxas refuses
 * it. A word-level scan with the lexer, apart from the decoder (ptx_tex.c) that the parser must
 * not reach. */
#include <stdio.h>
#include <string.h>

#include "ptx_int.h"

bool ptx__is_tex(const char *op, size_t n) {
    return ptx__is(op, n, "tex") || ptx__is(op, n, "tld4") || ptx__is(op, n, "txq") ||
           ptx__is(op, n, "suld") || ptx__is(op, n, "sust") || ptx__is(op, n, "suq");
}

/* Whether a word of one of the body's `.reg` statements is `name` (a register without '%'). */
static bool body_reg(const char *body, size_t len, const char *name, size_t n) {
    plex l = {body, body + len, 1};
    bool start = true, reg = false;
    for (ptx__skip(&l); l.p < l.end; ptx__skip(&l)) {
        const char *w;
        size_t k = ptx__word(&l, &w);
        if (k == 0) {
            char c = *l.p++;
            if (c == ';' || c == '{' || c == '}') start = true;
            continue;
        }
        if (start) {
            reg = ptx__is(w, k, ".reg");
        } else if (reg && k == n && memcmp(w, name, n) == 0) {
            return true;
        }
        start = false;
    }
    return false;
}

bool ptx__tex_names(const mock_ptx_module *m, const char *body, size_t len, unsigned line,
                    char *err, size_t errlen) {
    plex l = {body, body + len, line};
    bool start = true, in_inst = false, pred = false;
    int want = 0;       /* 1: after a texture or surface opcode, 2: after its '[' */
    unsigned words = 0; /* of the statement so far: a label is one word and ':' */
    for (ptx__skip(&l); l.p < l.end; ptx__skip(&l)) {
        const char *w;
        size_t k = ptx__word(&l, &w);
        if (k == 0) {
            char c = *l.p++;
            if (c == ';' || (c == ':' && in_inst && words == 1)) {
                start = true;
                in_inst = false;
                want = 0;
                words = 0;
            } else if ((c == '{' || c == '}') && !in_inst) {
                start = true;
            } else if (c == '@' && start) {
                pred = true;
            } else if (c == '[' && want == 1) {
                want = 2;
            }
            continue;
        }
        if (pred) { /* the guard's predicate, before the opcode */
            pred = false;
            continue;
        }
        words++;
        if (start) {
            start = false;
            in_inst = true;
            size_t op = 0;
            while (op < k && w[op] != '.') op++;
            want = ptx__is_tex(w, op) ? 1 : 0;
            continue;
        }
        if (want != 2) continue;
        want = 0;
        bool known = w[0] == '%' || body_reg(body, len, w, k);
        for (size_t i = 0; i < m->nrefs && !known; i++) {
            known = strlen(m->refs[i].name) == k && memcmp(m->refs[i].name, w, k) == 0;
        }
        if (!known) {
            snprintf(err, errlen,
                     "PTX line %u: '%.*s' names no register and no .texref or .surfref of the "
                     "module",
                     l.line, (int)k, w);
            return false;
        }
    }
    return true;
}
