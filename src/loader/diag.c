/* The thread-local last-error sentence and the log handler. */
#include "loader/diag.h"
#include "loader/fork.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long enough for a PTX JIT log or every path the loader tried; longer text is cut. */
#define CUSHIM__ERROR_MAX 4096

static _Thread_local char last_error[CUSHIM__ERROR_MAX];

static void set_error_v(const char *fmt, va_list ap) {
    vsnprintf(last_error, sizeof last_error, fmt, ap);
}

void cushim__set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_error_v(fmt, ap);
    va_end(ap);
}

CUresult cushim__fail(CUresult r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_error_v(fmt, ap);
    va_end(ap);
    /* In a forked child every driver call fails so; whatever cushim function reports it, the
     * sentence says why. */
    if (cushim__forked && r == CUDA_ERROR_NOT_INITIALIZED && !strstr(last_error, "forked")) {
        size_t used = strlen(last_error);
        snprintf(last_error + used, sizeof last_error - used, " (%s)", cushim__forked_reason);
    }
    return r;
}

void cushim__clear_error(void) { last_error[0] = '\0'; }

CUSHIM_API const char *cushim_last_error(void) { return last_error; }

/* The handler is swapped under a lock; the level alone is read on the hot path, atomically,
 * so that a disabled message costs one load. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static cushim_log_fn log_fn;
static void *log_user;
static atomic_int log_min = -1; /* -1: not decided yet; read CUSHIM_LOG on first use */

static int env_level(void) {
    const char *v = secure_getenv("CUSHIM_LOG");
    if (v == NULL || *v == '\0') return CUSHIM_LOG_WARN;
    static const char *const names[] = {"debug", "info", "warn", "error", "off"};
    for (int i = 0; i < 5; i++) {
        if (strcmp(v, names[i]) == 0) return i;
    }
    return CUSHIM_LOG_WARN;
}

static int min_level(void) {
    int m = atomic_load_explicit(&log_min, memory_order_acquire);
    if (m < 0) {
        int want = env_level();
        int expected = -1;
        atomic_compare_exchange_strong(&log_min, &expected, want);
        m = atomic_load_explicit(&log_min, memory_order_acquire);
    }
    return m;
}

/* fork() while another thread holds the log lock would leave the child's copy locked for good:
 * the forking thread takes it around the fork, and releases it on both sides (in the child it is
 * the same thread's lock; unlocking rather than initialising it again keeps ThreadSanitizer's
 * view of the child's held locks true, which the loader's fork handlers rely on too). */
static void log_before_fork(void) { pthread_mutex_lock(&log_lock); }
static void log_after_fork_parent(void) { pthread_mutex_unlock(&log_lock); }
static void log_after_fork_child(void) { pthread_mutex_unlock(&log_lock); }
static CUSHIM__CONSTRUCTOR void log_register_fork(void) {
    pthread_atfork(log_before_fork, log_after_fork_parent, log_after_fork_child);
}

bool cushim__log_enabled(cushim_log_level level) {
    return level != CUSHIM_LOG_OFF && (int)level >= min_level();
}

CUSHIM_API void cushim_log_set_handler(cushim_log_fn fn, void *user, cushim_log_level min) {
    pthread_mutex_lock(&log_lock);
    log_fn = fn;
    log_user = user;
    atomic_store_explicit(&log_min, fn ? (int)min : env_level(), memory_order_release);
    pthread_mutex_unlock(&log_lock);
}

void cushim__log(cushim_log_level level, const char *fmt, ...) {
    if (!cushim__log_enabled(level)) return;
    char msg[CUSHIM__ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    static const char *const tags[] = {"debug", "info", "warn", "error"};
    /* Called outside the lock, so that a handler may log or swap handlers itself. */
    pthread_mutex_lock(&log_lock);
    cushim_log_fn fn = log_fn;
    void *user = log_user;
    pthread_mutex_unlock(&log_lock);
    if (fn) {
        fn(level, msg, user);
    } else {
        fprintf(stderr, "cushim %s: %s\n", tags[level], msg);
    }
}

CUresult cushim__forked_refusal(const char *fn) {
    return cushim__fail(CUDA_ERROR_NOT_INITIALIZED, "%s: %s", fn, cushim__forked_reason);
}
