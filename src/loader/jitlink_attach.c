/* nvJitLink's linked cubin on cushim's mock driver (issue 28): a link of LTO IR (-lto) for a real
 * architecture gives a cubin of SASS alone, which the mock cannot run, and nvJitLink hands out
 * the linked PTX only when the link was made with -ptx instead of a cubin. So while the driver
 * is the mock (attach.h's seam), cushim keeps what a -lto link was given (its options, each
 * input's bytes or file name); when the cubin is asked for, it links the same inputs again with
 * -ptx added and hands the mock that PTX beside the cubin (cushim_mock_attach_ptx), as
 * nvrtc_attach.c does for NVRTC. With any other driver each call is nvJitLink's, plus one
 * lookup at create. The table's slots of create, the two adds, the cubin and destroy hold these
 * functions (gen/gen-lib-table.py's OVERRIDES); nvJitLink's own are looked up in its library. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cushim_nvjitlink_table.h"
#include "loader/attach.h"
#include "loader/diag.h"

typedef struct input {
    nvJitLinkInputType type;
    char *bytes; /* the data, or the file name when size is 0 */
    size_t size;
    char *name;
    struct input *next;
} input;

typedef struct record {
    nvJitLinkHandle handle;
    uint32_t option_count;
    char **options;
    input *first, **last;
    struct record *next;
} record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static record *records; /* under lock */

typedef __typeof__(*cushim__nvjitlink.nvJitLinkCreate) create_fn;
typedef __typeof__(*cushim__nvjitlink.nvJitLinkAddData) add_data_fn;
typedef __typeof__(*cushim__nvjitlink.nvJitLinkAddFile) add_file_fn;
typedef __typeof__(*cushim__nvjitlink.nvJitLinkGetLinkedCubin) cubin_fn;
typedef __typeof__(*cushim__nvjitlink.nvJitLinkDestroy) destroy_fn;
create_fn cushim__jitlink_create_for_mock;
add_data_fn cushim__jitlink_add_data_for_mock;
add_file_fn cushim__jitlink_add_file_for_mock;
cubin_fn cushim__jitlink_cubin_for_mock;
destroy_fn cushim__jitlink_destroy_for_mock;

/* nvJitLink's own function of the entry `name`, as a function pointer of type T in *fn. */
#define OWN(fn, name)                                                                              \
    do {                                                                                           \
        void *sym_ = cushim__lib_own(&cushim__nvjitlink_dso, name);                                \
        memcpy(&(fn), &sym_, sizeof(fn));                                                          \
    } while (0)

static char *copy_text(const char *s) {
    char *c = s != NULL ? malloc(strlen(s) + 1) : NULL;
    if (c != NULL) strcpy(c, s);
    return c;
}

static void free_record(record *r) {
    for (input *in = r->first, *next; in != NULL; in = next) {
        next = in->next;
        free(in->bytes);
        free(in->name);
        free(in);
    }
    for (uint32_t i = 0; i < r->option_count && r->options != NULL; i++) free(r->options[i]);
    free(r->options);
    free(r);
}

/* The record of handle, under lock. */
static record **find(nvJitLinkHandle handle) {
    record **at = &records;
    while (*at != NULL && (*at)->handle != handle) at = &(*at)->next;
    return at;
}

static bool asks_lto(uint32_t n, const char *const *options) {
    for (uint32_t i = 0; i < n && options != NULL; i++) {
        if (options[i] != NULL && strcmp(options[i], "-lto") == 0) return true;
    }
    return false;
}

/* The allocation of a copy failed: the call fails as nvJitLink's own would, saying why. */
static nvJitLinkResult no_memory(const char *entry) {
    cushim__attach_oom_set();
    cushim__set_error("%s: out of memory while keeping the link's inputs for the mock driver's "
                      "PTX",
                      entry);
    return NVJITLINK_ERROR_INTERNAL;
}

