/* The join of a link's PTX inputs (see mock_link.c). Each text is read as statements of module
 * scope: a module directive (.version, .target, .address_size, .file) to the end of its line;
 * anything else to its ';' or to the '}' that closes its body. The joined text has one header,
 * every input's statements in order, and drops a `.extern` declaration of a name that an input
 * defines (a function with a body, a variable that is not .extern). A name of module scope that
 * an input defines without .visible or .weak is the input's own (PTX ISA, "Linking
 * Directives"): where another input defines the same name too (an earlier one, or a later one
 * that makes it .visible), this input's uses of it are renamed to name$link<k>, so that the two
 * stay apart as the driver keeps them. A kernel (.entry) keeps its name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"
#include "mock_link_text.h"

/* ------------------------------------------------------------------------------------------ */
/* Inputs                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static CUresult keep(mock_link_inputs *in, const char *text, size_t len) {
    char *copy = malloc(len + 1);
    if (copy == NULL || !mock__grow(&in->texts, &in->cap, in->n + 1, sizeof *in->texts)) {
        free(copy);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    in->texts[in->n++] = copy;
    return CUDA_SUCCESS;
}

/* The PTX of a cubin or fatbin: its text for the highest target not above cc, else any. */
static CUresult image_ptx(mock_link_inputs *in, const void *data, const char *name, int cc) {
    mock_image img;
    const char *log;
    CUresult r = mock__image_read(data, &img, &log, cc);
    if (r != CUDA_SUCCESS) {
        mock__why("the link input %s is not an image the mock reads", name);
        return r;
    }
    const mock_ptx_text *best = NULL;
    for (size_t i = 0; i < img.nptx; i++) {
        const mock_ptx_text *t = &img.ptx[i];
        if (best == NULL || (t->arch <= cc && (best->arch > cc || t->arch > best->arch))) best = t;
    }
    if (best != NULL)
        r = keep(in, best->text, strlen(best->text));
    else {
        mock__why("the link input %s holds SASS only, which the mock cannot link or run (give "
                  "it PTX: -gencode arch=compute_%d,code=compute_%d)",
                  name, cc, cc);
        r = CUDA_ERROR_NOT_SUPPORTED;
    }
    mock__image_free(&img);
    return r;
}

CUresult mock__link_add(mock_link_inputs *in, CUjitInputType type, const void *data, size_t size,
                        const char *name, int cc) {
    switch (type) {
    case CU_JIT_INPUT_PTX: return keep(in, data, strnlen(data, size));
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_FATBINARY: return image_ptx(in, data, name, cc);
    case CU_JIT_INPUT_LIBRARY: {
        static bool said;
        if (!said) {
            fprintf(stderr,
                    "cushim mock: cuLinkAddData/File: the library %s is taken and not "
                    "used (the mock links PTX only; device-side launches are not "
                    "supported)\n",
                    name);
            said = true;
        }
        return CUDA_SUCCESS;
    }
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_NVVM:
        mock__why("the link input %s is %s, which the mock cannot link (it links PTX)", name,
                  type == CU_JIT_INPUT_OBJECT ? "a host object" : "LTO IR");
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        mock__why("input type %d is not a CUjitInputType", (int)type);
        return CUDA_ERROR_INVALID_VALUE;
    }
}

void mock__link_inputs_free(mock_link_inputs *in) {
    for (size_t i = 0; i < in->n; i++) free(in->texts[i]);
    free(in->texts);
    memset(in, 0, sizeof *in);
}

/* ------------------------------------------------------------------------------------------ */
/* Statements                                                                                 */
/* ------------------------------------------------------------------------------------------ */

static bool ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '%' || c == '.';
}

static const char *skip(const char *p) { return mock__ptx_skip(p); }

static bool word_is(const char *p, const char *w) {
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !ident(p[n]);
}

static bool module_directive(const char *p) {
    return word_is(p, ".version") || word_is(p, ".target") || word_is(p, ".address_size") ||
           word_is(p, ".file");
}

