/* PTX text: the `.entry` kernels with their `.param` lists, and the `.global` and `.const`
 * variables of module scope. Comments are skipped; only module scope (outside braces) is read,
 * so that instructions like `ld.global` are never taken for declarations.
 *
 * What ptxas refuses when the driver's JIT compiles the text is refused here too, with its
 * sentence in the JIT's error log and CUDA_ERROR_INVALID_PTX: an entry's parameters over
 * 0x7ffc bytes (0x1100 before PTX ISA 8.1), a module's constant data over 0x10000 bytes, an
 * entry's static shared data over a block's opt-in maximum (the mock counts all of the module's
 * .shared variables for a module of one entry; for several, each variable alone, and all of
 * them against the maximum an entry, which only a module with unused .shared variables can pass
 * the driver and fail here). A size of 2^64 bytes or more, which ptxas
 * wraps silently, is refused. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"

/* The text of the JIT's error log for a failure the image asked for. */
#define JIT_MAGIC_LOG "mock ptxas error: line 1: MOCK_JIT_ERROR"
#define JIT_SYNTAX_LOG "mock ptxas fatal: the image is not PTX (no directive before the text)"
/* Not ptxas's 0xc000: the H200 (driver 580) loads an entry that uses 0xc004 bytes of static
 * shared data (tests/gpu/test_gpu_limits.c), so the mock refuses only what no launch could have:
 * more than the opt-in maximum of a block (227 KiB on compute capability 9.0). */
#define JIT_MAX_SHARED 0x38c00ul
#define JIT_MAX_CONST 0x10000ul
#define SIZE_WRAPS ULONG_MAX /* a size of 2^64 bytes or more */

/* What the reader keeps to check the JIT's limits, and the first refusal. */
typedef struct jit {
    unsigned long max_params; /* from .version */
    unsigned long const_bytes, shared_bytes, shared_largest;
    const char *shared_name; /* of the largest .shared variable */
    size_t shared_name_len;
    unsigned long global_bytes, max_global; /* .global data; the device's memory (0: unknown) */
    bool too_big;                           /* refused for want of device memory */
    int entries;
    const char *entry; /* the first entry's name */
    size_t entry_len;
    bool refused;
} jit;

/* The JIT's error log of the refusal; the mock's lock is held while images are read. */
static char jit_log_buf[384];

static bool refuse(jit *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(jit *j, const char *fmt, ...) {
    if (j->refused) return false;
    j->refused = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(jit_log_buf, sizeof jit_log_buf, fmt, ap);
    va_end(ap);
    return false;
}

/* a * b and a + b, SIZE_WRAPS when they do not fit. */
static unsigned long mul_sat(unsigned long a, unsigned long b) {
    unsigned long r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_WRAPS : r;
}

/* The offset of `size` bytes aligned to `align` after *end, which moves past them; SIZE_WRAPS
 * (and *end too) when that does not fit. */
static unsigned long place(unsigned long *end, unsigned long align, unsigned long size) {
    unsigned long a = align > 1 ? align : 1, at, next;
    if (*end == SIZE_WRAPS || size == SIZE_WRAPS || __builtin_add_overflow(*end, a - 1, &at) ||
        __builtin_add_overflow(at / a * a, size, &next)) {
        *end = SIZE_WRAPS;
        return SIZE_WRAPS;
    }
    *end = next;
    return at / a * a;
}

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

const char *mock__ptx_skip(const char *p) { return skip(p); }

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

/* A decimal number; every digit is read, and a value of 2^64 or more is SIZE_WRAPS. */
static unsigned long number(const char **pp) {
    const char *p = skip(*pp);
    unsigned long v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = mul_sat(v, 10);
        if (v != SIZE_WRAPS && __builtin_add_overflow(v, (unsigned long)(*p - '0'), &v))
            v = SIZE_WRAPS;
    }
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
                count = mul_sat(count, number(&p));
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
    *size = mul_sat(elem, count);
    if (*align == 0) *align = elem;
    return p;
}

/* The `( .param ..., .param ... )` list of an entry, after its name. */
static const char *params(const char *p, mock_image *img, const char *name, size_t len, bool *oom,
                          jit *j) {
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
        unsigned long at = place(&offset, align, size);
        if (size == 0 || n == (int)(sizeof list / sizeof list[0])) known = false;
        if (known) list[n++] = (mock_param){(unsigned)at, (unsigned)size};
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
    if (j->entries++ == 0) {
        j->entry = name;
        j->entry_len = len;
    }
    if (offset == SIZE_WRAPS) {
        refuse(j,
               "mock ptxas error: the parameters of entry function '%.*s' take 2^64 bytes or more",
               (int)len, name);
    } else if (offset > j->max_params) {
        refuse(j,
               "mock ptxas error: Entry function '%.*s' uses too much parameter space (0x%lx "
               "bytes, 0x%lx max)",
               (int)len, name, offset, j->max_params);
    } else if (!mock__image_add_entry(img, name, len, known ? n : -1, known ? list : NULL)) {
        *oom = true;
    }
    return p;
}

