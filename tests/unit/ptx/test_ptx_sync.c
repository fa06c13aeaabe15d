/* Threads meeting: barriers (with divergence before them and bar.red), warp collectives
 * (shfl.sync, vote.sync, match.sync, redux.sync, activemask), atomics from blocks on several
 * host threads, and a cooperative grid barrier built from atomics and spins. The pool of host
 * threads serves launches from several threads at once, and survives fork(): a child makes its
 * own and runs a grid over it. */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptx_pool.h"
#include "ptx_run.h"
#include "ptx_util.h"

/* TSan starts no thread in the child of a multi-threaded fork: the fork test is left out. */
#if defined(__SANITIZE_THREAD__)
#define NO_FORK_THREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_FORK_THREADS 1
#endif
#endif

/* PTX ISA, "bar, barrier": every thread writes its slot, meets the others, then reads its
 * neighbour's; odd threads take a longer path first. bar.red.popc counts the odd ones. */
static const char bar_ptx[] =
    HEAD ".shared .align 4 .b8 s[4096];\n"
         ".visible .entry k(.param .u64 out, .param .u64 cnt)\n{\n"
         ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
         "mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;\n"
         "and.b32 %r3, %r1, 1; setp.eq.u32 %p1, %r3, 1; mov.u32 %r4, 0;\n"
         "@!%p1 bra SKIP;\n"
         "LOOP: add.u32 %r4, %r4, 1; setp.lt.u32 %p2, %r4, 100; @%p2 bra LOOP;\n"
         "SKIP: shl.b32 %r5, %r1, 2; mov.u32 %r6, s; add.u32 %r7, %r6, %r5;\n"
         "add.u32 %r8, %r1, %r4; st.shared.u32 [%r7], %r8;\n"
         "bar.sync 0;\n"
         "add.u32 %r9, %r1, 1; rem.u32 %r9, %r9, %r2; shl.b32 %r9, %r9, 2; add.u32 %r9, %r6, %r9;\n"
         "ld.shared.u32 %r10, [%r9];\n"
         "ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.u32 [%rd3], %r10;\n"
         "bar.red.popc.u32 %r11, 0, %p1;\n"
         "ld.param.u64 %rd4, [cnt]; add.s64 %rd5, %rd4, %rd2; st.global.u32 [%rd5], %r11;\n"
         "ret;\n}\n";

static void test_barrier_with_divergence(void **state) {
    (void)state;
    enum { N = 96 };
    uint32_t *out = dev_alloc(N * 4), *cnt = dev_alloc(N * 4);
    void *p[] = {&out, &cnt};
    assert_ok(run(bar_ptx, "k", 1, N, p));
    for (uint32_t i = 0; i < N; i++) {
        uint32_t j = (i + 1) % N;
        assert_int_equal(out[i], j + ((j & 1) ? 100 : 0));
        assert_int_equal(cnt[i], N / 2);
    }
    dev_free_all();
}

/* PTX ISA, "shfl.sync", "vote.sync", "match.sync", "redux.sync", "activemask": a butterfly
 * sum, a ballot, a match of equal values, a reduction, the active lanes inside a branch. */
static const char warp_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n"
         "mov.u32 %r1, %laneid; mov.u32 %r2, %tid.x;\n"
         "shfl.sync.bfly.b32 %r3, %r1, 16, 31, -1; add.u32 %r4, %r1, %r3;\n"
         "shfl.sync.bfly.b32 %r3, %r4, 8, 31, -1; add.u32 %r4, %r4, %r3;\n"
         "shfl.sync.bfly.b32 %r3, %r4, 4, 31, -1; add.u32 %r4, %r4, %r3;\n"
         "shfl.sync.bfly.b32 %r3, %r4, 2, 31, -1; add.u32 %r4, %r4, %r3;\n"
         "shfl.sync.bfly.b32 %r3, %r4, 1, 31, -1; add.u32 %r4, %r4, %r3;\n"
         "and.b32 %r5, %r1, 3; setp.eq.u32 %p1, %r5, 0;\n"
         "vote.sync.ballot.b32 %r6, %p1, -1;\n"
         "shr.u32 %r7, %r1, 3; match.any.sync.b32 %r8, %r7, -1;\n"
         "redux.sync.max.u32 %r9, %r2, -1;\n"
         "mov.u32 %r10, 0;\n"
         "@!%p1 bra NOT;\n"
         "activemask.b32 %r10;\n"
         "NOT: shfl.sync.up.b32 %r11|%p2, %r1, 1, 0, -1;\n"
         "ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r2, 32; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.v4.u32 [%rd3], {%r4, %r6, %r8, %r9};\n"
         "st.global.v2.u32 [%rd3+16], {%r10, %r11};\n"
         "ret;\n}\n";

