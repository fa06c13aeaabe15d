/* A function body, decoded once: registers become slots of the frame, immediates become
 * constant slots, symbols become addresses or frame offsets, labels become instruction
 * indexes, and each opcode is specialised by its type (ptx_int.h). What the interpreter does
 * not support leaves the function with an error naming the instruction and line. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_dec.h"
#include "ptx_inst.h"
#include "ptx_inst_x.h"
#include "ptx_size.h"

static uint32_t new_slots(dec *d, uint32_t n) {
    if (!ptx__grow(&d->init, &d->capinit, (size_t)d->nslots + n, sizeof *d->init)) {
        dec_fail(d, "out of memory");
        return SL_ZERO;
    }
    memset(d->init + d->nslots, 0, n * sizeof *d->init);
    uint32_t b = d->nslots;
    d->nslots += n;
    return b;
}

/* ------------------------------------------------------------------------------------------ */
/* Names                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static bool declare(dec *d, const char *name, size_t len, uint32_t count, int bytes, int kind,
                    size_t off) {
    if (!ptx__grow(&d->names, &d->capnames, d->nnames + 1, sizeof *d->names))
        return dec_fail(d, "out of memory");
    dname *n = &d->names[d->nnames++];
    n->name = name;
    n->len = len;
    n->count = count;
    n->bytes = bytes;
    n->kind = kind;
    n->depth = d->depth;
    n->off = off;
    n->slot = kind == N_REG ? new_slots(d, count ? count : 1) : 0;
    return !d->failed;
}

/* `.reg .type a, b, %r<N>;` and `.local`/`.param` variables of the body. */
static bool body_decl(dec *d, int kind) {
    int vec = 1, bytes = 0;
    size_t align = 0, elem = 0;
    bool first = true;
    for (;;) {
        const char *w;
        size_t n;
        for (;;) {
            n = ptx__word(&d->l, &w);
            if (n == 0) return dec_fail(d, "a declaration without a name");
            if (ptx__is(w, n, ".align")) {
                uint64_t a;
                bool fl;
                double f;
                if (!ptx__number(&d->l, &a, &fl, &f) || a == 0 || a > 4096)
                    return dec_fail(d, "a bad .align");
                align = (size_t)a;
                continue;
            }
            if (ptx__is(w, n, ".v2") || ptx__is(w, n, ".v4")) {
                vec = w[2] - '0';
                continue;
            }
            if (ptx__is(w, n, ".ptr") || ptx__is(w, n, ".global") || ptx__is(w, n, ".shared"))
                continue;
            if (w[0] == '.' && first) {
                int t = dec_type(w + 1, n - 1);
                if (t < 0)
                    return dec_fail(d, "the declaration has an unknown type '%.*s'", (int)n, w);
                bytes = dec_type_bytes(t);
                elem = (size_t)bytes * (size_t)vec;
                continue;
            }
            break;
        }
        first = false;
        if (bytes == 0) return dec_fail(d, "the declaration of '%.*s' has no type", (int)n, w);
        if (kind == N_REG && vec != 1) return dec_fail(d, "vector registers are not supported");
        uint32_t count = 0;
        size_t size = elem;
        if (ptx__eat(&d->l, '<')) {
            uint64_t c;
            bool fl;
            double f;
            if (!ptx__number(&d->l, &c, &fl, &f) || c == 0 || c > 1000000 || !ptx__eat(&d->l, '>'))
                return dec_fail(d, "a bad register count");
            count = (uint32_t)c;
        }
        while (ptx__eat(&d->l, '[')) {
            uint64_t c;
            bool fl;
            double f;
            if (!ptx__number(&d->l, &c, &fl, &f) || c > (1u << 24) || !ptx__eat(&d->l, ']'))
                return dec_fail(d, "a bad array size");
            if (!ptx_size_mul(&size, (size_t)c))
                return dec_fail(d, "the size of '%.*s' is 2^64 bytes or more", (int)n, w);
        }
        size_t off = 0;
        if (kind == N_SHARED) { /* a kernel's own shared array: after the module's */
            mock_ptx_module *m = d->m;
            if (align == 0) align = elem;
            if (align < 1) align = 1;
            size_t end = m->smem_static, dyn;
            if (!ptx_size_place(&end, align, size, &off) || !ptx_size_place(&end, 16, 0, &dyn))
                return dec_fail(d, "'%.*s' ends past 2^64 bytes of shared memory", (int)n, w);
            m->smem_static = end;
            m->smem_dyn_off = dyn;
            for (size_t i = 0; i < m->nvars; i++) {
                if (m->vars[i].dynamic) m->vars[i].offset = m->smem_dyn_off;
            }
        } else if (kind != N_REG) {
            if (align == 0) align = elem;
            if (align > 16) align = 16;
            if (align < 1) align = 1;
            /* The frame is padded to 16 bytes at the end: that must not wrap either. */
            size_t end = d->frame, padded, at16;
            bool fits = ptx_size_place(&end, align, size, &off);
            padded = end;
            if (!fits || !ptx_size_place(&padded, 16, 0, &at16))
                return dec_fail(d, "'%.*s' ends past 2^64 bytes of the frame", (int)n, w);
            d->frame = end;
        }
        if (!declare(d, w, n, count, bytes, kind, off)) return false;
        if (ptx__eat(&d->l, ';')) return true;
        if (!ptx__eat(&d->l, ',')) return dec_fail(d, "a declaration without ';'");
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The body                                                                                   */
/* ------------------------------------------------------------------------------------------ */

static bool label(dec *d, const char *w, size_t n) {
    if (!ptx__grow(&d->labels, &d->caplabels, d->nlabels + 1, sizeof *d->labels))
        return dec_fail(d, "out of memory");
    d->labels[d->nlabels++] = (dlabel){w, n, (uint32_t)d->ncode};
    return true;
}

static bool resolve_labels(dec *d) {
    for (size_t i = 0; i < d->nfix; i++) {
        bool found = false;
        for (size_t j = 0; j < d->nlabels; j++) {
            if (d->labels[j].len == d->fix[i].len &&
                memcmp(d->labels[j].name, d->fix[i].name, d->fix[i].len) == 0) {
                d->code[d->fix[i].inst].imm = d->labels[j].pc;
                found = true;
                break;
            }
        }
        if (!found) {
            d->inst_line = d->code[d->fix[i].inst].line;
            return dec_fail(d, "the branch target '%.*s' is not a label of the function",
                            (int)d->fix[i].len, d->fix[i].name);
        }
    }
    return true;
}

static bool statement(dec *d) {
    const char *w;
    ptx__skip(&d->l);
    d->inst_line = d->l.line;
    if (d->l.p >= d->l.end) return dec_fail(d, "the body ends early");
    char c = *d->l.p;
    if (c == '{') {
        d->l.p++;
        d->depth++;
        return true;
    }
    if (c == '}') {
        d->l.p++;
        while (d->nnames > 0 && d->names[d->nnames - 1].depth == d->depth) d->nnames--;
        d->depth--;
        return true;
    }
    d->guard = SL_TRUE;
    d->gneg = 0;
    if (c == '@') {
        d->l.p++;
        bool neg = ptx__eat(&d->l, '!');
        size_t n = ptx__word(&d->l, &w);
        uint32_t idx;
        const dname *x = n ? dec_lookup(d, w, n, &idx) : NULL;
        if (x == NULL || x->kind != N_REG) return dec_fail(d, "a guard that is not a predicate");
        d->guard = x->slot + idx;
        d->gneg = neg;
    }
    size_t n = ptx__word(&d->l, &w);
    if (n == 0) return dec_fail(d, "unexpected '%c'", c);
    /* `a::b` modifiers (ld.global.L2::128B) belong to the opcode word. */
    while (d->l.p + 1 < d->l.end && d->l.p[0] == ':' && d->l.p[1] == ':') {
        const char *w2 = NULL;
        d->l.p += 2;
        size_t n2 = ptx__word(&d->l, &w2);
        if (n2 == 0) return dec_fail(d, "a modifier ends in '::'");
        n = (size_t)(w2 + n2 - w);
    }
    if (d->guard == SL_TRUE && ptx__eat(&d->l, ':')) return label(d, w, n);
    if (ptx__is(w, n, ".reg")) return body_decl(d, N_REG);
    if (ptx__is(w, n, ".local")) return body_decl(d, N_LOCAL);
    if (ptx__is(w, n, ".param")) return body_decl(d, N_LOCAL);
    if (ptx__is(w, n, ".loc") || ptx__is(w, n, ".pragma") || ptx__is(w, n, ".file") ||
        ptx__is(w, n, ".callprototype")) { /* an indirect call's: the callee's own are used */
        while (d->l.p < d->l.end && *d->l.p != '\n' && *d->l.p != ';') d->l.p++;
        ptx__eat(&d->l, ';');
        return true;
    }
    if (ptx__is(w, n, ".shared")) return body_decl(d, N_SHARED);
    if (w[0] == '.') return dec_fail(d, "the directive '%.*s' is not supported", (int)n, w);
    d->op = w;
    d->oplen = n;
    bool ok = dec_instruction(d, w, n);
    d->oplen = 0;
    return ok;
}

static void add_params(dec *d) {
    mock_ptx_func *f = d->f;
    for (int i = 0; i < f->nparams; i++) {
        declare(d, f->params[i].name, f->params[i].name_len, 0, 8, f->entry ? N_PARAM : N_LOCAL,
                f->params[i].offset);
    }
    if (!f->entry && f->ret_off >= 0) {
        declare(d, f->ret.name, f->ret.name_len, 0, 8, N_LOCAL, (size_t)f->ret_off);
    }
}

/* Functions that a body calls: each is
 * decoded after that body, from this list, so that a chain of 10,000 calls costs no host stack.
 * Non-NULL only inside ptx__decode, which mock__ptx_prepare runs under the module's lock; one
 * per host thread, since threads may decode kernels of different modules at once. */
typedef struct dqueue {
    mock_ptx_func **v;
    size_t n, cap;
    bool oom;
} dqueue;
static _Thread_local dqueue *queued;

static void enqueue(mock_ptx_func *f) {
    if (!ptx__grow(&queued->v, &queued->cap, queued->n + 1, sizeof *queued->v)) {
        queued->oom = true;
        return;
    }
    queued->v[queued->n++] = f;
    f->busy = true; /* queued: a later call of it does not queue it again */
}

/* Decodes f's own body: its code, slots, frame and the special registers it reads itself.
 * What it calls is only named (pcall); the call-graph walk below adds what callees need. */
static bool decode_body(mock_ptx_func *f, char *err, size_t errlen) {
    dec d = {.f = f,
             .m = f->mod,
             .err = err,
             .errlen = errlen,
             .family_wants = dec_family_wants,
             .family = dec_family};
    d.l = (plex){f->body + 1, f->body + f->body_len - 1, f->body_line};
    d.nslots = 0;
    new_slots(&d, SL_RESERVED);
    if (!d.failed) {
        d.init[SL_TRUE] = 1;
        d.init[SL_SINK] = 0;
    }
    d.frame = f->entry ? 0 : f->param_bytes;
    if (!f->entry && f->ret_off >= 0) d.frame = (size_t)f->ret_off + f->ret_size;
    f->busy = true;
    add_params(&d);
    while (!d.failed) {
        ptx__skip(&d.l);
        if (d.l.p >= d.l.end) break;
        statement(&d);
    }
    if (!d.failed) {
        d.inst_line = d.l.line;
        pinst *in = dec_emit(&d); /* falling off the end returns */
        if (in != NULL) {
            in->op = (uint16_t)(f->entry ? O_EXIT * T_COUNT + T_NONE : O_RET * T_COUNT + T_NONE);
            in->guard = SL_TRUE;
        }
    }
    if (!d.failed) resolve_labels(&d);
    /* The functions it calls are decoded after it, from the work list (ptx_inst.c only names
     * them, so that no chain of calls recurses on the host stack). */
    for (size_t i = 0; !d.failed && i < d.ncalls; i++) {
        mock_ptx_func *c = d.calls[i].callee;
        if (c != NULL && !c->decoded && !c->busy) enqueue(c);
    }
    f->busy = false;
    free(d.names);
    free(d.labels);
    free(d.fix);
    f->decoded = true;
    if (d.failed) {
        free(d.code);
        free(d.init);
        free(d.calls);
        size_t len = strlen(err);
        f->error = malloc(len + 1);
        if (f->error != NULL) memcpy(f->error, err, len + 1);
        return false;
    }
    f->code = d.code;
    f->ncode = d.ncode;
    f->init = d.init;
    f->nslots = d.nslots;
    f->calls = d.calls;
    f->ncalls = d.ncalls;
    f->frame_bytes = (d.frame + 15) / 16 * 16;
    f->const_start = d.const_start ? d.const_start : d.nslots;
    f->specials = 0;
    for (size_t i = 0; i < d.ncode; i++) {
        const pinst *in = &d.code[i];
        const uint32_t *s[] = {in->s, in->d};
        for (int k = 0; k < 2; k++) {
            for (int j = 0; j < 4; j++) {
                if (s[k][j] < SL_RESERVED) f->specials |= 1ull << s[k][j];
            }
        }
    }
    f->max_depth_bytes = f->frame_bytes;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* The call graph, without host recursion                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Why f cannot run (kept unless it already has a reason). */
static void set_error(mock_ptx_func *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(mock_ptx_func *f, const char *fmt, ...) {
    if (f->error != NULL) return;
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = strlen(buf);
    f->error = malloc(len + 1);
    if (f->error != NULL) memcpy(f->error, buf, len + 1);
}

/* Finishes g once every callee it reaches is finished or on the walk's stack (a cycle): the
 * special registers and frames of what it calls, whether it may recurse, and a callee's error. */
static void finish(mock_ptx_func *g, const unsigned char *state, const char **root) {
    mock_ptx_module *m = g->mod;
    size_t deepest = 0;
    for (size_t i = 0; i < g->ncalls; i++) {
        mock_ptx_func *c = g->calls[i].callee;
        if (c == NULL) continue;
        size_t ci = (size_t)(c - m->funcs);
        if (state[ci] == 1) { /* on the stack: g is part of a cycle */
            g->recursive = true;
        } else {
            g->specials |= c->specials;
            if (c->recursive) g->recursive = true;
            if (c->max_depth_bytes > deepest) deepest = c->max_depth_bytes;
        }
        /* The callee's error is the caller's, naming the function that cannot run (a chain of
         * callers names only its two ends, so that the sentence stays short). */
        if (c->error != NULL && g->error == NULL) {
            const char *r = root[ci] != NULL ? root[ci] : c->error;
            set_error(g, "%s calls %s, which cannot run: %s", g->name, c->name, r);
            root[g - m->funcs] = r;
        }
    }
    /* Frames past 2^62 bytes are refused, so that the stack's size and its padding cannot wrap
     * where the launch computes them. */
    if (__builtin_add_overflow(g->frame_bytes, deepest, &g->max_depth_bytes) ||
        g->max_depth_bytes > ((size_t)1 << 62)) {
        g->max_depth_bytes = (size_t)1 << 62;
        set_error(g, "the frames of %s and the functions it calls need 2^62 bytes or more",
                  g->name);
    }
}

/* A depth-first walk from f over the functions decoded in this call (state 0; those decoded
 * before are finished, state 2), with its own stack: each is finished after its callees. */
static bool walk(mock_ptx_func *f, unsigned char *state) {
    mock_ptx_module *m = f->mod;
    typedef struct frame {
        mock_ptx_func *g;
        size_t next;
    } frame;
    frame *stack = malloc(m->nfuncs * sizeof *stack);
    const char **root = calloc(m->nfuncs, sizeof *root);
    if (stack == NULL || root == NULL) {
        free(stack);
        free(root);
        return false;
    }
    size_t top = 0;
    stack[top++] = (frame){f, 0};
    state[f - m->funcs] = 1;
    while (top > 0) {
        frame *fr = &stack[top - 1];
        if (fr->next < fr->g->ncalls) {
            mock_ptx_func *c = fr->g->calls[fr->next++].callee;
            if (c != NULL && state[c - m->funcs] == 0) {
                state[c - m->funcs] = 1;
                stack[top++] = (frame){c, 0};
            }
            continue;
        }
        finish(fr->g, state, root);
        state[fr->g - m->funcs] = 2;
        top--;
    }
    free(stack);
    free(root);
    return true;
}

bool ptx__decode(mock_ptx_func *f, char *err, size_t errlen) {
    if (f->decoded) return f->error == NULL;
    if (f->body == NULL) {
        snprintf(err, errlen, "the function %s is declared but not defined in the module", f->name);
        return false;
    }
    mock_ptx_module *m = f->mod;
    dqueue q = {0};
    queued = &q;
    decode_body(f, err, errlen);
    /* Every queued function is decoded, even after a failure, so that none stays half-made. */
    for (size_t i = 0; i < q.n; i++) {
        char e[512];
        if (!q.v[i]->decoded) decode_body(q.v[i], e, sizeof e);
    }
    queued = NULL;
    unsigned char *state = malloc(m->nfuncs);
    bool ok = state != NULL && !q.oom;
    if (ok) {
        for (size_t i = 0; i < m->nfuncs; i++) state[i] = 2;
        state[f - m->funcs] = 0;
        for (size_t i = 0; i < q.n; i++) state[q.v[i] - m->funcs] = 0;
        ok = walk(f, state);
    }
    free(state);
    free(q.v);
    if (!ok) set_error(f, "out of memory");
    if (f->error != NULL) snprintf(err, errlen, "%s", f->error);
    return ok && f->error == NULL;
}

size_t mock__ptx_local_bytes(const mock_ptx_kernel *k) { return k->max_depth_bytes; }
