/* Internal: a call's arguments and result as text, for the tracer's line and its JSON event. */
#ifndef CUSHIM_TRACE_FORMAT_H
#define CUSHIM_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cushim.h"

/* A fixed buffer that text is appended to; what does not fit is cut, never overrun. */
typedef struct cushim__text {
    char *p;
    size_t len, cap;
} cushim__text;

void cushim__put(cushim__text *t, const char *s);
static inline void cushim__put_n(cushim__text *t, const char *s, size_t n) {
    if (n > t->cap - t->len) n = t->cap - t->len;
    memcpy(t->p + t->len, s, n);
    t->len += n;
}
/* A string literal: its length known, its copy a few moves (the tracer's hot path). */
#define CUSHIM__PUT_LIT(t, lit)                                                                    \
    do {                                                                                           \
        if (sizeof(lit) - 1 <= (t)->cap - (t)->len) {                                              \
            memcpy((t)->p + (t)->len, lit, sizeof(lit) - 1);                                       \
            (t)->len += sizeof(lit) - 1;                                                           \
        } else {                                                                                   \
            cushim__put((t), lit);                                                                 \
        }                                                                                          \
    } while (0)
static inline void cushim__put_char(cushim__text *t, char c) {
    if (t->len < t->cap) t->p[t->len++] = c;
}
void cushim__put_u64(cushim__text *t, unsigned long long v);
void cushim__put_hex(cushim__text *t, unsigned long long v);
/* ns as microseconds with three decimals: 1234 -> "1.234". */
void cushim__put_us(cushim__text *t, unsigned long long ns);

/* The arguments: `name=value, ...` (json false) or `"name":"value",...` (json true, values
 * escaped as JSON strings). kernel (NULL: none) is the name of the kernel of the entry's
 * function argument: its value then reads `0x55e0dbfcea90 <name>`, as gdb shows a symbol, and
 * the JSON has a "kernel" too. */
void cushim__put_args(cushim__text *t, const cushim_hook_call *c, bool json, const char *kernel,
                      size_t kernel_len);

/* The same for any list of arguments described by desc (count of them, their enums in enums):
 * failed says whether outputs were written; function is the argument that kernel names (-1:
 * none). */
struct cushim__trace_arg;
struct cushim__trace_enum;
void cushim__put_arg_list(cushim__text *t, const struct cushim__trace_arg *desc, unsigned count,
                          const struct cushim__trace_enum *enums, void *const *args, bool json,
                          bool failed, int function, const char *kernel, size_t kernel_len);

/* The stream a call queues work on, if its entry has one: true and *out set. */
bool cushim__call_stream(const cushim_hook_call *c, CUstream *out);

#endif