static void test_warp_collectives(void **state) {
    (void)state;
    enum { N = 64 };
    uint32_t *out = dev_alloc(N * 32);
    void *p[] = {&out};
    assert_ok(run(warp_ptx, "k", 1, N, p));
    for (uint32_t i = 0; i < N; i++) {
        uint32_t *o = out + i * 8, lane = i % 32, warp = i / 32;
        assert_int_equal(o[0], 31 * 32 / 2);
        assert_int_equal(o[1], 0x11111111u);
        assert_int_equal(o[2], 0xffu << (8 * (lane / 8)));
        assert_int_equal(o[3], warp * 32 + 31);
        assert_int_equal(o[4], lane % 4 == 0 ? 0x11111111u : 0);
        assert_int_equal(o[5], lane == 0 ? 0 : lane - 1);
    }
    dev_free_all();
}

/* PTX ISA, "atom": 64 blocks add to one counter and a float sum, blocks on two host
 * threads; then an atomicCAS-style loop, and 64-bit max. */
static const char atom_ptx[] =
    HEAD ".visible .entry k(.param .u64 c)\n{\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f1; .reg .pred %p1;\n"
         "ld.param.u64 %rd1, [c]; cvta.to.global.u64 %rd1, %rd1;\n"
         "atom.global.add.u32 %r1, [%rd1], 1;\n"
         "red.global.add.f32 [%rd1+4], 0f3F800000;\n"
         "ld.global.u32 %r2, [%rd1+8];\n"
         "RETRY: add.u32 %r3, %r2, 3; atom.global.cas.b32 %r4, [%rd1+8], %r2, %r3;\n"
         "setp.ne.u32 %p1, %r4, %r2; mov.u32 %r2, %r4; @%p1 bra RETRY;\n"
         "cvt.u64.u32 %rd2, %r1; atom.global.max.u64 %rd3, [%rd1+16], %rd2;\n"
         "ret;\n}\n";

static void test_atomics_across_host_threads(void **state) {
    (void)state;
    uint32_t *c = dev_alloc(32);
    void *p[] = {&c};
    assert_ok(run_ex(atom_ptx, "k", 64, 256, p, 2, false, NULL));
    float f;
    memcpy(&f, &c[1], 4);
    uint64_t mx;
    memcpy(&mx, &c[4], 8);
    assert_int_equal(c[0], 64 * 256);
    assert_true(f == 64.0f * 256.0f);
    assert_int_equal(c[2], 3 * 64 * 256);
    assert_int_equal(mx, 64 * 256 - 1);
    dev_free_all();
}

/* Each thread writes %nctaid.x, %tid.x plus an immediate, and %ntid.x. Two kernels of one shape
 * (the same registers), launched one after the other over host threads that keep their blocks'
 * memory between launches (ptx_block.c): each launch sees its own kernel's constants and its
 * own dimensions. */
#define DIMS_PTX(IMM)                                                                              \
    HEAD ".visible .entry k(.param .u64 out)\n{\n"                                                 \
         ".reg .b32 %r<8>; .reg .b64 %rd<4>;\n"                                                    \
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;\n"                 \
         "mov.u32 %r6, %ntid.x; mad.lo.u32 %r3, %r2, %r6, %r1; mul.wide.u32 %rd2, %r3, 12;\n"      \
         "add.s64 %rd3, %rd1, %rd2; mov.u32 %r4, %nctaid.x; add.u32 %r5, %r1, " IMM ";\n"          \
         "st.global.u32 [%rd3], %r4; st.global.u32 [%rd3+4], %r5; st.global.u32 [%rd3+8], %r6;\n"  \
         "ret;\n}\n"

static void dims_launch(const char *text, unsigned grid, unsigned block, uint32_t imm) {
    uint32_t *out = dev_alloc((size_t)grid * block * 12);
    void *p[] = {&out};
    assert_ok(run_ex(text, "k", grid, block, p, 2, false, NULL));
    for (uint32_t i = 0; i < grid * block; i++) {
        assert_int_equal(out[3 * i], grid);
        assert_int_equal(out[3 * i + 1], i % block + imm);
        assert_int_equal(out[3 * i + 2], block);
    }
    dev_free_all();
}

