/* cushim-bench's operations and their measurement. */
#ifndef CUSHIM_BENCH_OPS_H
#define CUSHIM_BENCH_OPS_H

#include <stdio.h>

#include "bench.h"

/* n calls of one side of an operation; the first failure's code, or CUDA_SUCCESS. */
typedef CUresult (*bench_batch_fn)(bench_env *e, int n);

typedef struct bench_op {
    const char *id;    /* for --only and JSON: "launch_empty" */
    const char *label; /* for the table */
    bench_batch_fn direct, shim;
    bool settle;         /* it queues work: synchronize the stream after each batch, untimed */
    bool needs_coop;     /* skipped where cooperative launch is not supported */
    bool needs_clusters; /* skipped where clusters are not supported */
    bool needs_graph;    /* skipped where the driver could not make the benchmark's graph */
    int max_ops;         /* at most this many operations per batch (0: no limit) */
    int per;             /* figures are per 1/per of an operation: per kernel of a graph (0: 1) */
    /* Untimed, around each cushim batch (NULL: nothing): the tracer's rows start and stop it. */
    CUresult (*shim_setup)(bench_env *e);
    CUresult (*shim_teardown)(bench_env *e);
    /* Whether the row can run here (NULL: always); false with the reason in note skips it. */
    bool (*available)(char *note, size_t n);
    /* At least this many operations per batch, whatever --ops says (0: none): the traced query
     * rows, so that the trace writer works through a batch as through a long run of calls. */
    int min_ops;
} bench_op;

/* The traced query rows' batches (bench_op.min_ops). */
#define BENCH_TRACE_QUERY_OPS 20000

extern const bench_op bench_ops[];
extern const size_t bench_op_count;

typedef struct bench_settings {
    int pairs;  /* timed batch pairs */
    int ops;    /* operations per batch */
    int warmup; /* untimed batch pairs first */
} bench_settings;

typedef struct bench_result {
    const bench_op *op;
    bool skipped;
    char note[160];         /* why it was skipped */
    CUresult error;         /* the failure that stopped it, or CUDA_SUCCESS */
    const char *error_side; /* "direct" or "cushim" */
    double direct_ns;       /* median over batches of ns per operation */
    double cushim_ns;
    double ratio;    /* median over pairs of cushim / direct */
    double delta_ns; /* median over pairs of cushim - direct */
    double direct_min, cushim_min, ratio_min, ratio_max;
} bench_result;

/* Runs s->warmup untimed pairs, then s->pairs timed ones, direct batch then cushim batch.
 * BENCH_RC_OK (also for an operation skipped, with out->skipped and out->note) or
 * BENCH_RC_FAILED with out->error. */
int bench_measure(bench_env *e, const bench_op *op, const bench_settings *s, bench_result *out);

#endif
