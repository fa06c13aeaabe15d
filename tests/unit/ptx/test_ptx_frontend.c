/* The interpreter's front end on PTX built to hurt it (issue 27): parsing and decoding never
 * recurse on the host stack in proportion to the text, so that 10,000 nested calls, 100,000
 * nested blocks and a long initialiser load on a thread of 256 KiB of stack; sizes that
 * overflow are refused with a sentence. */
#include <pthread.h>

#include "ptx_util.h"

/* A text buffer that grows. */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap ? t->cap * 2 + (size_t)k : 4096 + (size_t)k;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

/* Parses and decodes `kernel` of the text on a thread whose stack is 256 KiB, as a program's
 * worker thread may have: the answer, with err filled. */
typedef struct job {
    const char *text, *kernel;
    CUresult r;
    bool prepared;
} job;

static void *load(void *arg) {
    job *j = arg;
    mock_ptx_module *m = NULL;
    j->r = mock__ptx_parse(&m, j->text, strlen(j->text), err, sizeof err);
    if (j->r == CUDA_SUCCESS) {
        const mock_ptx_kernel *k = mock__ptx_kernel(m, j->kernel);
        j->prepared = k != NULL && mock__ptx_prepare(k, err, sizeof err);
        mock__ptx_free(m);
    }
    return NULL;
}

static job load_small_stack(const char *t, const char *kernel) {
    job j = {t, kernel, CUDA_ERROR_UNKNOWN, false};
    pthread_attr_t a;
    pthread_t th;
    assert_int_equal(pthread_attr_init(&a), 0);
    assert_int_equal(pthread_attr_setstacksize(&a, 256 * 1024), 0);
    assert_int_equal(pthread_create(&th, &a, load, &j), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&a);
    return j;
}

/* f0 calls f1 calls ... f(n-1), which stores 42; the kernel calls f0. Callees come first, as
 * nvcc writes them. */
static char *call_chain(int n) {
    text t = {0};
    add(&t, HEAD);
    for (int i = n - 1; i >= 0; i--) {
        add(&t, ".func f%d(.param .b64 p)\n{\n.reg .b64 %%rd1;\nld.param.u64 %%rd1, [p];\n", i);
        if (i == n - 1) {
            add(&t, ".reg .b32 %%r1;\nmov.u32 %%r1, 42;\nst.global.u32 [%%rd1], %%r1;\n");
        } else {
            add(&t, "{\n.param .b64 a;\nst.param.b64 [a], %%rd1;\ncall.uni f%d, (a);\n}\n", i + 1);
        }
        add(&t, "ret;\n}\n");
    }
    add(&t, ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %%rd1;\n"
            "ld.param.u64 %%rd1, [out];\n{\n.param .b64 a;\nst.param.b64 [a], %%rd1;\n"
            "call.uni f0, (a);\n}\nret;\n}\n");
    return t.s;
}

static void test_10000_nested_calls_load_on_a_256k_stack(void **state) {
    (void)state;
    char *t = call_chain(10000);
    job j = load_small_stack(t, "k");
    assert_int_equal(j.r, CUDA_SUCCESS);
    if (!j.prepared) fail_msg("the chain was refused: %s", err);
    free(t);
}

static void test_nested_calls_run(void **state) {
    (void)state;
    char *t = call_chain(200);
    uint32_t *out = dev_alloc(4);
    void *p[] = {&out};
    CUresult r = run_ex(t, "k", 1, 1, p, 1, false, NULL);
    if (r != CUDA_SUCCESS) fail_msg("%s", err);
    assert_int_equal(*out, 42);
    dev_free_all();
    free(t);
}

/* A cycle (f0 calls f1 calls f0) and a call of itself are decoded and marked recursive, and a
 * function that cannot be decoded makes every caller in the chain refuse, naming it. */
