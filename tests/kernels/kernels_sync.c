/* The kernels whose threads meet or share: shared memory and barriers, warp shuffles and votes,
 * atomics, and device-side printf. Every result is an integer, or a float with an exact answer
 * whatever order the threads run in. */
#include <unistd.h>

#include "kernel_util.h"

void kernel_reduce(void **state) {
    (void)state;
    enum { N = 100000 };
    int *in = host_alloc(N * sizeof *in);
    uint32_t seed = 11;
    int want = 0;
    for (int i = 0; i < N; i++) want += in[i] = (int)(rng_next(&seed) % 2001) - 1000;
    const cushim_function *f = kernel_get("reduce", "k_reduce");
    int n = N;
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dtotal = dev_zeroed(sizeof(int));
    void *params[] = {&din, &n, &dtotal};
    kernel_run(f, CUSHIM_DIM3((N + 255) / 256), CUSHIM_DIM3(256), 0, params);
    int total = 0;
    dev_take(&total, dtotal, sizeof total);
    assert_ok(cushim_driver()->cuMemFree(din));
    assert_int_equal(total, want);
    free(in);
}

void kernel_histogram(void **state) {
    (void)state;
    enum { N = 200000 };
    unsigned char *data = host_alloc(N);
    uint32_t seed = 12, want[256] = {0}, bins[256];
    for (int i = 0; i < N; i++) {
        /* Skewed towards low bytes, so that many threads hit the same bin at once. */
        uint32_t r = rng_next(&seed);
        data[i] = (unsigned char)(r & (r & 0x100 ? 0x0f : 0xff));
        want[data[i]]++;
    }
    const cushim_function *f = kernel_get("histogram", "k_histogram");
    int n = N;
    CUdeviceptr ddata = dev_copy(data, N), dbins = dev_zeroed(sizeof bins);
    void *params[] = {&ddata, &n, &dbins};
    kernel_run(f, CUSHIM_DIM3(64), CUSHIM_DIM3(256), 0, params);
    dev_take(bins, dbins, sizeof bins);
    assert_ok(cushim_driver()->cuMemFree(ddata));
    mismatch m = {"bins", 0};
    for (int b = 0; b < 256; b++) mismatch_u32(&m, (size_t)b, bins[b], want[b]);
    assert_int_equal(m.wrong, 0);
    free(data);
}

void kernel_votes(void **state) {
    (void)state;
    enum { BLOCKS = 8, THREADS = 256, N = BLOCKS * THREADS };
    uint32_t *in = host_alloc(N * sizeof *in), seed = 13;
    for (int i = 0; i < N; i++) {
        in[i] = rng_next(&seed) % 5000;
        /* Warp 1 of each block has no zero (all true); block 2 has a 7 (the and/or differ). */
        if (i / 32 % 8 == 1 && in[i] == 0) in[i] = 5;
        if (i / 32 % 8 != 1 && i % 32 == 17) in[i] = 0;
        if (i / 32 % 8 != 1 && i % 97 == 3) in[i] = 97 * (uint32_t)i;
    }
    in[2 * THREADS + 40] = 7;
    const cushim_function *f = kernel_get("votes", "k_votes");
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dwarp = dev_zeroed(3 * N * sizeof(uint32_t)),
                dblock = dev_zeroed(3 * BLOCKS * sizeof(uint32_t));
    void *params[] = {&din, &dwarp, &dblock};
    kernel_run(f, CUSHIM_DIM3(BLOCKS), CUSHIM_DIM3(THREADS), 0, params);
    uint32_t *warp = host_alloc(3 * N * sizeof *warp), block[3 * BLOCKS];
    dev_take(warp, dwarp, 3 * N * sizeof *warp);
    dev_take(block, dblock, sizeof block);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"votes", 0};
    for (int w = 0; w < N / 32; w++) {
        uint32_t ballot = 0, all = 1, any = 0;
        for (int l = 0; l < 32; l++) {
            uint32_t v = in[32 * w + l];
            ballot |= (v & 1) << l;
            all &= v != 0;
            any |= v % 97 == 0;
        }
        for (int l = 0; l < 32; l++) {
            size_t i = (size_t)(32 * w + l);
            mismatch_u32(&m, 3 * i, warp[3 * i], ballot);
            mismatch_u32(&m, 3 * i + 1, warp[3 * i + 1] != 0, all);
            mismatch_u32(&m, 3 * i + 2, warp[3 * i + 2] != 0, any);
        }
    }
    for (int b = 0; b < BLOCKS; b++) {
        uint32_t count = 0, land = 1, lor = 0;
        for (int t = 0; t < THREADS; t++) {
            uint32_t v = in[b * THREADS + t];
            count += v % 3 == 0;
            land &= v % 1000 != 7;
            lor |= v % 1000 == 7;
        }
        mismatch_u32(&m, (size_t)(3 * b), block[3 * b], count);
        mismatch_u32(&m, (size_t)(3 * b + 1), block[3 * b + 1] != 0, land);
        mismatch_u32(&m, (size_t)(3 * b + 2), block[3 * b + 2] != 0, lor);
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(warp);
}

