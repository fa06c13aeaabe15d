/* cushim-bench: what cushim's calls cost over calling the driver directly, side by side in one
 * process; and, with --init, what cushim_init() costs over dlopen + cuInit in a fresh process.
 *
 * Usage and exit codes: see usage_text below, or README.md beside this file.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-args.h"
#include "bench-init.h"
#include "bench-ops.h"

extern const char bench_empty_ptx[];

static const char usage_text[] =
    "Usage: cushim-bench [--json] [--quick] [--pairs N] [--ops N] [--warmup N]\n"
    "                    [--only ID[,ID...]] [--device N] [--ptx FILE]\n"
    "       cushim-bench --init [--runs N] [--json]\n"
    "       cushim-bench --list | --help\n"
    "\n"
    "Compares each operation called directly on the driver with the same operation through\n"
    "cushim, in one process: batches of direct calls and of cushim calls alternate (direct,\n"
    "cushim, direct, cushim, ...) after a warm-up. Each figure is the median over batches of\n"
    "the nanoseconds per operation; the ratio is the median of the per-pair ratios\n"
    "cushim / direct, and +ns the median of the per-pair differences. The direct entry points\n"
    "are resolved by the benchmark itself with cuGetProcAddress_v2, at the versions of\n"
    "cudaTypedefs.h, as a program linked to libcuda would call them.\n"
    "\n"
    "Options:\n"
    "  --json        print one JSON object instead of the table\n"
    "  --quick       3 pairs of 100 operations, 1 warm-up pair (for the mock and CI)\n"
    "  --pairs N     timed batch pairs (default 15)\n"
    "  --ops N       operations per batch (default 1000)\n"
    "  --warmup N    untimed batch pairs before the timed ones (default 2)\n"
    "  --only IDS    measure only these operations (comma-separated; see --list)\n"
    "  --device N    the device ordinal (default 0)\n"
    "  --ptx FILE    load the kernels from FILE instead of the built-in ptx/empty.ptx\n"
    "  --init        instead: time dlopen(libcuda.so.1) + cuInit(0) against cushim_init(),\n"
    "                each in fresh processes (this program run again), alternating\n"
    "  --runs N      fresh processes of each kind for --init (default 10; --quick: 3)\n"
    "  --list        print the operation IDs and exit\n"
    "  -h, --help    print this help and exit\n"
    "\n"
    "Environment:\n"
    "  CUSHIM_DRIVER  absolute path of the driver library (both sides use it)\n"
    "\n"
    "Exit codes:\n"
    "  0   every operation was measured (or skipped with a reason, such as no cooperative\n"
    "      launch on this device)\n"
    "  1   a driver call failed during the setup or a measurement\n"
    "  2   bad usage\n"
    "  77  no usable CUDA driver, or no such device: nothing was measured (the reason is on\n"
    "      stderr); 77 is what Meson and Automake read as 'skipped'\n";

typedef struct options {
    bool json, quick, init, list;
    bench_settings s;
    int runs;
    int device;
    const char *ptx_path;
    const char *only;
    bool pairs_set, ops_set, warmup_set, runs_set;
} options;

/* ------------------------------------------------------------------------------------------ */
/* Command line                                                                               */
/* ------------------------------------------------------------------------------------------ */

static int usage_error(const char *fmt, ...) CUSHIM__PRINTF(1, 2);

static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cushim-bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n\n%s", usage_text);
    va_end(ap);
    return BENCH_RC_USAGE;
}

static const bench_op *find_op(const char *id, size_t len) {
    for (size_t i = 0; i < bench_op_count; i++) {
        if (strlen(bench_ops[i].id) == len && strncmp(bench_ops[i].id, id, len) == 0) {
            return &bench_ops[i];
        }
    }
    return NULL;
}

/* Whether op is in the --only list (every op when there is none). */
static bool selected(const options *o, const bench_op *op) {
    if (o->only == NULL) return true;
    for (const char *p = o->only; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (find_op(p, len) == op) return true;
        p += len;
        if (*p == ',') p++;
    }
    return false;
}

