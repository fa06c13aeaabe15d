/* Internal: zeroed memory for objects, plain or from the per-thread cache of small blocks that
 * streams and events use. */
#ifndef CUSHIM_API_ALLOC_H
#define CUSHIM_API_ALLOC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/hints.h"

/* Zeroed memory for an object, or NULL with the last error set (naming fn). malloc and memset,
 * not calloc: glibc's calloc skips the per-thread cache that malloc uses, and on the H200
 * machine calloc + free cost 48 ns against malloc + free's 7, a fifth of an event create +
 * destroy. Inline, so that the memset of a constant size is a few stores. */
void *cushim__alloc_failed(size_t size, const char *fn);
static inline void *cushim__alloc(size_t size, const char *fn) {
    void *p = malloc(size);
    if (CUSHIM__UNLIKELY(p == NULL)) return cushim__alloc_failed(size, fn);
    return memset(p, 0, size);
}
static inline void cushim__free(void *p) { free(p); }

/* Streams and events, made and dropped at a high rate, come from a small per-thread cache of
 * fixed-size blocks: on the H200 machine a malloc + free between cuEventCreate and
 * cuEventDestroy added 25 to 100 ns to the pair (any size, 16 bytes to 1 KiB), more than
 * everything else cushim does there. A thread keeps at most CUSHIM__CACHE_BLOCKS freed blocks;
 * they go back to malloc when the thread exits or the library is unloaded. Builds with
 * AddressSanitizer skip the cache, so that it sees every object freed. */
#define CUSHIM__BLOCK_SIZE 64
#define CUSHIM__CACHE_BLOCKS 8
#if defined(__SANITIZE_ADDRESS__)
#define CUSHIM__CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUSHIM__CACHE 0
#endif
#endif
#ifndef CUSHIM__CACHE
#define CUSHIM__CACHE 1
#endif

typedef struct cushim__block_cache {
    void *blocks[CUSHIM__CACHE_BLOCKS];
    unsigned count;
    unsigned state; /* 0: new thread, 1: registered for the exit drain, 2: thread exiting */
} cushim__block_cache;

/* The default TLS model, not initial-exec: the library must stay loadable by dlopen (an
 * initial-exec variable needs room in the static TLS block, which a process such as Python has
 * often used up). The build asks for TLS descriptors where the compiler has them, which make the
 * access nearly as cheap. */
extern _Thread_local cushim__block_cache cushim__blocks;
void cushim__block_cache_put_slow(void *p);
/* Empties the calling thread's cache (the fault sweep calls it so that every run allocates). */
void cushim__block_cache_drain(void);

/* A zeroed block of CUSHIM__BLOCK_SIZE bytes, or NULL with the last error set (naming fn). */
static inline void *cushim__alloc_block(const char *fn) {
#if CUSHIM__CACHE
    cushim__block_cache *c = &cushim__blocks;
    if (c->count > 0) return memset(c->blocks[--c->count], 0, CUSHIM__BLOCK_SIZE);
#endif
    return cushim__alloc(CUSHIM__BLOCK_SIZE, fn);
}

static inline void cushim__free_block(void *p) {
#if CUSHIM__CACHE
    cushim__block_cache *c = &cushim__blocks;
    if (c->state == 1 && c->count < CUSHIM__CACHE_BLOCKS) {
        c->blocks[c->count++] = p;
        return;
    }
    cushim__block_cache_put_slow(p);
#else
    free(p);
#endif
}

#endif
