/* CUSHIM_MOCK_CHECK: which of the interpreter's checks a launch runs (memcheck, racecheck,
 * initcheck, synccheck, or all), chosen by the environment, per context or for the next launch
 * through cushim_mock.h; what a check that fires does (fail the launch with
 * CUDA_ERROR_LAUNCH_FAILED, sticky as any fault, or with CUSHIM_MOCK_CHECK_MODE=report say so
 * and go on); memcheck's leaks (allocations live when their context goes or the program ends);
 * and the summary by kind that a process that ran any check prints on stderr at its exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "ptx.h"

static bool env_read, env_report, api_set, api_report, next_set, ever;
static unsigned env_checks, api_checks, next_checks, ever_checks;
static unsigned long long mem_reports; /* faults and leaks memcheck reported */

/* The bits of a list such as "racecheck,initcheck" or "all"; false for an unknown word. */
static bool parse(const char *s, unsigned *out) {
    static const struct {
        const char *name;
        unsigned bits;
    } words[] = {
        {"memcheck", CUSHIM_MOCK_CHECK_MEMCHECK},
        {"racecheck", CUSHIM_MOCK_CHECK_RACECHECK},
        {"racecheck-strict", CUSHIM_MOCK_CHECK_RACECHECK | CUSHIM_MOCK_CHECK_RACECHECK_STRICT},
        {"initcheck", CUSHIM_MOCK_CHECK_INITCHECK},
        {"synccheck", CUSHIM_MOCK_CHECK_SYNCCHECK},
        {"all", CUSHIM_MOCK_CHECK_ALL},
        {"none", 0},
        {"0", 0},
    };
    unsigned bits = 0;
    while (*s != 0) {
        size_t n = strcspn(s, ", ");
        bool known = n == 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0] && !known; i++) {
            if (strlen(words[i].name) == n && strncmp(words[i].name, s, n) == 0) {
                bits |= words[i].bits;
                known = true;
            }
        }
        if (!known) return false;
        s += n;
        s += strspn(s, ", ");
    }
    *out = bits;
    return true;
}

static void read_env(void) {
    if (env_read) return;
    env_read = true;
    const char *e = getenv("CUSHIM_MOCK_CHECK");
    if (e != NULL && !parse(e, &env_checks)) {
        fprintf(stderr,
                "cushim mock: CUSHIM_MOCK_CHECK=\"%s\" is not a list of memcheck, racecheck, "
                "racecheck-strict, initcheck, synccheck or all; no checks run\n",
                e);
        env_checks = 0;
    }
    const char *m = getenv("CUSHIM_MOCK_CHECK_MODE");
    env_report = m != NULL && strcmp(m, "report") == 0;
    if (m != NULL && !env_report && strcmp(m, "fail") != 0) {
        fprintf(stderr,
                "cushim mock: CUSHIM_MOCK_CHECK_MODE=\"%s\" is neither fail nor report; a check "
                "that fires fails its launch\n",
                m);
    }
}

void mock__check_choose(struct CUctx_st *ctx, unsigned *checks, bool *report) {
    read_env();
    *checks = env_checks;
    *report = env_report;
    if (api_set) {
        *checks = api_checks;
        *report = api_report;
    }
    if (ctx != NULL && ctx->check_set) {
        *checks = ctx->check;
        *report = ctx->check_report;
    }
    if (next_set) {
        *checks = next_checks;
        next_set = false;
    }
    if (*checks != 0) {
        ever = true;
        ever_checks |= *checks;
    }
}

void mock__check_fault(unsigned checks, CUresult r) {
    if ((checks & CUSHIM_MOCK_CHECK_MEMCHECK) &&
        (r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_MISALIGNED_ADDRESS))
        __atomic_fetch_add(&mem_reports, 1, __ATOMIC_RELAXED);
}

void mock__check_leak(const mock_range *r, const char *when) {
    read_env();
    unsigned checks = api_set ? api_checks : env_checks;
    if (r->ctx != NULL && r->ctx->check_set) checks = r->ctx->check;
    if (!(checks & CUSHIM_MOCK_CHECK_MEMCHECK) || r->kind != MOCK_MEM_DEVICE) return;
    __atomic_fetch_add(&mem_reports, 1, __ATOMIC_RELAXED);
    fprintf(stderr,
            "cushim mock: memcheck: a leak: the %zu-byte allocation at 0x%llx made by %s was "
            "not freed when %s\n",
            r->size, (unsigned long long)r->base, r->made_by, when);
}

bool mock__check_keeps_init(struct CUctx_st *ctx) {
    read_env();
    unsigned checks = api_set ? api_checks : env_checks;
    if (ctx != NULL && ctx->check_set) checks = ctx->check;
    return (checks & CUSHIM_MOCK_CHECK_INITCHECK) != 0;
}

/* A bit of a written-bits map, and the same bit set or cleared. */
static bool bit_of(const unsigned char *map, size_t i) {
    return (__atomic_load_n(&map[i / 8], __ATOMIC_RELAXED) >> (i % 8)) & 1;
}

