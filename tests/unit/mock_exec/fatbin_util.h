/* Fatbins made by the tests, as nvcc lays them out: a 16-byte container header (0xBA55ED50,
 * version 1) and entries with 64-byte headers (kind, header size, padded payload size, the
 * compressed size, the PTX ISA version, the sm_XX, flags, the decompressed size). */
#ifndef CUSHIM_FATBIN_UTIL_H
#define CUSHIM_FATBIN_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAT_PTX 1
#define FAT_ZSTD 0x8011ull /* zstd-compressed, as nvcc flags it */

typedef struct fatbin {
    unsigned char *p;
    size_t len; /* the container header included */
} fatbin;

static inline void fat_put(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Appends an entry of `len` payload bytes; plain is the decompressed size (0: not compressed).
 * False when out of memory. */
static inline bool fat_add(fatbin *f, const void *payload, size_t len, size_t plain, unsigned arch,
                           uint64_t flags) {
    size_t at = f->len ? f->len : 16, padded = (len + 7) & ~(size_t)7;
    unsigned char *p = realloc(f->p, at + 64 + padded);
    if (p == NULL) return false;
    f->p = p;
    unsigned char *h = p + at;
    memset(h, 0, 64 + padded);
    fat_put(h, FAT_PTX, 2);
    fat_put(h + 2, 0x101, 2);
    fat_put(h + 4, 64, 4);
    fat_put(h + 8, padded, 8);
    fat_put(h + 16, len, 4);
    h[26] = 8; /* PTX ISA 8.0 */
    fat_put(h + 28, arch, 4);
    fat_put(h + 40, flags, 8);
    fat_put(h + 56, plain, 8);
    memcpy(h + 64, payload, len);
    f->len = at + 64 + padded;
    fat_put(p, 0xba55ed50u, 4);
    fat_put(p + 4, 1, 2);
    fat_put(p + 6, 16, 2);
    fat_put(p + 8, f->len - 16, 8);
    return true;
}

#endif
