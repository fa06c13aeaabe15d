/* The tracer's rows: the tracer writes to a file of its own, started before and stopped after
 * each cushim batch, outside the timed region; the file is removed after each. */
#include <stdio.h>
#include <unistd.h>

#include "bench.h"

CUresult bench_trace_calls_start(bench_env *e);
CUresult bench_trace_timeline_start(bench_env *e);
CUresult bench_trace_stop(bench_env *e);

static char path[64];

static CUresult start(const char *what) {
    snprintf(path, sizeof path, "/tmp/cushim-bench-trace-%ld", (long)getpid());
    return cushim_trace_start(what, path);
}

CUresult bench_trace_calls_start(bench_env *e) {
    (void)e;
    return start("calls");
}

CUresult bench_trace_timeline_start(bench_env *e) {
    (void)e;
    return start("timeline");
}

CUresult bench_trace_stop(bench_env *e) {
    (void)e;
    CUresult r = cushim_trace_stop();
    unlink(path);
    return r;
}
