/* The progress thread: queued stream work runs by itself, as on a GPU.
 *
 * A GPU runs what a stream holds without the host asking; a program may wait for a callback,
 * a host function or a flag a kernel wrote with no synchronize at all (NVIDIA's simpleCallback
 * waits on a host barrier its callbacks signal). So when work enters a stream with pending on
 * (the default) and progress on (CUSHIM_MOCK_ASYNC unset or not "0", or set_async(true)), the
 * stream joins a list of streams with work and one thread per process, started at the first
 * such work, drains them in the order they joined, under the mock's lock as any draining call
 * (a kernel still runs without it, mock__run_unlocked). Stream order, events and waits are
 * mock__complete's, whoever calls it. With progress off, work waits for a synchronize, a
 * query's poll limit or a destroy, so that a test sees CUDA_ERROR_NOT_READY for certain.
 *
 * Records stay allocated until reset, so the list may name a dead stream (its drain does
 * nothing); reset waits for the thread to be idle, then empties the list. The thread is joined
 * when the library is unloaded or the process exits. fork (mock_core.c's handlers): the child,
 * which has no progress thread, starts a new one at its next work.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock.h"

static struct {
    bool on;      /* progress wanted */
    bool started; /* a thread runs */
    bool stop;    /* it is asked to end */
    bool draining;
    pthread_t thread;
    struct CUstream_st **v; /* streams with work, in the order they joined */
    size_t n, cap;
} pg;

static bool env_on(void) {
    const char *e = getenv("CUSHIM_MOCK_ASYNC");
    return e == NULL || strcmp(e, "0") != 0;
}

static void *progress_main(void *arg) {
    (void)arg;
    mock__lock();
    while (!pg.stop) {
        if (pg.n == 0) {
            mock__wait();
            continue;
        }
        pg.draining = true;
        /* the first stream leaves the list before it drains: work that enters it meanwhile
         * lists it again */
        struct CUstream_st *s = pg.v[0];
        memmove(pg.v, pg.v + 1, (pg.n - 1) * sizeof *pg.v);
        pg.n--;
        mock__complete(s, s->submitted, 0);
        pg.draining = false;
        mock__wake();
    }
    mock__unlock();
    return NULL;
}

/* Starts the thread, with every signal blocked in it: a program's signal handlers run on its
 * own threads. False when it cannot be started (the work then waits, as with progress off). */
static bool start(void) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pg.stop = false;
    pg.started = pthread_create(&pg.thread, NULL, progress_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return pg.started;
}

void mock__progress_note(struct CUstream_st *s) {
    if (!pg.on || (!pg.started && !start())) return;
    for (size_t i = 0; i < pg.n; i++) {
        if (pg.v[i] == s) return;
    }
    /* out of memory for the list: the work waits for a synchronize, as with progress off */
    if (!mock__grow(&pg.v, &pg.cap, pg.n + 1, sizeof *pg.v)) return;
    pg.v[pg.n++] = s;
    mock__wake();
}

void mock__progress_set(bool on) {
    pg.on = on;
    if (on) mock__wake();
}

void mock__progress_reset(void) {
    while (pg.draining) mock__wait();
    pg.n = 0;
    pg.on = env_on();
}

void mock__progress_forked(void) {
    pg.started = false; /* the child has no progress thread: its next work starts one */
    pg.stop = false;
    pg.draining = false;
}

void mock__progress_boot(void) { pg.on = env_on(); }

/* Joins the thread at unload or exit. It finishes the drain it is in; one stuck (a host
 * function that never returns) is left after two seconds rather than hanging the exit. */
__attribute__((destructor)) static void progress_end(void) {
    mock__lock();
    bool join = pg.started && !pthread_equal(pg.thread, pthread_self());
    if (join) {
        pg.stop = true;
        mock__wake();
    }
    mock__unlock();
    if (!join) return;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 2;
    if (pthread_timedjoin_np(pg.thread, NULL, &t) != 0) return;
    mock__lock();
    pg.started = false;
    free(pg.v);
    pg.v = NULL;
    pg.n = pg.cap = 0;
    mock__unlock();
}
