/* The integer kernels of one thread each against host references, bit for bit: bit tricks,
 * divergent control flow, local arrays, grid shapes, a structure by value, called functions. */
#include "kernel_util.h"

/* Runs a kernel `entry` of module `name` with parameters (in, out, n) over n words, 128 threads a
 * block, and returns the n words it wrote (out_per_item each); the caller frees them. */
static uint32_t *run_words(const char *name, const char *entry, const uint32_t *in, int n,
                           int out_per_item) {
    const cushim_function *f = kernel_get(name, entry);
    size_t out_bytes = (size_t)n * (size_t)out_per_item * sizeof(uint32_t);
    CUdeviceptr din = dev_copy(in, (size_t)n * sizeof *in), dout = dev_zeroed(out_bytes);
    void *params[] = {&din, &dout, &n};
    kernel_run(f, CUSHIM_DIM3(((unsigned)n + 127) / 128), CUSHIM_DIM3(128), 0, params);
    uint32_t *out = host_alloc(out_bytes);
    dev_take(out, dout, out_bytes);
    assert_ok(cushim_driver()->cuMemFree(din));
    return out;
}

static uint32_t *random_words(int n, uint32_t seed, uint32_t modulo) {
    uint32_t *w = host_alloc((size_t)n * sizeof *w);
    for (int i = 0; i < n; i++) w[i] = modulo ? 1 + rng_next(&seed) % modulo : rng_next(&seed);
    return w;
}

static uint32_t popc64(uint64_t x) {
    uint32_t c = 0;
    for (; x; x &= x - 1) c++;
    return c;
}

static uint32_t clz64(uint64_t x) {
    uint32_t c = 0;
    for (uint64_t bit = 1ull << 63; bit && !(x & bit); bit >>= 1) c++;
    return c;
}

static uint64_t brev64(uint64_t x) {
    uint64_t r = 0;
    for (int i = 0; i < 64; i++) r |= ((x >> i) & 1) << (63 - i);
    return r;
}

static uint32_t ffs64(uint64_t x) { return x ? popc64((x & (~x + 1)) - 1) + 1 : 0; }

/* bfe as the PTX ISA defines it, for 32-bit operands. */
static uint32_t bfe32(uint32_t a, uint32_t pos, uint32_t len, bool is_signed) {
    uint32_t top = pos + len - 1 < 31 ? pos + len - 1 : 31;
    uint32_t sbit = is_signed && len > 0 ? (a >> top) & 1 : 0, d = 0;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t bit = i < len && pos + i <= 31 ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}

static uint32_t bfi32(uint32_t field, uint32_t base, uint32_t pos, uint32_t len) {
    for (uint32_t i = 0; i < len && pos + i <= 31; i++) {
        base = (base & ~(1u << (pos + i))) | (((field >> i) & 1) << (pos + i));
    }
    return base;
}

static void bits_reference(uint32_t x, uint32_t y, uint32_t *o) {
    uint64_t wide = (uint64_t)x << 32 | y, pair = (uint64_t)y << 32 | x;
    uint32_t sel = y & 0x7777, perm = 0;
    for (int k = 0; k < 4; k++)
        perm |= (uint32_t)(pair >> (8 * ((sel >> (4 * k)) & 7)) & 0xff) << (8 * k);
    uint32_t diff = (int32_t)x > (int32_t)y ? x - y : y - x;
    uint32_t udiff = (x >> 4) > (y >> 4) ? (x >> 4) - (y >> 4) : (y >> 4) - (x >> 4);
    uint32_t lc = (y & 63) < 32 ? y & 63 : 32;
    o[0] = popc64(x);
    o[1] = x ? clz64(x) - 32 : 32;
    o[2] = (uint32_t)(brev64(x) >> 32);
    o[3] = perm;
    o[4] = (uint32_t)((pair << (y & 31)) >> 32);
    o[5] = (uint32_t)(pair >> (x & 31));
    o[6] = (uint32_t)((pair << lc) >> 32);
    o[7] = bfe32(x, y & 31, (y >> 5) & 31, false);
    o[8] = bfe32(x, (y >> 10) & 31, ((y >> 15) & 31) + 1, true);
    o[9] = bfi32(y, x, (x >> 20) & 31, (x >> 25) & 31);
    o[10] = popc64(wide) + 64 * clz64(wide);
    o[11] = (uint32_t)(brev64(wide) >> 16);
    o[12] = ffs64(x) + 64 * ffs64(wide);
    o[13] = (uint32_t)(((uint64_t)x * y) >> 32) ^
            (uint32_t)((uint64_t)((int64_t)(int32_t)x * (int32_t)y) >> 32);
    o[14] = (uint32_t)((int32_t)x >> (y & 31)) ^ (x >> ((y >> 8) & 31));
    o[15] = diff + 7u + udiff + 3u;
}

