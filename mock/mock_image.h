/* Internal to the mock driver: what a module image says about its kernels and variables.
 *
 * mock_image.c reads PTX text, cubins (ELF64 for EM_CUDA) and fatbins (0xBA55ED50, holding
 * PTX, possibly compressed, and ELF entries) as nvcc writes them. The image comes as a bare
 * pointer, as the driver takes it: headers are read as the driver reads them, one field at a
 * time, so that a short buffer is refused at the first field it cannot hold.
 */
#ifndef CUSHIM_MOCK_IMAGE_H
#define CUSHIM_MOCK_IMAGE_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct mock_param {
    unsigned offset, size; /* in the kernel's parameter buffer */
} mock_param;

typedef struct mock_kentry {
    char *name;
    int nparams; /* -1: the image does not say */
    mock_param *params;
} mock_kentry;

typedef struct mock_global {
    char *name;
    size_t size;
    void *mem; /* zeroed host memory of `size` bytes (at least 1), owned by the image */
} mock_global;

/* The PTX texts of an image, each with the sm_XX of its .target. */
typedef struct mock_ptx_text {
    char *text;
    int arch;
} mock_ptx_text;

struct mock_ptx_module;

typedef struct mock_image {
    mock_kentry *entries;
    size_t nentries, capentries;
    mock_global *globals;
    size_t nglobals, capglobals;
    bool any_name; /* names could not be read (compressed PTX only): every name is accepted */
    bool has_ptx;  /* loading it would run the JIT */
    bool has_sass; /* it holds a cubin */
    int sass_arch; /* the sm_XX of its last cubin */
    unsigned char sass_archs[16]; /* of its first 16 cubins (0: e_flags did not say) */
    int nsass_archs;
    mock_ptx_text *ptx; /* texts NULL once interpreted: the interpreter keeps its copy */
    size_t nptx, capptx;
    struct mock_ptx_module *interp; /* the PTX the interpreter runs, parsed at load */
    char *interp_error;             /* why there is none, NULL while not tried */
    bool interp_refused;            /* the interpreter's parser refused the text */
    bool ptx_above;                 /* every PTX text is for a target above the device */
    bool fatbin;                    /* read from a fatbin */
} mock_image;

/* Reads an image for a device of compute capability cc (major * 10 + minor; 0: any), which
 * chooses a fatbin's PTX entry. CUDA_ERROR_INVALID_IMAGE for what is neither PTX nor cubin nor
 * fatbin (or a damaged one), CUDA_ERROR_INVALID_PTX for text that is not PTX; *jit_log gets a
 * static sentence for the JIT's error log (or ""). */
CUresult mock__image_read(const void *image, mock_image *out, const char **jit_log, int cc);
void mock__image_free(mock_image *img);
/* The image's variables die with its module or library (mock_globals.c): `by` names the call. */
void mock__image_vars_dead(mock_image *img, const char *by);
/* The entry of that name, or -1; for an any_name image, an entry of unknown parameters is
 * added for a name not seen before (-2 when out of memory). */
long mock__image_entry(mock_image *img, const char *name);
const mock_global *mock__image_global(const mock_image *img, const char *name);

/* Between the readers (mock_image.c, mock_ptx.c, mock_elf.c). An entry added twice keeps the
 * first parameter list that is known. False when out of memory. */
bool mock__image_add_entry(mock_image *img, const char *name, size_t len, int nparams,
                           const mock_param *params);
bool mock__image_add_global(mock_image *img, const char *name, size_t len, size_t size);
/* Keeps a copy of PTX text for the interpreter. False when out of memory. */
bool mock__image_add_ptx(mock_image *img, const char *text);
/* Parses the PTX of the highest .target not above compute capability `cc` (major * 10 +
 * minor) for the interpreter, once; img->interp or img->interp_error tells how it went. */
void mock__image_interpret(mock_image *img, int cc);
/* A fatbin at p (mock_fatbin.c): its cubins, and the one PTX entry a device of compute
 * capability cc uses (0: the highest). */
CUresult mock__fatbin_read(const unsigned char *p, mock_image *img, const char **jit_log, int cc);
/* A queued or captured launch holds the interpreted module it runs, so that unloading the
 * module frees it only after the launch is dropped. Hold is false when out of memory. */
bool mock__interp_hold(struct mock_ptx_module *m);
void mock__interp_drop(struct mock_ptx_module *m);
/* The bytes of a cubin up to the end of its section headers (what the readers read of it,
 * and what identifies it to mock_attach.c); 0 for what is not a cubin. len: as for
 * mock__elf_read. */
size_t mock__elf_extent(const unsigned char *p, size_t len);
/* The PTX that cushim attached to a cubin whose first `size` bytes (its extent) are these
 * (mock_attach.c), NULL for none; its pairs are forgotten at reset. */
const char *mock__attached_ptx(const unsigned char *cubin, size_t size);
void mock__attach_reset(void);
/* Past spaces and comments of PTX text (an unterminated block comment runs to the end). */
const char *mock__ptx_skip(const char *p);
/* What the driver refuses at load (mock_load_checks.c): CUDA_SUCCESS, or the code with *log
 * set to the JIT's error log and the reason told. img was read and interpreted for compute
 * capability cc. */
CUresult mock__load_checks(const mock_image *img, int cc, const char **log);
/* PTX text, NUL-terminated. */
CUresult mock__ptx_read(const char *text, mock_image *out, const char **jit_log);
/* A cubin at p; len is its size where known (inside a fatbin), 0 where the ELF headers say. */
CUresult mock__elf_read(const unsigned char *p, size_t len, mock_image *out);

#endif
