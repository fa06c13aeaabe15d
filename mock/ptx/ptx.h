/* The mock's PTX interpreter: parse a module once, then run its kernels on the host.
 *
 * A module is parsed into a pre-decoded form (registers as slots, immediates resolved, branch
 * targets as instruction indexes), so that running a kernel never reads text. A construct the
 * interpreter does not support is refused with a sentence naming the instruction and its PTX
 * line: at parse time for the module's syntax, at launch for a kernel that uses it. Device
 * memory is the host's: a launch is given a callback that says whether a range lies in a live
 * allocation.
 */
#ifndef CUSHIM_MOCK_PTX_H
#define CUSHIM_MOCK_PTX_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct mock_ptx_module mock_ptx_module;
/* A context's heap for device-side malloc and free (ptx_heap.c). */
typedef struct mock_ptx_heap mock_ptx_heap;
typedef struct mock_ptx_func mock_ptx_kernel;

/* Whether [addr, addr + len) lies in one live allocation. Yes: *lo and *hi get the bounds of
 * that allocation (the interpreter keeps them to check the next access cheaply). No: `why`
 * gets a sentence naming what the range runs past (or "no allocation"). Called from several
 * host threads at once, while the launch runs. */
typedef bool (*mock_ptx_check_fn)(void *ctx, uintptr_t addr, size_t len, uintptr_t *lo,
                                  uintptr_t *hi, char *why, size_t whylen);

/* A texture or surface object as a kernel reads it (PTX tex, tld4, txq, suld, sust, suq),
 * filled by the driver's lookup. Elements are `elem` bytes: `channels` values of `format`
 * (CUarray_format); rows are `pitch` bytes apart, slices (or layers) `slice` bytes. */
typedef struct mock_ptx_texture {
    unsigned char *data;
    uint32_t width, height, depth; /* in elements; 1 where the resource has no such extent */
    uint32_t layers;               /* a layered array's layers, 0 for none */
    int dims;                      /* 1, 2 or 3 */
    size_t pitch, slice, elem;
    int format, channels;
    int address[3]; /* CUaddress_mode */
    int filter;     /* CUfilter_mode */
    unsigned flags; /* CU_TRSF_* */
    float border[4];
    /* A mipmapped array's levels (level[0] is the storage and extents above; a level past
     * MOCK_PTX_LEVELS is not read), and how tex.level picks them. */
    unsigned levels;
    struct mock_ptx_level {
        unsigned char *data;
        uint32_t width, height, depth;
        size_t pitch, slice;
    } level[16];
    int mipmap_filter; /* CUfilter_mode */
    float lod_bias, min_lod, max_lod;
} mock_ptx_texture;

/* The object `handle` of a running kernel: a texture object (surface false) or a surface
 * object; false, with a sentence in why, for a handle that is none (or whose array is gone).
 * Called from several host threads at once. */
typedef bool (*mock_ptx_texture_fn)(void *ctx, uint64_t handle, bool surface, mock_ptx_texture *out,
                                    char *why, size_t whylen);

/* A texture or surface reference of the module (`.global .texref` or `.surfref`) as bound
 * when the launch was made: a kernel's tex or suld naming it reads t, or faults with `why`
 * when it is not bound. A decoded instruction holds MOCK_PTX_REF_TAG | index as its handle. */
typedef struct mock_ptx_ref {
    bool bound;
    mock_ptx_texture t;
    char why[160];
} mock_ptx_ref;
#define MOCK_PTX_REF_TAG 0xC5F0000000000000ull
#define MOCK_PTX_REF_MASK 0xFFFF000000000000ull

/* The module's references: how many, and the index of one by name (-1 when none, else
 * *surface says which kind); its name by index. */
size_t mock__ptx_ref_count(const mock_ptx_module *m);
long mock__ptx_ref(const mock_ptx_module *m, const char *name, bool *surface);
const char *mock__ptx_ref_name(const mock_ptx_module *m, size_t i);

typedef struct mock_ptx_launch {
    unsigned grid[3], block[3];
    size_t dynamic_smem;
    void **params; /* as cuLaunchKernel's kernelParams: params[i] points to argument i */
    bool cooperative;
    int host_threads; /* 0: CUSHIM_MOCK_THREADS, else every core */
    int sm_count;     /* for %nsmid */
    mock_ptx_check_fn check;
    void *check_ctx;
    mock_ptx_texture_fn texture; /* NULL: a kernel that uses one faults */
    FILE *out;                   /* where device printf writes (stdout when NULL) */
    mock_ptx_heap *heap;         /* device malloc's; NULL: malloc returns NULL */
    unsigned checks;             /* MOCK_PTX_CHECK_* bits (CUSHIM_MOCK_CHECK), 0 for none */
    /* initcheck of global memory: the written bits of the allocation holding addr (bit i of byte
     * i / 8: byte lo + i; then as many bits of bytes stored undefined), NULL where none are kept;
     * its bounds whenever addr lies in one (left as they were otherwise). May be NULL itself. */
    unsigned char *(*init_map)(void *ctx, uintptr_t addr, uintptr_t *lo, uintptr_t *hi);
    bool check_report;        /* a check that fires reports and the kernel goes on (mode report) */
    const mock_ptx_ref *refs; /* the module's references by index, as bound at the launch */
    size_t nrefs;
} mock_ptx_launch;

