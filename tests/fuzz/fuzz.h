/* The API fuzzer: shared by its parts and by the corpus generator, which reads the enums below
 * (make-corpus.py), so the binary format of an input is defined here once.
 *
 * An input is a header byte and then a little program: each instruction is an opcode byte
 * (taken modulo FZ_OP_COUNT) and its operands, read by the op in the order the comment above
 * each op documents. A read past the end gives zeros, so every byte string is a valid program.
 *
 * Operand encodings:
 *   slot      a byte, modulo the number of slots of the kind
 *   handle    a byte: below 0x80, a slot of the kind the call expects (an empty slot is NULL);
 *             0x80 and above, entry (byte & 0x7f) % FZ_POOL_SIZE of the pool of every slot of
 *             every kind and NULL (the FZ_POOL_* offsets), for handles of the wrong kind
 *   value     a byte: below the size of the op's table of interesting values, that entry; 0xff,
 *             the next four bytes (little-endian) or eight for a 64-bit value; otherwise the
 *             byte minus the table size, a small number
 *   choice    a byte, modulo the number of choices (images, names, paths, entries, codes)
 *   bytes     a length byte and that many bytes
 *
 * fuzz_api.c: the entry points, the fault bookkeeping and the checks around every call.
 * fuzz_model.c: what the harness knows is alive, and the invariants that follow from it.
 * fuzz_ops.c, fuzz_ops_objects.c, fuzz_ops_code.c: the instructions (see fuzz_ops.h).
 * replay.c: a main() that runs inputs without libFuzzer, for the corpus replay test.
 */
#ifndef CUSHIM_FUZZ_H
#define CUSHIM_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cushim.h"
#include "cushim_mock.h"

/* The opcodes. Numbered explicitly: the seed corpus is written in them. */
enum fz_op {
    FZ_OP_CTX_PRIMARY = 0,
    FZ_OP_CTX_CREATE = 1,
    FZ_OP_RETAIN = 2,
    FZ_OP_RELEASE = 3,
    FZ_OP_SET_CURRENT = 4,
    FZ_OP_CTX_SYNC = 5,
    FZ_OP_DEVICE_SYNC = 6,
    FZ_OP_PRIORITY_RANGE = 7,
    FZ_OP_STREAM_CREATE = 8,
    FZ_OP_STREAM_SYNC = 9,
    FZ_OP_STREAM_QUERY = 10,
    FZ_OP_STREAM_WAIT = 11,
    FZ_OP_SAME_QUEUE = 12,
    FZ_OP_EVENT_CREATE = 13,
    FZ_OP_EVENT_RECORD = 14,
    FZ_OP_EVENT_QUERY = 15,
    FZ_OP_EVENT_SYNC = 16,
    FZ_OP_ELAPSED = 17,
    FZ_OP_MODULE_LOAD = 18,
    FZ_OP_MODULE_FILE = 19,
    FZ_OP_MODULE_FUNCTION = 20,
    FZ_OP_LIBRARY_LOAD = 21,
    FZ_OP_LIBRARY_FUNCTION = 22,
    FZ_OP_LAUNCH = 23,
    FZ_OP_OCC_ACTIVE = 24,
    FZ_OP_OCC_POTENTIAL = 25,
    FZ_OP_OCC_COOP_GRID = 26,
    FZ_OP_COOP_AT_LIMIT = 27,
    FZ_OP_FAIL_ANY = 28,
    FZ_OP_FAIL_CALL = 29,
    FZ_OP_DISARM = 30,
    FZ_OP_KNOB = 31,
    FZ_OP_COUNT = 32
};

/* Bits of the header byte. */
enum fz_header {
    FZ_HEADER_CONTEXTS_FIRST = 1 /* at the end, release the context slots before the others */
};

/* Object kinds, in the order of the pool. */
enum fz_kind {
    FZ_KIND_CTX = 0,
    FZ_KIND_STREAM = 1,
    FZ_KIND_EVENT = 2,
    FZ_KIND_MODULE = 3,
    FZ_KIND_LIBRARY = 4,
    FZ_KIND_FUNC = 5,
    FZ_KIND_COUNT = 6,
    FZ_KIND_NONE = 7 /* NULL */
};

/* Slots per kind: few, so that the fuzzer reuses handles rather than spreading out. */
enum fz_slots {
    FZ_N_CTX = 4,
    FZ_N_STREAM = 4,
    FZ_N_EVENT = 4,
    FZ_N_MODULE = 3,
    FZ_N_LIBRARY = 2,
    FZ_N_FUNC = 4
};

