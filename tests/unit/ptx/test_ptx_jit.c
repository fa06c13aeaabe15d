/* The compiling tier (CUSHIM_MOCK_JIT): each kernel runs with the tier off and on, and the two
 * runs must agree bit for bit, in their results, their codes and their fault sentences, while
 * the tier's count shows that compiled code ran. Integer and floating-point families, guards,
 * loops, a partial warp, an access out of bounds, a spin, a kernel the tier cannot take, a
 * missing compiler, a damaged cache, the warps' turns when a block runs compiled whole, and loads
 * whose half-warps each read one word or a run of 16. */
#include <dirent.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "ptx_util.h"

static char cache[256];

static const char alu_ptx[] =
    HEAD ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
         ".reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<12>; .reg .f32 %f<8>;\n"
         ".reg .f64 %fd<4>;\n"
         "ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];\n"
         "mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;\n"
         "mad.lo.s32 %r5, %r3, %r4, %r2;\n"
         "mul.wide.u32 %rd2, %r5, 48; add.s64 %rd3, %rd1, %rd2;\n"
         "mov.u32 %r6, 0; mov.u32 %r7, 0;\n"
         "$LOOP:\n"
         "mul.lo.u32 %r8, %r5, 0x9E3779B1; xor.b32 %r8, %r8, %r7;\n"
         "shl.b32 %r9, %r8, 3; shr.u32 %r10, %r8, 5; shr.s32 %r11, %r8, 7;\n"
         "add.s32 %r6, %r6, %r9; sub.s32 %r6, %r6, %r10; xor.b32 %r6, %r6, %r11;\n"
         "min.s32 %r12, %r6, %r8; max.u32 %r13, %r6, %r8; and.b32 %r12, %r12, %r13;\n"
         "or.b32 %r6, %r6, %r12;\n"
         "setp.lt.u32 %p1, %r8, %r6;\n"
         "@%p1 add.s32 %r6, %r6, 1;\n"
         "@!%p1 neg.s32 %r6, %r6;\n"
         "selp.b32 %r14, %r8, %r6, %p1; add.s32 %r6, %r6, %r14;\n"
         "add.s32 %r7, %r7, 1; setp.lt.s32 %p2, %r7, %r1;\n"
         "@%p2 bra $LOOP;\n"
         "st.global.u32 [%rd3], %r6;\n"
         "cvt.u64.u32 %rd4, %r6; cvt.s64.s32 %rd5, %r6;\n"
         "mul.lo.s64 %rd6, %rd4, %rd5; mad.lo.s64 %rd6, %rd6, %rd4, %rd5; shl.b64 %rd7, %rd6, 3;\n"
         "st.global.u64 [%rd3+8], %rd7;\n"
         "cvt.rn.f32.s32 %f1, %r6;\n"
         "mul.f32 %f2, %f1, 0f3DCCCCCD; add.f32 %f3, %f2, 0f3F800000;\n"
         "fma.rn.f32 %f4, %f3, %f2, %f1; sub.f32 %f5, %f4, %f3;\n"
         "st.global.f32 [%rd3+16], %f5;\n"
         "cvt.f64.f32 %fd1, %f5;\n"
         "fma.rn.f64 %fd2, %fd1, %fd1, %fd1; mul.f64 %fd3, %fd2, %fd1; add.f64 %fd3, %fd3, %fd2;\n"
         "st.global.f64 [%rd3+24], %fd3;\n"
         "setp.gt.f32 %p3, %f5, %f4; selp.u32 %r15, 1, 2, %p3;\n"
         "st.global.u32 [%rd3+32], %r15;\n"
         "@%p3 st.global.u32 [%rd3+36], %r2;\n"
         "ret;\n}\n";

/* Runs text's kernel k with the tier `mode`; *jit: the compiled warp-instructions it ran. */
static CUresult run_mode(const char *mode, const char *text, unsigned grid, unsigned block,
                         void **params, uint64_t *jit) {
    setenv("CUSHIM_MOCK_JIT", mode, 1);
    uint64_t before = mock__ptx_jit_instructions();
    CUresult r = run(text, "k", grid, block, params);
    *jit = mock__ptx_jit_instructions() - before;
    return r;
}