/* The end of the statement at p (past its ';' or closing '}', and a ';' after that). */
static const char *statement_end(const char *p) {
    if (module_directive(p)) {
        while (*p && *p != '\n') p++;
        return p;
    }
    int depth = 0;
    while (*p) {
        if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
            const char *q = skip(p);
            p = q;
            continue;
        }
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
            }
            if (*p) p++;
            continue;
        }
        if (*p == '{') depth++;
        if (*p == ';' && depth == 0) return p + 1;
        if (*p == '}' && --depth <= 0) {
            const char *q = skip(p + 1);
            return *q == ';' ? q + 1 : p + 1;
        }
        p++;
    }
    return p;
}

/* The name a statement declares or defines, NULL for none; *has_body when it has a '{' body
 * (an initialiser after '=' is not one). */
static const char *statement_name(const char *p, const char *end, size_t *len, bool *has_body) {
    const char *name = NULL;
    bool after_func = false;
    *has_body = false;
    *len = 0;
    for (p = skip(p); p < end; p = skip(p)) {
        if (*p == '=') return name;
        if (*p == '{') {
            *has_body = true;
            return name;
        }
        if (*p == '(') {
            if (name != NULL && !after_func) { /* the parameters: the body may follow */
                int d = 0;
                for (; p < end; p++) {
                    if (*p == '(') d++;
                    if (*p == ')' && --d == 0) break;
                }
                p++;
                continue;
            }
            int d = 0; /* a function's return parameters */
            for (; p < end; p++) {
                if (*p == '(') d++;
                if (*p == ')' && --d == 0) break;
            }
            p++;
            after_func = false;
            continue;
        }
        size_t n = 0;
        while (p + n < end && ident(p[n])) n++;
        if (n == 0) {
            p++;
            continue;
        }
        if (*p == '.') {
            after_func = word_is(p, ".func") || word_is(p, ".entry");
        } else if (name == NULL && !(*p >= '0' && *p <= '9')) {
            name = p;
            *len = n;
            after_func = false;
        }
        p += n;
    }
    return name;
}

/* ------------------------------------------------------------------------------------------ */
/* The join                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* The definitions of every input: name, length, input, and whether it is linked by name. */
typedef struct def {
    const char *at;
    size_t len, input;
    bool shared; /* .visible or .weak (or an .entry, whose name is looked up) */
} def;

typedef struct names {
    def *d;
    size_t n, cap;
} names;

static bool defined(const names *d, const char *name, size_t len) {
    for (size_t i = 0; i < d->n; i++) {
        if (d->d[i].len == len && memcmp(d->d[i].at, name, len) == 0) return true;
    }
    return false;
}

/* Whether input k's own definition x is renamed: another input defines its name too, earlier
 * or as a shared one. */
static bool renamed(const names *d, const def *x) {
    if (x->shared) return false;
    for (size_t i = 0; i < d->n; i++) {
        const def *o = &d->d[i];
        if (o->input != x->input && o->len == x->len && memcmp(o->at, x->at, x->len) == 0 &&
            (o->input < x->input || o->shared)) {
            return true;
        }
    }
    return false;
}

/* Whether the words before name in the statement at p make it shared. */
static bool shared_linkage(const char *p, const char *name) {
    for (const char *q = p; q < name; q++) {
        if (*q == '.' && (word_is(q, ".visible") || word_is(q, ".weak") || word_is(q, ".entry"))) {
            return true;
        }
    }
    return false;
}

