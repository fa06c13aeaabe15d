/* Names of a module's functions and variables: see ptx_names.h. */
#include "ptx_names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *name_of(const void *element) { return *(char *const *)element; }

static const char *name_at(const ptx_names *h, size_t i) {
    return name_of((const char *)*h->array + i * h->stride);
}

/* FNV-1a. */
static size_t hash(const char *s, size_t n) {
    uint64_t v = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) v = (v ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return (size_t)v;
}

/* The NUL-terminated s against the len bytes at name, as strcmp orders them. */
static int compare(const char *s, const char *name, size_t len) {
    int c = strncmp(s, name, len);
    return c != 0 ? c : s[len] != 0;
}

long ptx_names_find(const ptx_names *h, const char *name, size_t len) {
    if (h->cap == 0) return -1;
    for (size_t k = hash(name, len) & (h->cap - 1);; k = (k + 1) & (h->cap - 1)) {
        if (h->slot[k] == 0) return -1;
        if (compare(name_at(h, h->slot[k] - 1), name, len) == 0) return (long)(h->slot[k] - 1);
    }
}

static void put(size_t *slot, size_t cap, size_t index, const char *name) {
    size_t k = hash(name, strlen(name)) & (cap - 1);
    while (slot[k] != 0) k = (k + 1) & (cap - 1);
    slot[k] = index + 1;
}

bool ptx_names_add(ptx_names *h, size_t i) {
    if (2 * (h->count + 1) > h->cap) { /* at most half full */
        size_t cap = h->cap ? 2 * h->cap : 64;
        size_t *slot = calloc(cap, sizeof *slot);
        if (slot == NULL) return false;
        for (size_t k = 0; k < h->cap; k++) {
            if (h->slot[k] != 0) put(slot, cap, h->slot[k] - 1, name_at(h, h->slot[k] - 1));
        }
        free(h->slot);
        h->slot = slot;
        h->cap = cap;
    }
    put(h->slot, h->cap, i, name_at(h, i));
    h->count++;
    return true;
}

void ptx_names_free(ptx_names *h) {
    free(h->slot);
    h->slot = NULL;
    h->cap = h->count = 0;
}

static int by_name(const void *a, const void *b) { return strcmp(name_of(a), name_of(b)); }

void ptx_names_sort(void *array, size_t n, size_t stride) {
    if (n > 1) qsort(array, n, stride, by_name);
}

void *ptx_names_search(void *array, size_t n, size_t stride, const char *name, size_t len) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        char *e = (char *)array + mid * stride;
        int c = compare(name_of(e), name, len);
        if (c == 0) return e;
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}