/* The kernel off and on: the same code, sentence and bytes of out; how much ran compiled. */
static uint64_t same_both_ways(const char *text, unsigned grid, unsigned block, void **params,
                               unsigned char *out, size_t bytes, CUresult want) {
    unsigned char *first = malloc(bytes);
    char first_err[sizeof err];
    uint64_t jit = 0;
    assert_non_null(first);
    memset(out, 0, bytes);
    if (run_mode("off", text, grid, block, params, &jit) != want) fail_msg("%s", err);
    assert_int_equal(jit, 0);
    memcpy(first, out, bytes);
    snprintf(first_err, sizeof first_err, "%s", err);
    memset(out, 0, bytes);
    err[0] = 0;
    assert_int_equal(run_mode("on", text, grid, block, params, &jit), want);
    assert_memory_equal(first, out, bytes);
    if (want != CUDA_SUCCESS) assert_string_equal(first_err, err);
    free(first);
    return jit;
}

static void test_alu_families_agree(void **state) {
    (void)state;
    size_t bytes = 4 * 64 * 48;
    unsigned char *out = dev_alloc(bytes);
    uint32_t n = 7;
    void *p[] = {&out, &n};
    assert_true(same_both_ways(alu_ptx, 4, 64, p, out, bytes, CUDA_SUCCESS) > 0);
    /* A partial warp (the second of 48 threads) runs interpreted, the first compiled. */
    assert_true(same_both_ways(alu_ptx, 3, 48, p, out, bytes, CUDA_SUCCESS) > 0);
    dev_free_all();
}

/* A stretch of 300 live 64-bit registers, more than compiled code may keep on a thread's stack:
 * it runs interpreted, to the same results. */
static void test_wide_stretch_runs_interpreted(void **state) {
    (void)state;
    size_t cap = 64 * 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    int k = snprintf(text, cap,
                     HEAD ".visible .entry k(.param .u64 out)\n{\n"
                          ".reg .b32 %%r<2>; .reg .b64 %%rd<310>;\n"
                          "ld.param.u64 %%rd0, [out]; mov.u32 %%r1, %%tid.x;\n"
                          "cvt.u64.u32 %%rd1, %%r1; add.s64 %%rd2, %%rd1, 3;\n");
    for (int i = 3; i < 303; i++)
        k += snprintf(text + k, cap - (size_t)k, "add.s64 %%rd%d, %%rd%d, %%rd%d;\n", i, i - 1,
                      i - 2);
    k += snprintf(text + k, cap - (size_t)k,
                  "mul.lo.s64 %%rd303, %%rd1, 8; add.s64 %%rd304, %%rd0, %%rd303;\n"
                  "xor.b64 %%rd305, %%rd302, %%rd150; xor.b64 %%rd305, %%rd305, %%rd3;\n"
                  "st.global.u64 [%%rd304], %%rd305;\nret;\n}\n");
    assert_true((size_t)k < cap);
    unsigned char *out = dev_alloc(32 * 8);
    void *p[] = {&out};
    assert_int_equal(same_both_ways(text, 1, 32, p, out, 32 * 8, CUDA_SUCCESS), 0);
    uint64_t lane5;
    memcpy(&lane5, out + 5 * 8, 8);
    assert_true(lane5 != 0);
    free(text);
    dev_free_all();
}

/* %r3 is written twice, each time the same in every lane (a literal), and the tier keeps such
 * a register in one scalar; but lanes 0 to 15 branch around the first write (to B) and the
 * others around the second (through J), so after the barrier, where the warp is whole again and
 * compiled code loads %r3, the lanes disagree: the load must see that and leave the instruction
 * to the interpreter. Lanes below 16 of each warp store 12, the others 11. */
