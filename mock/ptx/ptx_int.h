/* Internal to the PTX interpreter: the decoded form of a module (ptx_parse.c, ptx_decode.c)
 * and what the executor (ptx_exec.c, ptx_sched.c) runs. */
#ifndef CUSHIM_MOCK_PTX_INT_H
#define CUSHIM_MOCK_PTX_INT_H

#include <pthread.h>

#include "ptx.h"

/* Type classes of an instruction's type. */
enum {
    T_U8,
    T_U16,
    T_U32,
    T_U64,
    T_S8,
    T_S16,
    T_S32,
    T_S64,
    T_F16,
    T_F32,
    T_F64,
    T_PRED,
    T_BF16,
    T_F16X2,
    T_NONE,
    T_COUNT
};

/* Opcodes, specialised by type class at decode: executed as OP * T_COUNT + type. */
enum {
    O_NOP,
    O_MOV,
    O_ADD,
    O_SUB,
    O_MUL,
    O_MULHI,
    O_MULWIDE,
    O_MAD,
    O_MADHI,
    O_MADWIDE,
    O_DIV,
    O_REM,
    O_ABS,
    O_NEG,
    O_MIN,
    O_MAX,
    O_FMA,
    O_SQRT,
    O_RCP,
    O_RSQRT,
    O_SIN,
    O_COS,
    O_LG2,
    O_EX2,
    O_TANH,
    O_AND,
    O_OR,
    O_XOR,
    O_NOT,
    O_CNOT,
    O_SHL,
    O_SHR,
    O_BFE,
    O_BFI,
    O_BREV,
    O_CLZ,
    O_POPC,
    O_PRMT,
    O_BFIND,
    O_LOP3,
    O_SHFL_L,
    O_SHFL_R,
    O_SETP,
    O_SELP,
    O_SLCT,
    O_CVT,
    O_CVTA_TO,
    O_CVTA,
    O_LD,
    O_ST,
    O_ATOM,
    O_BRA,
    O_CALL,
    O_RET,
    O_EXIT,
    O_TRAP,
    O_BAR,
    O_SHFL,
    O_VOTE,
    O_MATCH,
    O_REDUX,
    O_ACTIVEMASK,
    O_WARPSYNC,
    O_CLOCK,
    O_CLOCK64,
    O_GTIMER,
    O_PACK,
    O_UNPACK,
    O_COPYSIGN,
    O_TESTP,
    O_SAD,
    O_ADDC,
    O_SUBC,
    O_SET,
    O_DP4A,
    O_MADC,
    O_PRINTF,
    O_ASSERT,
    O_SETMAXNREG,
    O_ASYNC,  /* cp.async and mbarrier (ptx_async.c); sub: AS_* */
    O_TEX,    /* texture and surface instructions (ptx_tex.c, ptx_texrun.c); sub: TX_* */
    O_HALF,   /* f16, f16x2, bf16, bf16x2 arithmetic and conversions (ptx_half.c); sub: O_* */
    O_RND,    /* f32 and f64 arithmetic rounded .rz, .rm or .rp (ptx_half.c); sub: O_* */
    O_BARARV, /* bar.arrive: counts at a barrier without waiting (ptx_mma.c) */
    O_MMA,    /* wmma, mma.sync, ldmatrix (ptx_mma.c); sub: MM_* */
    O_HEAP,   /* a call of device malloc (sub 0) or free (1) (ptx_heap.c) */
    O_COUNT
};

/* Instruction flags. */
#define F_FTZ 0x1u
#define F_SAT 0x2u
#define F_CC 0x4u     /* writes the carry flag */
#define F_ADDR32 0x8u /* the address register is 32 bits wide */
#define F_NEGC 0x10u  /* setp / bar.red: the predicate operand is negated */
#define F_SHIFTAMT 0x20u
#define F_CLAMP 0x40u
#define F_BYVAL 0x80u

/* State spaces. */
enum { S_GENERIC, S_GLOBAL, S_SHARED, S_LOCAL, S_PARAM, S_CONST, S_FPARAM };

/* Rounding modes (cvt and arithmetic). */
enum { R_NONE, R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI, R_RNA };

