/* The ids a trace names: getpid() and gettid() are system calls, so each is asked once (a
 * thread's in its buffer), and a forked child asks again. */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/hints.h"
#include "trace/ids.h"

static long pid_cache; /* the atfork handler resets it */

long cushim__trace_tid(cushim__tbuf *b) {
    if (b->tid == 0) {
        b->tid = (long)syscall(SYS_gettid);
        b->ids_len = b->prefix_len = b->stream_len = 0;
    }
    return b->tid;
}

long cushim__trace_pid(void) {
    long p = __atomic_load_n(&pid_cache, __ATOMIC_RELAXED);
    if (p == 0) {
        p = (long)getpid();
        __atomic_store_n(&pid_cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

void cushim__put_ids(cushim__text *t, cushim__tbuf *b) {
    (void)cushim__trace_tid(b);
    if (b->ids_len == 0) {
        cushim__text i = {b->ids, 0, sizeof b->ids - 1};
        CUSHIM__PUT_LIT(&i, ",\"pid\":");
        cushim__put_u64(&i, (unsigned long long)cushim__trace_pid());
        CUSHIM__PUT_LIT(&i, ",\"tid\":");
        cushim__put_u64(&i, (unsigned long long)cushim__trace_tid(b));
        b->ids_len = i.len;
    }
    cushim__put_n(t, b->ids, b->ids_len);
}

static void after_fork_child(void) { __atomic_store_n(&pid_cache, 0, __ATOMIC_RELAXED); }
static CUSHIM__CONSTRUCTOR void ids_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