static record *new_record(uint32_t n, const char *const *options) {
    record *r = calloc(1, sizeof *r);
    char **copy = r != NULL ? calloc(n, sizeof *copy) : NULL;
    bool whole = copy != NULL;
    for (uint32_t i = 0; i < n && whole; i++) whole = (copy[i] = copy_text(options[i])) != NULL;
    if (!whole) {
        for (uint32_t i = 0; i < n && copy != NULL; i++) free(copy[i]);
        free(copy);
        free(r);
        return NULL;
    }
    r->option_count = n;
    r->options = copy;
    r->last = &r->first;
    return r;
}

nvJitLinkResult cushim__jitlink_create_for_mock(nvJitLinkHandle *handle, uint32_t n,
                                                const char *const *options) {
    create_fn *own;
    (void)cushim__attach_oom_take(); /* a raw caller's earlier failure is not this one's */
    OWN(own, "nvJitLinkCreate");
    if (own == NULL) return NVJITLINK_ERROR_INTERNAL;
    record *r = NULL;
    if (handle != NULL && n != 0 && asks_lto(n, options) && cushim__mock_attach() != NULL) {
        r = new_record(n, options);
        if (r == NULL) return no_memory("nvJitLinkCreate");
    }
    nvJitLinkResult res = own(handle, n, options);
    if (res != NVJITLINK_SUCCESS || r == NULL) {
        if (r != NULL) free_record(r);
        return res;
    }
    r->handle = *handle;
    pthread_mutex_lock(&lock);
    r->next = records;
    records = r;
    pthread_mutex_unlock(&lock);
    return res;
}

static bool recorded(nvJitLinkHandle handle) {
    pthread_mutex_lock(&lock);
    bool yes = *find(handle) != NULL;
    pthread_mutex_unlock(&lock);
    return yes;
}

/* A copy of one input (bytes of size, or a file name when size is 0); NULL without memory. */
static input *copy_input(nvJitLinkInputType type, const void *bytes, size_t size,
                         const char *name) {
    input *in = calloc(1, sizeof *in);
    size_t n = size != 0 ? size : strlen(bytes) + 1;
    char *b = in != NULL ? malloc(n) : NULL;
    char *nm = name != NULL && b != NULL ? copy_text(name) : NULL;
    if (b == NULL || (name != NULL && nm == NULL)) {
        free(in);
        free(b);
        free(nm);
        return NULL;
    }
    memcpy(b, bytes, n);
    *in = (input){type, b, size, nm, NULL};
    return in;
}

/* Appends in to handle's record, or frees it when the link failed or is gone. */
static void keep(nvJitLinkHandle handle, input *in, nvJitLinkResult res) {
    pthread_mutex_lock(&lock);
    record *r = res == NVJITLINK_SUCCESS ? *find(handle) : NULL;
    if (r != NULL) {
        *r->last = in;
        r->last = &in->next;
    }
    pthread_mutex_unlock(&lock);
    if (r == NULL) {
        free(in->bytes);
        free(in->name);
        free(in);
    }
}

nvJitLinkResult cushim__jitlink_add_data_for_mock(nvJitLinkHandle handle, nvJitLinkInputType type,
                                                  const void *data, size_t size, const char *name) {
    add_data_fn *own;
    (void)cushim__attach_oom_take(); /* a raw caller's earlier failure is not this one's */
    OWN(own, "nvJitLinkAddData");
    if (own == NULL) return NVJITLINK_ERROR_INTERNAL;
    input *in = NULL;
    if (data != NULL && size != 0 && recorded(handle)) {
        in = copy_input(type, data, size, name);
        if (in == NULL) return no_memory("nvJitLinkAddData");
    }
    nvJitLinkResult res = own(handle, type, data, size, name);
    if (in != NULL) keep(handle, in, res);
    return res;
}

nvJitLinkResult cushim__jitlink_add_file_for_mock(nvJitLinkHandle handle, nvJitLinkInputType type,
                                                  const char *file) {
    add_file_fn *own;
    (void)cushim__attach_oom_take(); /* a raw caller's earlier failure is not this one's */
    OWN(own, "nvJitLinkAddFile");
    if (own == NULL) return NVJITLINK_ERROR_INTERNAL;
    input *in = NULL;
    if (file != NULL && recorded(handle)) {
        in = copy_input(type, file, 0, NULL);
        if (in == NULL) return no_memory("nvJitLinkAddFile");
    }
    nvJitLinkResult res = own(handle, type, file);
    if (in != NULL) keep(handle, in, res);
    return res;
}