void kernel_bits(void **state) {
    (void)state;
    enum { N = 1000 };
    uint32_t *a = random_words(N, 5, 0), *b = random_words(N, 6, 0);
    const uint32_t special[] = {0, 1, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x00010000u};
    for (int i = 0; i < 6; i++) {
        a[i] = special[i];
        b[N - 1 - i] = special[i];
        a[6 + i] = b[6 + i] = special[i];
    }
    const cushim_function *f = kernel_get("bits", "k_bits");
    int n = N;
    CUdeviceptr da = dev_copy(a, N * sizeof *a), db = dev_copy(b, N * sizeof *b),
                dout = dev_zeroed(16 * N * sizeof(uint32_t));
    void *params[] = {&da, &db, &dout, &n};
    kernel_run(f, CUSHIM_DIM3((N + 127) / 128), CUSHIM_DIM3(128), 0, params);
    uint32_t *out = host_alloc(16 * N * sizeof *out);
    dev_take(out, dout, 16 * N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(da));
    assert_ok(cushim_driver()->cuMemFree(db));
    mismatch m = {"bits", 0};
    for (int i = 0; i < N; i++) {
        uint32_t want[16];
        bits_reference(a[i], b[i], want);
        for (int k = 0; k < 16; k++)
            mismatch_u32(&m, (size_t)(16 * i + k), out[16 * i + k], want[k]);
    }
    assert_int_equal(m.wrong, 0);
    free(a);
    free(b);
    free(out);
}

void kernel_divergent(void **state) {
    (void)state;
    enum { N = 2000 };
    uint32_t *in = random_words(N, 7, 100000);
    uint32_t *out = run_words("divergent", "k_divergent", in, N, 1);
    mismatch m = {"out", 0};
    for (int i = 0; i < N; i++) {
        uint32_t v = in[i], steps = 0, r;
        if (v % 13 == 0) {
            mismatch_u32(&m, (size_t)i, out[i], 0xdead0000u | (v & 0xffff));
            continue;
        }
        while (v != 1 && steps < 200) {
            v = (v & 1) ? 3 * v + 1 : v / 2;
            steps++;
        }
        switch (in[i] % 7) {
        case 0: r = steps; break;
        case 1: r = steps * 3 + 1; break;
        case 2: r = steps ^ 0x55; break;
        case 3:
            r = 0;
            for (uint32_t k = 0; k < (in[i] & 15) && r <= 100; k++) r += k * k;
            break;
        case 4: r = ~steps; break;
        default: r = steps << 4; break;
        }
        mismatch_u32(&m, (size_t)i, out[i], r);
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
}

void kernel_local_array(void **state) {
    (void)state;
    enum { N = 1000 };
    uint32_t *idx = random_words(N, 8, 0);
    uint32_t *out = run_words("local_array", "k_local_array", idx, N, 1);
    mismatch m = {"out", 0};
    for (int i = 0; i < N; i++) {
        uint32_t a[24], s = 0;
        for (uint32_t k = 0; k < 24; k++) a[k] = (uint32_t)i * 31 + k * k;
        for (int k = 0; k < 8; k++) {
            uint32_t j = idx[(i + k) % N] % 24;
            a[j] += s;
            s += a[(j * 5 + 3) % 24];
        }
        mismatch_u32(&m, (size_t)i, out[i], s);
    }
    assert_int_equal(m.wrong, 0);
    free(idx);
    free(out);
}

void kernel_gridstride(void **state) {
    (void)state;
    enum { N = 100003 };
    uint32_t *in = random_words(N, 9, 0), *out = host_alloc(N * sizeof *out);
    const cushim_function *f = kernel_get("gridstride", "k_gridstride");
    unsigned n = N;
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dout = dev_zeroed(N * sizeof *out);
    void *params[] = {&din, &dout, &n};
    kernel_run(f, CUSHIM_DIM3(20), CUSHIM_DIM3(128), 0, params);
    dev_take(out, dout, N * sizeof *out);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"out", 0};
    for (uint32_t i = 0; i < N; i++) mismatch_u32(&m, i, out[i], in[i] * 2654435761u + i);
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
}

