/* A call's arguments as text, printed by the kind the generator gave each argument (handles in
 * hex, sizes as numbers, launch dimensions as (x,y,z), enums and flags by their cuda.h names).
 * Hand-written number formatting: the tracer's cost per call is mostly this. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace/entry_info.h"
#include "trace/format.h"

void cushim__put(cushim__text *t, const char *s) { cushim__put_n(t, s, strlen(s)); }

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                            "34353637383940414243444546474849505152535455565758596061626364656667"
                            "6869707172737475767778798081828384858687888990919293949596979899";

static const unsigned long long powers[20] = {1ull,
                                              10ull,
                                              100ull,
                                              1000ull,
                                              10000ull,
                                              100000ull,
                                              1000000ull,
                                              10000000ull,
                                              100000000ull,
                                              1000000000ull,
                                              10000000000ull,
                                              100000000000ull,
                                              1000000000000ull,
                                              10000000000000ull,
                                              100000000000000ull,
                                              1000000000000000ull,
                                              10000000000000000ull,
                                              100000000000000000ull,
                                              1000000000000000000ull,
                                              10000000000000000000ull};

/* Digits are written in place, from the last one back, once their count is known: no copy. The
 * count from the highest bit (log10 2 is near 1233/4096), one step more where it falls short. */
void cushim__put_u64(cushim__text *t, unsigned long long v) {
    unsigned n = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
    n += v >= powers[n];
    n += n == 0;
    if (n > t->cap - t->len) {
        t->len = t->cap; /* cut */
        return;
    }
    char *d = t->p + t->len + n;
    t->len += n;
    while (v >= 100) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        d -= 2;
        memcpy(d, pairs + k, 2);
    }
    if (v >= 10) {
        memcpy(d - 2, pairs + v * 2, 2);
    } else {
        d[-1] = (char)('0' + v);
    }
}

/* Two hex digits per byte, for put_hex to write a byte at a time. */
static const char hex_pairs[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                                "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                                "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
                                "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                                "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                                "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
                                "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
                                "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void cushim__put_hex(cushim__text *t, unsigned long long v) {
    unsigned n = v == 0 ? 1 : (unsigned)(67 - __builtin_clzll(v)) / 4;
    if (n + 2 > t->cap - t->len) {
        t->len = t->cap;
        return;
    }
    char *d = t->p + t->len;
    t->len += n + 2;
    d[0] = '0';
    d[1] = 'x';
    for (d += n + 2; n > 1; n -= 2, v >>= 8) {
        d -= 2;
        memcpy(d, hex_pairs + (v & 0xff) * 2, 2);
    }
    if (n == 1) d[-1] = hex_pairs[(v & 15) * 2 + 1];
}

void cushim__put_us(cushim__text *t, unsigned long long ns) {
    cushim__put_u64(t, ns / 1000);
    if (4 > t->cap - t->len) {
        t->len = t->cap;
        return;
    }
    unsigned f = (unsigned)(ns % 1000);
    char *d = t->p + t->len;
    t->len += 4;
    d[0] = '.';
    d[1] = (char)('0' + f / 100);
    d[2] = pairs[f % 100 * 2];
    d[3] = pairs[f % 100 * 2 + 1];
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

static void put_value(cushim__text *t, const cushim__trace_arg *a, const cushim__trace_enum *enums,
                      void *const *args, unsigned k, bool json, bool failed) {
    const void *p = args[k];
    if (a->output) {
        /* What the call wrote there; before it, or after a failure, only the pointer. */
        const void *to = *(const void *const *)p;
        if (failed || to == NULL) {
            cushim__put_hex(t, (unsigned long long)(uintptr_t)to);
            return;
        }
        cushim__put_char(t, '[');
        cushim__trace_arg value = *a;
        value.output = 0;
        const void *at[1] = {to};
        put_value(t, &value, enums, (void *const *)at, 0, json, failed);
        cushim__put_char(t, ']');
        return;
    }
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
    case CUSHIM__ARG_ENUM: put_enum(t, &enums[a->enum_index], read_signed(p, a->size)); break;
    case CUSHIM__ARG_FLAGS: put_flags(t, &enums[a->enum_index], read_unsigned(p, a->size)); break;
    case CUSHIM__ARG_DIM3:
        cushim__put_char(t, '(');
        for (unsigned d = 0; d < 3; d++) {
            if (d > 0) cushim__put_char(t, ',');
            cushim__put_u64(t, read_unsigned(args[k + d], a->size));
        }
        cushim__put_char(t, ')');
        break;
    case CUSHIM__ARG_RESULT: cushim__put(t, cushim_error_name(*(const CUresult *)p)); break;
    case CUSHIM__ARG_DIM3_STRUCT: {
        unsigned d[3];
        memcpy(d, p, sizeof d);
        cushim__put_char(t, '(');
        for (unsigned i = 0; i < 3; i++) {
            if (i > 0) cushim__put_char(t, ',');
            cushim__put_u64(t, d[i]);
        }
        cushim__put_char(t, ')');
        break;
    }
    default: CUSHIM__PUT_LIT(t, "{...}"); break;
    }
}

/* A kernel's name: C++ names are mangled (letters, digits, _ and $), but it is the program's
 * text, so anything else is written as \xNN (escaped again inside a JSON string). */
static void put_kernel(cushim__text *t, const char *name, size_t len, bool json) {
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)name[k];
        if (c == '_' || c == '$' || (c >= '0' && c <= '9') ||
            ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
            cushim__put_char(t, (char)c);
        } else {
            char hex[8];
            snprintf(hex, sizeof hex, json ? "\\\\x%02x" : "\\x%02x", c);
            cushim__put(t, hex);
        }
    }
}

void cushim__put_arg_list(cushim__text *t, const cushim__trace_arg *desc, unsigned count,
                          const cushim__trace_enum *enums, void *const *args, bool json,
                          bool failed, int function, const char *kernel, size_t kernel_len) {
    bool first = true;
    for (unsigned k = 0; k < count; k++) {
        const cushim__trace_arg *a = &desc[k];
        if (a->kind == CUSHIM__ARG_GROUPED) continue;
        if (json) {
            if (!first) cushim__put_char(t, ',');
            cushim__put_char(t, '"');
            cushim__put_n(t, a->name, a->name_len);
            CUSHIM__PUT_LIT(t, "\":\"");
            put_value(t, a, enums, args, k, true, failed);
        } else {
            if (!first) CUSHIM__PUT_LIT(t, ", ");
            cushim__put_n(t, a->name, a->name_len);
            cushim__put_char(t, '=');
            put_value(t, a, enums, args, k, false, failed);
        }
        if (kernel != NULL && (int)k == function) {
            CUSHIM__PUT_LIT(t, " <");
            put_kernel(t, kernel, kernel_len, json);
            cushim__put_char(t, '>');
        }
        if (json) cushim__put_char(t, '"');
        first = false;
    }
    if (json && kernel != NULL) {
        CUSHIM__PUT_LIT(t, ",\"kernel\":\"");
        put_kernel(t, kernel, kernel_len, true);
        cushim__put_char(t, '"');
    }
}

void cushim__put_args(cushim__text *t, const cushim_hook_call *c, bool json, const char *kernel,
                      size_t kernel_len) {
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    cushim__put_arg_list(t, e->args, e->count < c->arg_count ? e->count : c->arg_count,
                         cushim__trace_enums, c->args, json, c->result != CUDA_SUCCESS, e->function,
                         kernel, kernel_len);
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