/* What every input defines, and the header: the highest .version and .target. */
static bool survey(const mock_link_inputs *in, names *d, int *version, const char **target,
                   int *target_arch) {
    for (size_t k = 0; k < in->n; k++) {
        for (const char *p = skip(in->texts[k]); *p; p = skip(p)) {
            const char *e = statement_end(p);
            if (e == p) break;
            if (word_is(p, ".version")) {
                unsigned major = 0, minor = 0;
                if (sscanf(p + 8, " %u.%u", &major, &minor) == 2 &&
                    (int)(major * 100 + minor) > *version) {
                    *version = (int)(major * 100 + minor);
                }
            } else if (word_is(p, ".target")) {
                int arch = 0;
                const char *sm = strstr(p, "sm_");
                if (sm != NULL && sm < e) arch = atoi(sm + 3);
                if (*target == NULL || arch > *target_arch) {
                    *target = p;
                    *target_arch = arch;
                }
            } else if (!word_is(p, ".extern") && !module_directive(p)) {
                size_t len;
                bool body;
                const char *name = statement_name(p, e, &len, &body);
                bool variable = !body && (strstr(p, ".global") != NULL || strstr(p, ".const"));
                if (name != NULL && (body || (variable && memchr(p, ';', (size_t)(e - p))))) {
                    if (!mock__grow(&d->d, &d->cap, d->n + 1, sizeof *d->d)) return false;
                    d->d[d->n++] = (def){name, len, k, shared_linkage(p, name)};
                }
            }
            p = e;
        }
    }
    return true;
}

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static bool put(text *t, const char *s, size_t n) {
    if (!mock__grow(&t->s, &t->cap, t->len + n + 1, 1)) return false;
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return true;
}

/* Puts the statement [p, e) of input k, each word that is one of k's renamed names followed by
 * $link<k>; comments and strings are copied as they are. */
static bool put_renamed(text *t, const char *p, const char *e, const names *d, size_t k) {
    while (p < e) {
        const char *q = p;
        if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
            q = skip(p);
        } else if (*p == '"') {
            for (q = p + 1; q < e && *q != '"'; q++) {
                if (*q == '\\' && q + 1 < e) q++;
            }
            if (q < e) q++;
        } else if (ident(*p) && *p != '.') {
            while (q < e && ident(*q) && *q != '.') q++;
            for (size_t i = 0; i < d->n; i++) {
                const def *x = &d->d[i];
                if (x->input == k && x->len == (size_t)(q - p) && memcmp(x->at, p, x->len) == 0 &&
                    renamed(d, x)) {
                    char tag[32];
                    int n = snprintf(tag, sizeof tag, "$link%zu", k);
                    if (!put(t, p, (size_t)(q - p)) || !put(t, tag, (size_t)n)) return false;
                    p = q;
                    break;
                }
            }
            if (p == q) continue;
        } else {
            q = p + 1;
        }
        if (q > e) q = e;
        if (!put(t, p, (size_t)(q - p))) return false;
        p = q;
    }
    return true;
}

static bool any_renamed(const names *d, size_t k) {
    for (size_t i = 0; i < d->n; i++) {
        if (d->d[i].input == k && renamed(d, &d->d[i])) return true;
    }
    return false;
}

CUresult mock__link_join(const mock_link_inputs *in, char **out) {
    if (in->n == 0) {
        mock__why("nothing was added to the link");
        return CUDA_ERROR_INVALID_VALUE;
    }
    names d = {0};
    int version = 0, target_arch = 0;
    const char *target = NULL;
    text t = {0};
    bool ok = survey(in, &d, &version, &target, &target_arch);
    char head[64];
    snprintf(head, sizeof head, ".version %d.%d\n", version / 100, version % 100);
    ok = ok && put(&t, head, strlen(head));
    if (ok && target != NULL) ok = put(&t, target, strcspn(target, "\n")) && put(&t, "\n", 1);
    ok = ok && put(&t, ".address_size 64\n", 17);
    for (size_t k = 0; ok && k < in->n; k++) {
        snprintf(head, sizeof head, "\n// link input %zu\n", k);
        ok = put(&t, head, strlen(head));
        bool rename = any_renamed(&d, k);
        for (const char *p = skip(in->texts[k]); ok && *p; p = skip(p)) {
            const char *e = statement_end(p);
            if (e == p) break;
            size_t len;
            bool body;
            const char *name = word_is(p, ".extern") ? statement_name(p, e, &len, &body) : NULL;
            bool drop = (module_directive(p) && !(k == 0 && word_is(p, ".file"))) ||
                        (name != NULL && defined(&d, name, len));
            if (!drop) {
                ok = (rename ? put_renamed(&t, p, e, &d, k) : put(&t, p, (size_t)(e - p))) &&
                     put(&t, "\n", 1);
            }
            p = e;
        }
    }
    free(d.d);
    if (!ok) {
        free(t.s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = t.s;
    return CUDA_SUCCESS;
}
