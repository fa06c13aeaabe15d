/* The tracer's file, under a lock of its own: a block from any thread is written whole, and the
 * tracer's lock, when held, is taken before this one. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/hints.h"
#include "trace/output.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;            /* under lock */
static bool json, first_event; /* the timeline's array: no block written yet */
static char out[4096];         /* the file's head and tail */
static size_t out_len;

void cushim__out_write_all(int to, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(to, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* a full disk loses the trace, not the program */
        p += w;
        n -= (size_t)w;
    }
}

static void flush_locked(void) {
    if (fd >= 0 && out_len > 0) cushim__out_write_all(fd, out, out_len);
    out_len = 0;
}

static void append_locked(const char *p, size_t n) {
    if (fd < 0) return;
    if (out_len + n > sizeof out) flush_locked();
    if (n > sizeof out) {
        cushim__out_write_all(fd, p, n);
        return;
    }
    memcpy(out + out_len, p, n);
    out_len += n;
}

bool cushim__out_open(const char *name, bool timeline, char *why, size_t why_cap) {
    /* O_NONBLOCK: a FIFO that no process reads would block open() for good, and this runs
     * inside cushim_init with every other first caller waiting; ENXIO says so. Writes block as
     * usual once it is open (a reader that stops reading slows the program, as with stderr). */
    int f = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (f < 0) {
        int e = errno;
        snprintf(why, why_cap, "CUSHIM_TRACE: cannot open the trace file %s (%s)", name,
                 e == ENXIO ? "a FIFO that no process reads: nothing is traced" : strerror(e));
        return false;
    }
    int flags = fcntl(f, F_GETFL);
    if (flags >= 0) (void)fcntl(f, F_SETFL, flags & ~O_NONBLOCK);
    pthread_mutex_lock(&lock);
    fd = f;
    out_len = 0;
    json = first_event = timeline;
    if (timeline) append_locked("[\n", 2);
    pthread_mutex_unlock(&lock);
    return true;
}

bool cushim__out_is_open(void) {
    pthread_mutex_lock(&lock);
    bool open = fd >= 0;
    pthread_mutex_unlock(&lock);
    return open;
}

/* The timeline's events each start with ",\n", but the file's first. */
void cushim__out_block(const char *p, size_t n) {
    pthread_mutex_lock(&lock);
    if (fd >= 0) {
        if (json && first_event && n >= 2) {
            p += 2;
            n -= 2;
        }
        first_event = false;
        flush_locked();
        cushim__out_write_all(fd, p, n);
    }
    pthread_mutex_unlock(&lock);
}

void cushim__out_append(const char *p, size_t n) {
    pthread_mutex_lock(&lock);
    append_locked(p, n);
    pthread_mutex_unlock(&lock);
}

void cushim__out_close(void) {
    pthread_mutex_lock(&lock);
    flush_locked();
    if (fd >= 0) close(fd);
    fd = -1;
    pthread_mutex_unlock(&lock);
}

void cushim__out_forget(void) {
    if (fd >= 0) close(fd);
    fd = -1;
    out_len = 0;
}

static void after_fork_child(void) { pthread_mutex_init(&lock, NULL); }
static CUSHIM__CONSTRUCTOR void output_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
