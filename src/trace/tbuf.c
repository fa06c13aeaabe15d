/* The tracer's per-thread buffers: made at a thread's first traced call, kept in a list so that
 * the tracer's stop can write what each holds, written and freed at the thread's exit. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/hints.h"
#include "trace/tbuf.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static cushim__tbuf *list; /* under list_lock */
static cushim__tbuf_sink sink;
static pthread_key_t key; /* only for its destructor, at the thread's exit */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static _Thread_local cushim__tbuf *mine;

void cushim__tbuf_set_sink(cushim__tbuf_sink s) { sink = s; }

static void unlink_locked(cushim__tbuf *b) {
    if (b->prev != NULL) b->prev->next = b->next;
    if (b->next != NULL) b->next->prev = b->prev;
    if (list == b) list = b->next;
}

static void at_thread_exit(void *p) {
    cushim__tbuf *b = p;
    pthread_mutex_lock(&list_lock);
    if (b->len > 0) sink(b->data, b->len);
    unlink_locked(b);
    pthread_mutex_unlock(&list_lock);
    if (mine == b) mine = NULL;
    free(b);
}

static void make_key(void) { (void)pthread_key_create(&key, at_thread_exit); }

static cushim__tbuf *make(void) {
    if (pthread_once(&key_once, make_key) != 0) return NULL;
    cushim__tbuf *b = malloc(sizeof *b);
    if (b == NULL) return NULL;
    b->len = 0;
    b->tid = 0;
    b->ids_len = b->prefix_len = b->stream_len = 0;
    b->nest_depth = 0;
    b->nest_len = 0;
    b->prev = NULL;
    pthread_mutex_lock(&list_lock);
    b->next = list;
    if (list != NULL) list->prev = b;
    list = b;
    pthread_mutex_unlock(&list_lock);
    (void)pthread_setspecific(key, b);
    mine = b;
    return b;
}

cushim__tbuf *cushim__tbuf_mine(void) {
    cushim__tbuf *b = mine;
    if (CUSHIM__UNLIKELY(b == NULL)) return make();
    if (CUSHIM__UNLIKELY(sizeof b->data - b->len < CUSHIM__TBUF_ROOM)) {
        sink(b->data, b->len);
        b->len = 0;
    }
    return b;
}

cushim__tbuf *cushim__tbuf_current(void) { return mine; }

void cushim__tbuf_put(cushim__tbuf *b, const char *p, size_t n) {
    while (n > 0) {
        size_t room = sizeof b->data - b->len;
        if (room == 0) {
            sink(b->data, b->len);
            b->len = 0;
            continue;
        }
        size_t k = n < room ? n : room;
        memcpy(b->data + b->len, p, k);
        b->len += k;
        p += k;
        n -= k;
    }
}

void cushim__tbuf_drain(void) {
    pthread_mutex_lock(&list_lock);
    for (cushim__tbuf *b = list; b != NULL; b = b->next) {
        if (b->len > 0) sink(b->data, b->len);
        b->len = 0;
    }
    pthread_mutex_unlock(&list_lock);
}

/* A forked child is this thread alone: the other threads' buffers are dropped, and this one's
 * bytes are the parent's, which the parent writes. */
static void after_fork_child(void) {
    pthread_mutex_init(&list_lock, NULL);
    for (cushim__tbuf *b = list, *n; b != NULL; b = n) {
        n = b->next;
        if (b != mine) free(b);
    }
    list = mine;
    if (mine != NULL) {
        mine->next = mine->prev = NULL;
        mine->len = 0;
        mine->tid = 0;
        mine->ids_len = mine->prefix_len = mine->stream_len = 0;
        mine->nest_depth = 0;
        mine->nest_len = 0;
    }
}
static CUSHIM__CONSTRUCTOR void tbuf_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