static const char split_uniform_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
         "and.b32 %r5, %r1, 31; setp.lt.u32 %p1, %r5, 16;\n"
         "mov.u32 %r2, 7; setp.ne.u32 %p2, %r2, 0;\n"
         "@%p1 bra B;\n"
         "mov.u32 %r3, 1;\n"
         "@%p2 bra J;\n"
         "B:\n"
         "mov.u32 %r3, 2;\n"
         "J:\n"
         "bar.sync 0;\n"
         "add.s32 %r4, %r3, 10;\n"
         "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.u32 [%rd3], %r4;\n"
         "ret;\n}\n";

static void test_uniform_guess_checked(void **state) {
    (void)state;
    unsigned char *out = dev_alloc(64 * 4);
    void *p[] = {&out};
    assert_true(same_both_ways(split_uniform_ptx, 1, 64, p, out, 64 * 4, CUDA_SUCCESS) > 0);
    for (unsigned i = 0; i < 64; i++) {
        uint32_t v;
        memcpy(&v, out + i * 4, 4);
        assert_int_equal(v, i % 32 < 16 ? 12 : 11);
    }
    dev_free_all();
}

static const char oob_ptx[] = HEAD ".visible .entry k(.param .u64 out)\n{\n"
                                   ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
                                   "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
                                   "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
                                   "add.s32 %r2, %r1, 1;\n"
                                   "st.global.u32 [%rd3], %r2;\n" /* line 10 */
                                   "ret;\n}\n";

static void test_out_of_bounds_same_fault(void **state) {
    (void)state;
    unsigned char *out = dev_alloc(10 * 4);
    void *p[] = {&out};
    assert_true(same_both_ways(oob_ptx, 1, 32, p, out, 40, CUDA_ERROR_ILLEGAL_ADDRESS) > 0);
    assert_has(err, "thread (10,0,0)");
    assert_has(err, "PTX line 10");
    assert_has(err, "past the end of the 40-byte allocation");
    dev_free_all();
}

/* Shared memory through a barrier: each lane reads what the mirror lane wrote; with `step` 8
 * (bytes apart) lanes past 31 fall outside the 256 bytes. */
static const char shared_ptx[] =
    HEAD ".visible .entry k(.param .u64 out, .param .u32 step)\n{\n"
         ".reg .b32 %r<12>; .reg .b64 %rd<4>;\n.shared .align 4 .b8 sh[256];\n"
         "ld.param.u64 %rd1, [out]; ld.param.u32 %r9, [step]; mov.u32 %r1, %tid.x;\n"
         "mul.lo.u32 %r2, %r1, %r9; mov.u32 %r3, sh; add.u32 %r4, %r3, %r2;\n"
         "mul.lo.u32 %r5, %r1, 7;\n"
         "st.shared.u32 [%r4], %r5;\n" /* line 11 */
         "bar.sync 0;\n"
         "mov.u32 %r10, 63; sub.u32 %r6, %r10, %r1; shl.b32 %r6, %r6, 2; add.u32 %r6, %r3, %r6;\n"
         "ld.shared.u32 %r7, [%r6];\n"
         "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.u32 [%rd3], %r7;\n"
         "ret;\n}\n";

static void test_shared_memory_agrees(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(4 * 64 * 4);
    uint32_t step = 4;
    void *p[] = {&out, &step};
    assert_true(
        same_both_ways(shared_ptx, 4, 64, p, (unsigned char *)out, 4 * 64 * 4, CUDA_SUCCESS) > 0);
    for (uint32_t i = 0; i < 64; i++) assert_int_equal(out[i], (63 - i) * 7);
    step = 8;
    assert_true(same_both_ways(shared_ptx, 1, 64, p, (unsigned char *)out, 64 * 4,
                               CUDA_ERROR_ILLEGAL_ADDRESS) > 0);
    assert_has(err, "thread (32,0,0), PTX line 11");
    assert_has(err, "past the block's 256 bytes of shared memory");
    dev_free_all();
}

