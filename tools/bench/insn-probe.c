/* cushim-insn-probe: K calls of a direct driver entry point and K calls of the cushim function
 * that wraps it, each loop in a function of its own, for tests/bench/insn-guard.py to count
 * under valgrind. The loops are named loop_direct_<op> and loop_cushim_<op>, and are reached
 * only through a volatile pointer, so the compiler neither inlines nor clones them and
 * callgrind's --toggle-collect=loop_* sees each under its own name.
 *
 * Usage: cushim-insn-probe [--k K] [--only OP --side direct|cushim] [--ptx FILE]
 *   OP: launch, event_record, stream_query.
 *   Without --only: for each OP, loops in the order direct, cushim, cushim, direct (so that a
 *   driver whose cost drifts with its state weighs on both sides alike), K calls each.
 *   With --only: that one loop, once.
 * Each side is called once before any loop, outside the loops, so that no loop pays a first
 * call (a lazy binding, a first touch) that the other side would not.
 *
 * Exit codes as cushim-bench: 0, 1 a call failed, 2 usage, 77 no driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench-nvrtc.h"

extern const char bench_empty_ptx[];

typedef CUresult (*probe_loop)(const bench_env *e, int k);

/* Exported, so that their names survive for callgrind; declared here for -Wmissing-prototypes. */
CUresult loop_direct_launch(const bench_env *e, int k);
CUresult loop_cushim_launch(const bench_env *e, int k);
CUresult loop_direct_dropin_launch(const bench_env *e, int k);
CUresult loop_cushim_dropin_launch(const bench_env *e, int k); /* in bench-dropin.c */
CUresult loop_direct_event_record(const bench_env *e, int k);
CUresult loop_cushim_event_record(const bench_env *e, int k);
CUresult loop_direct_stream_query(const bench_env *e, int k);
CUresult loop_cushim_stream_query(const bench_env *e, int k);

/* Every result is folded into one word and checked after the loop: the same few instructions
 * on both sides, and a failure still fails the run. */
CUSHIM__NOINLINE CUresult loop_direct_launch(const bench_env *e, int k) {
    PFN_cuLaunchKernel_v4000 launch = e->d.launch_kernel;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)launch(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL);
    }
    return (CUresult)bad;
}

/* The direct side of the drop-in row: the same loop as loop_direct_launch, under a name of its
 * own so that callgrind counts the rows apart (one loop_* may not call another: callgrind's
 * collection toggles at each). */
CUSHIM__NOINLINE CUresult loop_direct_dropin_launch(const bench_env *e, int k) {
    PFN_cuLaunchKernel_v4000 launch = e->d.launch_kernel;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)launch(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL);
    }
    return (CUresult)bad;
}

CUSHIM__NOINLINE CUresult loop_cushim_launch(const bench_env *e, int k) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                      .block = CUSHIM_DIM3(32),
                                      .shared_mem_bytes = 0,
                                      .stream = e->stream};
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)cushim_launch(e->empty, &cfg, NULL);
    }
    return (CUresult)bad;
}

CUSHIM__NOINLINE CUresult loop_direct_event_record(const bench_env *e, int k) {
    PFN_cuEventRecord_v2000 record = e->d.event_record;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)record(e->raw_event, e->raw_stream);
    }
    return (CUresult)bad;
}

CUSHIM__NOINLINE CUresult loop_cushim_event_record(const bench_env *e, int k) {
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)cushim_event_record(e->event, e->stream);
    }
    return (CUresult)bad;
}

CUSHIM__NOINLINE CUresult loop_direct_stream_query(const bench_env *e, int k) {
    PFN_cuStreamQuery_v2000 query = e->d.stream_query;
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)query(e->raw_idle);
    }
    return (CUresult)bad;
}

CUSHIM__NOINLINE CUresult loop_cushim_stream_query(const bench_env *e, int k) {
    unsigned bad = 0;
    for (int i = 0; i < k; i++) {
        bad |= (unsigned)cushim_stream_query(e->idle);
    }
    return (CUresult)bad;
}

typedef struct probe_op {
    const char *name;
    probe_loop direct, shim;
} probe_op;

static const probe_op ops[] = {
    {"launch", loop_direct_launch, loop_cushim_launch},
    {"dropin_launch", loop_direct_dropin_launch, loop_cushim_dropin_launch},
    {"event_record", loop_direct_event_record, loop_cushim_event_record},
    {"stream_query", loop_direct_stream_query, loop_cushim_stream_query},
    {"nvrtc_version", loop_direct_nvrtc_version, loop_cushim_nvrtc_version},
};

/* Runs one loop through a volatile read of its pointer, then empties the stream (outside the
 * loop) so that each loop starts with the driver in the same state. */
