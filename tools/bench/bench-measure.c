/* cushim-bench's measurement: batches alternate, direct then cushim, pair after pair, and the
 * figures are medians over the pairs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-median.h"
#include "bench-ops.h"

/* ------------------------------------------------------------------------------------------ */
/* The measurement                                                                            */
/* ------------------------------------------------------------------------------------------ */

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* One batch: only the n calls are timed. A batch that queued work is followed by a
 * synchronize outside the timed region, so that no batch meets a queue the last one filled. */
static CUresult run_batch(bench_env *e, const bench_op *op, bool shim_side, int n,
                          double *ns_per_op) {
    bench_batch_fn fn = shim_side ? op->shim : op->direct;
    bool around = shim_side && op->shim_setup != NULL;
    if (around) {
        CUresult s = op->shim_setup(e);
        if (s != CUDA_SUCCESS) return s;
    }
    int64_t t0 = now_ns();
    CUresult r = fn(e, n);
    int64_t t1 = now_ns();
    if (around) {
        CUresult s = op->shim_teardown(e);
        if (r == CUDA_SUCCESS) r = s;
    }
    if (r == CUDA_SUCCESS && op->settle) r = cushim_stream_synchronize(e->stream);
    *ns_per_op = (double)(t1 - t0) / n / (op->per > 0 ? op->per : 1);
    return r;
}

static bool failed_pair(bench_result *out, CUresult r, const char *side) {
    if (r == CUDA_SUCCESS) return false;
    out->error = r;
    out->error_side = side;
    return true;
}

int bench_measure(bench_env *e, const bench_op *op, const bench_settings *s, bench_result *out) {
    memset(out, 0, sizeof *out);
    out->op = op;
    if (op->needs_coop && e->coop_grid == 0) {
        out->skipped = true;
        snprintf(out->note, sizeof out->note, "%s", e->coop_note);
        return BENCH_RC_OK;
    }
    if (op->needs_clusters && !e->clusters) {
        out->skipped = true;
        snprintf(out->note, sizeof out->note, "%s", e->cluster_note);
        return BENCH_RC_OK;
    }
    if (op->needs_graph && e->graph == NULL) {
        out->skipped = true;
        snprintf(out->note, sizeof out->note, "%s", e->graph_note);
        return BENCH_RC_OK;
    }
    if (op->available != NULL && !op->available(out->note, sizeof out->note)) {
        out->skipped = true;
        return BENCH_RC_OK;
    }
    int ops = op->max_ops > 0 && op->max_ops < s->ops ? op->max_ops : s->ops;
    if (op->min_ops > ops) ops = op->min_ops;
    double *v = malloc(sizeof *v * 4 * (size_t)s->pairs);
    if (v == NULL) return BENCH_RC_FAILED;
    double *direct = v, *shim = v + s->pairs, *ratio = v + 2 * s->pairs, *delta = v + 3 * s->pairs;
    double ignored;
    for (int i = 0; i < s->warmup; i++) {
        if (failed_pair(out, run_batch(e, op, false, ops, &ignored), "direct") ||
            failed_pair(out, run_batch(e, op, true, ops, &ignored), "cushim")) {
            free(v);
            return BENCH_RC_FAILED;
        }
    }
    for (int i = 0; i < s->pairs; i++) {
        if (failed_pair(out, run_batch(e, op, false, ops, &direct[i]), "direct") ||
            failed_pair(out, run_batch(e, op, true, ops, &shim[i]), "cushim")) {
            free(v);
            return BENCH_RC_FAILED;
        }
        ratio[i] = shim[i] / direct[i];
        delta[i] = shim[i] - direct[i];
    }
    out->ratio_min = out->ratio_max = ratio[0];
    for (int i = 1; i < s->pairs; i++) {
        if (ratio[i] < out->ratio_min) out->ratio_min = ratio[i];
        if (ratio[i] > out->ratio_max) out->ratio_max = ratio[i];
    }
    out->direct_ns = bench_median(direct, s->pairs);
    out->cushim_ns = bench_median(shim, s->pairs);
    out->direct_min = direct[0]; /* bench_median sorted them */
    out->cushim_min = shim[0];
    out->ratio = bench_median(ratio, s->pairs);
    out->delta_ns = bench_median(delta, s->pairs);
    free(v);
    return BENCH_RC_OK;
}