static const char spin_ptx[] = HEAD ".visible .entry k()\n{\n"
                                    ".reg .b32 %r<2>;\n"
                                    "mov.u32 %r1, 0;\n"
                                    "$L: add.s32 %r1, %r1, 1; bra $L;\n"
                                    "}\n";

static void test_spin_fails_within_bounds(void **state) {
    (void)state;
    unsigned char dummy;
    setenv("CUSHIM_MOCK_PTX_STEPS", "1000000", 1);
    assert_true(same_both_ways(spin_ptx, 2, 64, NULL, &dummy, 1, CUDA_ERROR_LAUNCH_TIMEOUT) > 0);
    assert_has(err, "more than 1000000 instructions");
    unsetenv("CUSHIM_MOCK_PTX_STEPS");
    /* The wall-clock bound holds too: compiled code hands back at its backward branch. */
    setenv("CUSHIM_MOCK_TIMEOUT_S", "0.5", 1);
    setenv("CUSHIM_MOCK_JIT", "on", 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(run(spin_ptx, "k", 1, 1024, NULL), CUDA_ERROR_LAUNCH_TIMEOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 10);
    assert_has(err, "longer than 0.5 s");
    unsetenv("CUSHIM_MOCK_TIMEOUT_S");
}

/* div and a call: outside the tier's list, run by the interpreter between compiled runs. */
static const char other_ptx[] =
    HEAD ".func (.param .b32 func_retval0) twice(.param .b32 a)\n{\n"
         ".reg .b32 %r<3>; ld.param.u32 %r1, [a]; add.s32 %r2, %r1, %r1;\n"
         "st.param.b32 [func_retval0+0], %r2; ret;\n}\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
         "mov.u32 %r7, 1000; add.u32 %r2, %r1, 3; div.u32 %r3, %r7, %r2; mul.lo.u32 %r4, %r3, 3;\n"
         "{ .param .b32 param0; st.param.b32 [param0+0], %r4; .param .b32 retval0;\n"
         "call.uni (retval0), twice, (param0);\n"
         "ld.param.b32 %r5, [retval0+0];\n}\n"
         "add.u32 %r6, %r5, %r1;\n"
         "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
         "st.global.u32 [%rd3], %r6;\n"
         "ret;\n}\n";

static void test_kernel_the_tier_cannot_take_runs(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(64 * 4);
    void *p[] = {&out};
    assert_true(same_both_ways(other_ptx, 1, 64, p, (unsigned char *)out, 64 * 4, CUDA_SUCCESS) >
                0);
    for (uint32_t i = 0; i < 64; i++) assert_int_equal(out[i], 1000 / (i + 3) * 6 + i);
    dev_free_all();
}

static void test_no_compiler_interprets(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(64 * 4);
    void *p[] = {&out};
    setenv("CUSHIM_MOCK_JIT_CC", "/nonexistent/cc", 1);
    assert_int_equal(
        same_both_ways(other_ptx, 1, 64, p, (unsigned char *)out, 64 * 4, CUDA_SUCCESS), 0);
    assert_int_equal(out[5], 1000 / 8 * 6 + 5);
    unsetenv("CUSHIM_MOCK_JIT_CC");
    dev_free_all();
}

static void test_damaged_cache_is_rebuilt(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(64 * 4);
    void *p[] = {&out};
    assert_true(same_both_ways(other_ptx, 1, 64, p, (unsigned char *)out, 64 * 4, CUDA_SUCCESS) >
                0);
    /* Every cached library overwritten with junk: the next launch builds its own again. */
    DIR *d = opendir(cache);
    assert_non_null(d);
    int damaged = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strstr(e->d_name, ".so") == NULL) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", cache, e->d_name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("not a library", f);
        fclose(f);
        damaged++;
    }
    closedir(d);
    assert_true(damaged > 0);
    assert_true(same_both_ways(other_ptx, 1, 64, p, (unsigned char *)out, 64 * 4, CUDA_SUCCESS) >
                0);
    dev_free_all();
}

