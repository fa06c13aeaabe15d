/* Names of a module's functions and variables (ptx_names.c): a hash index while the parser adds
 * them, then each array sorted by name, so that a lookup costs O(log n) rather than a scan (a
 * module of 10,000 functions made the front end quadratic). The elements of an indexed array
 * hold their name (char *, NUL-terminated) as their first field. */
#ifndef CUSHIM_MOCK_PTX_NAMES_H
#define CUSHIM_MOCK_PTX_NAMES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ptx_names {
    void *const *array; /* where the array's pointer is (it moves as the array grows) */
    size_t stride;      /* the size of an element */
    size_t *slot;       /* an element's index + 1, 0 for an empty slot */
    size_t cap, count;
} ptx_names;

/* The index of the element named by the len bytes at name, or -1. */
long ptx_names_find(const ptx_names *h, const char *name, size_t len);
/* Indexes element i under its name. False when out of memory. */
bool ptx_names_add(ptx_names *h, size_t i);
void ptx_names_free(ptx_names *h);

/* Sorts n elements by name; then finds one by binary search (NULL for none). */
void ptx_names_sort(void *array, size_t n, size_t stride);
void *ptx_names_search(void *array, size_t n, size_t stride, const char *name, size_t len);

#endif