static void test_cycles_and_a_bad_callee_deep_in_a_chain(void **state) {
    (void)state;
    static const char cyc[] =
        HEAD ".func f1(.param .b32 n);\n"
             ".func f0(.param .b32 n)\n{\n.reg .b32 %r<3>; .reg .pred %p1;\n"
             "ld.param.u32 %r1, [n]; setp.eq.u32 %p1, %r1, 0; @%p1 ret;\n"
             "sub.u32 %r2, %r1, 1;\n{\n.param .b32 a;\nst.param.b32 [a], %r2;\n"
             "call.uni f1, (a);\n}\nret;\n}\n"
             ".func f1(.param .b32 n)\n{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [n];\n"
             "{\n.param .b32 a;\nst.param.b32 [a], %r1;\ncall.uni f0, (a);\n}\nret;\n}\n"
             ".visible .entry k()\n{\n.reg .b32 %r1; mov.u32 %r1, 5;\n"
             "{\n.param .b32 a;\nst.param.b32 [a], %r1;\ncall.uni f0, (a);\n}\nret;\n}\n";
    assert_ok(run(cyc, "k", 1, 1, NULL));

    char *t = call_chain(3000);
    /* The last function's store becomes an instruction the interpreter refuses. */
    char *st = strstr(t, "st.global.u32");
    assert_non_null(st);
    memcpy(st, "tex.bogus.u32", 13);
    job j = load_small_stack(t, "k");
    assert_int_equal(j.r, CUDA_SUCCESS);
    assert_false(j.prepared);
    assert_has(err, "f2999");
    assert_has(err, "tex.bogus.u32");
    free(t);
}

/* 100,000 nested blocks in a body, and an initialiser of 100,000 nested braces. */
static void test_deep_nesting_loads_on_a_256k_stack(void **state) {
    (void)state;
    const int depth = 100000;
    text t = {0};
    add(&t, HEAD ".visible .entry k()\n{\n");
    for (int i = 0; i < depth; i++) add(&t, "{");
    add(&t, "\n.reg .b32 %%r1;\nmov.u32 %%r1, 1;\n");
    for (int i = 0; i < depth; i++) add(&t, "}");
    add(&t, "\nret;\n}\n");
    job j = load_small_stack(t.s, "k");
    assert_int_equal(j.r, CUDA_SUCCESS);
    if (!j.prepared) fail_msg("%s", err);

    t.n = 0;
    add(&t, HEAD ".global .align 4 .u32 g[1] = ");
    for (int i = 0; i < depth; i++) add(&t, "{");
    add(&t, "7");
    for (int i = 0; i < depth; i++) add(&t, "}");
    add(&t, ";\n.visible .entry k()\n{\nret;\n}\n");
    j = load_small_stack(t.s, "k");
    assert_int_equal(j.r, CUDA_SUCCESS);

    /* A long list of operands and a long initialiser: read in loops. */
    t.n = 0;
    add(&t, HEAD ".global .align 4 .u32 g[200000] = {");
    for (int i = 0; i < 199999; i++) add(&t, "%d,", i);
    add(&t, "0};\n.visible .entry k()\n{\nret;\n}\n");
    j = load_small_stack(t.s, "k");
    if (j.r != CUDA_SUCCESS) fail_msg("%s", err);
    free(t.s);
}

/* Sizes that do not fit in 64 bits are refused at parse, naming the variable, where ptxas
 * wraps them silently. */
static void test_sizes_that_overflow_are_refused(void **state) {
    (void)state;
    static const char *const texts[] = {
        HEAD ".global .align 1 .b8 g[4294967296][4294967296];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD ".global .align 8 .b64 g[4294967296][536870912];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD ".global .align 1 .b8 a[4294967296][2147483648];\n"
             ".global .align 1 .b8 g[4294967296][2147483648];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD ".shared .align 1 .b8 g[4294967296][4294967296];\n.visible .entry k()\n{\nret;\n}\n",
        HEAD ".visible .entry k(.param .align 1 .b8 g[4294967296][4294967296])\n{\nret;\n}\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        mock_ptx_module *m = NULL;
        assert_int_equal(mock__ptx_parse(&m, texts[i], strlen(texts[i]), err, sizeof err),
                         CUDA_ERROR_INVALID_PTX);
        assert_null(m);
        assert_has(err, "'g'");
        assert_has(err, "2^64");
    }
    /* In a body: .local arrays whose frame overflows. */
    static const char local[] =
        HEAD ".visible .entry k()\n{\n.local .align 8 .b64 a[16777216][16777216][16777216];\n"
             "ret;\n}\n";
    mock_ptx_module *m = NULL;
    assert_ok(mock__ptx_parse(&m, local, strlen(local), err, sizeof err));
    assert_false(mock__ptx_prepare(mock__ptx_kernel(m, "k"), err, sizeof err));
    assert_has(err, "'a'");
    assert_has(err, "2^64");
    mock__ptx_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_10000_nested_calls_load_on_a_256k_stack),
        cmocka_unit_test(test_nested_calls_run),
        cmocka_unit_test(test_cycles_and_a_bad_callee_deep_in_a_chain),
        cmocka_unit_test(test_deep_nesting_loads_on_a_256k_stack),
        cmocka_unit_test(test_sizes_that_overflow_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
