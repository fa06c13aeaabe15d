/* The tracer's kernels: handles to names in an open-addressed table, read without a lock (a
 * launch looks its kernel up) and written under one (only the calls that make handles write);
 * a handle the driver reuses for another kernel takes the new name. Kernels by name in a list,
 * never freed while the tracer may read them: they go at the next start. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hints.h"
#include "loader/table.h"
#include "trace/kernels.h"

#define SLOTS 16384 /* a power of two; a program with more handles is named for the first ones */

typedef struct slot {
    _Atomic uintptr_t key;
    _Atomic(cushim__kernel *) kernel;
} slot;

static slot slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cushim__kernel *all; /* under lock */
static size_t kernel_count; /* under lock */

/* The entries that make handles, found once by name; the index CUSHIM_TABLE_ENTRIES for none. */
enum { GET_FUNCTION, LIBRARY_GET_KERNEL, KERNEL_GET_FUNCTION, FUNC_GET_NAME, MAKERS };
static const char *const maker_names[MAKERS] = {"cuModuleGetFunction", "cuLibraryGetKernel",
                                                "cuKernelGetFunction", "cuFuncGetName"};
static unsigned makers[MAKERS];

static size_t hash(uintptr_t k) {
    return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 50) & (SLOTS - 1);
}

void cushim__kernels_reset(void) {
    pthread_mutex_lock(&lock);
    for (size_t k = 0; k < SLOTS; k++) {
        atomic_store_explicit(&slots[k].key, 0, memory_order_relaxed);
        atomic_store_explicit(&slots[k].kernel, NULL, memory_order_relaxed);
    }
    for (cushim__kernel *k = all, *n; k != NULL; k = n) {
        n = k->next;
        free(k);
    }
    all = NULL;
    kernel_count = 0;
    for (unsigned m = 0; m < MAKERS; m++) {
        makers[m] = CUSHIM_TABLE_ENTRIES;
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            if (strcmp(cushim__entries[i].name, maker_names[m]) == 0) makers[m] = i;
        }
    }
    pthread_mutex_unlock(&lock);
}

static cushim__kernel *named_locked(const char *name) {
    size_t len = strlen(name);
    for (cushim__kernel *k = all; k != NULL; k = k->next) {
        if (k->name_len == len && memcmp(k->name, name, len) == 0) return k;
    }
    size_t size =
        (sizeof(cushim__kernel) + len + 1 + 63) & ~(size_t)63; /* aligned_alloc: whole lines */
    cushim__kernel *k = aligned_alloc(64, size);
    if (k == NULL) return NULL;
    memset(k, 0, size);
    memcpy(k->name, name, len + 1);
    k->name_len = len;
    k->next = all;
    all = k;
    kernel_count++;
    return k;
}

cushim__kernel *cushim__kernels_named(const char *name) {
    pthread_mutex_lock(&lock);
    cushim__kernel *k = named_locked(name);
    pthread_mutex_unlock(&lock);
    return k;
}

/* The kernel first, then the key: a reader that sees the key sees its kernel. */
static void put_locked(uintptr_t key, cushim__kernel *k) {
    for (size_t n = 0, h = hash(key); n < SLOTS; n++, h = (h + 1) & (SLOTS - 1)) {
        uintptr_t v = atomic_load_explicit(&slots[h].key, memory_order_relaxed);
        if (v == key || v == 0) {
            atomic_store_explicit(&slots[h].kernel, k, memory_order_release);
            if (v == 0) atomic_store_explicit(&slots[h].key, key, memory_order_release);
            return;
        }
    }
}

cushim__kernel *cushim__kernels_find(const void *handle) {
    uintptr_t key = (uintptr_t)handle;
    if (key == 0) return NULL;
    for (size_t n = 0, h = hash(key); n < SLOTS; n++, h = (h + 1) & (SLOTS - 1)) {
        uintptr_t v = atomic_load_explicit(&slots[h].key, memory_order_acquire);
        if (v == key) return atomic_load_explicit(&slots[h].kernel, memory_order_acquire);
        if (v == 0) return NULL;
    }
    return NULL;
}

static void *arg_ptr(const cushim_hook_call *c, unsigned k) { return *(void *const *)c->args[k]; }

void cushim__kernels_learn(const cushim_hook_call *c) {
    unsigned i = c->index;
    if (c->result != CUDA_SUCCESS ||
        (i != makers[GET_FUNCTION] && i != makers[LIBRARY_GET_KERNEL] &&
         i != makers[KERNEL_GET_FUNCTION] && i != makers[FUNC_GET_NAME])) {
        return;
    }
    /* The arguments by their place in cuda.h's prototypes, which are ABI:
     *   cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
     *   cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
     *   cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
     *   cuFuncGetName(const char **name, CUfunction hfunc) */
    const void *handle;
    const char *name;
    cushim__kernel *from = NULL;
    if (i == makers[FUNC_GET_NAME]) {
        const char *const *names = arg_ptr(c, 0);
        if (names == NULL) return;
        handle = arg_ptr(c, 1);
        name = *names;
    } else {
        const void *const *out = arg_ptr(c, 0);
        if (out == NULL) return;
        handle = *out;
        name = i == makers[KERNEL_GET_FUNCTION] ? NULL : arg_ptr(c, 2);
        if (name == NULL && (from = cushim__kernels_find(arg_ptr(c, 1))) == NULL) return;
    }
    if (handle == NULL || (from == NULL && name == NULL)) return;
    pthread_mutex_lock(&lock);
    cushim__kernel *k = from != NULL ? from : named_locked(name);
    if (k != NULL) put_locked((uintptr_t)handle, k);
    pthread_mutex_unlock(&lock);
}

static int by_launches(const void *a, const void *b) {
    const cushim__kernel *x = *(const cushim__kernel *const *)a;
    const cushim__kernel *y = *(const cushim__kernel *const *)b;
    unsigned long long tx = atomic_load(&x->run_ns), ty = atomic_load(&y->run_ns);
    if (tx != ty) return (tx < ty) - (tx > ty);
    tx = atomic_load(&x->launches);
    ty = atomic_load(&y->launches);
    return (tx < ty) - (tx > ty);
}

size_t cushim__kernels_print(char *buf, size_t cap) {
    pthread_mutex_lock(&lock);
    cushim__kernel **order = kernel_count ? malloc(kernel_count * sizeof *order) : NULL;
    size_t n = 0, len = 0;
    for (cushim__kernel *k = all; order != NULL && k != NULL; k = k->next) {
        if (atomic_load(&k->launches) != 0 || atomic_load(&k->runs) != 0) order[n++] = k;
    }
    if (n > 0) {
        qsort(order, n, sizeof *order, by_launches);
        int w = snprintf(buf, cap, "cushim: kernels\n%-40s %10s %10s %14s %18s\n", "kernel",
                         "launches", "runs", "run total us", "thread-instrs");
        len = w > 0 ? (size_t)w : 0;
    }
    for (size_t k = 0; k < n && len < cap; k++) {
        const cushim__kernel *e = order[k];
        int w = snprintf(buf + len, cap - len, "%-40s %10llu %10llu %14.3f %18llu\n", e->name,
                         atomic_load(&e->launches), atomic_load(&e->runs),
                         (double)atomic_load(&e->run_ns) / 1000.0, atomic_load(&e->instructions));
        if (w > 0) len += (size_t)w;
    }
    free(order);
    pthread_mutex_unlock(&lock);
    return len < cap ? len : cap;
}

static void after_fork_child(void) { pthread_mutex_init(&lock, NULL); }
static CUSHIM__CONSTRUCTOR void kernels_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