static int check_only(const char *only) {
    for (const char *p = only; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (find_op(p, len) == NULL) {
            char id[64];
            snprintf(id, sizeof id, "%.*s", (int)(len < 63 ? len : 63), p);
            return usage_error("unknown operation '%s' (see --list)", id);
        }
        p += len;
        if (*p == ',') p++;
    }
    return BENCH_RC_OK;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, options *o) {
    *o = (options){.s = {15, 1000, 2}, .runs = 10};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int *target = NULL, min = 1;
        bool *set = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return BENCH_RC_OK;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(a, "--init") == 0) {
            o->init = true;
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "--pairs") == 0) {
            target = &o->s.pairs, set = &o->pairs_set;
        } else if (strcmp(a, "--ops") == 0) {
            target = &o->s.ops, set = &o->ops_set;
        } else if (strcmp(a, "--warmup") == 0) {
            target = &o->s.warmup, set = &o->warmup_set, min = 0;
        } else if (strcmp(a, "--runs") == 0) {
            target = &o->runs, set = &o->runs_set;
        } else if (strcmp(a, "--device") == 0) {
            target = &o->device, min = 0;
        } else if (strcmp(a, "--ptx") == 0 || strcmp(a, "--only") == 0) {
            if (next == NULL) return usage_error("%s needs a value", a);
            *(a[2] == 'p' ? &o->ptx_path : &o->only) = next;
            i++;
        } else {
            return usage_error("unknown option '%s'", a);
        }
        if (target != NULL) {
            if (!bench_parse_int(next, min, target)) return usage_error("%s needs a number", a);
            if (set != NULL) *set = true;
            i++;
        }
    }
    if (o->quick) {
        if (!o->pairs_set) o->s.pairs = 3;
        if (!o->ops_set) o->s.ops = 100;
        if (!o->warmup_set) o->s.warmup = 1;
        if (!o->runs_set) o->runs = 3;
    }
    if (o->only != NULL) return check_only(o->only) == BENCH_RC_OK ? -1 : BENCH_RC_USAGE;
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                     */
/* ------------------------------------------------------------------------------------------ */

void bench_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p != '\0'; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void print_table(const bench_env *e, const options *o, const bench_result *res, size_t n) {
    printf("cushim-bench: %s (device %d), driver %d.%d, %s\n", e->device_name, e->ordinal,
           e->driver_version / 1000, e->driver_version % 1000 / 10, e->d.path);
    printf("%d batch pairs of %d operations after %d warm-up pair%s; medians over batches\n\n",
           o->s.pairs, o->s.ops, o->s.warmup, o->s.warmup == 1 ? "" : "s");
    printf("%-36s %11s %11s %8s %9s\n", "operation", "direct ns", "cushim ns", "ratio", "+ns");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        if (r->skipped) {
            printf("%-36s skipped: %s\n", r->op->label, r->note);
        } else if (r->error != CUDA_SUCCESS) {
            printf("%-36s failed: %s side, %s\n", r->op->label, r->error_side,
                   bench_error_name(r->error));
        } else {
            printf("%-36s %11.1f %11.1f %8.3f %+9.1f\n", r->op->label, r->direct_ns, r->cushim_ns,
                   r->ratio, r->delta_ns);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (res[i].op->min_ops > o->s.ops && !res[i].skipped) {
            printf("\nthe traced query rows run batches of %d calls, so that the trace writer "
                   "formats a batch while it runs (not at the stop, untimed)",
                   BENCH_TRACE_QUERY_OPS);
            break;
        }
    }
    if (e->coop_grid > 0) {
        printf("\ncooperative launches use a grid of %d blocks of 32 threads "
               "(cushim_occupancy_max_cooperative_grid)\n",
               e->coop_grid);
    }
    if (e->graph != NULL) {
        printf("the graph rows launch a captured graph of %d empty kernels, in batches of at most "
               "16; \"per kernel\" divides both sides by %d (direct: that many cuLaunchKernel "
               "calls)\n",
               BENCH_GRAPH_KERNELS, BENCH_GRAPH_KERNELS);
    }
}

