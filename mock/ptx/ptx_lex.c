/* The PTX lexer: spaces and comments, words (identifiers, directives, dotted opcodes),
 * numbers in every PTX form, and balanced braces. */
#include <stdlib.h>
#include <string.h>

#include "ptx_int.h"

void ptx__skip(plex *l) {
    while (l->p < l->end) {
        char c = *l->p;
        if (c == '\n') {
            l->line++;
            l->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            l->p++;
        } else if (c == '/' && l->p + 1 < l->end && l->p[1] == '/') {
            while (l->p < l->end && *l->p != '\n') l->p++;
        } else if (c == '/' && l->p + 1 < l->end && l->p[1] == '*') {
            l->p += 2;
            while (l->p < l->end && !(*l->p == '*' && l->p + 1 < l->end && l->p[1] == '/')) {
                if (*l->p == '\n') l->line++;
                l->p++;
            }
            l->p = l->p + 2 <= l->end ? l->p + 2 : l->end;
        } else {
            return;
        }
    }
}

static bool word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
           c == '.';
}

static bool word_char(char c) { return word_start(c) || (c >= '0' && c <= '9'); }

size_t ptx__word(plex *l, const char **w) {
    ptx__skip(l);
    const char *p = l->p;
    if (p >= l->end || !word_start(*p)) return 0;
    while (p < l->end && word_char(*p)) p++;
    *w = l->p;
    size_t n = (size_t)(p - l->p);
    l->p = p;
    return n;
}

bool ptx__eat(plex *l, char c) {
    ptx__skip(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return true;
    }
    return false;
}

bool ptx__is(const char *w, size_t n, const char *s) {
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits), 0x hex, 0b binary, octal, decimal,
 * decimal floats; an optional leading '-' and trailing 'U'. *is_float says the value is a
 * double in *f (decimal float) or f32/f64 bits (0f/0d: *f is their value too). */
bool ptx__number(plex *l, uint64_t *v, bool *is_float, double *f) {
    ptx__skip(l);
    const char *p = l->p, *e = l->end;
    bool neg = false;
    *is_float = false;
    *f = 0;
    if (p < e && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= e || *p < '0' || *p > '9') return false;
    uint64_t x = 0;
    if (p + 1 < e && p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
        bool dbl = p[1] == 'd' || p[1] == 'D';
        int digits = dbl ? 16 : 8;
        p += 2;
        for (int i = 0; i < digits; i++, p++) {
            if (p >= e || hexval(*p) < 0) return false;
            x = x << 4 | (uint64_t)hexval(*p);
        }
        *is_float = true;
        if (dbl) {
            memcpy(f, &x, 8);
        } else {
            uint32_t b = (uint32_t)x;
            float ff;
            memcpy(&ff, &b, 4);
            *f = ff;
        }
        if (neg) *f = -*f;
        l->p = p;
        *v = x;
        return true;
    }
    if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (p >= e || hexval(*p) < 0) return false;
        while (p < e && hexval(*p) >= 0) x = x << 4 | (uint64_t)hexval(*p++);
    } else if (p + 1 < e && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        p += 2;
        while (p < e && (*p == '0' || *p == '1')) x = x << 1 | (uint64_t)(*p++ - '0');
    } else {
        const char *q = p;
        while (q < e && *q >= '0' && *q <= '9') q++;
        if (q < e && (*q == '.' || *q == 'e' || *q == 'E')) {
            char *r; /* the module's copy of the text ends in a NUL */
            *f = strtod(l->p, &r);
            *is_float = true;
            memcpy(v, f, 8);
            l->p = r > l->end ? l->end : r;
            return true;
        }
        bool octal = p[0] == '0' && q - p > 1;
        while (p < q) x = x * (octal ? 8 : 10) + (uint64_t)(*p++ - '0');
    }
    if (p < e && (*p == 'U' || *p == 'u')) p++;
    l->p = p;
    *v = neg ? (uint64_t)0 - x : x;
    return true;
}

bool ptx__skip_braces(plex *l) {
    int depth = 0;
    ptx__skip(l);
    while (l->p < l->end) {
        char c = *l->p;
        if (c == '"') { /* a string: braces inside it are text */
            l->p++;
            while (l->p < l->end && *l->p != '"' && *l->p != '\n') l->p++;
        }
        if (l->p >= l->end) break;
        c = *l->p;
        if (c == '{') depth++;
        if (c == '}' && --depth == 0) {
            l->p++;
            return true;
        }
        if (c == '\n') l->line++;
        if (c == '/' && l->p + 1 < l->end && (l->p[1] == '/' || l->p[1] == '*')) {
            ptx__skip(l);
            continue;
        }
        l->p++;
    }
    return false;
}
