/* Fatbins (0xBA55ED50): the container nvcc and NVRTC write, holding cubins and PTX, the PTX
 * perhaps compressed with LZ4 or zstd. As the driver, the mock uses one PTX entry: the highest
 * .target the device runs (else the lowest, whose refusal names it). Only that entry is
 * decompressed and kept, so a fatbin of many large compressed entries costs one of them. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"

#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_LZ4 0x2000ull
#define FATBIN_FLAG_ZSTD 0x8000ull
#define MAX_PTX (256u << 20)

/* The JIT's error log of a damaged entry; the mock's lock is held while images are read. */
static char damaged_log[320];

static uint64_t rd(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

typedef enum { PTX_OK, PTX_NO_LIBRARY, PTX_DAMAGED, PTX_NO_MEMORY } ptx_status;

/* One entry's header fields, as nvcc writes them. */
typedef struct fat_entry {
    const unsigned char *payload;
    uint64_t size, flags;
    size_t compressed, plain;
    unsigned arch; /* the sm_XX of its .target or code */
} fat_entry;

static fat_entry entry_at(const unsigned char *q, uint64_t hsize, uint64_t size) {
    return (fat_entry){.payload = q + hsize,
                       .size = size,
                       .flags = hsize >= 48 ? rd(q + 40, 8) : 0,
                       .compressed = hsize >= 20 ? (size_t)rd(q + 16, 4) : 0,
                       .plain = hsize >= 64 ? (size_t)rd(q + 56, 8) : 0,
                       .arch = hsize >= 32 ? (unsigned)rd(q + 28, 4) : 0};
}

/* Decompresses with the system's library, found at run time so that the mock needs none to
 * build. *t gets plain + 1 bytes, NUL-terminated. */
static ptx_status decompress(const fat_entry *e, char **t, const char **lib_name) {
    bool zstd = (e->flags & FATBIN_FLAG_ZSTD) != 0;
    *lib_name = zstd ? "libzstd.so.1" : "liblz4.so.1";
    if (e->plain == 0 || e->plain > MAX_PTX || e->compressed == 0 || e->compressed > e->size) {
        return PTX_DAMAGED;
    }
    void *lib = dlopen(*lib_name, RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, zstd ? "ZSTD_decompress" : "LZ4_decompress_safe") : NULL;
    if (sym == NULL) {
        if (lib) dlclose(lib);
        return PTX_NO_LIBRARY;
    }
    ptx_status st = PTX_NO_MEMORY;
    *t = malloc(e->plain + 1);
    if (*t != NULL) {
        bool ok;
        if (zstd) {
            size_t (*fn)(void *, size_t, const void *, size_t);
            memcpy(&fn, &sym, sizeof fn);
            ok = fn(*t, e->plain, e->payload, e->compressed) == e->plain; /* errors are huge */
        } else {
            int (*fn)(const char *, char *, int, int);
            memcpy(&fn, &sym, sizeof fn);
            ok = fn((const char *)e->payload, *t, (int)e->compressed, (int)e->plain) ==
                 (int)e->plain;
        }
        st = ok ? PTX_OK : PTX_DAMAGED;
        if (ok) {
            (*t)[e->plain] = '\0';
        } else {
            free(*t);
            *t = NULL;
        }
    }
    dlclose(lib);
    return st;
}

/* The PTX text of an entry; PTX_OK with *t set, or why not. */
static ptx_status entry_ptx(const fat_entry *e, char **t, const char **lib_name) {
    *t = NULL;
    *lib_name = "";
    if (e->flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) return decompress(e, t, lib_name);
    *t = malloc(e->size + 1);
    if (*t == NULL) return PTX_NO_MEMORY;
    memcpy(*t, e->payload, e->size);
    (*t)[e->size] = '\0';
    return PTX_OK;
}

/* Whether a PTX entry for `arch` is a better choice than the one for `best` (0: none yet) on
 * compute capability cc: the highest that fits, else the lowest. */
static bool better(unsigned arch, unsigned best, bool have, int cc) {
    if (!have) return true;
    bool fits = cc == 0 || (int)arch <= cc, best_fits = cc == 0 || (int)best <= cc;
    if (fits != best_fits) return fits;
    return fits ? arch > best : arch < best;
}

/* The chosen PTX entry, read into the image. */
static CUresult read_chosen(const fat_entry *e, mock_image *img, const char **jit_log) {
    char *text;
    const char *lib;
    switch (entry_ptx(e, &text, &lib)) {
    case PTX_OK: {
        CUresult r = mock__ptx_read(text, img, jit_log);
        free(text);
        return r;
    }
    case PTX_NO_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
    case PTX_DAMAGED:
        snprintf(damaged_log, sizeof damaged_log,
                 "mock: the fatbin's %s-compressed PTX entry for sm_%u is damaged: its %zu "
                 "bytes do not decompress to the %zu its header says",
                 (e->flags & FATBIN_FLAG_ZSTD) ? "zstd" : "LZ4", e->arch, e->compressed, e->plain);
        mock__why("%s", damaged_log);
        *jit_log = damaged_log;
        return CUDA_ERROR_INVALID_IMAGE;
    case PTX_NO_LIBRARY:
        img->has_ptx = true;
        if (img->nentries == 0) {
            static bool said;
            if (!said) {
                fprintf(stderr,
                        "cushim mock: a fatbin holds compressed PTX and %s cannot be loaded "
                        "here: its modules accept any kernel name, with parameter sizes "
                        "unknown\n",
                        lib);
                said = true;
            }
            img->any_name = true;
        }
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_IMAGE;
}

CUresult mock__fatbin_read(const unsigned char *p, mock_image *img, const char **jit_log, int cc) {
    /* version 1 (checked a byte at a time: a short buffer stops here), a 16-byte header */
    if (p[4] != 1 || p[5] != 0 || rd(p + 6, 2) != 16) return CUDA_ERROR_INVALID_IMAGE;
    uint64_t total = rd(p + 8, 8);
    if (total == 0 || total > (1ull << 32)) return CUDA_ERROR_INVALID_IMAGE;
    const unsigned char *q = p + 16, *end = q + total;
    int entries = 0;
    fat_entry chosen = {0};
    bool have = false;
    /* The cubins are read as met; the PTX entry is chosen first and read last. */
    while (end - q >= 16) {
        unsigned kind = (unsigned)rd(q, 2);
        uint64_t hsize = rd(q + 4, 4), size = rd(q + 8, 8);
        if (hsize < 16 || hsize > (uint64_t)(end - q) || size > (uint64_t)(end - q) - hsize) {
            return CUDA_ERROR_INVALID_IMAGE;
        }
        fat_entry e = entry_at(q, hsize, size);
        if (kind == FATBIN_KIND_ELF) {
            CUresult r = mock__elf_read(e.payload, (size_t)size, img);
            if (r != CUDA_SUCCESS) return r;
        } else if (kind == FATBIN_KIND_PTX) {
            img->has_ptx = true;
            if (better(e.arch, chosen.arch, have, cc)) chosen = e;
            have = true;
        } else {
            return CUDA_ERROR_INVALID_IMAGE;
        }
        entries++;
        q = e.payload + size;
    }
    if (entries == 0) return CUDA_ERROR_INVALID_IMAGE;
    img->fatbin = true;
    return have ? read_chosen(&chosen, img, jit_log) : CUDA_SUCCESS;
}
