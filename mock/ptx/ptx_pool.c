/* The host threads that run a grid's blocks, kept between launches: making 15 threads for
 * every launch costs more than a short kernel runs.
 *
 * Each helper thread has a slot. A launch (the caller) picks idle helpers under the pool's lock
 * and puts its job in their slots; a helper takes the job from its slot, runs its function
 * (which takes blocks from the launch's own atomic counter) and empties the slot. Between jobs a
 * helper watches its slot for a moment before it sleeps, and the caller watches its helpers'
 * slots for a moment before it sleeps: a program that launches kernels back to back then hands
 * work over with no system call, and no helper waits on a lock another holds. (With one lock
 * and one condition variable, a launch woke its helpers one after another, each taking the lock
 * in turn: on a virtual machine's idle CPUs some 100 us a launch before the sixteenth thread
 * ran, against a 0.2 to 1 ms kernel.) A helper that has not yet taken its job when the caller's
 * own share is done loses it: the caller empties the slot and does not wait for that thread.
 *
 * Launches from several host threads at once share the pool, each with helpers of its own. The
 * threads end when the library is unloaded or the process exits with no launch running; a child
 * after fork() has none of its parent's and makes its own when it first launches. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ptx_pool.h"

#define MAX_HELPERS 255
#define SPIN_NS 200000 /* how long a thread watches a slot before it sleeps */

typedef struct pjob {
    void (*fn)(void *, void **);
    void *arg;
} pjob;

/* A slot holds 0 (idle), a job offered (its address), that address + 1 (taken: the helper runs
 * it), or STOP. Only a caller holding the pool's lock fills an idle slot. */
#define STOP ((uintptr_t)2)

typedef struct phelper {
    uintptr_t slot;
    int sleeping; /* the helper sleeps, or is about to, on `offer` */
    /* Callers that sleep, or are about to, on `left`: a count, not a flag. A caller woken when
     * the helper emptied its slot may run only after the helper has taken the next caller's job
     * and that caller has gone to sleep too; a flag it cleared then hid the second sleeper from
     * the helper, which woke nobody, and the second slept for ever. */
    int waiting;
    pthread_mutex_t lock;
    pthread_cond_t offer; /* its slot was filled */
    pthread_cond_t left;  /* it emptied its slot */
    void *own;            /* what its jobs keep from one launch to the next */
    pthread_t th;
} __attribute__((aligned(64))) phelper;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t started_cond;
    phelper **h;
    int nth, started, running; /* threads, threads that reached helper(), pool_run calls */
    void (*drop)(void *);      /* frees a helper's `own` */
    bool stop;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .started_cond = PTHREAD_COND_INITIALIZER};

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uintptr_t slot_of(phelper *h) { return __atomic_load_n(&h->slot, __ATOMIC_ACQUIRE); }

/* Spins while the slot holds `stay`, for SPIN_NS at most; the slot last seen. */
static uintptr_t watch(phelper *h, uintptr_t stay) {
    uintptr_t s = slot_of(h);
    uint64_t start = 0;
    for (unsigned i = 1; s == stay; i++) {
        relax();
        if ((i & 63) == 0) {
            uint64_t t = now_ns();
            if (start == 0) {
                start = t;
            } else if (t - start > SPIN_NS) {
                break;
            }
        }
        s = slot_of(h);
    }
    return s;
}

static void *helper(void *arg) {
    phelper *h = arg;
    pthread_mutex_lock(&pool.lock);
    pool.started++;
    pthread_cond_broadcast(&pool.started_cond);
    pthread_mutex_unlock(&pool.lock);
    for (;;) {
        uintptr_t s = watch(h, 0);
        if (s == 0) {
            /* `sleeping` is set before the slot is looked at again, and the caller fills the
             * slot before it looks at `sleeping`: one of the two sees the other's write. */
            pthread_mutex_lock(&h->lock);
            __atomic_store_n(&h->sleeping, 1, __ATOMIC_SEQ_CST);
            while ((s = __atomic_load_n(&h->slot, __ATOMIC_SEQ_CST)) == 0)
                pthread_cond_wait(&h->offer, &h->lock);
            __atomic_store_n(&h->sleeping, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&h->lock);
        }
        if (s == STOP) break;
        /* Taken, unless the caller took the offer back meanwhile. */
        if (!__atomic_compare_exchange_n(&h->slot, &s, s + 1, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        const pjob *j = (const pjob *)s;
        j->fn(j->arg, &h->own);
        /* The job is the caller's, on its stack: nothing of it is touched after this store. */
        __atomic_store_n(&h->slot, 0, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&h->waiting, __ATOMIC_SEQ_CST)) {
            pthread_mutex_lock(&h->lock);
            pthread_cond_broadcast(&h->left);
            pthread_mutex_unlock(&h->lock);
        }
    }
    return NULL;
}

/* Puts `v` in an idle (or any, for STOP) slot and wakes its helper if it sleeps. */
static void offer(phelper *h, uintptr_t v) {
    __atomic_store_n(&h->slot, v, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&h->sleeping, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&h->lock);
        pthread_cond_signal(&h->offer);
        pthread_mutex_unlock(&h->lock);
    }
}