static void bit_put(unsigned char *map, size_t i, bool on) {
    unsigned char bit = (unsigned char)(1u << (i % 8));
    if (on)
        __atomic_fetch_or(&map[i / 8], bit, __ATOMIC_RELAXED);
    else if (bit_of(map, i))
        __atomic_fetch_and(&map[i / 8], (unsigned char)~bit, __ATOMIC_RELAXED);
}

void mock__check_written(uintptr_t dst, size_t width, size_t height, size_t pitch) {
    uintptr_t lo, hi;
    unsigned char *map = mock__init_map(dst, &lo, &hi);
    for (size_t y = 0; map != NULL && y < height; y++) {
        uintptr_t row = dst + y * pitch;
        if (row < lo || row >= hi) break;
        size_t n = width < hi - row ? width : hi - row;
        mock_ptx_bits_set(map, row - lo, n);
        unsigned char *undef = map + (hi - lo + 7) / 8; /* a defined value now */
        for (size_t i = 0; i < n; i++) bit_put(undef, row - lo + i, false);
    }
}

void mock__check_copied(const mock_mem_op *op) {
    uintptr_t slo = 0, shi = 0, dlo = 0, dhi = 0, src = (uintptr_t)op->src;
    const unsigned char *smap = mock__init_map(src, &slo, &shi);
    if (smap == NULL) return;
    const unsigned char *sundef = smap + (shi - slo + 7) / 8;
    unsigned char *dmap = mock__init_map((uintptr_t)op->dst, &dlo, &dhi);
    unsigned char *dundef = dmap != NULL ? dmap + (dhi - dlo + 7) / 8 : NULL;
    size_t count = 0, first = 0;
    for (size_t y = 0; y < op->height; y++) {
        uintptr_t row = src + y * op->spitch, drow = (uintptr_t)op->dst + y * op->dpitch;
        if (row < slo || row >= shi) break;
        size_t n = op->width < shi - row ? op->width : shi - row;
        for (size_t i = 0; i < n; i++) {
            bool u = bit_of(sundef, row - slo + i);
            if (u && count++ == 0) first = row - slo + i;
            if (dundef != NULL && drow + i >= dlo && drow + i < dhi) {
                bit_put(dundef, drow + i - dlo, u); /* undefined stays undefined */
                if (u) bit_put(dmap, drow + i - dlo, false);
            }
        }
    }
    if (count == 0 || dmap != NULL) return;
    char by[400];
    if (!mock__ptx_undef_by(slo, by, sizeof by)) snprintf(by, sizeof by, "stored by a kernel");
    mock__ptx_check_count(2);
    fprintf(
        stderr,
        "cushim mock: initcheck: %s copies %zu bytes to the host (the first of them %zu bytes into "
        "the %zu-byte allocation at 0x%llx) that hold a value read from memory that nothing "
        "wrote, %s\n",
        op->entry != NULL ? op->entry : "a copy", count, first, (size_t)(shi - slo),
        (unsigned long long)slo, by);
}

bool mock__host_memory(uintptr_t p) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) return false;
    unsigned long long lo, hi;
    bool found = false;
    char line[512];
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && p >= lo && p < hi) found = true;
    }
    fclose(f);
    return found;
}

static unsigned long long reports(int kind) {
    if (kind == 0) return __atomic_load_n(&mem_reports, __ATOMIC_RELAXED);
    return mock__ptx_check_reports(kind);
}

/* The summary at exit, by kind, when any launch ran a check; leaks first. */
__attribute__((destructor)) static void summary(void) {
    read_env();
    if (env_checks & CUSHIM_MOCK_CHECK_MEMCHECK) mock__check_leaks_at_exit();
    if (!ever && env_checks == 0) return;
    fprintf(stderr,
            "cushim mock: CUSHIM_MOCK_CHECK summary: %llu memcheck, %llu racecheck, %llu "
            "initcheck, %llu synccheck reports\n",
            reports(0), reports(1), reports(2), reports(3));
}

static void ctl_set_check(CUcontext ctx, unsigned checks, bool report) {
    mock__lock();
    if (ctx == NULL) {
        api_set = true;
        api_checks = checks;
        api_report = report;
    } else {
        mock_obj *o = mock__find(ctx);
        if (o == NULL || o->kind != CUSHIM_MOCK_CONTEXT) {
            mock__unlock();
            return;
        }
        ctx->check_set = true;
        ctx->check = checks;
        ctx->check_report = report;
    }
    mock__unlock();
}

static void ctl_set_next_launch_check(unsigned checks) {
    mock__lock();
    next_set = true;
    next_checks = checks;
    mock__unlock();
}

static unsigned long long ctl_check_reports(int kind) { return reports(kind); }

void mock__check_reset(void) {
    api_set = next_set = false;
    env_read = false;
}

void mock__check_api(cushim_mock_api *api) {
    api->set_check = ctl_set_check;
    api->set_next_launch_check = ctl_set_next_launch_check;
    api->check_reports = ctl_check_reports;
}
