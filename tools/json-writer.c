/* The JSON writer: strings escaped so that any bytes give JSON that parses. */
#include "json-writer.h"

/* The length of the well-formed UTF-8 sequence at s, or 0 when it is not one (RFC 3629).
 * Stops at the terminating NUL, which is never a continuation byte. */
static size_t utf8_len(const unsigned char *s) {
    unsigned lo = 0x80, hi = 0xBF;
    size_t n;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        if (s[0] == 0xE0) lo = 0xA0;
        if (s[0] == 0xED) hi = 0x9F; /* no UTF-16 surrogates */
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        if (s[0] == 0xF0) lo = 0x90;
        if (s[0] == 0xF4) hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
    }
    return n;
}

static void json_escape_char(FILE *out, unsigned char c) {
    switch (c) {
    case '"': fputs("\\\"", out); return;
    case '\\': fputs("\\\\", out); return;
    case '\n': fputs("\\n", out); return;
    case '\r': fputs("\\r", out); return;
    case '\t': fputs("\\t", out); return;
    case '\b': fputs("\\b", out); return;
    case '\f': fputs("\\f", out); return;
    default: break;
    }
    if (c < 0x20) {
        fprintf(out, "\\u%04x", c);
    } else {
        fputc(c, out);
    }
}

void json_string(FILE *out, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0) {
            fputs("\\ufffd", out);
            p++;
        } else if (n == 1) {
            json_escape_char(out, *p++);
        } else {
            fwrite(p, 1, n, out);
            p += n;
        }
    }
    fputc('"', out);
}

void json_member(json *j, const char *key) {
    fputs(j->first ? "\n" : ",\n", j->out);
    fprintf(j->out, "%*s", 2 * j->depth, "");
    if (key) {
        json_string(j->out, key);
        fputs(": ", j->out);
    }
    j->first = false;
}

void json_open(json *j, const char *key, char bracket) {
    json_member(j, key);
    fputc(bracket, j->out);
    j->depth++;
    j->first = true;
}

void json_close(json *j, char bracket) {
    j->depth--;
    /* An empty object or array closes on its own line: "[]", not "[\n]". */
    if (!j->first) fprintf(j->out, "\n%*s", 2 * j->depth, "");
    fputc(bracket, j->out);
    j->first = false;
}

void json_str(json *j, const char *key, const char *s) {
    json_member(j, key);
    if (s) {
        json_string(j->out, s);
    } else {
        fputs("null", j->out);
    }
}

void json_int(json *j, const char *key, long long v) {
    json_member(j, key);
    fprintf(j->out, "%lld", v);
}
