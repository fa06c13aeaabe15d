/* Internal to the compiling tier (ptx_jit.c, ptx_jit_gen.c, ptx_jit_cc.c; ptx_jit.h says what it
 * does): what compiled code is given and returns, and the two steps of making it. */
#ifndef CUSHIM_MOCK_PTX_JIT_INT_H
#define CUSHIM_MOCK_PTX_JIT_INT_H

#include "ptx_int.h"

/* What compiled code is given: the text of this macro is also the structure's definition in the
 * generated C (ptx_jit_gen.c pastes it), so that the two agree. n: warp-instructions the path ran
 * in this turn (in and out); blk: the block's %ctaid.x, .y, .z and %smid (pjit_blk); pc: where it
 * starts, and where it stopped. */
#define PJIT_CTX_FIELDS                                                                            \
    uint64_t *R;                                                                                   \
    const unsigned char *params;                                                                   \
    uintptr_t *lo;                                                                                 \
    uintptr_t *hi;                                                                                 \
    unsigned char *smem;                                                                           \
    uint64_t smem_size;                                                                            \
    uint64_t n;                                                                                    \
    uint64_t budget;                                                                               \
    uint64_t blk[4];                                                                               \
    uint32_t pc;                                                                                   \
    uint32_t pad;
struct pjit_ctx {
    PJIT_CTX_FIELDS
};
#define PJIT_STR_(x) #x
#define PJIT_STR(x) PJIT_STR_(x)
#define PJIT_CTX_FIELDS_TEXT PJIT_STR(PJIT_CTX_FIELDS)
/* What compiled code returns: the interpreter runs the instruction at pc; the path yields with
 * its next instruction at pc (a backward branch after its budget); its lanes exit. */
enum { PJIT_BAIL, PJIT_YIELD, PJIT_EXIT };
/* Where slot q is in pjit_ctx's blk, or -1 for a slot that is not one of those. */
static inline int pjit_blk(uint32_t q) {
    return q == SL_CTAID ? 0 : q == SL_CTAIDY ? 1 : q == SL_CTAIDZ ? 2 : q == SL_SMID ? 3 : -1;
}
typedef int (*pjit_fn)(struct pjit_ctx *c);

/* A kernel's compiled code. */
typedef struct pjit {
    void *dl;
    pjit_fn fn;
    uint8_t *entry; /* per instruction: 1 where compiled code may start */
    bool whole;     /* a warp may run from the start to its exit in one call (ptx__jit_block) */
    size_t ncode;
} pjit;

/* What the tier does with an instruction (ptx_jit_expr.c). */
enum { K_NO, K_LANE, K_MEM, K_BRA, K_EXIT };
/* One of K_*: what the tier does with instruction in of kernel k. */
int ptx__jit_kind(const pinst *in, const mock_ptx_func *k);
/* An operand's name in the generated C (n bytes at out): v<slot>, or its lane l of a lane array,
 * as 64 bits, unless scalar (NULL: every slot) says it is one value for all the lanes. */
void ptx__jit_name(uint32_t slot, const uint8_t *scalar, char *out, size_t n);
/* The lane-wise expression of in over the operands ptx__jit_name gives, in e (n bytes); false
 * when the tier does not compile it. */
bool ptx__jit_lane_expr(const pinst *in, const mock_ptx_func *k, const uint8_t *scalar, char *e,
                        size_t n);
/* Whether in (of kind K_*) reads only the low 32 bits of slot wherever it names it. */
bool ptx__jit_reads32(const pinst *in, int kind, uint32_t slot);
/* Whether what in (of kind K_*) writes is 32 bits zero-extended in every lane, given zx (per
 * slot: it always holds such a value). */
bool ptx__jit_writes_zx(const pinst *in, int kind, const uint8_t *zx);
/* The slots a lane-wise instruction reads (up to 4) into r and writes (up to 2) into w. */
int ptx__jit_lane_reads(const pinst *in, uint32_t *r);
int ptx__jit_lane_writes(const pinst *in, uint32_t *w);

/* The helpers every compiled file starts with (ptx_jit_expr.c). */
extern const char ptx__jit_prelude[];

/* Text being made (ptx_jit_expr.c): bad once out of memory. */
typedef struct pjit_sbuf {
    char *p;
    size_t n, cap;
    bool bad;
} pjit_sbuf;
void ptx__jit_put(pjit_sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What the source's maker knows of a kernel, per instruction (nc of them) and per slot. */
typedef struct pjit_kernel {
    const mock_ptx_func *k;
    size_t nc, words;      /* words: 64-bit words a set of slots */
    const uint8_t *kinds;  /* K_* */
    const uint8_t *entry;  /* compiled code may start here */
    const uint8_t *konst;  /* the same literal value in every lane, all launch */
    const uint8_t *uni;    /* special registers the same in every lane, never written */
    const uint8_t *lu;     /* written, and likely the same in every lane (checked where loaded) */
    const uint8_t *scalar; /* konst, uni or lu: one C scalar, not an array of lanes */
    const uint8_t *zx;     /* always 32 bits zero-extended in the register block */
    const uint64_t *live;  /* live on entry to each instruction (nc + 1 sets); NULL: all */
} pjit_kernel;
/* The C of a straight-line stretch [s, e) of compiled instructions (ptx_jit_sb.c); false when
 * out of memory. */
bool ptx__jit_stretch(pjit_sbuf *out, const pjit_kernel *g, size_t s, size_t e);

/* The C source for kernel k (ptx_jit_gen.c): malloc'd text, in `entry` (ncode bytes, given) the
 * instructions it may start at, and in *whole whether a warp may run from the kernel's start to
 * its exit in one call: every instruction compiled, and the registers of pjit_blk read from the
 * context only (none is written); NULL when out of memory. */
char *ptx__jit_source(const mock_ptx_func *k, uint8_t *entry, bool *whole);
/* Compiles src (ptx_jit_cc.c), from the disk cache when it holds it: its function, and *dl the
 * library to close; NULL with a sentence in why when it cannot. */
pjit_fn ptx__jit_build(const char *src, void **dl, char *why, size_t whylen);

#endif
