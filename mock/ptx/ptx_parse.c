/* Module scope of PTX: directives, `.entry` and `.func` signatures (bodies are decoded later,
 * ptx_decode.c), and `.global`, `.const` and `.shared` variables with their initialisers. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_int.h"
#include "ptx_names.h"
#include "ptx_size.h"

_Static_assert(offsetof(mock_ptx_func, name) == 0, "ptx_names.h: the name comes first");
_Static_assert(offsetof(pvar, name) == 0, "ptx_names.h: the name comes first");

typedef struct parser {
    plex l;
    mock_ptx_module *m;
    char *err;
    size_t errlen;
    bool failed;
    size_t capfuncs, capvars;
    ptx_names fnames, vnames; /* indexes of m->funcs and m->vars while they are parsed */
    /* initialisers, read once storage exists */
    struct pinit {
        size_t var;
        plex at;
    } * inits;
    size_t ninits, capinits;
} parser;

static bool fail(parser *p, const char *fmt, ...) {
    if (p->failed) return false;
    p->failed = true;
    int n = snprintf(p->err, p->errlen, "PTX line %u: ", p->l.line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < p->errlen) vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

bool ptx__grow(void *v, size_t *cap, size_t need, size_t size) {
    void **pp = v;
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need) n *= 2;
    void *q = realloc(*pp, n * size);
    if (q == NULL) return false;
    memset((char *)q + *cap * size, 0, (n - *cap) * size);
    *pp = q;
    *cap = n;
    return true;
}