/* Comparison operators of setp, and sub-operations of atom, vote, shfl, redux, bar.red. */
enum {
    C_EQ,
    C_NE,
    C_LT,
    C_LE,
    C_GT,
    C_GE,
    C_LO,
    C_LS,
    C_HI,
    C_HS,
    C_EQU,
    C_NEU,
    C_LTU,
    C_LEU,
    C_GTU,
    C_GEU,
    C_NUM,
    C_NAN
};
/* Sub-operations of O_ASYNC. */
enum {
    AS_COPY,     /* cp.async, cp.async.bulk (d[2] + d[3]: its mbarrier, 0 for none) */
    AS_INIT,     /* mbarrier.init */
    AS_ARRIVE,   /* mbarrier.arrive; imm 1: arrive_drop; s[2]: expect_tx count */
    AS_EXPECT,   /* mbarrier.expect_tx */
    AS_COMPLETE, /* mbarrier.complete_tx */
    AS_TEST,     /* mbarrier.test_wait / try_wait against a state */
    AS_PARITY,   /* mbarrier.test_wait.parity / try_wait.parity */
    AS_PENDING,  /* mbarrier.pending_count */
    AS_INVAL,    /* mbarrier.inval */
    AS_CPARRIVE  /* cp.async.mbarrier.arrive.noinc (without .noinc it is no change) */
};
/* Sub-operations of O_MMA. */
enum { MM_LOAD_A, MM_LOAD_B, MM_LOAD_C, MM_STORE, MM_WMMA, MM_MMA, MM_LDMATRIX, MM_ARGS };
/* bf16x2 has no T_* of its own (no register or memory has it): O_HALF's format code for it. */
#define T_BF16X2 T_COUNT
enum { A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR, A_EXCH, A_CAS };

/* Reserved register slots, the same in every function's frame. */
enum {
    SL_TRUE,
    SL_FALSE,
    SL_ZERO,
    SL_TID,
    SL_TIDY,
    SL_TIDZ,
    SL_NTID,
    SL_NTIDY,
    SL_NTIDZ,
    SL_CTAID,
    SL_CTAIDY,
    SL_CTAIDZ,
    SL_NCTAID,
    SL_NCTAIDY,
    SL_NCTAIDZ,
    SL_LANE,
    SL_WARP,
    SL_NWARP,
    SL_SMID,
    SL_NSMID,
    SL_LMEQ,
    SL_LMLT,
    SL_LMLE,
    SL_LMGT,
    SL_LMGE,
    SL_FRAME,
    SL_DYNSMEM,
    SL_TOTSMEM,
    SL_GRIDID,
    SL_SINK,
    SL_CARRY,
    SL_ENVREG1,
    SL_ENVREG2,
    SL_RESERVED
};

typedef struct pinst {
    uint16_t op;   /* O_* * T_COUNT + T_* */
    uint8_t type2; /* cvt's source type; mul.wide's source */
    uint8_t flags;
    uint8_t space, vec, sub, rnd; /* sub: C_* or A_* or mode */
    uint32_t guard;               /* a predicate slot (SL_TRUE: none) */
    uint32_t gneg;
    uint32_t d[4];
    uint32_t s[4];
    int64_t imm; /* address offset, branch target, size */
    uint32_t line;
    uint32_t aux; /* call: index of the call record */
} pinst;

typedef struct pparam {
    size_t offset, size;
    const char *name; /* in the module's text */
    size_t name_len;
} pparam;

typedef struct pcall {
    struct mock_ptx_func *callee;
    int nargs;
    size_t arg_off[32], arg_size[32]; /* in the caller's frame */
    long ret_off;                     /* -1: none */
    size_t ret_size;
} pcall;