/* One kernel, parsed once, launched in several shapes of 64 threads a block: every thread writes
 * %nctaid.x, %tid.x, %tid.y, %ntid.x, %ntid.y and %nsmid at its linear index. A block kept
 * from the launch before (ptx_block.c) holds that launch's indexes and dimensions, which are
 * set again only where they differ: each launch must see its own. */
static const char shape_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y;\n"
         "mov.u32 %r3, %ntid.x; mov.u32 %r4, %ntid.y; mov.u32 %r5, %ctaid.x;\n"
         "mad.lo.u32 %r6, %r2, %r3, %r1; mul.lo.u32 %r7, %r3, %r4; mad.lo.u32 %r8, %r5, %r7, %r6;\n"
         "mul.wide.u32 %rd2, %r8, 24; add.s64 %rd3, %rd1, %rd2; mov.u32 %r9, %nctaid.x;\n"
         "mov.u32 %r10, %nsmid;\n"
         "st.global.u32 [%rd3], %r9; st.global.u32 [%rd3+4], %r1; st.global.u32 [%rd3+8], %r2;\n"
         "st.global.u32 [%rd3+12], %r3; st.global.u32 [%rd3+16], %r4;\n"
         "st.global.u32 [%rd3+20], %r10;\n"
         "ret;\n}\n";

static void test_kept_block_in_another_shape(void **state) {
    (void)state;
    mock_ptx_module *m = NULL;
    assert_ok(mock__ptx_parse(&m, shape_ptx, strlen(shape_ptx), err, sizeof err));
    const mock_ptx_kernel *k = mock__ptx_kernel(m, "k");
    assert_non_null(k);
    static const struct {
        unsigned grid, bx, by;
        int sms;
    } shape[] = {{4, 64, 1, 132}, {4, 64, 1, 132}, {3, 64, 1, 132}, {4, 32, 2, 132},
                 {4, 16, 4, 132}, {4, 16, 4, 8},   {2, 64, 1, 8}};
    uint32_t *out = dev_alloc(4 * 64 * 24);
    for (size_t s = 0; s < sizeof shape / sizeof shape[0]; s++) {
        memset(out, 0xff, 4 * 64 * 24);
        void *p[] = {&out};
        mock_ptx_launch l = {.grid = {shape[s].grid, 1, 1},
                             .block = {shape[s].bx, shape[s].by, 1},
                             .params = p,
                             .host_threads = 2,
                             .sm_count = shape[s].sms,
                             .check = check};
        assert_ok(mock__ptx_run(k, &l, err, sizeof err));
        for (uint32_t i = 0; i < shape[s].grid * 64; i++) {
            const uint32_t *o = out + 6 * i, t = i % 64;
            assert_int_equal(o[0], shape[s].grid);
            assert_int_equal(o[1], t % shape[s].bx);
            assert_int_equal(o[2], t / shape[s].bx);
            assert_int_equal(o[3], shape[s].bx);
            assert_int_equal(o[4], shape[s].by);
            assert_int_equal(o[5], (uint32_t)shape[s].sms);
        }
    }
    mock__ptx_free(m);
    dev_free_all();
}

/* Two kernels of one shape: `set` leaves a 64-bit value in %rd3, `get` stores %rd3 without
 * writing it first (undefined on a GPU, but it must not depend on what ran before). */
#define REGS_PTX(BODY)                                                                             \
    HEAD ".visible .entry k(.param .u64 out)\n{\n"                                                 \
         ".reg .b64 %rd<4>;\n"                                                                     \
         "ld.param.u64 %rd1, [out]; mov.u64 %rd2, 0x1234567890;\n" BODY                            \
         "st.global.u64 [%rd1], %rd3;\nret;\n}\n"

static uint64_t regs_launch(const char *text) {
    uint64_t *out = dev_alloc(8);
    void *p[] = {&out};
    assert_ok(run_ex(text, "k", 1, 32, p, 1, false, NULL));
    uint64_t v = *out;
    dev_free_all();
    return v;
}

