/* A call's arguments as text, printed by the kind the generator gave each argument (handles in
 * hex, sizes as numbers, launch dimensions as (x,y,z), enums and flags by their cuda.h names).
 * Hand-written number formatting: the tracer's cost per call is mostly this. */
#include <stdio.h>
#include <string.h>

#include "trace/entry_info.h"
#include "trace/format.h"

void cushim__put_n(cushim__text *t, const char *s, size_t n) {
    if (n > t->cap - t->len) n = t->cap - t->len;
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

void cushim__put(cushim__text *t, const char *s) { cushim__put_n(t, s, strlen(s)); }

void cushim__put_char(cushim__text *t, char c) {
    if (t->len < t->cap) t->p[t->len++] = c;
}

void cushim__put_u64(cushim__text *t, unsigned long long v) {
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233"
        "34353637383940414243444546474849505152535455565758596061626364656667"
        "6869707172737475767778798081828384858687888990919293949596979899";
    char d[24];
    int n = 24;
    while (v >= 100) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        d[--n] = pairs[k + 1];
        d[--n] = pairs[k];
    }
    if (v >= 10) {
        d[--n] = pairs[v * 2 + 1];
        d[--n] = pairs[v * 2];
    } else {
        d[--n] = (char)('0' + v);
    }
    cushim__put_n(t, d + n, (size_t)(24 - n));
}

void cushim__put_hex(cushim__text *t, unsigned long long v) {
    static const char digits[] = "0123456789abcdef";
    char d[18];
    int n = 18;
    while (v > 0xff) {
        d[--n] = digits[v & 15];
        d[--n] = digits[(v >> 4) & 15];
        v >>= 8;
    }
    d[--n] = digits[v & 15];
    if (v > 15) d[--n] = digits[v >> 4];
    d[--n] = 'x';
    d[--n] = '0';
    cushim__put_n(t, d + n, (size_t)(18 - n));
}