/* The pool of every handle: where each kind starts, then NULL. */
enum fz_pool {
    FZ_POOL_CTX = 0,
    FZ_POOL_STREAM = 4,
    FZ_POOL_EVENT = 8,
    FZ_POOL_MODULE = 12,
    FZ_POOL_LIBRARY = 15,
    FZ_POOL_FUNC = 17,
    FZ_POOL_NULL = 21,
    FZ_POOL_SIZE = 22
};

/* Images a module or library is loaded from. */
enum fz_image {
    FZ_IMAGE_KERNELS,      /* three kernels: cushim_empty, cushim_saxpy, cushim_grid_barrier */
    FZ_IMAGE_JIT_ERROR,    /* a PTX that fails to compile, with a JIT log */
    FZ_IMAGE_SMALL,        /* one kernel, k */
    FZ_IMAGE_EMPTY,        /* "": not an image */
    FZ_IMAGE_ELF,          /* a cubin's magic: an image the mock cannot read */
    FZ_IMAGE_FATBIN,       /* a fatbin's magic */
    FZ_IMAGE_COMMENTS,     /* entries hidden in comments, one real: visible */
    FZ_IMAGE_UNTERMINATED, /* an unterminated comment */
    FZ_IMAGE_BYTES,        /* the next operand, bytes, NUL-terminated */
    FZ_IMAGE_NULL,
    FZ_IMAGE_COUNT
};

/* Kernel names looked up. */
enum fz_name {
    FZ_NAME_EMPTY_KERNEL, /* cushim_empty */
    FZ_NAME_SAXPY,        /* cushim_saxpy */
    FZ_NAME_BARRIER,      /* cushim_grid_barrier */
    FZ_NAME_K,            /* k */
    FZ_NAME_VISIBLE,      /* visible */
    FZ_NAME_MISSING,      /* a name no image has */
    FZ_NAME_BLANK,        /* "" */
    FZ_NAME_BYTES,        /* the next operand, bytes, at most FZ_NAME_MAX of them */
    FZ_NAME_NULL,
    FZ_NAME_COUNT
};

/* Files a module is loaded from. */
enum fz_path {
    FZ_PATH_KERNELS,   /* a file holding FZ_IMAGE_KERNELS */
    FZ_PATH_JIT_ERROR, /* a file holding FZ_IMAGE_JIT_ERROR */
    FZ_PATH_EMPTY,     /* an empty file */
    FZ_PATH_MISSING,   /* a path that does not exist */
    FZ_PATH_DIRECTORY, /* "/": not a file */
    FZ_PATH_BLANK,     /* "" */
    FZ_PATH_NULL,
    FZ_PATH_COUNT
};

/* Driver entries a fault can be aimed at: those cushim calls. */
enum fz_entry {
    FZ_ENTRY_CTX_GET_CURRENT,
    FZ_ENTRY_CTX_SET_CURRENT,
    FZ_ENTRY_CTX_CREATE,
    FZ_ENTRY_CTX_DESTROY,
    FZ_ENTRY_CTX_SYNCHRONIZE,
    FZ_ENTRY_CTX_PRIORITY_RANGE,
    FZ_ENTRY_DEVICE_GET,
    FZ_ENTRY_DEVICE_GET_COUNT,
    FZ_ENTRY_DEVICE_GET_ATTRIBUTE,
    FZ_ENTRY_PRIMARY_RETAIN,
    FZ_ENTRY_PRIMARY_RELEASE,
    FZ_ENTRY_STREAM_CREATE,
    FZ_ENTRY_STREAM_DESTROY,
    FZ_ENTRY_STREAM_QUERY,
    FZ_ENTRY_STREAM_SYNCHRONIZE,
    FZ_ENTRY_STREAM_WAIT_EVENT,
    FZ_ENTRY_EVENT_CREATE,
    FZ_ENTRY_EVENT_DESTROY,
    FZ_ENTRY_EVENT_RECORD,
    FZ_ENTRY_EVENT_QUERY,
    FZ_ENTRY_EVENT_SYNCHRONIZE,
    FZ_ENTRY_EVENT_ELAPSED,
    FZ_ENTRY_MODULE_LOAD,
    FZ_ENTRY_MODULE_UNLOAD,
    FZ_ENTRY_MODULE_GET_FUNCTION,
    FZ_ENTRY_FUNC_GET_ATTRIBUTE,
    FZ_ENTRY_LIBRARY_LOAD,
    FZ_ENTRY_LIBRARY_UNLOAD,
    FZ_ENTRY_LIBRARY_GET_KERNEL,
    FZ_ENTRY_KERNEL_GET_FUNCTION,
    FZ_ENTRY_LAUNCH,
    FZ_ENTRY_LAUNCH_COOPERATIVE,
    FZ_ENTRY_OCC_ACTIVE,
    FZ_ENTRY_OCC_POTENTIAL,
    FZ_ENTRY_COUNT
};