static int run_loop(const bench_env *e, probe_loop const *slot, const char *what, int k) {
    probe_loop fn = *(probe_loop const volatile *)slot;
    CUresult r = fn(e, k);
    if (r == CUDA_SUCCESS) r = cushim_stream_synchronize(e->stream);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cushim-insn-probe: %s failed (%s)\n", what, bench_error_name(r));
        return BENCH_RC_FAILED;
    }
    return BENCH_RC_OK;
}

/* One call of each side of each operation, written out here rather than through the loops,
 * whose every call callgrind counts. */
static int warm_up(const bench_env *e) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(1),
                                      .block = CUSHIM_DIM3(32),
                                      .shared_mem_bytes = 0,
                                      .stream = e->stream};
    CUresult r[7];
    /* In order: an initializer list would leave the order of the calls unspecified. */
    r[0] = e->d.launch_kernel(e->raw_empty, 1, 1, 1, 32, 1, 1, 0, e->raw_stream, NULL, NULL);
    r[1] = cushim_launch(e->empty, &cfg, NULL);
    r[2] = e->d.event_record(e->raw_event, e->raw_stream);
    r[3] = cushim_event_record(e->event, e->stream);
    r[4] = e->d.stream_query(e->raw_idle);
    r[5] = cushim_stream_query(e->idle);
    r[6] = cushim_stream_synchronize(e->stream);
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        if (r[i] != CUDA_SUCCESS) {
            fprintf(stderr, "cushim-insn-probe: warm-up call %zu failed (%s)\n", i,
                    bench_error_name(r[i]));
            return BENCH_RC_FAILED;
        }
    }
    return BENCH_RC_OK;
}

static int usage(const char *why) {
    fprintf(
        stderr,
        "cushim-insn-probe: %s\n"
        "Usage: cushim-insn-probe [--k K] [--only launch|event_record|stream_query|nvrtc_version "
        "--side direct|cushim] [--ptx FILE]\n",
        why);
    return BENCH_RC_USAGE;
}

int main(int argc, char **argv) {
    int k = 1000;
    const char *only = NULL, *side = NULL, *ptx_path = NULL;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) return usage("every option takes a value");
        if (strcmp(argv[i], "--k") == 0) {
            k = atoi(v);
            if (k < 1) return usage("--k needs a positive number");
        } else if (strcmp(argv[i], "--only") == 0) {
            only = v;
        } else if (strcmp(argv[i], "--side") == 0) {
            side = v;
        } else if (strcmp(argv[i], "--ptx") == 0) {
            ptx_path = v;
        } else {
            return usage("unknown option");
        }
    }
    const probe_op *chosen = NULL;
    if (only != NULL) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            if (strcmp(ops[i].name, only) == 0) chosen = &ops[i];
        }
        if (chosen == NULL) return usage("unknown --only");
        if (side == NULL || (strcmp(side, "direct") != 0 && strcmp(side, "cushim") != 0)) {
            return usage("--only needs --side direct or --side cushim");
        }
    }

    char err[1024];
    char *ptx_file = NULL;
    if (ptx_path != NULL && (ptx_file = bench_read_file(ptx_path, err, sizeof err)) == NULL) {
        fprintf(stderr, "cushim-insn-probe: %s\n", err);
        return BENCH_RC_FAILED;
    }
    bench_env e;
    int rc = bench_env_open(&e, 0, ptx_file != NULL ? ptx_file : bench_empty_ptx, err, sizeof err);
    free(ptx_file);
    if (rc != BENCH_RC_OK) {
        fprintf(stderr, "cushim-insn-probe: %s\n", err);
        return rc;
    }
    /* The first call of each side, outside any loop (and so outside what is counted); NVRTC is
     * loaded on both sides here too, or its row left out, and said. */
    rc = warm_up(&e);
    char note[160];
    bool nvrtc = bench_nvrtc_available(note, sizeof note);
    if (!nvrtc) printf("cushim-insn-probe: nvrtc_version left out: %s\n", note);
    if (rc == BENCH_RC_OK && chosen != NULL && !nvrtc &&
        chosen->direct == loop_direct_nvrtc_version) {
        rc = BENCH_RC_NO_DRIVER;
    }
    if (rc == BENCH_RC_OK && chosen != NULL) {
        rc = run_loop(&e, strcmp(side, "direct") == 0 ? &chosen->direct : &chosen->shim,
                      chosen->name, k);
    } else if (rc == BENCH_RC_OK) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0] && rc == BENCH_RC_OK; i++) {
            const probe_op *op = &ops[i];
            if (!nvrtc && op->direct == loop_direct_nvrtc_version) continue;
            probe_loop const *order[] = {&op->direct, &op->shim, &op->shim, &op->direct};
            for (size_t j = 0; j < 4 && rc == BENCH_RC_OK; j++) {
                rc = run_loop(&e, order[j], op->name, k);
            }
        }
    }
    bench_env_close(&e);
    if (rc == BENCH_RC_OK) printf("cushim-insn-probe: ok, k=%d\n", k);
    return rc;
}
