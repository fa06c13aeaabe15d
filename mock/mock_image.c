/* Module images: which kind an image is, the fatbin container, and the image's records. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"
#include "ptx.h"

#define FATBIN_MAGIC 0xba55ed50u
#define FATBIN_WRAPPER_MAGIC 0x466243b1u /* __fatBinC_Wrapper_t, as nvcc embeds a fatbin */
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_LZ4 0x2000ull
#define FATBIN_FLAG_ZSTD 0x8000ull
#define MAX_PTX (256u << 20)

static uint64_t rd(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static char *copy_name(const char *name, size_t len) {
    char *s = malloc(len + 1);
    if (s != NULL) {
        memcpy(s, name, len);
        s[len] = '\0';
    }
    return s;
}

static long find(const mock_image *img, const char *name, size_t len) {
    for (size_t i = 0; i < img->nentries; i++) {
        if (strlen(img->entries[i].name) == len && memcmp(img->entries[i].name, name, len) == 0) {
            return (long)i;
        }
    }
    return -1;
}

bool mock__image_add_entry(mock_image *img, const char *name, size_t len, int nparams,
                           const mock_param *params) {
    mock_param *copy = NULL;
    if (nparams > 0) {
        copy = malloc((size_t)nparams * sizeof *copy);
        if (copy == NULL) return false;
        memcpy(copy, params, (size_t)nparams * sizeof *copy);
    }
    long i = find(img, name, len);
    if (i >= 0) { /* known twice (a fatbin's PTX and ELF): the first known list stays */
        mock_kentry *k = &img->entries[i];
        if (k->nparams < 0 && nparams >= 0) {
            k->nparams = nparams;
            k->params = copy;
        } else {
            free(copy);
        }
        return true;
    }
    char *s = copy_name(name, len);
    if (s == NULL ||
        !mock__grow(&img->entries, &img->capentries, img->nentries + 1, sizeof *img->entries)) {
        free(s);
        free(copy);
        return false;
    }
    img->entries[img->nentries++] = (mock_kentry){s, nparams, copy};
    return true;
}

bool mock__image_add_global(mock_image *img, const char *name, size_t len, size_t size) {
    for (size_t i = 0; i < img->nglobals; i++) {
        if (strlen(img->globals[i].name) == len && memcmp(img->globals[i].name, name, len) == 0) {
            return true;
        }
    }
    char *s = copy_name(name, len);
    void *mem = calloc(1, size ? size : 1);
    if (s == NULL || mem == NULL ||
        !mock__grow(&img->globals, &img->capglobals, img->nglobals + 1, sizeof *img->globals)) {
        free(s);
        free(mem);
        return false;
    }
    img->globals[img->nglobals++] = (mock_global){s, size, mem};
    mock__module_vars((uintptr_t)mem, size, true);
    return true;
}

static void free_interp(void *m) { mock__ptx_free(m); }

void mock__image_free(mock_image *img) {
    for (size_t i = 0; i < img->nentries; i++) {
        free(img->entries[i].name);
        free(img->entries[i].params);
    }
    for (size_t i = 0; i < img->nglobals; i++) {
        free(img->globals[i].name);
        mock__module_vars((uintptr_t)img->globals[i].mem, img->globals[i].size, false);
        free(img->globals[i].mem);
    }
    for (size_t i = 0; i < img->nptx; i++) free(img->ptx[i].text);
    free(img->ptx);
    if (img->interp != NULL) {
        void *storage;
        size_t size;
        mock__ptx_storage(img->interp, &storage, &size);
        mock__module_vars((uintptr_t)storage, size, false);
    }
    /* A kernel of the module may still run, without the lock. */
    if (img->interp != NULL) mock__defer(free_interp, img->interp);
    free(img->interp_error);
    free(img->entries);
    free(img->globals);
    memset(img, 0, sizeof *img);
}

long mock__image_entry(mock_image *img, const char *name) {
    long i = find(img, name, strlen(name));
    if (i >= 0 || !img->any_name || name[0] == '\0') return i;
    if (!mock__image_add_entry(img, name, strlen(name), -1, NULL)) return -2;
    return (long)img->nentries - 1;
}

const mock_global *mock__image_global(const mock_image *img, const char *name) {
    for (size_t i = 0; i < img->nglobals; i++) {
        if (strcmp(img->globals[i].name, name) == 0) return &img->globals[i];
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* PTX for the interpreter                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* The N of `.target sm_N[a|f]`, 0 where the text does not say. */
static int target_arch(const char *t) {
    const char *p = strstr(t, ".target");
    if (p == NULL) return 0;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "sm_", 3) != 0) return 0;
    int v = 0;
    for (p += 3; *p >= '0' && *p <= '9' && v < 10000; p++) v = v * 10 + (*p - '0');
    return v;
}

bool mock__image_add_ptx(mock_image *img, const char *text) {
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (copy == NULL || !mock__grow(&img->ptx, &img->capptx, img->nptx + 1, sizeof *img->ptx)) {
        free(copy);
        return false;
    }
    memcpy(copy, text, len + 1);
    img->ptx[img->nptx++] = (mock_ptx_text){copy, target_arch(text)};
    return true;
}

static char *dup_text(const char *s) {
    char *d = malloc(strlen(s) + 1);
    if (d != NULL) strcpy(d, s);
    return d;
}

void mock__image_interpret(mock_image *img, int cc) {
    if (img->interp != NULL || img->interp_error != NULL || img->nptx == 0) return;
    const mock_ptx_text *best = NULL;
    int lowest = 0;
    for (size_t i = 0; i < img->nptx; i++) {
        const mock_ptx_text *t = &img->ptx[i];
        if (lowest == 0 || t->arch < lowest) lowest = t->arch;
        if (t->arch <= cc && (best == NULL || t->arch > best->arch)) best = t;
    }
    char err[512];
    if (best == NULL) {
        snprintf(err, sizeof err,
                 "the image's PTX is for sm_%d, above the device's compute "
                 "capability %d.%d",
                 lowest, cc / 10, cc % 10);
        img->interp_error = dup_text(err);
        return;
    }
    mock_ptx_module *m = NULL;
    CUresult r = mock__ptx_parse(&m, best->text, strlen(best->text), err, sizeof err);
    if (r == CUDA_SUCCESS) {
        img->interp = m;
        void *storage;
        size_t size;
        mock__ptx_storage(m, &storage, &size);
        mock__module_vars((uintptr_t)storage, size, true);
    } else {
        img->interp_error = dup_text(r == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : err);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Fatbins                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* The PTX of a fatbin entry, decompressed where a system library can do it (found at run time,
 * so that the mock needs no such library to build). NULL with *unreadable when it cannot be. */
static char *entry_ptx(const unsigned char *payload, size_t size, uint64_t flags, size_t compressed,
                       size_t plain, bool *unreadable) {
    *unreadable = false;
    if (!(flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD))) {
        char *t = malloc(size + 1);
        if (t == NULL) return NULL;
        memcpy(t, payload, size);
        t[size] = '\0';
        return t;
    }
    *unreadable = true;
    if (plain == 0 || plain > MAX_PTX || compressed == 0 || compressed > size) return NULL;
    bool zstd = (flags & FATBIN_FLAG_ZSTD) != 0;
    void *lib = dlopen(zstd ? "libzstd.so.1" : "liblz4.so.1", RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, zstd ? "ZSTD_decompress" : "LZ4_decompress_safe") : NULL;
    char *t = sym ? malloc(plain + 1) : NULL;
    if (t != NULL) {
        bool ok;
        if (zstd) {
            size_t (*fn)(void *, size_t, const void *, size_t);
            memcpy(&fn, &sym, sizeof fn);
            size_t got = fn(t, plain, payload, compressed);
            ok = got == plain; /* an error code is a huge value */
        } else {
            int (*fn)(const char *, char *, int, int);
            memcpy(&fn, &sym, sizeof fn);
            ok = fn((const char *)payload, t, (int)compressed, (int)plain) == (int)plain;
        }
        if (ok) {
            t[plain] = '\0';
            *unreadable = false;
        } else {
            free(t);
            t = NULL;
        }
    }
    if (lib) dlclose(lib);
    return t;
}

static CUresult read_fatbin(const unsigned char *p, mock_image *img, const char **jit_log) {
    /* version 1 (checked a byte at a time: a short buffer stops here), a 16-byte header */
    if (p[4] != 1 || p[5] != 0 || rd(p + 6, 2) != 16) return CUDA_ERROR_INVALID_IMAGE;
    uint64_t total = rd(p + 8, 8);
    if (total == 0 || total > (1ull << 32)) return CUDA_ERROR_INVALID_IMAGE;
    const unsigned char *q = p + 16, *end = q + total;
    int entries = 0;
    bool unreadable_ptx = false;
    while (end - q >= 16) {
        unsigned kind = (unsigned)rd(q, 2);
        uint64_t hsize = rd(q + 4, 4), size = rd(q + 8, 8);
        if (hsize < 16 || hsize > (uint64_t)(end - q) || size > (uint64_t)(end - q) - hsize) {
            return CUDA_ERROR_INVALID_IMAGE;
        }
        const unsigned char *payload = q + hsize;
        CUresult r = CUDA_SUCCESS;
        if (kind == FATBIN_KIND_ELF) {
            r = mock__elf_read(payload, (size_t)size, img);
        } else if (kind == FATBIN_KIND_PTX) {
            uint64_t flags = hsize >= 48 ? rd(q + 40, 8) : 0;
            size_t compressed = hsize >= 20 ? (size_t)rd(q + 16, 4) : 0;
            size_t plain = hsize >= 64 ? (size_t)rd(q + 56, 8) : 0;
            bool unreadable;
            char *text = entry_ptx(payload, (size_t)size, flags, compressed, plain, &unreadable);
            if (text != NULL) {
                r = mock__ptx_read(text, img, jit_log);
                free(text);
            } else if (unreadable) {
                img->has_ptx = true;
                unreadable_ptx = true;
            } else {
                r = CUDA_ERROR_OUT_OF_MEMORY;
            }
        } else {
            return CUDA_ERROR_INVALID_IMAGE;
        }
        if (r != CUDA_SUCCESS) return r;
        entries++;
        q = payload + size;
    }
    if (entries == 0) return CUDA_ERROR_INVALID_IMAGE;
    if (unreadable_ptx && img->nentries == 0) {
        static bool said;
        if (!said) {
            fprintf(stderr, "cushim mock: a fatbin holds compressed PTX that the mock cannot "
                            "decompress here (no libzstd.so.1 or liblz4.so.1): its modules "
                            "accept any kernel name, with parameter sizes unknown\n");
            said = true;
        }
        img->any_name = true;
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------------------------ */
/* Any image                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static CUresult read_any(const unsigned char *p, mock_image *img, const char **jit_log, int depth) {
    if (p[0] == '\0') return CUDA_ERROR_INVALID_IMAGE;
    /* A byte is read only after the one before it was not a NUL: a short string stops here. */
    bool four = p[1] && p[2] && p[3];
    if (four && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
        return mock__elf_read(p, 0, img);
    }
    uint32_t magic =
        four ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
             : 0;
    if (magic == FATBIN_MAGIC) return read_fatbin(p, img, jit_log);
    if (magic == FATBIN_WRAPPER_MAGIC) {
        /* { int magic; int version; const unsigned long long *data; void *unused; } */
        const void *data;
        if (depth > 0 || p[4] != 1) return CUDA_ERROR_INVALID_IMAGE;
        memcpy(&data, p + 8, sizeof data);
        if (data == NULL) return CUDA_ERROR_INVALID_IMAGE;
        return read_any(data, img, jit_log, depth + 1);
    }
    /* Text or not: bytes outside printable ASCII and whitespace in the first line are binary,
     * which the driver takes for a damaged image rather than for PTX. */
    for (const unsigned char *c = p; *c && *c != '\n' && c - p < 256; c++) {
        if ((*c < 0x20 && *c != '\t' && *c != '\r') || *c >= 0x7f) return CUDA_ERROR_INVALID_IMAGE;
    }
    return mock__ptx_read((const char *)p, img, jit_log);
}

CUresult mock__image_read(const void *image, mock_image *out, const char **jit_log) {
    memset(out, 0, sizeof *out);
    *jit_log = "";
    if (image == NULL) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = read_any(image, out, jit_log, 0);
    if (r != CUDA_SUCCESS) mock__image_free(out);
    return r;
}