/* Codes a fault returns. */
enum fz_code {
    FZ_CODE_OUT_OF_MEMORY,
    FZ_CODE_INVALID_CONTEXT,
    FZ_CODE_LAUNCH_FAILED,
    FZ_CODE_NOT_READY,
    FZ_CODE_INVALID_VALUE,
    FZ_CODE_INVALID_HANDLE,
    FZ_CODE_CONTEXT_IS_DESTROYED,
    FZ_CODE_UNKNOWN,
    FZ_CODE_NOT_SUPPORTED,
    FZ_CODE_INVALID_DEVICE,
    FZ_CODE_COUNT
};

/* Mock knobs (FZ_OP_KNOB). Device attributes are never changed: cushim keeps them per process. */
enum fz_knob {
    FZ_KNOB_PENDING,   /* value byte & 1: work stays pending until synchronized */
    FZ_KNOB_OCCUPANCY, /* choice: blocks per SM the occupancy model answers (-1: the model) */
    FZ_KNOB_LAUNCH_US, /* value: the clock's step per launch */
    FZ_KNOB_KERNEL,    /* value, value: static shared memory and max threads of every kernel */
    FZ_KNOB_COUNT
};

/* Launch option bits. */
enum fz_launch_opt {
    FZ_LAUNCH_COOPERATIVE = 1,
    FZ_LAUNCH_CFG_NULL = 2,
    FZ_LAUNCH_PARAMS = 4 /* pass an argument array rather than NULL */
};

/* Occupancy option bits. */
enum fz_occ_opt {
    FZ_OCC_OUT_NULL = 1,  /* the first output NULL */
    FZ_OCC_OUT2_NULL = 2, /* the second output NULL */
    FZ_OCC_CALLBACK = 4,  /* the _fn variant, with a shared memory callback */
    FZ_OCC_CALLBACK_NULL = 8
};

/* Option bits of the create and load ops. */
enum fz_create_opt { FZ_CREATE_OUT_NULL = 1 };

#define FZ_NAME_MAX 32
#define FZ_BYTES_MAX 255
#define FZ_DEVICES 2   /* the mock is given two H200-shaped devices */
#define FZ_MAX_OPS 512 /* instructions per input: bounds the work and the mock's call log */

/* ------------------------------------------------------------------------------------------ */
/* Reading the input                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

uint8_t fz_u8(fz_reader *r);
uint32_t fz_u32(fz_reader *r);
/* A value from a table of interesting ones (see "value" above). */
uint32_t fz_pick_u32(fz_reader *r, const uint32_t *table, size_t n);
uint64_t fz_pick_u64(fz_reader *r, const uint64_t *table, size_t n);
int fz_pick_int(fz_reader *r, const int *table, size_t n);
/* Up to `cap` bytes into buf, NUL-terminated and followed by zeros to cap + 8. */
size_t fz_bytes(fz_reader *r, char *buf, size_t cap);

/* ------------------------------------------------------------------------------------------ */
/* The model (fuzz_model.c)                                                                   */
/* ------------------------------------------------------------------------------------------ */

#define FZ_MAX_CTX 160 /* live cushim contexts the model follows */
#define FZ_MAX_FNS 64  /* functions per module or library the model follows */
#define FZ_MAX_DEAD 1024

typedef struct fz_ctx_rec {
    cushim_context *p;
    CUcontext raw;
    int ordinal;
    bool primary;
} fz_ctx_rec;

/* A function a module or library made: by name, and for a library by context. */
typedef struct fz_fn_rec {
    char name[FZ_NAME_MAX + 1];
    CUcontext raw;       /* the context it runs in */
    cushim_context *ctx; /* for a library's: the context it holds */
    cushim_function *f;
} fz_fn_rec;

typedef struct fz_owner_rec {
    void *p;             /* a cushim_module or cushim_library */
    cushim_context *ctx; /* a module's */
    fz_fn_rec fns[FZ_MAX_FNS];
    int nfns;
} fz_owner_rec;

