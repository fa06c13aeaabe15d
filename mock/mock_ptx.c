/* PTX text: the `.entry` kernels with their `.param` lists, and the `.global` and `.const`
 * variables of module scope. Comments are skipped; only module scope (outside braces) is read,
 * so that instructions like `ld.global` are never taken for declarations. */
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"

/* The text of the JIT's error log for a failure the image asked for. */
#define JIT_MAGIC_LOG "mock ptxas error: line 1: MOCK_JIT_ERROR"
#define JIT_SYNTAX_LOG "mock ptxas fatal: the image is not PTX (no directive before the text)"

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '%';
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Skips spaces and comments; an unterminated block comment runs to the end. */
static const char *skip(const char *p) {
    for (;;) {
        while (is_space(*p)) p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

/* A directive or identifier token at p: its length (0 for none). */
static size_t token(const char *p) {
    size_t n = (*p == '.') ? 1 : 0;
    while (ident_char(p[n])) n++;
    return n;
}

static bool is_tok(const char *p, size_t n, const char *word) {
    return n == strlen(word) && memcmp(p, word, n) == 0;
}

/* The size of a scalar type token (.u32: 4, .f16x2: 4), 0 when it is not one. */
static unsigned type_size(const char *p, size_t n) {
    if (n < 3 || p[0] != '.') return 0;
    if (is_tok(p, n, ".bf16")) return 2;
    if (is_tok(p, n, ".bf16x2") || is_tok(p, n, ".f16x2")) return 4;
    if (!strchr("bsuf", p[1])) return 0;
    unsigned bits = 0;
    for (size_t i = 2; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        bits = bits * 10 + (unsigned)(p[i] - '0');
        if (bits > 128) return 0;
    }
    return bits % 8 == 0 ? bits / 8 : 0;
}

static unsigned long number(const char **pp) {
    const char *p = skip(*pp);
    unsigned long v = 0;
    while (*p >= '0' && *p <= '9' && v < (1ul << 40)) v = v * 10 + (unsigned long)(*p++ - '0');
    *pp = p;
    return v;
}

/* One declaration's shape: `[.align N] .type name[M]...`, up to `stop` (',' ')' or ';').
 * Returns the end; *size and *align are 0 where it does not say. */
static const char *declaration(const char *p, char stop, const char **name, size_t *name_len,
                               unsigned long *size, unsigned long *align) {
    unsigned long elem = 0, count = 1;
    bool ptr = false;
    *name = NULL;
    *name_len = 0;
    *align = 0;
    for (p = skip(p); *p && *p != stop && *p != ')' && *p != ';' && *p != '{' && *p != '=';
         p = skip(p)) {
        size_t n = token(p);
        if (n == 0) {
            if (*p == '[') { /* an array: [M], or [] of an unsized extern */
                p++;
                count *= number(&p);
                p = skip(p);
                if (*p == ']') p++;
            } else {
                p++;
            }
            continue;
        }
        if (is_tok(p, n, ".ptr")) ptr = true;
        if (is_tok(p, n, ".align")) {
            p += n;
            unsigned long a = number(&p);
            if (!ptr) *align = a; /* after .ptr, .align is the pointee's */
            continue;
        }
        if (p[0] == '.') {
            unsigned t = type_size(p, n);
            if (t && elem == 0) elem = t;
        } else {
            *name = p;
            *name_len = n;
        }
        p += n;
    }
    *size = elem * count;
    if (*align == 0) *align = elem;
    return p;
}

/* The `( .param ..., .param ... )` list of an entry, after its name. */
static const char *params(const char *p, mock_image *img, const char *name, size_t len, bool *oom) {
    mock_param list[256];
    int n = 0;
    bool known = true;
    unsigned long offset = 0;
    p = skip(p);
    if (*p != '(') return mock__image_add_entry(img, name, len, 0, NULL) ? p : (*oom = true, p);
    p++;
    for (p = skip(p); *p && *p != ')';) {
        const char *pname;
        size_t plen;
        unsigned long size, align;
        p = declaration(p, ',', &pname, &plen, &size, &align);
        if (size == 0 || n == (int)(sizeof list / sizeof list[0])) known = false;
        if (known) {
            if (align > 1) offset = (offset + align - 1) / align * align;
            list[n++] = (mock_param){(unsigned)offset, (unsigned)size};
            offset += size;
        }
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
        else if (*p != ')')
            break; /* something this reader does not know: sizes unknown */
    }
    if (*p == ')')
        p++;
    else
        known = false;
    if (!mock__image_add_entry(img, name, len, known ? n : -1, known ? list : NULL)) *oom = true;
    return p;
}

/* A `.global` or `.const` declaration of module scope; `.extern` ones have no storage here. */
static const char *variable(const char *p, mock_image *img, bool is_extern, bool *oom) {
    const char *name;
    size_t len;
    unsigned long size, align;
    p = declaration(p, ';', &name, &len, &size, &align);
    if (name != NULL && !is_extern && !mock__image_add_global(img, name, len, size)) *oom = true;
    /* An initializer, `= {...}` or `= value`: its values are not kept; the memory is zeroed. */
    while (*p && *p != ';' && *p != '{') p++;
    if (*p == '{') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '{') depth++;
            if (*p == '}' && --depth == 0) break;
        }
    }
    return p;
}

CUresult mock__ptx_read(const char *t, mock_image *img, const char **jit_log) {
    img->has_ptx = true;
    const char *first = skip(t);
    if (*first != '.') {
        *jit_log = JIT_SYNTAX_LOG;
        return CUDA_ERROR_INVALID_PTX;
    }
    if (strstr(t, "MOCK_JIT_ERROR") != NULL) { /* kept for the existing tests' images */
        *jit_log = JIT_MAGIC_LOG;
        return CUDA_ERROR_INVALID_PTX;
    }
    if (!mock__image_add_ptx(img, t)) return CUDA_ERROR_OUT_OF_MEMORY;
    int depth = 0;
    bool is_extern = false, oom = false;
    for (const char *p = first; *p && !oom; p = skip(p)) {
        if (*p == '{') {
            depth++;
            p++;
            continue;
        }
        if (*p == '}') {
            if (depth > 0) depth--;
            p++;
            continue;
        }
        if (*p == ';') {
            is_extern = false;
            p++;
            continue;
        }
        size_t n = token(p);
        if (n == 0) {
            p++;
            continue;
        }
        if (depth == 0 && is_tok(p, n, ".extern")) is_extern = true;
        if (depth == 0 && is_tok(p, n, ".entry")) {
            const char *name = skip(p + n);
            size_t len = token(name);
            if (len == 0 || name[0] == '.') {
                p += n;
                continue;
            }
            p = params(name + len, img, name, len, &oom);
            is_extern = false;
            continue;
        }
        if (depth == 0 && (is_tok(p, n, ".global") || is_tok(p, n, ".const"))) {
            p = variable(p + n, img, is_extern, &oom);
            continue;
        }
        p += n;
    }
    return oom ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