static void test_block_memory_across_launches(void **state) {
    (void)state;
    dims_launch(DIMS_PTX("7"), 4, 64, 7);
    dims_launch(DIMS_PTX("1000"), 3, 64, 1000);
    dims_launch(DIMS_PTX("7"), 6, 64, 7);
    dims_launch(DIMS_PTX("7"), 2, 96, 7); /* another shape: memory of its own */
    dims_launch(DIMS_PTX("1000"), 5, 64, 1000);
    /* A block kept from another kernel starts with that kernel's registers cleared, as a block
     * just made: the same result whatever ran before. */
    uint64_t first = regs_launch(REGS_PTX(""));
    assert_int_equal(regs_launch(REGS_PTX("mov.u64 %rd3, %rd2;\n")), 0x1234567890ull);
    assert_int_equal(regs_launch(REGS_PTX("")), first);
    assert_int_equal(first, 0);
}

/* Each block's thread 0 counts the block's runs and takes the next place in the order blocks
 * ran in: c[0] the places taken, c[1 + place] the block, c[1 + grid + block] its runs. */
static const char once_ptx[] =
    HEAD ".visible .entry k(.param .u64 c)\n{\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
         "mov.u32 %r1, %tid.x; setp.ne.u32 %p1, %r1, 0; @%p1 bra DONE;\n"
         "ld.param.u64 %rd1, [c]; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %nctaid.x;\n"
         "atom.global.add.u32 %r4, [%rd1], 1; add.u32 %r4, %r4, 1;\n"
         "mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;\n"
         "add.u32 %r5, %r2, %r3; add.u32 %r5, %r5, 1; mul.wide.u32 %rd4, %r5, 4;\n"
         "add.s64 %rd5, %rd1, %rd4; atom.global.add.u32 %r6, [%rd5], 1;\n"
         "DONE: ret;\n}\n";

/* The host threads take the grid's blocks in batches from one counter (ptx_sched.c): every block
 * runs once, whatever the grid and the host threads, and with one host thread in order. */
static void test_every_block_once(void **state) {
    (void)state;
    static const unsigned grids[] = {1, 2, 3, 5, 17, 100, 1000, 4099};
    static const int threads[] = {1, 2, 3, 7, 16};
    for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
        for (size_t h = 0; h < sizeof threads / sizeof *threads; h++) {
            unsigned n = grids[g];
            uint32_t *c = dev_alloc((2 * (size_t)n + 1) * 4);
            void *p[] = {&c};
            assert_ok(run_ex(once_ptx, "k", n, 64, p, threads[h], false, NULL));
            assert_int_equal(c[0], n);
            for (unsigned b = 0; b < n; b++) {
                if (c[1 + n + b] != 1)
                    fail_msg("grid %u on %d host threads: block %u ran %u times", n, threads[h], b,
                             c[1 + n + b]);
                if (threads[h] == 1 && c[1 + b] != b)
                    fail_msg("grid %u on 1 host thread: place %u went to block %u", n, b, c[1 + b]);
            }
            dev_free_all();
        }
    }
}

/* Launches from several host threads at once share the pool (ptx_pool.c: each takes idle helpers
 * of its own, and a helper keeps its newest block for its next launch): grids and block shapes
 * differ from thread to thread, so that a helper's kept block often fits no launch it joins. */
enum { CALLERS = 4, CALLER_LAUNCHES = 200 };

typedef struct caller {
    const mock_ptx_kernel *k;
    unsigned grid, block;
    uint32_t *c;
    char err[256];
    int bad; /* launches that failed or ran a block other than once */
} caller;

static void *caller_main(void *arg) {
    caller *t = arg;
    for (int i = 0; i < CALLER_LAUNCHES; i++) {
        memset(t->c, 0, (2 * (size_t)t->grid + 1) * 4);
        void *p[] = {&t->c};
        mock_ptx_launch l = {.grid = {t->grid, 1, 1},
                             .block = {t->block, 1, 1},
                             .params = p,
                             .host_threads = 3,
                             .sm_count = 132,
                             .check = check};
        bool ok =
            mock__ptx_run(t->k, &l, t->err, sizeof t->err) == CUDA_SUCCESS && t->c[0] == t->grid;
        for (unsigned b = 0; ok && b < t->grid; b++) ok = t->c[1 + t->grid + b] == 1;
        t->bad += !ok;
    }
    return NULL;
}

