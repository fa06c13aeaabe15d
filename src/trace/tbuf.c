/* The tracer's per-thread state: made at a thread's first traced call, kept in a list so that
 * the writer and the tracer's stop can format what each ring holds; at the thread's exit its
 * records are formatted and its bytes written, and it is freed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/hints.h"
#include "trace/tbuf.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static cushim__tbuf *list; /* under list_lock */
static cushim__tbuf_sink sink;
static cushim__tbuf_pump pump;
static pthread_key_t key; /* only for its destructor, at the thread's exit */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
_Thread_local cushim__tbuf *cushim__tbuf_tls;

void cushim__tbuf_set_sink(cushim__tbuf_sink s) { sink = s; }
void cushim__tbuf_set_pump(cushim__tbuf_pump p) { pump = p; }

static void unlink_locked(cushim__tbuf *b) {
    if (b->prev != NULL) b->prev->next = b->next;
    if (b->next != NULL) b->next->prev = b->prev;
    if (list == b) list = b->next;
}

static void at_thread_exit(void *p) {
    cushim__tbuf *b = p;
    pthread_mutex_lock(&list_lock);
    pthread_mutex_lock(&b->fmt);
    if (pump != NULL) pump(b);
    cushim__tbuf_flush(b);
    pthread_mutex_unlock(&b->fmt);
    unlink_locked(b);
    pthread_mutex_unlock(&list_lock);
    if (cushim__tbuf_tls == b) cushim__tbuf_tls = NULL;
    pthread_mutex_destroy(&b->fmt);
    free(b);
}

static void make_key(void) { (void)pthread_key_create(&key, at_thread_exit); }

static void clear(cushim__tbuf *b) {
    atomic_store_explicit(&b->head, 0, memory_order_relaxed);
    atomic_store_explicit(&b->tail, 0, memory_order_relaxed);
    b->tail_seen = 0;
    b->at = 0;
    atomic_store_explicit(&b->dropped, 0, memory_order_relaxed);
    b->dropped_told = 0;
    b->len = 0;
    b->tid = (long)syscall(SYS_gettid); /* on the thread itself: the formatter is another */
    b->ids_len = b->prefix_len = b->stream_len = 0;
    b->clock_line.epoch = 0;
    b->nest_depth = 0;
    b->nest_len = 0;
    b->next = b->prev = NULL;
}

static CUSHIM__COLD cushim__tbuf *make(void) {
    if (pthread_once(&key_once, make_key) != 0) return NULL;
    cushim__tbuf *b = aligned_alloc(64, sizeof *b);
    if (b == NULL) return NULL;
    clear(b);
    pthread_mutex_init(&b->fmt, NULL);
    pthread_mutex_lock(&list_lock);
    b->next = list;
    if (list != NULL) list->prev = b;
    list = b;
    pthread_mutex_unlock(&list_lock);
    (void)pthread_setspecific(key, b);
    cushim__tbuf_tls = b;
    return b;
}

cushim__tbuf *cushim__tbuf_mine(void) {
    cushim__tbuf *b = cushim__tbuf_tls;
    return CUSHIM__LIKELY(b != NULL) ? b : make();
}

cushim__tbuf *cushim__tbuf_current(void) { return cushim__tbuf_tls; }

void cushim__tbuf_room(cushim__tbuf *b) {
    if (CUSHIM__UNLIKELY(sizeof b->data - b->len < CUSHIM__TBUF_ROOM)) cushim__tbuf_flush(b);
}

void cushim__tbuf_flush(cushim__tbuf *b) {
    if (b->len > 0) sink(b->data, b->len);
    b->len = 0;
}

void cushim__tbuf_put(cushim__tbuf *b, const char *p, size_t n) {
    while (n > 0) {
        size_t room = sizeof b->data - b->len;
        if (room == 0) {
            cushim__tbuf_flush(b);
            continue;
        }
        size_t k = n < room ? n : room;
        memcpy(b->data + b->len, p, k);
        b->len += k;
        p += k;
        n -= k;
    }
}

void cushim__tbuf_wait_exits(void) {
    pthread_mutex_lock(&list_lock);
    pthread_mutex_unlock(&list_lock);
}

void cushim__tbuf_each(void (*fn)(cushim__tbuf *b)) {
    pthread_mutex_lock(&list_lock);
    for (cushim__tbuf *b = list; b != NULL; b = b->next) fn(b);
    pthread_mutex_unlock(&list_lock);
}

/* A forked child is this thread alone: the other threads' states are dropped, and this one's
 * records and bytes are the parent's, which the parent writes. Its lock may have been held by
 * the parent's writer: it starts anew. */
static void after_fork_child(void) {
    pthread_mutex_init(&list_lock, NULL);
    for (cushim__tbuf *b = list, *n; b != NULL; b = n) {
        n = b->next;
        if (b != cushim__tbuf_tls) free(b);
    }
    list = cushim__tbuf_tls;
    if (cushim__tbuf_tls != NULL) {
        clear(cushim__tbuf_tls);
        pthread_mutex_init(&cushim__tbuf_tls->fmt, NULL);
    }
}
static CUSHIM__CONSTRUCTOR void tbuf_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
