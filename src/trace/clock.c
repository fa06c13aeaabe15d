/* The tracer's clock: the time stamp counter where it is invariant, turned into CLOCK_MONOTONIC
 * nanoseconds by whoever formats a record. The conversion is piecewise linear through points
 * (counter, CLOCK_MONOTONIC) read together: one at the tracer's start, then one whenever a record
 * is newer than the newest point, kept as an anchor once it is ANCHOR_NS after the last one (the
 * newest ANCHORS of them). A record between two points lies on the line between them, so its
 * error is that of reading a point (a clock_gettime between two counter reads), whatever the
 * counter's rate and however NTP slews CLOCK_MONOTONIC over a long trace; the mock's kernel
 * spans, which are CLOCK_MONOTONIC, stay in place beside the calls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hints.h"
#include "trace/clock.h"

atomic_bool cushim__clock_tsc;

typedef struct point {
    unsigned long long tsc, ns;
} point;

#define ANCHORS 256
#define ANCHOR_NS 10000000ull
#define LINE_NS 1000000ull
#define NEAR_NS 100000ull

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static point anchors[ANCHORS]; /* a ring, oldest at `first`; under lock */
static unsigned first, count;
static point latest; /* the newest point read, at or after the newest anchor */
static pthread_once_t chosen = PTHREAD_ONCE_INIT;
static _Atomic unsigned epoch; /* one more at each start */
/* The line the last conversion used, and where it holds: what a formatter may copy. */
static cushim__clock_line used;

#if defined(CUSHIM__TRACE_HAVE_TSC)
/* Whether the flags line names `flag` as a whole word. */
static bool has_flag(const char *line, const char *flag) {
    size_t n = strlen(flag);
    for (const char *p = strstr(line, flag); p != NULL; p = strstr(p + 1, flag)) {
        if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
            (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')) {
            return true;
        }
    }
    return false;
}

/* Whether the kernel's own clock is the counter, which it is only where the counters of all the
 * CPUs agree: the CPU's flags alone do not say that, and records of threads on different CPUs
 * would be out of order. */
static bool clocksource_tsc(void) {
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
    if (f == NULL) return false;
    char source[32] = "";
    bool ok = fgets(source, sizeof source, f) != NULL && strcmp(source, "tsc\n") == 0;
    fclose(f);
    return ok;
}

/* The kernel's word on the counter: the same rate always (constant_tsc), also in deep sleep
 * states (nonstop_tsc), and its own clock (clocksource_tsc). */
static bool tsc_invariant(void) {
    if (!clocksource_tsc()) return false;
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (f == NULL) return false;
    char *line = NULL;
    size_t cap = 0;
    bool ok = false;
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "flags", 5) != 0) continue;
        ok = has_flag(line, "constant_tsc") && has_flag(line, "nonstop_tsc");
        break;
    }
    free(line);
    fclose(f);
    return ok;
}
#endif

static void choose(void) {
#if defined(CUSHIM__TRACE_HAVE_TSC)
    const char *want = getenv("CUSHIM_TRACE_CLOCK");
    atomic_store(&cushim__clock_tsc,
                 !(want != NULL && strcmp(want, "monotonic") == 0) && tsc_invariant());
#endif
}

/* A point: the counter read on both sides of CLOCK_MONOTONIC, and their middle kept; of three
 * tries, the one whose counter reads lie closest. A thread preempted between them (a busy
 * machine, or valgrind switching to another thread) would put the point off by as long as it
 * waited, and two records a few microseconds apart, converted on lines through two such points,
 * could come out in the wrong order. */
static point read_point(void) {
    point p = {0, 0};
#if defined(CUSHIM__TRACE_HAVE_TSC)
    unsigned long long best = ~0ull;
    for (int i = 0; i < 3; i++) {
        unsigned long long a = __rdtsc();
        unsigned long long ns = cushim__now_ns();
        unsigned long long b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            p = (point){a + (b - a) / 2, ns};
        }
    }
#endif
    return p;
}

static point anchor(unsigned k) { return anchors[(first + k) % ANCHORS]; }