/* Two host threads launch (and so compile) at once, into the same cache: each gets the
 * interpreter's results. */
typedef struct racer {
    unsigned char *out;
    CUresult r;
    char err[sizeof err];
} racer;

static void *race(void *arg) {
    racer *c = arg;
    uint32_t n = 5;
    void *p[] = {&c->out, &n};
    mock_ptx_module *m = NULL;
    c->r = mock__ptx_parse(&m, alu_ptx, strlen(alu_ptx), c->err, sizeof c->err);
    if (c->r != CUDA_SUCCESS) return NULL;
    mock_ptx_launch l = {.grid = {2, 1, 1},
                         .block = {64, 1, 1},
                         .params = p,
                         .host_threads = 1,
                         .sm_count = 132,
                         .check = check};
    c->r = mock__ptx_run(mock__ptx_kernel(m, "k"), &l, c->err, sizeof c->err);
    mock__ptx_free(m);
    return NULL;
}

static void test_two_threads_compile_at_once(void **state) {
    (void)state;
    size_t bytes = 2 * 64 * 48;
    unsigned char *want = dev_alloc(bytes);
    racer c[2] = {{.out = dev_alloc(bytes)}, {.out = dev_alloc(bytes)}};
    setenv("CUSHIM_MOCK_JIT", "off", 1);
    racer w = {.out = want};
    race(&w);
    assert_int_equal(w.r, CUDA_SUCCESS);
    setenv("CUSHIM_MOCK_JIT", "on", 1);
    setenv("CUSHIM_MOCK_JIT_CACHE", cache, 1);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, race, &c[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        if (c[i].r != CUDA_SUCCESS) fail_msg("%s", c[i].err);
        assert_memory_equal(c[i].out, want, bytes);
    }
    dev_free_all();
}

/* A warp's load whose halves (lanes 0-15, 16-31) each read one word or 16 consecutive ones:
 * lane l reads 32 bits at in + (l < 16 ? a + l * sa : b + %ctaid.x * bstep + (l - 16) * sb), and
 * lane `odd` 4 bytes past that (32: none), and 64 bits at twice that offset in in2. Two blocks:
 * the first warp's first load finds the allocation (the interpreter runs it), the second block's
 * run compiled whole. */
static const char halves_ptx[] =
    HEAD ".visible .entry k(.param .u64 out, .param .u64 in, .param .u64 in2, .param .u32 a,\n"
         ".param .u32 b, .param .u32 sa, .param .u32 sb, .param .u32 odd, .param .u32 bstep)\n{\n"
         ".reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<12>;\n"
         "ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in]; ld.param.u64 %rd7, [in2];\n"
         "ld.param.u32 %r10, [a]; ld.param.u32 %r11, [b]; ld.param.u32 %r12, [sa];\n"
         "ld.param.u32 %r13, [sb]; ld.param.u32 %r14, [odd]; ld.param.u32 %r15, [bstep];\n"
         "mov.u32 %r16, %ctaid.x; mad.lo.u32 %r11, %r16, %r15, %r11;\n"
         "mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 31; setp.lt.u32 %p1, %r2, 16;\n"
         "and.b32 %r3, %r2, 15; selp.u32 %r4, %r10, %r11, %p1; selp.u32 %r5, %r12, %r13, %p1;\n"
         "mad.lo.u32 %r6, %r3, %r5, %r4; setp.eq.u32 %p2, %r2, %r14; selp.u32 %r7, 4, 0, %p2;\n"
         "add.u32 %r6, %r6, %r7; cvt.u64.u32 %rd3, %r6; add.s64 %rd4, %rd2, %rd3;\n"
         "ld.global.u32 %r8, [%rd4];\n" /* line 16 */
         "shl.b64 %rd8, %rd3, 1; add.s64 %rd9, %rd7, %rd8; ld.global.u64 %rd10, [%rd9];\n"
         "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5; st.global.u32 [%rd6], %r8;\n"
         "mul.wide.u32 %rd5, %r1, 8; add.s64 %rd6, %rd1, %rd5; st.global.u64 [%rd6+128], %rd10;\n"
         "ret;\n}\n";