void kernel_shuffle(void **state) {
    (void)state;
    enum { N = 256 };
    int32_t *in = host_alloc(N * sizeof *in), *out = host_alloc(4 * N * sizeof *out);
    uint32_t seed = 14;
    for (int i = 0; i < N; i++) in[i] = (int32_t)(rng_next(&seed) % 100000) - 50000;
    const cushim_function *f = kernel_get("shuffle", "k_shuffle");
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dout = dev_zeroed(4 * N * sizeof *out);
    void *params[] = {&din, &dout};
    kernel_run(f, CUSHIM_DIM3(N / 64), CUSHIM_DIM3(64), 0, params);
    dev_take(out, dout, 4 * N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"shuffle", 0};
    for (int i = 0; i < N; i++) {
        const int32_t *warp = in + i / 32 * 32;
        int lane = i % 32;
        int32_t sum = 0;
        for (int l = 0; l < 32; l++) sum += warp[l];
        int32_t want[4] = {sum, warp[in[i] & 31], lane % 8 >= 3 ? warp[lane - 3] : in[i],
                           (lane % 16 + 5 < 16 ? warp[lane + 5] : in[i]) + 0xff};
        for (int k = 0; k < 4; k++) {
            mismatch_u32(&m, (size_t)(4 * i + k), (uint32_t)out[4 * i + k], (uint32_t)want[k]);
        }
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
}

void kernel_dynshared(void **state) {
    (void)state;
    enum { BLOCKS = 16, THREADS = 128, N = BLOCKS * THREADS };
    int *in = host_alloc(N * sizeof *in), *out = host_alloc(N * sizeof *out);
    double *dout_host = host_alloc(N * sizeof *dout_host);
    for (int i = 0; i < N; i++) in[i] = i * 7 - 3000;
    const cushim_function *f = kernel_get("dynshared", "k_dynshared");
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dout = dev_zeroed(N * sizeof *out),
                ddout = dev_zeroed(N * sizeof *dout_host);
    void *params[] = {&din, &dout, &ddout};
    kernel_run(f, CUSHIM_DIM3(BLOCKS), CUSHIM_DIM3(THREADS),
               THREADS * (sizeof(double) + sizeof(int)), params);
    dev_take(out, dout, N * sizeof *out);
    dev_take(dout_host, ddout, N * sizeof *dout_host);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"out", 0};
    for (int i = 0; i < N; i++) {
        int from = i / THREADS * THREADS + THREADS - 1 - i % THREADS;
        mismatch_u32(&m, (size_t)i, (uint32_t)out[i], (uint32_t)in[from]);
        mismatch_f32(&m, (size_t)i, (float)dout_host[i], (float)(in[from] * 0.5), 0);
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
    free(dout_host);
}

void kernel_atomic_cas(void **state) {
    (void)state;
    enum { N = 5000 };
    float *in = host_alloc(N * sizeof *in), want = -1e30f, max = -1e30f;
    uint32_t seed = 15, ticket = 0;
    for (int i = 0; i < N; i++) {
        in[i] = rng_float(&seed, -1000, 1000);
        if (in[i] > want) want = in[i];
    }
    const cushim_function *f = kernel_get("atomic_cas", "k_atomic_cas");
    int n = N;
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dmax = dev_copy(&max, sizeof max),
                dticket = dev_zeroed(sizeof ticket);
    void *params[] = {&din, &n, &dmax, &dticket};
    kernel_run(f, CUSHIM_DIM3((N + 127) / 128), CUSHIM_DIM3(128), 0, params);
    dev_take(&max, dmax, sizeof max);
    dev_take(&ticket, dticket, sizeof ticket);
    assert_ok(cushim_driver()->cuMemFree(din));
    assert_true(max == want);
    assert_int_equal(ticket, N);
    free(in);
}

void kernel_atomic64(void **state) {
    (void)state;
    enum { N = 3000 };
    int64_t *in = host_alloc(N * sizeof *in);
    uint32_t seed = 16;
    uint64_t want[6] = {0, 0, 0, 0, 0, 0}, acc[6] = {0, ~0ull, 0, 0, 0, 0};
    int64_t minmax[2] = {INT64_MAX, INT64_MIN}, want_mm[2] = {INT64_MAX, INT64_MIN};
    double dsum = 0, want_dsum = 0;
    for (int i = 0; i < N; i++) {
        in[i] = (int64_t)((uint64_t)rng_next(&seed) << 20 ^ rng_next(&seed)) - (1ll << 50);
        uint64_t v = (uint64_t)in[i];
        want[0] += v;
        want[2] |= 1ull << (v % 64);
        want[3] ^= v;
        want[5] += (uint64_t)(i & 7);
        if (in[i] < want_mm[0]) want_mm[0] = in[i];
        if (in[i] > want_mm[1]) want_mm[1] = in[i];
        want_dsum += (double)(in[i] & 0xffff) * 0.25;
    }
    want[4] = (uint64_t)in[N / 2];
    const cushim_function *f = kernel_get("atomic64", "k_atomic64");
    int n = N;
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dacc = dev_copy(acc, sizeof acc),
                dmm = dev_copy(minmax, sizeof minmax), dsumd = dev_zeroed(sizeof dsum);
    void *params[] = {&din, &n, &dacc, &dmm, &dsumd};
    kernel_run(f, CUSHIM_DIM3((N + 255) / 256), CUSHIM_DIM3(256), 0, params);
    dev_take(acc, dacc, sizeof acc);
    dev_take(minmax, dmm, sizeof minmax);
    dev_take(&dsum, dsumd, sizeof dsum);
    assert_ok(cushim_driver()->cuMemFree(din));
    for (int k = 0; k < 6; k++) {
        if (acc[k] != want[k])
            fail_msg("acc[%d] = %#llx, want %#llx", k, (unsigned long long)acc[k],
                     (unsigned long long)want[k]);
    }
    assert_true(minmax[0] == want_mm[0]);
    assert_true(minmax[1] == want_mm[1]);
    assert_true(dsum == want_dsum);
    free(in);
}

static int compare_lines(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void kernel_printf(void **state) {
    (void)state;
    enum { BLOCKS = 2, THREADS = 4, LINES = BLOCKS * THREADS };
    const cushim_function *f = kernel_get("printf", "k_printf");
    int base = 1000;
    void *params[] = {&base};
    /* Device printf goes to the process's stdout: catch it in a file for the launch. */
    FILE *caught = tmpfile();
    assert_non_null(caught);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(caught), STDOUT_FILENO) >= 0);
    kernel_run(f, CUSHIM_DIM3(BLOCKS), CUSHIM_DIM3(THREADS), 0, params);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    rewind(caught);
    char got[LINES + 1][160], want[LINES][160];
    char *got_p[LINES + 1], *want_p[LINES];
    int n = 0;
    while (n <= LINES && fgets(got[n], sizeof got[n], caught) != NULL) {
        got_p[n] = got[n];
        n++;
    }
    fclose(caught);
    for (unsigned t = 0; t < LINES; t++) {
        snprintf(want[t], sizeof want[t],
                 "kernel says: thread %u of block %u, value %d, half %.2f, %s, %llx\n", t,
                 t / THREADS, base + (int)t, 0.5 * t, t % 2 ? "odd" : "even",
                 (unsigned long long)t * 0x100000001ull);
        want_p[t] = want[t];
    }
    for (int i = 0; i < n; i++) printf("# caught: %s", got[i]);
    assert_int_equal(n, LINES);
    /* Threads print in any order: compare the sorted lines. */
    qsort(got_p, LINES, sizeof *got_p, compare_lines);
    qsort(want_p, LINES, sizeof *want_p, compare_lines);
    for (int i = 0; i < LINES; i++) assert_string_equal(got_p[i], want_p[i]);
}