/* The checks a launch may ask for (ptx_check.c), and the kinds reports are counted by. */
enum {
    MOCK_PTX_CHECK_MEM = 1,         /* memcheck: the faults of every launch, with a report */
    MOCK_PTX_CHECK_RACE = 2,        /* racecheck: between warps by barrier, within a warp by path */
    MOCK_PTX_CHECK_INIT = 4,        /* initcheck: values of memory nothing wrote, where used */
    MOCK_PTX_CHECK_SYNC = 8,        /* synccheck: barriers and warp collectives */
    MOCK_PTX_CHECK_RACE_STRICT = 16 /* racecheck also where a store leaves the bytes as they were */
};
/* Bits [off, off + n) of a written-bits map set (atomically: kernels' host threads share it), and
 * whether they all are. */
static inline void mock_ptx_bits_set(unsigned char *map, size_t off, size_t n) {
    for (size_t i = off; i < off + n; i++) {
        unsigned char bit = (unsigned char)(1u << (i % 8));
        if (!(__atomic_load_n(&map[i / 8], __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(&map[i / 8], bit, __ATOMIC_RELAXED);
    }
}
static inline bool mock_ptx_bits_all(const unsigned char *map, size_t off, size_t n) {
    for (size_t i = off; i < off + n; i++) {
        if (!(__atomic_load_n(&map[i / 8], __ATOMIC_RELAXED) & (1u << (i % 8)))) return false;
    }
    return true;
}

/* Reports of one kind (0 memcheck, 1 racecheck, 2 initcheck, 3 synccheck) the interpreter wrote
 * in this process. */
unsigned long long mock__ptx_check_reports(int kind);
/* A report of one kind written outside a kernel (a copy to the host of undefined bytes): counted
 * with the interpreter's. */
void mock__ptx_check_count(int kind);
/* The kernel and line that last stored an undefined value into the allocation at lo (initcheck),
 * in words: false when none did. The undefined bytes are marked in the second half of the
 * allocation's written bits: (size + 7) / 8 bytes of written bits, then as many of bits set for
 * bytes a kernel stored a value into that came from memory nothing wrote. */
bool mock__ptx_undef_by(uintptr_t lo, char *buf, size_t len);

/* Parses PTX text of `len` bytes. CUDA_ERROR_INVALID_PTX with a sentence in err for text the
 * interpreter cannot read, CUDA_ERROR_OUT_OF_MEMORY. */
CUresult mock__ptx_parse(mock_ptx_module **out, const char *text, size_t len, char *err,
                         size_t errlen);
void mock__ptx_free(mock_ptx_module *m);

/* The `.entry` of that name, or NULL. */
const mock_ptx_kernel *mock__ptx_kernel(const mock_ptx_module *m, const char *name);
/* Its parameters: count, and the offset and size of each in the parameter buffer. */
int mock__ptx_param_count(const mock_ptx_kernel *k);
void mock__ptx_param(const mock_ptx_kernel *k, int i, size_t *offset, size_t *size);
/* Static shared memory of the kernel, in bytes. */
size_t mock__ptx_static_smem(const mock_ptx_kernel *k);
/* The storage of a module-scope `.global` or `.const` variable (initialised as the PTX says);
 * false when the module has none of that name. */
bool mock__ptx_global(mock_ptx_module *m, const char *name, void **ptr, size_t *size);

/* Decodes the kernel and the functions it calls, once: false with a sentence naming the
 * instruction and line the interpreter does not support. */
bool mock__ptx_prepare(const mock_ptx_kernel *k, char *err, size_t errlen);

/* The local memory a thread of the prepared kernel needs: its frame (.local variables, call
 * parameters) and the deepest chain of frames of the functions it calls. */
size_t mock__ptx_local_bytes(const mock_ptx_kernel *k);

/* A heap of `bytes` (rounded down to 16) for device malloc, zeroed; NULL when out of memory.
 * Its allocations live until freed or until the heap is deleted (the context's end). */
mock_ptx_heap *mock__ptx_heap_new(size_t bytes);
void mock__ptx_heap_delete(mock_ptx_heap *h);
size_t mock__ptx_heap_size(const mock_ptx_heap *h);
/* Whether any allocation kernels made in it is live. */
bool mock__ptx_heap_in_use(mock_ptx_heap *h);

/* Thread-instructions the interpreter ran in this process, every launch summed. */
uint64_t mock__ptx_instructions(void);
/* Warp-instructions the compiling tier (CUSHIM_MOCK_JIT) ran as compiled code, process-wide. */
uint64_t mock__ptx_jit_instructions(void);

/* The storage of all the module's .global and .const variables, one block. */
void mock__ptx_storage(const mock_ptx_module *m, void **ptr, size_t *size);

/* Runs a kernel. CUDA_SUCCESS; CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS,
 * CUDA_ERROR_ASSERT, CUDA_ERROR_ILLEGAL_INSTRUCTION (trap), CUDA_ERROR_LAUNCH_FAILED (a
 * deadlock, an endless spin) with a sentence naming the block, thread and PTX line;
 * CUDA_ERROR_NOT_SUPPORTED for a kernel that uses what the interpreter refuses;
 * CUDA_ERROR_OUT_OF_MEMORY. */
CUresult mock__ptx_run(const mock_ptx_kernel *k, const mock_ptx_launch *l, char *err,
                       size_t errlen);

#endif
