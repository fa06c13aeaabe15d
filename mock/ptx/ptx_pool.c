/* The host threads that run a grid's blocks, kept between launches: making 15 threads for
 * every launch costs more than a short kernel runs. A launch is a job in a list; an idle thread
 * sleeps on a condition variable until a job wants helpers, joins it, and runs its function
 * (which takes blocks from the launch's own atomic counter) until it returns. Launches from
 * several host threads at once share the pool. The threads end when the library is unloaded
 * or the process exits with no launch running; a child after fork() has none of its parent's
 * and makes its own when it first launches. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ptx_pool.h"

#define MAX_HELPERS 255

typedef struct pjob {
    void (*fn)(void *);
    void *arg;
    int want, joined, active;
    struct pjob *next;
} pjob;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job wants helpers, or the pool ends */
    pthread_cond_t done; /* a helper left a job */
    pjob *jobs;          /* jobs whose callers still run them */
    pthread_t *th;
    int nth, idle, started;
    bool stop;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void *helper(void *unused) {
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    pool.started++;
    pthread_cond_broadcast(&pool.done);
    for (;;) {
        pjob *j = pool.jobs;
        while (j != NULL && j->joined >= j->want) j = j->next;
        if (j == NULL) {
            if (pool.stop) break;
            pool.idle++;
            pthread_cond_wait(&pool.work, &pool.lock);
            pool.idle--;
            continue;
        }
        j->joined++;
        j->active++;
        pthread_mutex_unlock(&pool.lock);
        j->fn(j->arg);
        pthread_mutex_lock(&pool.lock);
        if (--j->active == 0) pthread_cond_broadcast(&pool.done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* fork(): the pool's lock is held across it, so that the child's copy is consistent; the
 * child has none of the threads, and forgets them (their array is its own copy). */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void after_fork_child(void) {
    free(pool.th);
    pool.th = NULL;
    pool.nth = 0;
    pool.idle = 0;
    pool.started = 0;
    pool.jobs = NULL;
    pool.stop = false;
    pool.work = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    pool.done = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    pthread_mutex_unlock(&pool.lock);
}

static void register_fork(void) {
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* At exit or unload: idle threads are woken and joined. With a launch still running on
 * another thread (a program that exits from one thread while another launches) they are left
 * to the process's end rather than waited for. */
__attribute__((destructor)) static void pool_end(void) {
    pthread_mutex_lock(&pool.lock);
    bool busy = pool.jobs != NULL;
    pool.stop = true;
    pthread_cond_broadcast(&pool.work);
    pthread_t *th = pool.th;
    int n = pool.nth;
    if (!busy) {
        pool.th = NULL;
        pool.nth = 0;
    }
    pthread_mutex_unlock(&pool.lock);
    if (busy) return;
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    free(th);
}

/* At least `want` threads in the pool (the lock held); fewer when the system refuses more. Each
 * new thread has reached helper() before this returns, so that a fork() after a launch never
 * copies one in the middle of its start: a thread starting under gcc 12's AddressSanitizer holds
 * the sanitizer's allocator lock for a moment, which that allocator does not take across fork(),
 * and a child forked then had its own threads wait on that lock for ever (test_ptx_sync's child,
 * 2 runs in 150 under load). */
static void grow(int want) {
    if (want > MAX_HELPERS) want = MAX_HELPERS;
    if (pool.nth >= want || pool.stop) return;
    pthread_t *th = realloc(pool.th, (size_t)want * sizeof *th);
    if (th == NULL) return;
    pool.th = th;
    while (pool.nth < want && pthread_create(&pool.th[pool.nth], NULL, helper, NULL) == 0)
        pool.nth++;
    while (pool.started < pool.nth) pthread_cond_wait(&pool.done, &pool.lock);
}

void ptx__pool_run(void (*fn)(void *), void *arg, int helpers) {
    pjob j = {.fn = fn, .arg = arg, .want = helpers};
    if (helpers > 0) {
        pthread_once(&registered, register_fork);
        pthread_mutex_lock(&pool.lock);
        grow(helpers);
        j.next = pool.jobs;
        pool.jobs = &j;
        if (helpers >= pool.idle) {
            pthread_cond_broadcast(&pool.work);
        } else {
            for (int i = 0; i < helpers; i++) pthread_cond_signal(&pool.work);
        }
        pthread_mutex_unlock(&pool.lock);
    }
    fn(arg);
    if (helpers > 0) {
        /* No helper joins from here on; those that did leave once the blocks are taken. */
        pthread_mutex_lock(&pool.lock);
        pjob **p = &pool.jobs;
        while (*p != &j) p = &(*p)->next;
        *p = j.next;
        while (j.active > 0) pthread_cond_wait(&pool.done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
    }
}