static void print_json(const bench_env *e, const options *o, const bench_result *res, size_t n) {
    printf("{\n  \"tool\": \"cushim-bench\",\n  \"device\": ");
    bench_json_string(stdout, e->device_name);
    printf(",\n  \"ordinal\": %d,\n  \"driver_version\": %d,\n  \"driver_path\": ", e->ordinal,
           e->driver_version);
    bench_json_string(stdout, e->d.path);
    printf(",\n  \"pairs\": %d,\n  \"ops_per_batch\": %d,\n  \"warmup_pairs\": %d,\n", o->s.pairs,
           o->s.ops, o->s.warmup);
    printf("  \"cooperative_grid\": %d,\n  \"operations\": [", e->coop_grid);
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        printf("%s\n    {\"id\": \"%s\", \"label\": ", i ? "," : "", r->op->id);
        bench_json_string(stdout, r->op->label);
        if (r->op->max_ops > 0) printf(", \"max_ops_per_batch\": %d", r->op->max_ops);
        if (r->op->min_ops > 0) printf(", \"min_ops_per_batch\": %d", r->op->min_ops);
        if (r->op->per > 1) printf(", \"figures_divided_by\": %d", r->op->per);
        if (r->skipped) {
            printf(", \"status\": \"skipped\", \"note\": ");
            bench_json_string(stdout, r->note);
        } else if (r->error != CUDA_SUCCESS) {
            printf(", \"status\": \"failed\", \"side\": \"%s\", \"error\": \"%s\"", r->error_side,
                   bench_error_name(r->error));
        } else {
            printf(", \"status\": \"ok\", \"direct_ns\": %.2f, \"cushim_ns\": %.2f, "
                   "\"ratio\": %.4f, \"delta_ns\": %.2f, \"direct_min_ns\": %.2f, "
                   "\"cushim_min_ns\": %.2f, \"ratio_min\": %.4f, \"ratio_max\": %.4f",
                   r->direct_ns, r->cushim_ns, r->ratio, r->delta_ns, r->direct_min, r->cushim_min,
                   r->ratio_min, r->ratio_max);
        }
        printf("}");
    }
    printf("\n  ]\n}\n");
}

/* ------------------------------------------------------------------------------------------ */
/* main                                                                                       */
/* ------------------------------------------------------------------------------------------ */

static int run_ops(const options *o) {
    char err[1024] = "";
    char *ptx_file = NULL;
    const char *ptx = bench_empty_ptx;
    if (o->ptx_path != NULL) {
        ptx_file = bench_read_file(o->ptx_path, err, sizeof err);
        if (ptx_file == NULL) {
            fprintf(stderr, "cushim-bench: %s\n", err);
            return BENCH_RC_FAILED;
        }
        ptx = ptx_file;
    }
    bench_env e;
    int rc = bench_env_open(&e, o->device, ptx, err, sizeof err);
    free(ptx_file);
    if (rc != BENCH_RC_OK) {
        fprintf(stderr, "cushim-bench: %s\n", err);
        if (rc == BENCH_RC_NO_DRIVER) {
            fprintf(stderr, "cushim-bench: nothing measured (exit %d)\n", BENCH_RC_NO_DRIVER);
        }
        return rc;
    }
    /* One result per operation of the table, however many rows it grows to. */
    bench_result *res = calloc(bench_op_count, sizeof *res);
    if (res == NULL) {
        fprintf(stderr, "cushim-bench: out of memory\n");
        bench_env_close(&e);
        return BENCH_RC_FAILED;
    }
    size_t n = 0;
    rc = BENCH_RC_OK;
    for (size_t i = 0; i < bench_op_count; i++) {
        if (!selected(o, &bench_ops[i])) continue;
        if (bench_measure(&e, &bench_ops[i], &o->s, &res[n]) != BENCH_RC_OK) {
            const char *side = res[n].error_side != NULL ? res[n].error_side : "?";
            bool shim = strcmp(side, "cushim") == 0;
            fprintf(stderr, "cushim-bench: %s: the %s side failed with %s%s%s\n", bench_ops[i].id,
                    side, bench_error_name(res[n].error), shim ? ": " : "",
                    shim ? cushim_last_error() : "");
            rc = BENCH_RC_FAILED;
        }
        n++;
    }
    if (o->json) {
        print_json(&e, o, res, n);
    } else {
        print_table(&e, o, res, n);
    }
    free(res);
    bench_env_close(&e);
    return rc;
}

int main(int argc, char **argv) {
    /* The hidden half of --init: one timed initialisation in this fresh process. */
    if (argc == 3 && strcmp(argv[1], BENCH_INIT_CHILD_FLAG) == 0) return bench_init_child(argv[2]);
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (o.list) {
        for (size_t i = 0; i < bench_op_count; i++) {
            printf("%-30s %s\n", bench_ops[i].id, bench_ops[i].label);
        }
        return BENCH_RC_OK;
    }
    if (o.init) return bench_init_compare(o.runs, o.json);
    return run_ops(&o);
}