static void test_launches_from_several_threads(void **state) {
    (void)state;
    mock_ptx_module *m = NULL;
    assert_ok(mock__ptx_parse(&m, once_ptx, strlen(once_ptx), err, sizeof err));
    static const unsigned grids[CALLERS] = {1, 7, 64, 300}, blocks[CALLERS] = {64, 32, 96, 64};
    caller t[CALLERS];
    pthread_t th[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        t[i] = (caller){.k = mock__ptx_kernel(m, "k"), .grid = grids[i], .block = blocks[i]};
        assert_non_null(t[i].k);
        t[i].c = dev_alloc((2 * (size_t)grids[i] + 1) * 4);
    }
    for (int i = 0; i < CALLERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, caller_main, &t[i]), 0);
    for (int i = 0; i < CALLERS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < CALLERS; i++) {
        if (t[i].bad != 0)
            fail_msg("grid %u x %u: %d of %d launches wrong (%s)", t[i].grid, t[i].block, t[i].bad,
                     CALLER_LAUNCHES, t[i].err);
    }
    mock__ptx_free(m);
    dev_free_all();
}

/* Several callers share one helper (ptx_pool.c), and the helper's part outlasts a caller's
 * watch, so that each caller sleeps until the helper empties its slot: a caller woken late must
 * not hide from the helper that the next caller of the same helper sleeps too (the helper once
 * kept a flag that the late one cleared, and the next slept for ever: test_ptx_sync's
 * test_launches_from_several_threads hung once in CI). */
enum { SHARERS = 8, SHARER_RUNS = 500 };

static void slow_on_helper(void *arg, void **own) {
    (void)arg;
    if (own != NULL) usleep(300); /* longer than the 200 us a caller watches */
}