typedef struct fz_fn_slot {
    cushim_function *f;
    void *owner;
    char name[FZ_NAME_MAX + 1];
    CUcontext raw; /* the context of its NULL-stream launches */
} fz_fn_slot;

/* Everything the harness holds. Each slot holds one reference; an object is alive exactly while
 * the model says so, which is what makes the live counts checkable. */
typedef struct fz_model {
    cushim_context *ctx[FZ_N_CTX];
    cushim_stream *stream[FZ_N_STREAM];
    cushim_context *stream_ctx[FZ_N_STREAM];
    cushim_event *event[FZ_N_EVENT];
    cushim_context *event_ctx[FZ_N_EVENT];
    unsigned event_flags[FZ_N_EVENT];
    cushim_module *module[FZ_N_MODULE];
    cushim_library *library[FZ_N_LIBRARY];
    fz_fn_slot fn[FZ_N_FUNC];

    fz_ctx_rec ctxs[FZ_MAX_CTX];
    int nctxs;
    fz_owner_rec modules[FZ_N_MODULE];
    int nmodules;
    fz_owner_rec libraries[FZ_N_LIBRARY];
    int nlibraries;

    /* Created contexts destroyed in this input: none may be current again. */
    CUcontext dead[FZ_MAX_DEAD];
    int ndead;
    /* A fault fired during a release: the driver may keep what it refused to destroy, so the
     * live counts no longer follow from the model for the rest of the input. */
    bool counts_unknown;
    /* The kernels' attributes changed while functions existed: their cached limits are stale,
     * so the driver may refuse a launch that cushim's pre-checks let through. */
    bool limits_stale;
} fz_model;

extern fz_model fz_m;

void fz_model_clear(void);
/* Fails when a create's new stream or event is already held by a slot. */
void fz_model_check_new(const void *p);
/* A context cushim just made; the ops check that there is room first. */
void fz_ctx_add(cushim_context *p, int ordinal, bool primary);
fz_owner_rec *fz_module_find(const void *p);
fz_owner_rec *fz_library_find(const void *p);
/* Drops what no slot and no object holds any longer. Contexts that died are returned in died
 * (up to FZ_MAX_CTX); created ones join the dead list unless the driver may have refused
 * their destroy (faulted). */
int fz_model_sweep(bool faulted, fz_ctx_rec *died);
/* The invariants that hold between any two instructions. */
void fz_model_check(void);
/* The live counts the model predicts, against the mock's. */
void fz_model_check_counts(void);

/* ------------------------------------------------------------------------------------------ */
/* Calls and faults (fuzz_api.c)                                                              */
/* ------------------------------------------------------------------------------------------ */

extern cushim_mock_api fz_mock;

/* Flags of fz_end. */
enum fz_call_flags {
    FZ_VOID = 1,         /* returns nothing: no result to check */
    FZ_NOT_READY_OK = 2, /* CUDA_ERROR_NOT_READY is an answer, not a failure */
    FZ_SENTINEL_OK = 4,  /* a failure may legitimately leave the sentinel sentence */
    FZ_SWITCHES = 8,     /* a raw context switch: the current context may change */
    FZ_RAW = 16          /* a raw driver call: no cushim sentence */
};

typedef struct fz_call {
    const char *what;
    CUcontext current; /* the thread's current context before the call */
    int count;         /* calls the armed fault counts, before the call */
    int warnings;      /* warnings logged before the call */
    bool faulted;      /* set by fz_end: the armed fault fired during the call */
    const char *faulted_entry;
    CUcontext pop_ok; /* a context this call destroyed while it was current (set by the caller) */
} fz_call;

void fz_begin(fz_call *c, const char *what);
/* Checks what must hold after any call: the current context is back, a failure says why. */
void fz_end(fz_call *c, CUresult r, unsigned flags);
/* Whether the armed fault fired since c began, without the checks of fz_end. */
bool fz_fired(fz_call *c);
int fz_warnings(void);

void fz_arm_any(int nth, CUresult code);
void fz_arm_call(const char *entry, int nth, CUresult code);
void fz_disarm(void);

/* Reports a broken invariant and aborts, which is how libFuzzer learns of it. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ------------------------------------------------------------------------------------------ */
/* Instructions (fuzz_ops.c)                                                                  */
/* ------------------------------------------------------------------------------------------ */

extern const char *const fz_op_names[FZ_OP_COUNT];
void fz_run_op(int op, fz_reader *r);
/* Releases one reference the model holds, with the checks of a release. */
void fz_release_slot(int kind, int slot);
/* Writes the files FZ_PATH_* name; called once. */
void fz_ops_init(void);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