/* The caller's end: the offer taken back if the helper has not taken it, else the helper
 * waited for until it has emptied its slot. */
static void reclaim(phelper *h, const pjob *j) {
    uintptr_t s = (uintptr_t)j;
    if (__atomic_compare_exchange_n(&h->slot, &s, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    uintptr_t taken = (uintptr_t)j + 1;
    if (watch(h, taken) != taken) return;
    pthread_mutex_lock(&h->lock);
    __atomic_add_fetch(&h->waiting, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&h->slot, __ATOMIC_SEQ_CST) == taken)
        pthread_cond_wait(&h->left, &h->lock);
    __atomic_sub_fetch(&h->waiting, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&h->lock);
}

/* fork(): the pool's lock is held across it, so that the child's copy is consistent; the child
 * has none of the threads, and forgets them (their structures too: a helper may hold its own
 * lock at the fork, so the child neither uses nor destroys them). */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void after_fork_child(void) {
    for (int i = 0; i < pool.nth; i++) {
        /* What an idle helper kept is the child's to free; one that ran a job holds nothing. */
        if (__atomic_load_n(&pool.h[i]->slot, __ATOMIC_RELAXED) == 0 && pool.h[i]->own != NULL &&
            pool.drop != NULL)
            pool.drop(pool.h[i]->own);
        free(pool.h[i]);
    }
    free(pool.h);
    pool.h = NULL;
    pool.nth = 0;
    pool.started = 0;
    pool.running = 0;
    pool.stop = false;
    pool.started_cond = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    pthread_mutex_unlock(&pool.lock);
}

static void register_fork(void) {
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static void helper_free(phelper *h) {
    if (h->own != NULL && pool.drop != NULL) pool.drop(h->own);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->offer);
    pthread_cond_destroy(&h->left);
    free(h);
}

/* At exit or unload: the threads are stopped and joined. With a launch still running on
 * another thread (a program that exits from one thread while another launches) they are left
 * to the process's end rather than waited for. */
__attribute__((destructor)) static void pool_end(void) {
    pthread_mutex_lock(&pool.lock);
    bool busy = pool.running > 0;
    pool.stop = true;
    phelper **h = pool.h;
    int n = pool.nth;
    if (!busy) {
        pool.h = NULL;
        pool.nth = 0;
        for (int i = 0; i < n; i++) offer(h[i], STOP);
    }
    pthread_mutex_unlock(&pool.lock);
    if (busy) return;
    for (int i = 0; i < n; i++) {
        pthread_join(h[i]->th, NULL);
        helper_free(h[i]);
    }
    free(h);
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
    phelper **all = realloc(pool.h, (size_t)want * sizeof *all);
    if (all == NULL) return;
    pool.h = all;
    while (pool.nth < want) {
        phelper *h = aligned_alloc(64, sizeof *h);
        if (h == NULL) break;
        *h = (phelper){.slot = 0};
        pthread_mutex_init(&h->lock, NULL);
        pthread_cond_init(&h->offer, NULL);
        pthread_cond_init(&h->left, NULL);
        if (pthread_create(&h->th, NULL, helper, h) != 0) {
            helper_free(h);
            break;
        }
        pool.h[pool.nth++] = h;
    }
    while (pool.started < pool.nth) pthread_cond_wait(&pool.started_cond, &pool.lock);
}

void ptx__pool_run(void (*fn)(void *, void **), void *arg, int helpers, void (*drop)(void *)) {
    pjob j = {.fn = fn, .arg = arg};
    phelper *mine[MAX_HELPERS];
    int n = 0;
    if (helpers > 0) {
        pthread_once(&registered, register_fork);
        pthread_mutex_lock(&pool.lock);
        pool.drop = drop;
        grow(helpers);
        pool.running++;
        /* Idle slots only: another launch's helpers stay with it. */
        for (int i = 0; i < pool.nth && n < helpers; i++) {
            if (__atomic_load_n(&pool.h[i]->slot, __ATOMIC_ACQUIRE) == 0) mine[n++] = pool.h[i];
        }
        for (int i = 0; i < n; i++) offer(mine[i], (uintptr_t)&j);
        pthread_mutex_unlock(&pool.lock);
    }
    fn(arg, NULL);
    if (helpers > 0) {
        for (int i = 0; i < n; i++) reclaim(mine[i], &j);
        pthread_mutex_lock(&pool.lock);
        pool.running--;
        pthread_mutex_unlock(&pool.lock);
    }
}
