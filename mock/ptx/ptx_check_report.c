/* CUSHIM_MOCK_CHECK's reports: counted by kind for the summary at exit, and either the
 * launch's fault or, in report mode, a sentence on stderr once per place and launch. */
#include <stdarg.h>
#include <stdio.h>

#include "ptx_check_report.h"
#include "ptx_check_src.h"

static unsigned long long reports[4];

unsigned long long mock__ptx_check_reports(int kind) {
    return kind >= 0 && kind < 4 ? __atomic_load_n(&reports[kind], __ATOMIC_RELAXED) : 0;
}

void mock__ptx_check_count(int kind) {
    if (kind >= 0 && kind < 4) __atomic_fetch_add(&reports[kind], 1, __ATOMIC_RELAXED);
}

static const char *const kind_names[] = {"memcheck", "racecheck", "initcheck", "synccheck"};

/* A check fired: counted, then the launch fails (the first fault wins), or in report mode a
 * sentence on stderr, once per launch for each place, and the kernel goes on. */
int ptx__check_report(pblock *b, const pthr *t, const pinst *in, int kind, unsigned other_line,
                      const char *fmt, ...) {
    prun *r = b->run;
    char msg[768];
    int n = snprintf(msg, sizeof msg, "%s: ", kind_names[kind]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    if (!r->l->check_report) {
        __atomic_fetch_add(&reports[kind], 1, __ATOMIC_RELAXED);
        return ptx__fault(b, t, in, CUDA_ERROR_LAUNCH_FAILED, "%s", msg);
    }
    uint64_t key = (uint64_t)kind << 60 | (uint64_t)(in != NULL ? in->line : 0) << 30 | other_line;
    pcheck_run *cr = r->chk_run;
    pthread_mutex_lock(&r->out_lock);
    bool fresh = true;
    for (unsigned i = 0; i < cr->nseen && fresh; i++) fresh = cr->seen[i] != key;
    if (fresh && cr->nseen < SEEN_CAP) cr->seen[cr->nseen++] = key;
    if (fresh) {
        char where[512];
        ptx__where_text(where, sizeof where, b, t, in);
        __atomic_fetch_add(&reports[kind], 1, __ATOMIC_RELAXED);
        fprintf(stderr, "cushim mock: %s%s\n", where, msg);
    }
    pthread_mutex_unlock(&r->out_lock);
    return TS_RUN;
}
