/* The allocation's failure sentence, and the per-thread block cache's slow paths: the first
 * free on a thread, and the drains at thread exit and at unload. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "api/alloc.h"
#include "loader/diag.h"

_Thread_local cushim__block_cache cushim__blocks;

static pthread_key_t exit_key;
static bool exit_key_made;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

void cushim__block_cache_drain(void) {
    cushim__block_cache *c = &cushim__blocks;
    while (c->count > 0) free(c->blocks[--c->count]);
}

/* At thread exit: free the cache, and from then on free blocks straight away (other exit-time
 * destructors may still release objects on this thread). */
static void thread_exit(void *unused) {
    (void)unused;
    cushim__blocks.state = 2;
    cushim__block_cache_drain();
}

static void make_exit_key(void) { exit_key_made = pthread_key_create(&exit_key, thread_exit) == 0; }

/* The first free on a thread: register the exit drain, then cache. A thread where that cannot
 * be done (no key, or exiting) frees at once. */
void cushim__block_cache_put_slow(void *p) {
    cushim__block_cache *c = &cushim__blocks;
    if (c->state == 0) {
        pthread_once(&exit_key_once, make_exit_key);
        /* Any non-NULL value makes the key's destructor run at this thread's exit. */
        if (exit_key_made && pthread_setspecific(exit_key, c) == 0) c->state = 1;
    }
    if (c->state == 1 && c->count < CUSHIM__CACHE_BLOCKS) {
        c->blocks[c->count++] = p;
    } else {
        free(p);
    }
}

/* The thread that unloads the library (or exits the process) gives its blocks back too, so
 * that leak checkers see nothing held. The key goes: a thread exiting after a dlclose must not
 * call into unloaded code (its few cached blocks are then lost, 512 bytes at most). */
static CUSHIM__DESTRUCTOR void unload_drain(void) {
    cushim__block_cache_drain();
    cushim__blocks.state = 2;
    if (exit_key_made) pthread_key_delete(exit_key);
}

void *cushim__alloc_failed(size_t size, const char *fn) {
    cushim__set_error("%s: out of host memory allocating %zu bytes", fn, size);
    return NULL;
}