static char *dupn(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The size in bytes of a type word (.u32: 4), 0 for none. */
static size_t type_bytes(const char *w, size_t n) {
    static const struct {
        const char *name;
        size_t size;
    } t[] = {{".b8", 1},  {".u8", 1},  {".s8", 1},    {".b16", 2},    {".u16", 2},
             {".s16", 2}, {".f16", 2}, {".bf16", 2},  {".b32", 4},    {".u32", 4},
             {".s32", 4}, {".f32", 4}, {".f16x2", 4}, {".bf16x2", 4}, {".b64", 8},
             {".u64", 8}, {".s64", 8}, {".f64", 8},   {".b128", 16},  {".pred", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (ptx__is(w, n, t[i].name)) return t[i].size;
    }
    return 0;
}

/* `[.align N] [.v2|.v4] .type [.ptr .space .align N] name [ '[' N ']' ]...`: a declaration's
 * name, element size, total size and alignment. The lexer stops after the dimensions. */
typedef struct decl {
    const char *name;
    size_t name_len, elem, size, align;
    bool unsized;
} decl;

static bool declaration(parser *p, decl *d) {
    memset(d, 0, sizeof *d);
    size_t vec = 1;
    bool ptr = false;
    for (;;) {
        const char *w;
        size_t n = ptx__word(&p->l, &w);
        if (n == 0) return fail(p, "a declaration without a name");
        if (ptx__is(w, n, ".align")) {
            uint64_t a;
            bool fl;
            double f;
            if (!ptx__number(&p->l, &a, &fl, &f) || a == 0 || a > 4096 || (a & (a - 1)))
                return fail(p, "a bad .align");
            if (!ptr) d->align = (size_t)a;
            continue;
        }
        if (ptx__is(w, n, ".ptr")) {
            ptr = true;
            continue;
        }
        /* `.attribute(.managed)`: a __managed__ variable, which in the mock's host memory is a
         * global like any other. */
        if (ptx__is(w, n, ".attribute")) {
            const char *a;
            size_t an = 0;
            if (!ptx__eat(&p->l, '(') || (an = ptx__word(&p->l, &a)) == 0 ||
                !ptx__is(a, an, ".managed") || !ptx__eat(&p->l, ')'))
                return fail(p, "an .attribute other than (.managed)");
            continue;
        }
        if (ptx__is(w, n, ".v2") || ptx__is(w, n, ".v4")) {
            vec = (size_t)(w[2] - '0');
            continue;
        }
        if (w[0] == '.') {
            size_t t = type_bytes(w, n);
            if (t != 0 && d->elem == 0) {
                d->elem = t * vec;
                continue;
            }
            if (ptr) continue; /* .ptr's .global / .shared etc. */
            return fail(p, "the declaration has an unknown word '%.*s'", (int)n, w);
        }
        d->name = w;
        d->name_len = n;
        break;
    }
    if (d->elem == 0)
        return fail(p, "the declaration of '%.*s' has no type", (int)d->name_len, d->name);
    d->size = d->elem;
    while (ptx__eat(&p->l, '[')) {
        uint64_t c;
        bool fl;
        double f;
        if (ptx__eat(&p->l, ']')) {
            d->unsized = true;
            d->size = 0;
            continue;
        }
        if (!ptx__number(&p->l, &c, &fl, &f) || fl || c > (1ull << 32) || !ptx__eat(&p->l, ']'))
            return fail(p, "a bad array size for '%.*s'", (int)d->name_len, d->name);
        if (!ptx_size_mul(&d->size, (size_t)c))
            return fail(p, "the size of '%.*s' is 2^64 bytes or more", (int)d->name_len, d->name);
    }
    if (d->align == 0) d->align = d->elem > 16 ? 16 : d->elem;
    return true;
}

/* A parameter list `( .param ..., ... )`, laid out from `start`. */
static bool param_list_(parser *p, pparam **out, int *count, size_t *end, size_t start) {
    size_t off = start;
    int n = 0;
    size_t cap = 0;
    *out = NULL;
    if (!ptx__eat(&p->l, '(')) return fail(p, "a parameter list without '('");
    if (ptx__eat(&p->l, ')')) goto done;
    for (;;) {
        const char *w;
        size_t wn = ptx__word(&p->l, &w);
        if (wn == 0 || !(ptx__is(w, wn, ".param") || ptx__is(w, wn, ".reg")))
            return fail(p, "a parameter that is not .param");
        decl d;
        if (!declaration(p, &d)) return false;
        if (!ptx__grow(out, &cap, (size_t)n + 1, sizeof **out)) return fail(p, "out of memory");
        size_t at;
        if (!ptx_size_place(&off, d.align, d.size, &at))
            return fail(p, "the parameter '%.*s' ends past 2^64 bytes", (int)d.name_len, d.name);
        (*out)[n].offset = at;
        (*out)[n].size = d.size;
        (*out)[n].name = d.name;
        (*out)[n].name_len = d.name_len;
        n++;
        if (ptx__eat(&p->l, ')')) break;
        if (!ptx__eat(&p->l, ',')) return fail(p, "a parameter list without ',' or ')'");
    }
done:
    *count = n;
    *end = off;
    return true;
}

/* The same, with nothing left allocated when it fails. */
static bool param_list(parser *p, pparam **out, int *count, size_t *end, size_t start) {
    if (param_list_(p, out, count, end, start)) return true;
    free(*out);
    *out = NULL;
    return false;
}

/* After the parse, both arrays are sorted by name. */
mock_ptx_func *ptx__func(mock_ptx_module *m, const char *name, size_t len) {
    return ptx_names_search(m->funcs, m->nfuncs, sizeof *m->funcs, name, len);
}

pvar *ptx__var(mock_ptx_module *m, const char *name, size_t len) {
    return ptx_names_search(m->vars, m->nvars, sizeof *m->vars, name, len);
}

static bool function(parser *p, bool entry) {
    mock_ptx_func f = {.entry = entry, .ret_off = -1};
    pparam *ret = NULL;
    int nret = 0;
    size_t end = 0;
    ptx__skip(&p->l);
    if (!entry && p->l.p < p->l.end && *p->l.p == '(') {
        if (!param_list(p, &ret, &nret, &end, 0)) return false;
        if (nret > 1) {
            free(ret);
            return fail(p, "a function with %d return values", nret);
        }
    }
    const char *w;
    size_t n = ptx__word(&p->l, &w);
    if (n == 0 || w[0] == '.') {
        free(ret);
        return fail(p, "a function without a name");
    }
    f.name = dupn(w, n);
    if (f.name == NULL) {
        free(ret);
        return fail(p, "out of memory");
    }
    /* A func's frame: its parameters, then its return value. */
    ptx__skip(&p->l);
    bool ok = true;
    if (p->l.p < p->l.end && *p->l.p == '(') {
        ok = param_list(p, &f.params, &f.nparams, &f.param_bytes, 0);
    }
    if (ok && nret == 1) {
        size_t a = ret[0].size >= 8 ? 8 : ret[0].size ? ret[0].size : 1, end = f.param_bytes, at;
        if (!ptx_size_place(&end, a, ret[0].size, &at) || end > (size_t)LONG_MAX) {
            ok = fail(p, "the frame of %s ends past 2^63 bytes", f.name);
        } else {
            f.ret_off = (long)at;
            f.ret_size = ret[0].size;
            f.ret = ret[0];
        }
    }
    free(ret);
    /* Performance directives and .noreturn, up to the body or ';'. */
    while (ok) {
        ptx__skip(&p->l);
        if (p->l.p >= p->l.end) {
            ok = fail(p, "the text ends inside the declaration of %s", f.name);
            break;
        }
        if (*p->l.p == ';') {
            p->l.p++;
            break;
        }
        if (*p->l.p == '{') {
            f.body_line = p->l.line;
            f.body = p->l.p;
            if (!ptx__skip_braces(&p->l)) ok = fail(p, "the body of %s is not closed", f.name);
            f.body_len = (size_t)(p->l.p - f.body);
            break;
        }
        const char *d;
        size_t dn = ptx__word(&p->l, &d);
        if (dn == 0) {
            uint64_t v;
            bool fl;
            double x;
            if (!ptx__eat(&p->l, ',') && !ptx__number(&p->l, &v, &fl, &x) &&
                !ptx__eat(&p->l, '"')) {
                ok = fail(p, "unexpected '%c' in the declaration of %s", *p->l.p, f.name);
            }
            if (ok && p->l.p[-1] == '"') { /* .pragma "..." */
                while (p->l.p < p->l.end && *p->l.p != '"') p->l.p++;
                if (p->l.p < p->l.end) p->l.p++;
            }
        }
    }
    long at = ok ? ptx_names_find(&p->fnames, f.name, strlen(f.name)) : -1;
    mock_ptx_func *old = at >= 0 ? &p->m->funcs[at] : NULL;
    if (old != NULL) { /* a prototype, then the definition */
        if (f.body != NULL) {
            if (old->body != NULL) ok = fail(p, "%s is defined twice", f.name);
            free(old->params);
            free(old->name);
            f.mod = p->m;
            *old = f;
            return ok;
        }
        free(f.name);
        free(f.params);
        return ok;
    }
    if (ok && !ptx__grow(&p->m->funcs, &p->capfuncs, p->m->nfuncs + 1, sizeof f))
        ok = fail(p, "out of memory");
    if (!ok) {
        free(f.name);
        free(f.params);
        return false;
    }
    f.mod = p->m;
    p->m->funcs[p->m->nfuncs++] = f;
    return ptx_names_add(&p->fnames, p->m->nfuncs - 1) || fail(p, "out of memory");
}

static bool variable(parser *p, int space, bool is_extern) {
    for (;;) {
        decl d;
        if (!declaration(p, &d)) return false;
        pvar v = {.space = space, .size = d.size, .align = d.align, .elem = d.elem};
        if (ptx_names_find(&p->vnames, d.name, d.name_len) >= 0)
            return fail(p, "'%.*s' is declared twice", (int)d.name_len, d.name);
        v.name = dupn(d.name, d.name_len);
        if (v.name == NULL || !ptx__grow(&p->m->vars, &p->capvars, p->m->nvars + 1, sizeof v)) {
            free(v.name);
            return fail(p, "out of memory");
        }
        bool placed = true;
        if (space == S_SHARED && (is_extern || d.unsized)) {
            v.dynamic = true;
        } else if (space == S_SHARED) {
            placed = ptx_size_place(&p->m->smem_static, v.align, v.size, &v.offset);
        } else if (!is_extern) {
            placed = ptx_size_place(&p->m->storage_bytes, v.align, v.size ? v.size : 1, &v.offset);
        } else {
            free(v.name);
            return fail(p, "the extern variable '%.*s' is defined in no module the mock has",
                        (int)d.name_len, d.name);
        }
        if (!placed) {
            free(v.name);
            return fail(p, "'%.*s' ends past 2^64 bytes of %s memory", (int)d.name_len, d.name,
                        space == S_SHARED ? "shared" : "module");
        }
        p->m->vars[p->m->nvars++] = v;
        if (!ptx_names_add(&p->vnames, p->m->nvars - 1)) return fail(p, "out of memory");
        if (ptx__eat(&p->l, '=')) {
            if (space == S_SHARED) return fail(p, "a .shared variable with an initialiser");
            if (!ptx__grow(&p->inits, &p->capinits, p->ninits + 1, sizeof *p->inits))
                return fail(p, "out of memory");
            p->inits[p->ninits++] = (struct pinit){p->m->nvars - 1, p->l};
            ptx__skip(&p->l);
            if (p->l.p < p->l.end && *p->l.p == '{') {
                if (!ptx__skip_braces(&p->l)) return fail(p, "an initialiser is not closed");
            } else {
                while (p->l.p < p->l.end && *p->l.p != ';' && *p->l.p != ',') p->l.p++;
            }
        }
        if (ptx__eat(&p->l, ';')) return true;
        if (!ptx__eat(&p->l, ',')) return fail(p, "a declaration without ';'");
    }
}

/* Values `v` or `{v, {v, v}, ...}` into the variable's storage, element by element. */
static bool initialiser(parser *p, const struct pinit *in) {
    pvar *v = &p->m->vars[in->var];
    p->l = in->at;
    unsigned char *at = p->m->storage + v->offset;
    size_t elem = v->elem > 8 ? 8 : v->elem, done = 0;
    int depth = 0;
    for (;;) {
        ptx__skip(&p->l);
        if (p->l.p >= p->l.end) return fail(p, "an initialiser is not closed");
        char c = *p->l.p;
        if (c == '{') {
            depth++;
            p->l.p++;
            continue;
        }
        if (c == '}') {
            depth--;
            p->l.p++;
            if (depth <= 0) return true;
            continue;
        }
        if (c == ',') {
            p->l.p++;
            continue;
        }
        if (c == ';') return true;
        uint64_t x;
        bool fl;
        double f;
        if (!ptx__number(&p->l, &x, &fl, &f)) {
            return fail(p,
                        "the initialiser of %s holds an address or an expression, which "
                        "the interpreter does not support",
                        v->name);
        }
        if (fl && elem == 4) {
            float ff = (float)f;
            uint32_t b;
            memcpy(&b, &ff, 4);
            x = b;
        } else if (fl && elem == 8) {
            memcpy(&x, &f, 8);
        }
        if (done + elem > v->size) return fail(p, "the initialiser of %s is too long", v->name);
        memcpy(at + done, &x, elem); /* little-endian host */
        done += elem;
        if (depth == 0) return true;
    }
}

/* `.global .texref a, b;` or `.surfref` (PTX ISA 5.3 "Texture Sampler and Surface Types"):
 * names a kernel's tex or suld may use as their object, bound by the host (cuModuleGetTexRef,
 * cuModuleGetSurfRef). Samplers and the independent mode's initialisers are refused. */
static bool reference(parser *p, bool surface) {
    for (;;) {
        ptx__skip(&p->l);
        const char *w;
        size_t n = ptx__word(&p->l, &w);
        if (n == 0) return fail(p, "a .%s without a name", surface ? "surfref" : "texref");
        for (size_t i = 0; i < p->m->nrefs; i++) {
            if (strlen(p->m->refs[i].name) == n && memcmp(p->m->refs[i].name, w, n) == 0)
                return fail(p, "'%.*s' is declared twice", (int)n, w);
        }
        if (ptx_names_find(&p->vnames, w, n) >= 0)
            return fail(p, "'%.*s' is declared twice", (int)n, w);
        char *name = dupn(w, n);
        if (name == NULL ||
            !ptx__grow(&p->m->refs, &p->m->caprefs, p->m->nrefs + 1, sizeof *p->m->refs)) {
            free(name);
            return fail(p, "out of memory");
        }
        p->m->refs[p->m->nrefs++] = (struct pref){name, surface};
        ptx__skip(&p->l);
        if (ptx__eat(&p->l, ';')) return true;
        if (ptx__eat(&p->l, '=')) {
            return fail(p,
                        "an initialised .%s (the independent texturing mode) is not "
                        "supported by the mock's interpreter",
                        surface ? "surfref" : "texref");
        }
        if (!ptx__eat(&p->l, ',')) return fail(p, "a declaration without ';'");
    }
}

/* After `.global`: a reference's type, which reference() reads, or a variable's. */
static bool global_scope(parser *p, bool is_extern) {
    plex at = p->l;
    ptx__skip(&p->l);
    const char *w;
    size_t n = ptx__word(&p->l, &w);
    if (ptx__is(w, n, ".texref") || ptx__is(w, n, ".surfref")) return reference(p, w[1] == 's');
    if (ptx__is(w, n, ".samplerref")) {
        return fail(p, "a .samplerref (the independent texturing mode) is not supported by the "
                       "mock's interpreter");
    }
    p->l = at;
    return variable(p, S_GLOBAL, is_extern);
}

static bool module_scope(parser *p) {
    bool is_extern = false;
    for (;;) {
        ptx__skip(&p->l);
        if (p->l.p >= p->l.end) return true;
        const char *w;
        size_t n = ptx__word(&p->l, &w);
        if (n == 0) return fail(p, "unexpected '%c' at module scope", *p->l.p);
        if (ptx__is(w, n, ".version") || ptx__is(w, n, ".address_size") ||
            ptx__is(w, n, ".target") || ptx__is(w, n, ".file")) {
            unsigned line = p->l.line;
            while (p->l.p < p->l.end && *p->l.p != '\n') p->l.p++;
            (void)line;
        } else if (ptx__is(w, n, ".section")) {
            ptx__word(&p->l, &w);
            if (!ptx__skip_braces(&p->l)) return fail(p, "a .section is not closed");
        } else if (ptx__is(w, n, ".pragma")) {
            while (p->l.p < p->l.end && *p->l.p != ';') p->l.p++;
            ptx__eat(&p->l, ';');
        } else if (ptx__is(w, n, ".visible") || ptx__is(w, n, ".weak") ||
                   ptx__is(w, n, ".common")) {
            continue;
        } else if (ptx__is(w, n, ".extern")) {
            is_extern = true;
            continue;
        } else if (ptx__is(w, n, ".entry") || ptx__is(w, n, ".func")) {
            if (!function(p, w[1] == 'e')) return false;
        } else if (ptx__is(w, n, ".global") || ptx__is(w, n, ".const") ||
                   ptx__is(w, n, ".shared")) {
            int space = w[1] == 'g' ? S_GLOBAL : w[1] == 'c' ? S_CONST : S_SHARED;
            if (!(space == S_GLOBAL ? global_scope(p, is_extern) : variable(p, space, is_extern)))
                return false;
        } else {
            return fail(p, "the directive '%.*s' is not supported by the mock's interpreter",
                        (int)n, w);
        }
        is_extern = false;
    }
}

CUresult mock__ptx_parse(mock_ptx_module **out, const char *text, size_t len, char *err,
                         size_t errlen) {
    *out = NULL;
    if (errlen > 0) err[0] = 0;
    mock_ptx_module *m = calloc(1, sizeof *m);
    char *copy = malloc(len + 1);
    if (m == NULL || copy == NULL) {
        free(m);
        free(copy);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&m->lock, NULL);
    memcpy(copy, text, len);
    copy[len] = 0;
    /* The text ends at its first NUL, as a C string would. */
    len = strlen(copy);
    m->text = copy;
    m->len = len;
    parser p = {.l = {copy, copy + len, 1}, .m = m, .err = err, .errlen = errlen};
    p.fnames = (ptx_names){.array = (void *const *)&m->funcs, .stride = sizeof *m->funcs};
    p.vnames = (ptx_names){.array = (void *const *)&m->vars, .stride = sizeof *m->vars};
    bool ok = module_scope(&p);
    if (ok) {
        m->storage = calloc(1, m->storage_bytes ? m->storage_bytes : 1);
        if (m->storage == NULL) ok = fail(&p, "out of memory");
    }
    for (size_t i = 0; ok && i < p.ninits; i++) ok = initialiser(&p, &p.inits[i]);
    for (size_t i = 0; ok && i < m->nfuncs; i++) {
        const mock_ptx_func *f = &m->funcs[i];
        if (f->body != NULL)
            ok = ptx__tex_names(m, f->body, f->body_len, f->body_line, err, errlen);
    }
    free(p.inits);
    /* Dynamic shared memory starts after the static, 16-aligned. */
    size_t end = m->smem_static;
    if (ok && !ptx_size_place(&end, 16, 0, &m->smem_dyn_off))
        ok = fail(&p, "the static shared memory ends past 2^64 bytes");
    for (size_t i = 0; i < m->nvars; i++) {
        if (m->vars[i].dynamic) m->vars[i].offset = m->smem_dyn_off;
    }
    /* From here on names are found by binary search (ptx__func, ptx__var). */
    ptx_names_free(&p.fnames);
    ptx_names_free(&p.vnames);
    ptx_names_sort(m->funcs, m->nfuncs, sizeof *m->funcs);
    ptx_names_sort(m->vars, m->nvars, sizeof *m->vars);
    if (!ok) {
        mock__ptx_free(m);
        return CUDA_ERROR_INVALID_PTX;
    }
    *out = m;
    return CUDA_SUCCESS;
}

void mock__ptx_free(mock_ptx_module *m) {
    if (m == NULL) return;
    for (size_t i = 0; i < m->nfuncs; i++) {
        mock_ptx_func *f = &m->funcs[i];
        free(f->name);
        free(f->params);
        free(f->error);
        free(f->code);
        free(f->init);
        free(f->calls);
        if (f->jit_free != NULL) f->jit_free(f->jit);
    }
    for (size_t i = 0; i < m->nvars; i++) free(m->vars[i].name);
    for (size_t i = 0; i < m->nrefs; i++) free(m->refs[i].name);
    free(m->refs);
    free(m->funcs);
    free(m->vars);
    free(m->storage);
    free(m->text);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

const mock_ptx_kernel *mock__ptx_kernel(const mock_ptx_module *m, const char *name) {
    mock_ptx_func *f = ptx__func((mock_ptx_module *)m, name, strlen(name));
    return f != NULL && f->entry && f->body != NULL ? f : NULL;
}

int mock__ptx_param_count(const mock_ptx_kernel *k) { return k->nparams; }

void mock__ptx_param(const mock_ptx_kernel *k, int i, size_t *offset, size_t *size) {
    *offset = k->params[i].offset;
    *size = k->params[i].size;
}

void mock__ptx_storage(const mock_ptx_module *m, void **ptr, size_t *size) {
    *ptr = m->storage;
    *size = m->storage_bytes;
}

size_t mock__ptx_static_smem(const mock_ptx_kernel *k) {
    if (__atomic_load_n(&k->prepared, __ATOMIC_ACQUIRE)) return k->smem_static;
    pthread_mutex_lock(&k->mod->lock);
    size_t n = k->mod->smem_static;
    pthread_mutex_unlock(&k->mod->lock);
    return n;
}

bool mock__ptx_global(mock_ptx_module *m, const char *name, void **ptr, size_t *size) {
    pvar *v = ptx__var(m, name, strlen(name));
    if (v == NULL || v->space == S_SHARED) return false;
    *ptr = m->storage + v->offset;
    *size = v->size;
    return true;
}

size_t mock__ptx_ref_count(const mock_ptx_module *m) { return m->nrefs; }

long mock__ptx_ref(const mock_ptx_module *m, const char *name, bool *surface) {
    for (size_t i = 0; i < m->nrefs; i++) {
        if (strcmp(m->refs[i].name, name) == 0) {
            *surface = m->refs[i].surface;
            return (long)i;
        }
    }
    return -1;
}

const char *mock__ptx_ref_name(const mock_ptx_module *m, size_t i) { return m->refs[i].name; }
