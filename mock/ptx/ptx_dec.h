/* Internal to the decoder (ptx_decode.c: bodies and names; ptx_inst.c: instructions; ptx_dec.c:
 * the helpers both use). */
#ifndef CUSHIM_MOCK_PTX_DEC_H
#define CUSHIM_MOCK_PTX_DEC_H

#include "ptx_int.h"

enum { N_REG, N_LOCAL, N_PARAM, N_SHARED };

typedef struct dname {
    const char *name;
    size_t len;
    uint32_t count; /* %r<count>; 0 for a single name */
    int bytes, kind, depth;
    size_t off; /* N_LOCAL: frame offset; N_PARAM: parameter offset */
    uint32_t slot;
} dname;

typedef struct dlabel {
    const char *name;
    size_t len;
    uint32_t pc;
} dlabel;

typedef struct dfix {
    const char *name;
    size_t len;
    size_t inst;
} dfix;

struct mods;
struct opnd;

typedef struct dec {
    mock_ptx_func *f;
    mock_ptx_module *m;
    plex l;
    char *err;
    size_t errlen;
    bool failed;
    unsigned inst_line;
    uint32_t guard, gneg;
    uint64_t *init;
    size_t capinit;
    uint32_t nslots, const_start;
    dname *names;
    size_t nnames, capnames;
    int depth;
    dlabel *labels;
    size_t nlabels, caplabels;
    dfix *fix;
    size_t nfix, capfix;
    pinst *code;
    size_t ncode, capcode;
    pcall *calls;
    size_t ncalls, capcalls;
    size_t frame;
    bool allow_emit; /* value() may add an instruction before the one decoded */
    const char *op;  /* the instruction being decoded, for messages */
    size_t oplen;
    /* The families decoded in ptx_inst_x.c, which ptx_inst.c reaches through these (set by
     * ptx_decode.c, above both) and whose decoding uses ptx_inst.c's helpers. */
    bool (*family_wants)(struct mods *m);
    bool (*family)(struct dec *d, struct mods *m, struct opnd *o, int no, bool *handled);
} dec;

bool dec_fail(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint32_t dec_const(dec *d, uint64_t v);
const dname *dec_lookup(dec *d, const char *w, size_t n, uint32_t *index);
bool dec_fixup(dec *d, const char *w, size_t n);
pinst *dec_emit(dec *d);

#endif