/* A `.global`, `.const` or `.shared` (space 'g', 'c', 's') declaration of module scope;
 * `.extern` ones have no storage here. */
static const char *variable(const char *p, mock_image *img, bool is_extern, bool *oom, char space,
                            jit *j) {
    const char *name;
    size_t len;
    unsigned long size, align;
    p = declaration(p, ';', &name, &len, &size, &align);
    if (name != NULL && size == SIZE_WRAPS) {
        refuse(j, "mock ptxas error: the size of '%.*s' is 2^64 bytes or more", (int)len, name);
    } else if (name != NULL && !is_extern && space == 'g' &&
               (place(&j->global_bytes, align, size), j->max_global != 0) &&
               j->global_bytes > j->max_global) {
        /* Before any host memory is asked for it: no device could allocate it at load. */
        j->too_big = true;
        refuse(j,
               "mock: the module's .global data reaches 0x%lx bytes with '%.*s', more than the "
               "device's 0x%lx bytes of memory",
               j->global_bytes, (int)len, name, j->max_global);
    } else if (name != NULL && !is_extern && space == 'c') {
        place(&j->const_bytes, align, size);
    } else if (name != NULL && !is_extern && space == 's') {
        place(&j->shared_bytes, align, size);
        if (size > j->shared_largest) {
            j->shared_largest = size;
            j->shared_name = name;
            j->shared_name_len = len;
        }
    }
    if (space != 's' && !j->refused && name != NULL && !is_extern &&
        !mock__image_add_global(img, name, len, size)) {
        *oom = true;
    }
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

/* `.version major.minor`: entries' parameters may take 0x7ffc bytes from PTX ISA 8.1 on. */
static const char *version(const char *p, jit *j) {
    unsigned long major = number(&p), minor = 0;
    if (*p == '.') {
        p++;
        minor = number(&p);
    }
    if (major > 8 || (major == 8 && minor >= 1)) j->max_params = 0x7ffc;
    return p;
}

/* The limits on the whole text: constant data, and static shared data per entry. */
static void module_limits(jit *j) {
    if (j->const_bytes > JIT_MAX_CONST) {
        if (j->const_bytes == SIZE_WRAPS) {
            refuse(j, "mock ptxas error: the module's constant data takes 2^64 bytes or more");
        } else {
            refuse(j,
                   "mock ptxas error: File uses too much global constant data (0x%lx bytes, "
                   "0x%lx max)",
                   j->const_bytes, JIT_MAX_CONST);
        }
    }
    if (j->shared_bytes == SIZE_WRAPS) {
        refuse(j, "mock ptxas error: the module's static shared data takes 2^64 bytes or more");
    } else if (j->entries == 1 && j->shared_bytes > JIT_MAX_SHARED) {
        refuse(j,
               "mock ptxas error: Entry function '%.*s' uses too much shared data (0x%lx bytes, "
               "0x%lx max)",
               (int)j->entry_len, j->entry, j->shared_bytes, JIT_MAX_SHARED);
    } else if (j->shared_largest > JIT_MAX_SHARED) {
        refuse(j,
               "mock ptxas error: the .shared variable '%.*s' takes 0x%lx bytes, more than an "
               "entry function may use (0x%lx max)",
               (int)j->shared_name_len, j->shared_name, j->shared_largest, JIT_MAX_SHARED);
    } else if (j->shared_bytes >
               mul_sat(j->entries > 0 ? (unsigned long)j->entries : 1ul, JIT_MAX_SHARED)) {
        /* More than every entry could use between them: one of them uses too much (the
         * interpreter gives each block all of the module's static shared memory). */
        refuse(j,
               "mock ptxas error: the module's %d entry functions share 0x%lx bytes of static "
               "shared data, more than 0x%lx each",
               j->entries, j->shared_bytes, JIT_MAX_SHARED);
    }
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
    struct CUctx_st *c = mock__current();
    int dev = c != NULL ? c->device : 0;
    jit j = {.max_params = 0x1100,
             .max_global = mock__valid_device(dev) ? (unsigned long)mock__devx[dev].total_mem : 0};
    for (const char *p = first; *p && !oom && !j.refused; p = skip(p)) {
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
            p = params(name + len, img, name, len, &oom, &j);
            is_extern = false;
            continue;
        }
        if (depth == 0 && is_tok(p, n, ".version")) {
            p = version(p + n, &j);
            continue;
        }
        if (depth == 0 &&
            (is_tok(p, n, ".global") || is_tok(p, n, ".const") || is_tok(p, n, ".shared"))) {
            p = variable(p + n, img, is_extern, &oom, p[1], &j);
            continue;
        }
        p += n;
    }
    if (oom) return CUDA_ERROR_OUT_OF_MEMORY;
    module_limits(&j);
    if (j.refused) *jit_log = jit_log_buf;
    if (j.too_big) return CUDA_ERROR_OUT_OF_MEMORY;
    return j.refused ? CUDA_ERROR_INVALID_PTX : CUDA_SUCCESS;
}
