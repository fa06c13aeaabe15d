/* Module images: which kind an image is, and the image's records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"
#include "ptx.h"

#define FATBIN_MAGIC 0xba55ed50u
#define FATBIN_WRAPPER_MAGIC 0x466243b1u /* __fatBinC_Wrapper_t, as nvcc embeds a fatbin */

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

/* Interpreted modules that queued or captured launches hold: a module unloaded meanwhile leaves
 * its interpreted code to the last of them (the driver leaves such a launch undefined; the mock
 * runs it, or reports the module's dead variables, but never reads freed memory). */
typedef struct interp_hold {
    struct mock_ptx_module *m;
    int refs;
    bool orphaned; /* its image is gone: the last drop frees it */
} interp_hold;
static interp_hold *holds;
static size_t nholds, capholds;

static interp_hold *hold_of(const struct mock_ptx_module *m) {
    for (size_t i = 0; i < nholds; i++) {
        if (holds[i].m == m) return &holds[i];
    }
    return NULL;
}

bool mock__interp_hold(struct mock_ptx_module *m) {
    interp_hold *h = hold_of(m);
    if (h == NULL) {
        if (!mock__grow(&holds, &capholds, nholds + 1, sizeof *holds)) return false;
        h = &holds[nholds++];
        *h = (interp_hold){m, 0, false};
    }
    h->refs++;
    return true;
}

void mock__interp_drop(struct mock_ptx_module *m) {
    interp_hold *h = hold_of(m);
    if (h == NULL || --h->refs > 0) return;
    if (h->orphaned) mock__defer(free_interp, m);
    *h = holds[--nholds];
    if (nholds == 0) {
        free(holds);
        holds = NULL;
        capholds = 0;
    }
}

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
    /* A kernel of the module may still run, without the lock, or wait in a queue or graph. */
    if (img->interp != NULL) mock__texref_forget(img->interp);
    interp_hold *h = img->interp != NULL ? hold_of(img->interp) : NULL;
    if (h != NULL) {
        h->orphaned = true;
    } else if (img->interp != NULL) {
        mock__defer(free_interp, img->interp);
    }
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
        img->ptx_above = true;
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
        img->interp_refused = r == CUDA_ERROR_INVALID_PTX;
    }
    /* The interpreter keeps its own copy: the image keeps only the targets. */
    for (size_t i = 0; i < img->nptx; i++) {
        free(img->ptx[i].text);
        img->ptx[i].text = NULL;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Any image                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static CUresult read_any(const unsigned char *p, mock_image *img, const char **jit_log, int depth,
                         int cc) {
    if (p[0] == '\0') return CUDA_ERROR_INVALID_IMAGE;
    /* A byte is read only after the one before it was not a NUL: a short string stops here. */
    bool four = p[1] && p[2] && p[3];
    if (four && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
        return mock__elf_read(p, 0, img);
    }
    uint32_t magic =
        four ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
             : 0;
    if (magic == FATBIN_MAGIC) return mock__fatbin_read(p, img, jit_log, cc);
    if (magic == FATBIN_WRAPPER_MAGIC) {
        /* { int magic; int version; const unsigned long long *data; void *unused; } */
        const void *data;
        if (depth > 0 || p[4] != 1) return CUDA_ERROR_INVALID_IMAGE;
        memcpy(&data, p + 8, sizeof data);
        if (data == NULL) return CUDA_ERROR_INVALID_IMAGE;
        return read_any(data, img, jit_log, depth + 1, cc);
    }
    /* Text or not: bytes outside printable ASCII and whitespace in the first line are binary,
     * which the driver takes for a damaged image rather than for PTX. */
    for (const unsigned char *c = p; *c && *c != '\n' && c - p < 256; c++) {
        if ((*c < 0x20 && *c != '\t' && *c != '\r') || *c >= 0x7f) return CUDA_ERROR_INVALID_IMAGE;
    }
    return mock__ptx_read((const char *)p, img, jit_log);
}

CUresult mock__image_read(const void *image, mock_image *out, const char **jit_log, int cc) {
    memset(out, 0, sizeof *out);
    *jit_log = "";
    if (image == NULL) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = read_any(image, out, jit_log, 0, cc);
    if (r != CUDA_SUCCESS) mock__image_free(out);
    return r;
}