typedef struct mock_ptx_func {
    char *name;
    bool entry;
    struct mock_ptx_module *mod;
    int nparams;
    pparam *params; /* entry: in the parameter buffer; func: in the frame */
    size_t param_bytes;
    long ret_off; /* func: its return value in its frame, -1 for none */
    size_t ret_size;
    pparam ret;
    const char *body; /* text of the body, NULL for a declaration */
    size_t body_len;
    unsigned body_line;
    bool decoded, busy;
    char *error; /* why it cannot run, NULL when it can */
    pinst *code;
    size_t ncode;
    uint64_t *init; /* the frame's initial registers (constants included) */
    uint32_t nslots;
    uint32_t const_start; /* slots from here on have initial values (constants) */
    uint64_t specials;    /* the special registers (1 << SL_*) it and its callees read */
    size_t frame_bytes;   /* its local frame: params, return, depots, call scratch */
    pcall *calls;
    size_t ncalls;
    size_t max_depth_bytes; /* frames of this function and what it calls, for the stack */
    bool recursive;         /* it may call itself: the stack gets room for depth */
    /* A kernel's, set once by mock__ptx_prepare under the module's lock and published by
     * `prepared` (release; a launch reads it with acquire and then reads these unlocked): */
    bool prepared;
    uint64_t uid;        /* this kernel's number in the process, never reused (kept blocks) */
    uint32_t run_nslots; /* the widest frame of what it may call */
    size_t smem_static;  /* the module's static shared memory when it was decoded, its own
                          * .shared included, */
    size_t smem_dyn_off; /* and where its dynamic shared memory starts */
    /* The compiling tier's (ptx_jit.c), atomically: its state, its code once that is ready, and
     * the thread-instructions its launches ran. */
    int jit_state;
    struct pjit *jit;
    void (*jit_free)(struct pjit *j); /* set with jit: how the module's end frees it */
    uint64_t jit_steps;
} mock_ptx_func;

typedef struct pvar {
    char *name;
    int space; /* S_GLOBAL, S_CONST, S_SHARED (offset), extern S_SHARED (dynamic) */
    size_t size, align, offset, elem;
    bool dynamic;
} pvar;

struct mock_ptx_module {
    char *text; /* a copy of the PTX */
    size_t len;
    mock_ptx_func *funcs;
    size_t nfuncs;
    pvar *vars;
    size_t nvars;
    unsigned char *storage; /* .global and .const variables */
    size_t storage_bytes;
    size_t smem_static;
    size_t smem_dyn_off;
    /* Module-scope `.global .texref` and `.surfref` names (in the order declared: a reference's
     * index is what tex and suld name it by, MOCK_PTX_REF_TAG | index). */
    struct pref {
        char *name;
        bool surface;
    } * refs;
    size_t nrefs, caprefs;
    /* Held while a body is decoded: decoding a kernel's own .shared moves the two above, and
     * two threads may prepare kernels of one module at once. */
    pthread_mutex_t lock;
};

/* Between the parser and the decoder. */
/* Grows the array *v (a pointer to its pointer) of *cap elements of size bytes to hold need,
 * doubling, the new elements zeroed; false, with the array as it was, when out of memory. */
bool ptx__grow(void *v, size_t *cap, size_t need, size_t size);
bool ptx__decode(mock_ptx_func *f, char *err, size_t errlen);
mock_ptx_func *ptx__func(mock_ptx_module *m, const char *name, size_t len);
pvar *ptx__var(mock_ptx_module *m, const char *name, size_t len);

/* Half precision (ptx_half.c): the bits of an .f16 as a float, and a float rounded to them. */
float ptx__half_to_float(uint16_t h);
uint16_t ptx__half_from_float(float f);

/* The lexer (ptx_lex.c). */
typedef struct plex {
    const char *p, *end;
    unsigned line;
} plex;
void ptx__skip(plex *l);
/* A word: identifier, directive, or opcode with its dotted parts; its length, 0 for none. */
size_t ptx__word(plex *l, const char **w);
bool ptx__eat(plex *l, char c);
bool ptx__number(plex *l, uint64_t *v, bool *is_float, double *f);
bool ptx__is(const char *w, size_t n, const char *s);
/* Skips a balanced {...} (the lexer at '{'). */
bool ptx__skip_braces(plex *l);
/* Whether the opcode word's first part names a texture or surface instruction (ptx_texnames.c). */
bool ptx__is_tex(const char *op, size_t n);
/* Whether every texture and surface instruction of a function's body (its text from PTX line
 * `line`) names a register or one of m's references as its object: false with a
 * sentence, which the load refuses as the driver's ptxas would (ptx_texnames.c). */
bool ptx__tex_names(const struct mock_ptx_module *m, const char *body, size_t len, unsigned line,
                    char *err, size_t errlen);

/* The article before a count written in digits: "an 8-byte read", "an 11-byte", "a 16-byte"
 * (what the count's first word, its leading group of three digits, sounds like). */
static inline const char *ptx__a(uint64_t n) {
    while (n >= 1000) n /= 1000;
    return n == 8 || n == 11 || n == 18 || n / 10 == 8 || n / 100 == 8 ? "an" : "a";
}

#endif