static void test_half_warp_loads_agree(void **state) {
    (void)state;
    uint32_t *in = dev_alloc(2048), *in2 = dev_alloc(4096);
    uint32_t *out = dev_alloc(32 * 12);
    for (uint32_t i = 0; i < 512; i++) in[i] = i * 2654435761u;
    for (uint32_t i = 0; i < 1024; i++) in2[i] = i * 40503u;
    struct {
        uint32_t a, b, sa, sb, odd, bstep;
        CUresult want;
    } cases[] = {
        {0, 64, 0, 0, 32, 0, CUDA_SUCCESS},                  /* a word each */
        {0, 64, 4, 4, 32, 0, CUDA_SUCCESS},                  /* 16 words each */
        {8, 8, 0, 4, 32, 0, CUDA_SUCCESS},                   /* one of each */
        {12, 4, 4, 0, 32, 0, CUDA_SUCCESS},                  /* the other way round */
        {0, 64, 4, 4, 20, 0, CUDA_SUCCESS},                  /* one lane apart: lane by lane */
        {0, 1984, 0, 4, 32, 0, CUDA_SUCCESS},                /* the last 16 words */
        {0, 1984, 0, 4, 32, 56, CUDA_ERROR_ILLEGAL_ADDRESS}, /* block 1's run past the end */
        {0, 2044, 4, 0, 32, 4, CUDA_ERROR_ILLEGAL_ADDRESS},  /* block 1's word past the end */
        {2, 64, 0, 0, 32, 0, CUDA_ERROR_MISALIGNED_ADDRESS},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        void *p[] = {&out,         &in,          &in2,          &cases[c].a,    &cases[c].b,
                     &cases[c].sa, &cases[c].sb, &cases[c].odd, &cases[c].bstep};
        assert_true(
            same_both_ways(halves_ptx, 2, 32, p, (unsigned char *)out, 32 * 12, cases[c].want) > 0);
        if (cases[c].want != CUDA_SUCCESS) {
            assert_has(err, "PTX line 16");
            if (cases[c].bstep != 0) assert_has(err, "block (1,0,0)");
            continue;
        }
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t off =
                l < 16 ? cases[c].a + l * cases[c].sa : cases[c].b + (l - 16) * cases[c].sb;
            off += l == cases[c].odd ? 4 : 0;
            uint64_t wide, got;
            memcpy(&wide, (unsigned char *)in2 + 2 * off, 8);
            memcpy(&got, (unsigned char *)out + 128 + 8 * l, 8);
            assert_int_equal(out[l], in[off / 4]);
            assert_int_equal(got, wide);
        }
    }
    dev_free_all();
}

/* The turns of a block's warps are the same when its warps run compiled one after another (a
 * block whose every warp reaches its exit in one call ends without the scheduler): one warp of
 * each block spins on a flag that warp 2 sets, counting its loads, so the count says how much of
 * a turn it had before warp 2 ran. In block 0 the spinner is warp 0 (it yields from compiled code
 * at its budget); in the others warp 1, whose lanes first split (compiled code hands it to the
 * interpreter part way through its turn). Each warp then takes a ticket from a counter in
 * memory: the order the warps ended in. */