/* The linked PTX of r's inputs (malloc'd), by a second link with -ptx; NULL if it fails, with
 * *oom set when that was for want of memory. */
static char *link_ptx(const record *r, bool *oom) {
    create_fn *create;
    add_data_fn *add_data;
    add_file_fn *add_file;
    destroy_fn *destroy;
    OWN(create, "nvJitLinkCreate");
    OWN(add_data, "nvJitLinkAddData");
    OWN(add_file, "nvJitLinkAddFile");
    OWN(destroy, "nvJitLinkDestroy");
    const char **options = calloc((size_t)r->option_count + 1, sizeof *options);
    *oom = options == NULL;
    if (!create || !add_data || !add_file || !destroy || options == NULL) {
        free(options);
        return NULL;
    }
    for (uint32_t i = 0; i < r->option_count; i++) options[i] = r->options[i];
    options[r->option_count] = "-ptx";
    nvJitLinkHandle h = NULL;
    char *ptx = NULL;
    size_t size = 0;
    bool ok = create(&h, r->option_count + 1, options) == NVJITLINK_SUCCESS;
    free(options);
    for (const input *in = r->first; in != NULL && ok; in = in->next) {
        ok = (in->size != 0 ? add_data(h, in->type, in->bytes, in->size, in->name)
                            : add_file(h, in->type, in->bytes)) == NVJITLINK_SUCCESS;
    }
    ok = ok && cushim__nvjitlink.nvJitLinkComplete(h) == NVJITLINK_SUCCESS &&
         cushim__nvjitlink.nvJitLinkGetLinkedPtxSize(h, &size) == NVJITLINK_SUCCESS && size != 0;
    *oom = ok && (ptx = malloc(size)) == NULL;
    ok = ok && ptx != NULL && cushim__nvjitlink.nvJitLinkGetLinkedPtx(h, ptx) == NVJITLINK_SUCCESS;
    if (ok) {
        ptx[size - 1] = '\0';
    } else {
        free(ptx);
        ptx = NULL;
    }
    if (h != NULL) destroy(&h);
    return ptx;
}

nvJitLinkResult cushim__jitlink_cubin_for_mock(nvJitLinkHandle handle, void *cubin) {
    cubin_fn *own;
    (void)cushim__attach_oom_take(); /* a raw caller's earlier failure is not this one's */
    OWN(own, "nvJitLinkGetLinkedCubin");
    if (own == NULL) return NVJITLINK_ERROR_INTERNAL;
    nvJitLinkResult res = own(handle, cubin);
    cushim__attach_fn attach = res == NVJITLINK_SUCCESS ? cushim__mock_attach() : NULL;
    size_t size = 0;
    if (attach == NULL ||
        cushim__nvjitlink.nvJitLinkGetLinkedCubinSize(handle, &size) != NVJITLINK_SUCCESS) {
        return res;
    }
    bool oom = false;
    pthread_mutex_lock(&lock); /* held over the second link: only links for the mock wait */
    record *r = *find(handle);
    char *ptx = r != NULL ? link_ptx(r, &oom) : NULL;
    pthread_mutex_unlock(&lock);
    if (oom) return no_memory("nvJitLinkGetLinkedCubin");
    if (ptx != NULL) attach(cubin, size, ptx);
    free(ptx);
    return res;
}

nvJitLinkResult cushim__jitlink_destroy_for_mock(nvJitLinkHandle *handle) {
    destroy_fn *own;
    OWN(own, "nvJitLinkDestroy");
    if (own == NULL) return NVJITLINK_ERROR_INTERNAL;
    record *r = NULL;
    if (handle != NULL) {
        pthread_mutex_lock(&lock);
        record **at = find(*handle);
        r = *at;
        if (r != NULL) *at = r->next;
        pthread_mutex_unlock(&lock);
    }
    if (r != NULL) free_record(r);
    return own(handle);
}
