/* Sizes and offsets of the front end (ptx_parse.c, ptx_decode.c, ptx_limits.c), computed so that
 * no PTX can make them wrap: a declaration of 2^64 bytes or more, or a layout that ends past
 * 2^64, is refused by the caller with a sentence rather than laid out at a wrapped offset. */
#ifndef CUSHIM_MOCK_PTX_SIZE_H
#define CUSHIM_MOCK_PTX_SIZE_H

#include <stdbool.h>
#include <stddef.h>

/* *size *= n; false when the product does not fit. */
static inline bool ptx_size_mul(size_t *size, size_t n) {
    return !__builtin_mul_overflow(*size, n, size);
}

/* Places `size` bytes aligned to `align` (a power of two, or 0 for 1) after *end: *off gets
 * their offset and *end moves past them; false, with nothing changed, when that wraps. */
static inline bool ptx_size_place(size_t *end, size_t align, size_t size, size_t *off) {
    size_t a = align ? align : 1, at, next;
    if (__builtin_add_overflow(*end, a - 1, &at)) return false;
    at = at / a * a;
    if (__builtin_add_overflow(at, size, &next)) return false;
    *off = at;
    *end = next;
    return true;
}

#endif