void kernel_grid3d(void **state) {
    (void)state;
    const cushim_dim3 grid = CUSHIM_DIM3(3, 2, 2), block = CUSHIM_DIM3(4, 3, 2);
    const unsigned per_block = block.x * block.y * block.z,
                   total = grid.x * grid.y * grid.z * per_block;
    const cushim_function *f = kernel_get("grid3d", "k_grid3d");
    CUdeviceptr dout = dev_zeroed(2 * total * sizeof(uint32_t));
    void *params[] = {&dout};
    kernel_run(f, grid, block, 0, params);
    uint32_t *out = host_alloc(2 * total * sizeof *out);
    dev_take(out, dout, 2 * total * sizeof *out);
    mismatch m = {"out", 0};
    for (unsigned bz = 0, g = 0; bz < grid.z; bz++) {
        for (unsigned by = 0; by < grid.y; by++) {
            for (unsigned bx = 0; bx < grid.x; bx++) {
                for (unsigned t = 0; t < per_block; t++, g++) {
                    unsigned tx = t % block.x, ty = t / block.x % block.y,
                             tz = t / block.x / block.y;
                    mismatch_u32(&m, 2 * g, out[2 * g], tx | ty << 8 | tz << 16 | block.z << 24);
                    mismatch_u32(&m, 2 * g + 1, out[2 * g + 1],
                                 bx | by << 8 | bz << 16 | grid.y << 24);
                }
            }
        }
    }
    assert_int_equal(m.wrong, 0);
    free(out);
}

/* The kernel's structure as the host lays it out, which is how nvcc lays it out too. */
struct params {
    char tag;
    double offset;
    short small;
    float scale;
    int table[3];
    unsigned long long mask;
    CUdeviceptr out;
    int n;
};

void kernel_struct_param(void **state) {
    (void)state;
    enum { N = 100 };
    const cushim_function *f = kernel_get("struct_param", "k_struct_param");
    struct params p = {.tag = 5,
                       .offset = 2.5,
                       .small = -7,
                       .scale = 0.75f,
                       .table = {100, -200, 300},
                       .mask = 0xf0f0f0f00ff00ff1ull,
                       .n = N};
    p.out = dev_zeroed(N * sizeof(int));
    void *params[] = {&p};
    kernel_run(f, CUSHIM_DIM3(2), CUSHIM_DIM3(64), 0, params);
    int out[N];
    dev_take(out, p.out, sizeof out);
    mismatch m = {"out", 0};
    for (int i = 0; i < N; i++) {
        double v = (double)i * p.scale + p.offset;
        int want = (int)v + p.table[i % 3] + p.tag * p.small + (int)((p.mask >> (i % 64)) & 1);
        mismatch_u32(&m, (size_t)i, (uint32_t)out[i], (uint32_t)want);
    }
    assert_int_equal(m.wrong, 0);
}

static uint32_t mix(uint32_t a, float b, const uint32_t *p, int k) {
    uint32_t s = a;
    for (int j = 0; j < k; j++) s = s * 33 + p[j];
    return s + (uint32_t)(int)(b * 4.0f);
}

void kernel_noinline(void **state) {
    (void)state;
    enum { N = 500 };
    uint32_t *in = random_words(N, 10, 1000);
    const cushim_function *f = kernel_get("noinline", "k_noinline");
    int n = N;
    CUdeviceptr din = dev_copy(in, N * sizeof *in), dout = dev_zeroed(N * sizeof(uint32_t)),
                dwide = dev_zeroed(N * sizeof(uint64_t));
    void *params[] = {&din, &dout, &dwide, &n};
    kernel_run(f, CUSHIM_DIM3((N + 63) / 64), CUSHIM_DIM3(64), 0, params);
    uint32_t *out = host_alloc(N * sizeof *out);
    uint64_t *wide = host_alloc(N * sizeof *wide);
    dev_take(out, dout, N * sizeof *out);
    dev_take(wide, dwide, N * sizeof *wide);
    assert_ok(cushim_driver()->cuMemFree(din));
    mismatch m = {"out", 0};
    for (int i = 0; i < N; i++) {
        uint32_t acc = 0;
        for (int r = 0; r < 3; r++)
            acc ^= mix(in[i] + (uint32_t)r, (float)r * 0.25f, in + i % 8, i % 5);
        mismatch_u32(&m, (size_t)i, out[i], acc);
        uint64_t w = ((uint64_t)i << 32 | acc) * 3u;
        mismatch_u32(&m, (size_t)i, (uint32_t)wide[i], (uint32_t)w);
        mismatch_u32(&m, (size_t)i, (uint32_t)(wide[i] >> 32), (uint32_t)(w >> 32));
    }
    assert_int_equal(m.wrong, 0);
    free(in);
    free(out);
    free(wide);
}
