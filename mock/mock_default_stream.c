/* The default streams and the streams that synchronise with the legacy one.
 *
 * Each context has a legacy default stream (NULL, CU_STREAM_LEGACY; its record is part of the
 * context) and a per-thread default stream for each host thread that uses CU_STREAM_PER_THREAD
 * or passes NULL to a per-thread entry (cuLaunchKernel_ptsz, cuMemcpyHtoD_v2_ptds), made at its
 * first use and living until its context is destroyed or reset (a thread that ends leaves its
 * stream, drained, to a later thread that gets the same pthread_t). As CUDA documents for the
 * legacy default stream, work there waits for the earlier work of every blocking stream of the
 * context and every blocking stream waits for it: the context keeps the list of its blocking
 * streams (created without CU_STREAM_NON_BLOCKING, and the per-thread default streams, which
 * synchronise with the legacy stream as documented) for mock_queue.c, which queues the waits.
 */
#include <string.h>

#include "mock.h"

/* Whether the call in progress came through a per-thread entry (its name ends _ptsz/_ptds). */
static bool per_thread_call(void) {
    const char *name = mock__entry_name();
    size_t n = strlen(name);
    return n > 5 && (strcmp(name + n - 5, "_ptsz") == 0 || strcmp(name + n - 5, "_ptds") == 0);
}

bool mock__blocking_add(struct CUstream_st *s) {
    struct CUctx_st *c = s->h.ctx;
    if (!mock__grow(&c->blocking, &c->capblocking, c->nblocking + 1, sizeof *c->blocking)) {
        return false;
    }
    c->blocking[c->nblocking++] = s;
    return true;
}

void mock__blocking_remove(struct CUstream_st *s) {
    struct CUctx_st *c = s->h.ctx;
    for (size_t i = 0; i < c->nblocking; i++) {
        if (c->blocking[i] == s) {
            memmove(c->blocking + i, c->blocking + i + 1,
                    (c->nblocking - i - 1) * sizeof *c->blocking);
            c->nblocking--;
            return;
        }
    }
}

/* The calling thread's per-thread default stream of c, made at its first use; NULL when out of
 * memory. */
static struct CUstream_st *per_thread_stream(struct CUctx_st *c) {
    pthread_t self = pthread_self();
    for (size_t i = 0; i < c->nblocking; i++) {
        struct CUstream_st *s = c->blocking[i];
        if (s->per_thread && pthread_equal(s->owner, self)) return s;
    }
    struct CUstream_st *s = mock__new(sizeof *s, CUSHIM_MOCK_STREAM, c);
    if (s == NULL) return NULL;
    s->per_thread = true;
    s->owner = self;
    s->id = mock__state.next_id++;
    if (!mock__blocking_add(s)) {
        mock__kill(&s->h);
        return NULL;
    }
    return s;
}

CUresult mock__stream(CUstream hs, const char *entry, struct CUstream_st **out) {
    *out = NULL;
    if (hs == NULL || hs == CU_STREAM_LEGACY || hs == CU_STREAM_PER_THREAD) {
        struct CUctx_st *c;
        CUresult r = mock__need_current(entry, &c);
        if (r != CUDA_SUCCESS) return r;
        bool pt = hs == CU_STREAM_PER_THREAD || (hs == NULL && per_thread_call());
        struct CUstream_st *s = pt ? per_thread_stream(c) : NULL;
        /* out of memory for a per-thread stream: the legacy one, which only orders more */
        *out = s != NULL ? s : &c->default_stream;
        return CUDA_SUCCESS;
    }
    *out = mock__expect(hs, CUSHIM_MOCK_STREAM, entry);
    return *out != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

bool mock__is_legacy(const struct CUstream_st *s) {
    return s->h.ctx != NULL && s == &s->h.ctx->default_stream;
}