static void *sharer_main(void *arg) {
    int *done = arg;
    for (int i = 0; i < SHARER_RUNS; i++) ptx__pool_run(slow_on_helper, NULL, 1, ptx__block_drop);
    __atomic_store_n(done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_callers_sharing_a_helper(void **state) {
    (void)state;
    pthread_t th[SHARERS];
    int done[SHARERS] = {0};
    for (int i = 0; i < SHARERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, sharer_main, &done[i]), 0);
    /* A caller that sleeps for ever would hang the test: it fails instead, after 60 s. */
    for (int waited = 0;; waited++) {
        int n = 0;
        for (int i = 0; i < SHARERS; i++) n += __atomic_load_n(&done[i], __ATOMIC_ACQUIRE);
        if (n == SHARERS) break;
        if (waited == 60000)
            fail_msg("%d of %d callers still wait after 60 s", SHARERS - n, SHARERS);
        usleep(1000);
    }
    for (int i = 0; i < SHARERS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
}

/* A grid barrier from atomics and a spin (as cooperative groups build one): it completes only
 * when every block is resident, as in a cooperative launch. */
static const char grid_ptx[] =
    HEAD ".visible .entry k(.param .u64 c, .param .u64 out)\n{\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
         "ld.param.u64 %rd1, [c]; ld.param.u64 %rd2, [out]; mov.u32 %r1, %nctaid.x;\n"
         "mov.u32 %r5, %tid.x; setp.ne.u32 %p1, %r5, 0; @%p1 bra WAIT;\n"
         "atom.global.add.u32 %r2, [%rd1], 1;\n"
         "SPIN: ld.volatile.global.u32 %r3, [%rd1]; setp.lt.u32 %p0, %r3, %r1; @%p0 bra SPIN;\n"
         "WAIT: bar.sync 0;\n"
         "ld.volatile.global.u32 %r4, [%rd1]; mov.u32 %r6, %ctaid.x;\n"
         "mul.wide.u32 %rd3, %r6, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r4;\n"
         "ret;\n}\n";

static void test_cooperative_grid_barrier(void **state) {
    (void)state;
    enum { BLOCKS = 16 };
    uint32_t *c = dev_alloc(4), *out = dev_alloc(BLOCKS * 4);
    void *p[] = {&c, &out};
    assert_ok(run_ex(grid_ptx, "k", BLOCKS, 64, p, 1, true, NULL));
    for (int i = 0; i < BLOCKS; i++) assert_int_equal(out[i], BLOCKS);
    dev_free_all();
}

/* nvcc's cooperative_groups grid.sync() (cg_grid_sync.cu): it completes on a cooperative launch,
 * whose grid workspace the kernel finds in %envreg1/%envreg2, and traps on another, as CUDA's. */
static void test_cooperative_groups_grid_sync(void **state) {
    (void)state;
    FILE *f = fopen(PTX_DIR "/cg_grid_sync.ptx", "rb");
    assert_non_null(f);
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    enum { N = 4096 };
    int *data = dev_alloc(N * 4), *out = dev_alloc(8);
    for (int i = 0; i < N; i++) data[i] = 1;
    int n = N;
    void *p[] = {&data, &out, &n};
    assert_ok(run_ex(text, "gsum", 16, 256, p, 1, true, NULL));
    assert_int_equal(out[0], N);
    assert_int_equal(out[1], 2 * N);
    for (int i = 0; i < N; i++) assert_int_equal(data[i], 2 * N);
    assert_int_equal(run_ex(text, "gsum", 16, 256, p, 1, false, NULL), CUDA_ERROR_LAUNCH_FAILED);
    assert_has(err, "trap");
    dev_free_all();
}

#ifndef NO_FORK_THREADS
/* out[i] = 3 * i over 16 blocks of 64 threads, on 4 host threads: whether every value is right. */
static const char triple_ptx[] = HEAD ".visible .entry k(.param .u64 out)\n{\n"
                                      ".reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
                                      "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
                                      "mov.u32 %r2, %ctaid.x; mad.lo.u32 %r3, %r2, 64, %r1;\n"
                                      "mul.lo.u32 %r4, %r3, 3; mul.wide.u32 %rd2, %r3, 4;\n"
                                      "add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r4;\n"
                                      "ret;\n}\n";

/* Block 0 spins until block 1 sets a flag: it ends only when two host threads run the blocks at
 * once (on one, the launch times out). */
static const char meet_ptx[] = HEAD ".visible .entry k(.param .u64 flag)\n{\n"
                                    ".reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<3>;\n"
                                    "ld.param.u64 %rd1, [flag]; mov.u32 %r1, %ctaid.x;\n"
                                    "setp.eq.u32 %p1, %r1, 0; @%p1 bra SPIN;\n"
                                    "atom.global.exch.b32 %r2, [%rd1], 1; ret;\n"
                                    "SPIN: atom.global.add.u32 %r3, [%rd1], 0;\n"
                                    "setp.eq.u32 %p2, %r3, 0; @%p2 bra SPIN;\n"
                                    "ret;\n}\n";

static bool triple_on_four_threads(void) {
    uint32_t *out = dev_alloc(16 * 64 * 4), *flag = dev_alloc(4);
    void *p[] = {&out}, *q[] = {&flag};
    bool ok = run_ex(triple_ptx, "k", 16, 64, p, 4, false, NULL) == CUDA_SUCCESS;
    for (uint32_t i = 0; ok && i < 16 * 64; i++) ok = out[i] == 3 * i;
    *flag = 0;
    ok = ok && run_ex(meet_ptx, "k", 2, 32, q, 2, false, NULL) == CUDA_SUCCESS;
    dev_free_all();
    return ok;
}

static void test_pool_after_fork(void **state) {
    (void)state;
    /* A child without threads fails at this bound. (Under gcc 12's AddressSanitizer a child
     * forked while a pool thread was still starting had its own threads wait for ever on the
     * sanitizer's allocator lock, so that this launch timed out: ptx_pool.c's grow() now waits
     * for its threads to start.) */
    setenv("CUSHIM_MOCK_TIMEOUT_S", "5", 1);
    assert_true(triple_on_four_threads()); /* the pool has its threads now */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(triple_on_four_threads() && triple_on_four_threads() ? 0 : 1);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(triple_on_four_threads()); /* the parent's pool still works */
    unsetenv("CUSHIM_MOCK_TIMEOUT_S");
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_with_divergence),
#ifndef NO_FORK_THREADS
        cmocka_unit_test(test_pool_after_fork),
#endif
        cmocka_unit_test(test_warp_collectives),
        cmocka_unit_test(test_atomics_across_host_threads),
        cmocka_unit_test(test_every_block_once),
        cmocka_unit_test(test_launches_from_several_threads),
        cmocka_unit_test(test_callers_sharing_a_helper),
        cmocka_unit_test(test_block_memory_across_launches),
        cmocka_unit_test(test_kept_block_in_another_shape),
        cmocka_unit_test(test_cooperative_grid_barrier),
        cmocka_unit_test(test_cooperative_groups_grid_sync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