void cushim__put_us(cushim__text *t, unsigned long long ns) {
    cushim__put_u64(t, ns / 1000);
    unsigned f = (unsigned)(ns % 1000);
    char d[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
    cushim__put_n(t, d, 4);
}

static unsigned long long read_unsigned(const void *p, unsigned size) {
    switch (size) {
    case 1: return *(const unsigned char *)p;
    case 2: return *(const unsigned short *)p;
    case 4: return *(const unsigned *)p;
    default: return *(const unsigned long long *)p;
    }
}

static long long read_signed(const void *p, unsigned size) {
    switch (size) {
    case 1: return *(const signed char *)p;
    case 2: return *(const short *)p;
    case 4: return *(const int *)p;
    default: return *(const long long *)p;
    }
}

static void put_signed(cushim__text *t, long long v) {
    if (v < 0) cushim__put_char(t, '-');
    cushim__put_u64(t, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
}

/* A user's string, quoted and cut at 64 characters; escaped for JSON inside a JSON string. */
static void put_string(cushim__text *t, const char *s, bool json) {
    if (s == NULL) {
        CUSHIM__PUT_LIT(t, "NULL");
        return;
    }
    cushim__put(t, json ? "\\\"" : "\"");
    for (int n = 0; s[n] != '\0'; n++) {
        unsigned char c = (unsigned char)s[n];
        if (n == 64) {
            CUSHIM__PUT_LIT(t, "...");
            break;
        }
        if (c == '"' || c == '\\') {
            cushim__put(t, json ? "\\\\\\" : "\\");
            cushim__put_char(t, (char)c);
        } else if (c < 0x20 || c >= 0x7f) {
            char hex[8];
            snprintf(hex, sizeof hex, json ? "\\\\x%02x" : "\\x%02x", c);
            cushim__put(t, hex);
        } else {
            cushim__put_char(t, (char)c);
        }
    }
    cushim__put(t, json ? "\\\"" : "\"");
}

static void put_enum(cushim__text *t, const cushim__trace_enum *e, long long v) {
    for (unsigned k = 0; k < e->count; k++) {
        if (e->values[k].value == v) {
            cushim__put(t, e->values[k].name);
            return;
        }
    }
    put_signed(t, v);
}

/* Each named bit once, joined by |; what no name covers, in hex after them. */
static void put_flags(cushim__text *t, const cushim__trace_enum *e, unsigned long long v) {
    if (v == 0) {
        put_enum(t, e, 0);
        return;
    }
    unsigned long long left = v;
    bool first = true;
    for (unsigned k = 0; k < e->count && left != 0; k++) {
        unsigned long long b = (unsigned long long)e->values[k].value;
        if (b == 0 || (b & (b - 1)) != 0 || (left & b) == 0) continue;
        if (!first) cushim__put_char(t, '|');
        cushim__put(t, e->values[k].name);
        left &= ~b;
        first = false;
    }
    if (left != 0) {
        if (!first) cushim__put_char(t, '|');
        cushim__put_hex(t, left);
    }
}

static void put_value(cushim__text *t, const cushim__trace_arg *a, void *const *args, unsigned k,
                      bool json) {
    const void *p = args[k];
    switch (a->kind) {
    case CUSHIM__ARG_HEX: cushim__put_hex(t, read_unsigned(p, a->size)); break;
    case CUSHIM__ARG_UNSIGNED: cushim__put_u64(t, read_unsigned(p, a->size)); break;
    case CUSHIM__ARG_SIGNED: put_signed(t, read_signed(p, a->size)); break;
    case CUSHIM__ARG_FLOAT: {
        char f[32];
        snprintf(f, sizeof f, "%g", a->size == 4 ? *(const float *)p : *(const double *)p);
        cushim__put(t, f);
        break;
    }
    case CUSHIM__ARG_STRING: put_string(t, *(const char *const *)p, json); break;
    case CUSHIM__ARG_ENUM:
        put_enum(t, &cushim__trace_enums[a->enum_index], read_signed(p, a->size));
        break;
    case CUSHIM__ARG_FLAGS:
        put_flags(t, &cushim__trace_enums[a->enum_index], read_unsigned(p, a->size));
        break;
    case CUSHIM__ARG_DIM3:
        cushim__put_char(t, '(');
        for (unsigned d = 0; d < 3; d++) {
            if (d > 0) cushim__put_char(t, ',');
            cushim__put_u64(t, read_unsigned(args[k + d], a->size));
        }
        cushim__put_char(t, ')');
        break;
    case CUSHIM__ARG_RESULT: cushim__put(t, cushim_error_name(*(const CUresult *)p)); break;
    default: CUSHIM__PUT_LIT(t, "{...}"); break;
    }
}

void cushim__put_args(cushim__text *t, const cushim_hook_call *c, bool json) {
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    bool first = true;
    for (unsigned k = 0; k < e->count && k < c->arg_count; k++) {
        const cushim__trace_arg *a = &e->args[k];
        if (a->kind == CUSHIM__ARG_GROUPED) continue;
        if (json) {
            if (!first) cushim__put_char(t, ',');
            cushim__put_char(t, '"');
            cushim__put(t, a->name);
            CUSHIM__PUT_LIT(t, "\":\"");
            put_value(t, a, c->args, k, true);
            cushim__put_char(t, '"');
        } else {
            if (!first) CUSHIM__PUT_LIT(t, ", ");
            cushim__put(t, a->name);
            cushim__put_char(t, '=');
            put_value(t, a, c->args, k, false);
        }
        first = false;
    }
}

bool cushim__call_stream(const cushim_hook_call *c, CUstream *out) {
    int s = cushim__trace_entries[c->index].stream;
    if (s >= 0 && (unsigned)s < c->arg_count) {
        *out = *(const CUstream *)c->args[s];
        return true;
    }
    if (s <= -2 && (unsigned)(-2 - s) < c->arg_count) {
        const CUlaunchConfig *cfg = *(const CUlaunchConfig *const *)c->args[-2 - s];
        if (cfg == NULL) return false;
        *out = cfg->hStream;
        return true;
    }
    return false;
}