static void push(point p) {
    if (count < ANCHORS) {
        anchors[(first + count++) % ANCHORS] = p;
    } else {
        anchors[first] = p;
        first = (first + 1) % ANCHORS;
    }
}

void cushim__clock_start(void) {
    (void)pthread_once(&chosen, choose);
    if (!atomic_load(&cushim__clock_tsc)) return;
    pthread_mutex_lock(&lock);
    first = count = 0;
    latest = read_point();
    push(latest);
    unsigned e = atomic_load(&epoch) + 1;
    atomic_store(&epoch, e == 0 ? 1 : e);
    pthread_mutex_unlock(&lock);
}

/* t on the line through (tsc, ns) of that slope. The distance is taken as an integer first: a
 * double holds it exactly, where it would round the counter itself. */
static unsigned long long at(unsigned long long tsc, unsigned long long ns, double slope,
                             unsigned long long t) {
    double off = (double)(long long)(t - tsc) * slope;
    if (off < -(double)ns) return 0;
    return ns + (unsigned long long)(long long)(off + (off < 0 ? -0.5 : 0.5));
}

/* t on the line through a and b (extended beyond them where t is), which holds for ticks in
 * [lo, hi]: noted as the line used. */
static unsigned long long on_line(point a, point b, unsigned long long t, unsigned long long lo,
                                  unsigned long long hi) {
    double slope = b.tsc > a.tsc ? (double)(b.ns - a.ns) / (double)(b.tsc - a.tsc) : 0.0;
    used = (cushim__clock_line){lo, hi, a.tsc, a.ns, slope, atomic_load(&epoch)};
    return at(a.tsc, a.ns, slope, t);
}

static unsigned long long convert_locked(unsigned long long t) {
    if (t > latest.tsc) {
        /* Newer than every point: on the line through the newest anchor and the newest point
         * when that line is at least LINE_NS long and t no further than NEAR_NS past its end
         * (its error there is a point's and a tenth of it), else a point now, after t. */
        point a = anchor(count - 1);
        if (latest.ns - a.ns < LINE_NS && count >= 2) a = anchor(count - 2);
        if (latest.ns - a.ns >= LINE_NS) {
            double per_ns = (double)(latest.tsc - a.tsc) / (double)(latest.ns - a.ns);
            unsigned long long near = latest.tsc + (unsigned long long)((double)NEAR_NS * per_ns);
            if (t <= near) return on_line(a, latest, t, latest.tsc, near);
        }
        latest = read_point();
        if (latest.ns - anchor(count - 1).ns >= ANCHOR_NS) push(latest);
    }
    unsigned k = count; /* the newest anchor at or before t is k - 1 */
    while (k > 0 && anchor(k - 1).tsc > t) k--;
    if (k == 0) k = 1; /* older than every anchor: the oldest line, extended */
    point a = anchor(k - 1), b = k < count ? anchor(k) : latest;
    if (b.tsc <= a.tsc && k >= 2) {
        /* t is the newest anchor itself: the line before it. */
        b = a;
        a = anchor(k - 2);
    }
    return on_line(a, b, t, a.tsc, b.tsc);
}

void cushim__clock_to_ns(cushim__clock_line *line, unsigned long long *start,
                         unsigned long long *end) {
    if (!atomic_load_explicit(&cushim__clock_tsc, memory_order_relaxed)) return;
    if (line->epoch == atomic_load_explicit(&epoch, memory_order_relaxed) && *start >= line->lo &&
        *end <= line->hi && *start <= *end) {
        *start = at(line->tsc, line->ns, line->slope, *start);
        *end = at(line->tsc, line->ns, line->slope, *end);
        return;
    }
    pthread_mutex_lock(&lock);
    if (count != 0) {
        *end = convert_locked(*end); /* the newer first: one new point serves both */
        cushim__clock_line end_line = used;
        *start = convert_locked(*start);
        if (*start > *end) *start = *end;
        *line = end_line; /* where the next record most likely is */
    }
    pthread_mutex_unlock(&lock);
}

/* The lock may have been a formatter's of the parent: the child starts with a fresh one. */
static void after_fork_child(void) { pthread_mutex_init(&lock, NULL); }
static CUSHIM__CONSTRUCTOR void clock_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