static const char turns_ptx[] =
    HEAD ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .pred %p<8>; .reg .b32 %r<16>; .reg .b64 %rd<8>;\n"
         "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5;\n"
         "mov.u32 %r3, %ctaid.x; mul.wide.u32 %rd2, %r3, 1024; add.s64 %rd3, %rd1, %rd2;\n"
         "setp.eq.u32 %p1, %r3, 0; selp.u32 %r4, 0, 1, %p1;\n"
         "mov.u32 %r6, 0;\n"
         "setp.ne.u32 %p2, %r2, %r4; @%p2 bra NOSPIN;\n"
         "and.b32 %r5, %r1, 31; setp.lt.u32 %p3, %r5, 16; setp.ne.u32 %p7, %r3, 0;\n"
         "and.pred %p4, %p3, %p7;\n"
         "@!%p4 bra JOIN;\n"
         "add.u32 %r6, %r1, 7;\n"
         "JOIN:\n"
         "mov.u32 %r7, 0;\n"
         "SPIN:\n"
         "ld.volatile.global.u32 %r8, [%rd3+516]; add.u32 %r7, %r7, 1;\n"
         "setp.eq.u32 %p5, %r8, 0; @%p5 bra SPIN;\n"
         "st.global.u32 [%rd3+520], %r7;\n"
         "bra TICKET;\n"
         "NOSPIN:\n"
         "setp.ne.u32 %p6, %r2, 2; @%p6 bra TICKET;\n"
         "mov.u32 %r9, 1; st.volatile.global.u32 [%rd3+516], %r9;\n"
         "TICKET:\n"
         "ld.volatile.global.u32 %r10, [%rd3+512]; add.u32 %r11, %r10, 1;\n"
         "st.volatile.global.u32 [%rd3+512], %r11;\n"
         "mad.lo.u32 %r12, %r10, 1000, %r6;\n"
         "mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd3, %rd4; st.global.u32 [%rd5], %r12;\n"
         "ret;\n}\n";

static void test_compiled_blocks_take_the_same_turns(void **state) {
    (void)state;
    uint32_t *out = dev_alloc(3 * 1024);
    void *p[] = {&out};
    assert_true(same_both_ways(turns_ptx, 3, 128, p, (unsigned char *)out, 3 * 1024, CUDA_SUCCESS) >
                0);
    for (unsigned b = 0; b < 3; b++) {
        const uint32_t *o = out + b * 256;
        /* The spinner had a whole turn's budget of loads before warp 2 set the flag. */
        assert_true(o[130] > 1000);
        /* Warp 2 ended second (after the warp that neither spins nor sets the flag), the
         * spinner last. */
        assert_int_equal(o[2 * 32] / 1000, 1);
        assert_int_equal(o[(b == 0 ? 0 : 32) + 20] / 1000, 3);
        if (b > 0) assert_int_equal(o[32 + 3] % 1000, 32 + 3 + 7);
    }
    dev_free_all();
}

static int remove_cache(void **state) {
    (void)state;
    DIR *d = opendir(cache);
    if (d != NULL) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", cache, e->d_name);
            if (e->d_name[0] != '.') unlink(path);
        }
        closedir(d);
    }
    rmdir(cache);
    return 0;
}

int main(void) {
    /* One host thread (the tier's count is kept per thread), a private cache. */
    setenv("CUSHIM_MOCK_THREADS", "1", 1);
    const char *tmp = getenv("TMPDIR");
    snprintf(cache, sizeof cache, "%s/cushim-jit-test-XXXXXX", tmp != NULL ? tmp : "/tmp");
    if (mkdtemp(cache) == NULL) return 1;
    setenv("CUSHIM_MOCK_JIT_CACHE", cache, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alu_families_agree),
        cmocka_unit_test(test_wide_stretch_runs_interpreted),
        cmocka_unit_test(test_uniform_guess_checked),
        cmocka_unit_test(test_out_of_bounds_same_fault),
        cmocka_unit_test(test_shared_memory_agrees),
        cmocka_unit_test(test_spin_fails_within_bounds),
        cmocka_unit_test(test_kernel_the_tier_cannot_take_runs),
        cmocka_unit_test(test_no_compiler_interprets),
        cmocka_unit_test(test_damaged_cache_is_rebuilt),
        cmocka_unit_test(test_two_threads_compile_at_once),
        cmocka_unit_test(test_compiled_blocks_take_the_same_turns),
        cmocka_unit_test(test_half_warp_loads_agree),
    };
    return cmocka_run_group_tests(tests, NULL, remove_cache);
}
