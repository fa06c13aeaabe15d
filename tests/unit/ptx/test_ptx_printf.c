/* Device printf stays bounded and safe (issue 27): a width or precision of 2^31 - 1 costs no
 * more than one of 512 (on main it padded 2 GiB of spaces, 10 s of CPU); a %s pointer or a
 * format whose range wraps past 2^64 or is no device memory faults with
 * CUDA_ERROR_ILLEGAL_ADDRESS and a sentence (on main the first was a SIGSEGV). */
#include <time.h>

#include "ptx_util.h"

/* printf(fmt, ...) in one thread, the format in device memory and the argument buffer two
 * 64-bit words a0, a1 from the kernel's parameters (32-bit arguments pack two to a word, the
 * first in the low half). */
static const char printf_ptx[] =
    HEAD ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 a, .param .b64 b);\n"
         ".visible .entry k(.param .u64 fmt, .param .u64 a0, .param .u64 a1)\n{\n"
         ".local .align 8 .b8 depot[16];\n"
         ".reg .b64 %rd<8>;\n"
         "mov.u64 %rd1, depot; cvta.local.u64 %rd2, %rd1;\n"
         "ld.param.u64 %rd3, [a0]; st.local.u64 [%rd1], %rd3;\n"
         "ld.param.u64 %rd3, [a1]; st.local.u64 [%rd1+8], %rd3;\n"
         "ld.param.u64 %rd4, [fmt];\n"
         "{\n.param .b64 p0; .param .b64 p1; .param .b32 r;\n"
         "st.param.b64 [p0], %rd4; st.param.b64 [p1], %rd2;\n"
         "call.uni (r), vprintf, (p0, p1);\n}\n"
         "ret;\n}\n";

/* Runs printf(fmt, a0, a1) with fmt at `fmtp` (NULL: a device copy of fmt): the result, the
 * printed text in out. */
static CUresult print(const char *fmt, uint64_t fmtp, uint64_t a0, uint64_t a1, char *out,
                      size_t cap) {
    if (fmtp == 0) {
        char *f = dev_alloc(strlen(fmt) + 1);
        strcpy(f, fmt);
        fmtp = (uint64_t)(uintptr_t)f;
    }
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    void *p[] = {&fmtp, &a0, &a1};
    CUresult r = run_ex(printf_ptx, "k", 1, 1, p, 1, false, tmp);
    rewind(tmp);
    size_t n = fread(out, 1, cap - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    dev_free_all();
    return r;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_huge_widths_and_precisions_are_bounded(void **state) {
    (void)state;
    static char out[4096];
    double t0 = now();
    assert_ok(print("%*d|", 0, 2147483647u | 7ull << 32, 0, out, sizeof out));
    assert_int_equal(strlen(out), 512 + 1); /* clamped to 512 */
    assert_true(out[510] == ' ' && out[511] == '7' && out[512] == '|');
    double x = 1.5;
    uint64_t bits;
    memcpy(&bits, &x, 8);
    assert_ok(print("%.*f|", 0, 2147483647u, bits, out, sizeof out));
    assert_true(strncmp(out, "1.5000", 6) == 0);
    assert_ok(print("%-2147483647d|", 0, 3, 0, out, sizeof out));
    assert_true(out[0] == '3' && out[1] == ' ');
    assert_ok(print("%999999999999999999999999d|", 0, 5, 0, out, sizeof out));
    assert_int_equal(strlen(out), 512 + 1);
    double spent = now() - t0;
    if (spent > 2.0) fail_msg("four bounded printfs took %.1f s", spent);
    /* Ordinary widths and precisions are as before, a negative '*' width is the '-' flag. */
    assert_ok(print("%*d|", 0, 5 | 42ull << 32, 0, out, sizeof out));
    assert_string_equal(out, "   42|");
    assert_ok(print("%*d|", 0, (uint32_t)-4 | 9ull << 32, 0, out, sizeof out));
    assert_string_equal(out, "9   |");
    assert_ok(print("%.d|%5.3d|", 0, 7ull << 32, 0, out, sizeof out));
    assert_string_equal(out, "|  007|");
}

static void test_strings_that_wrap_or_are_not_device_memory_fault(void **state) {
    (void)state;
    char out[256];
    /* The last byte of the address space: its range ends past 2^64. */
    assert_int_equal(print("%s\n", 0, UINT64_MAX, 0, out, sizeof out), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "runs past the end of the address space");
    assert_has(err, "a %s argument");
    assert_has(err, "kernel k");
    /* Not device memory. */
    assert_int_equal(print("%s\n", 0, 4096, 0, out, sizeof out), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "no allocation");
    /* A format that wraps. */
    assert_int_equal(print("", UINT64_MAX, 0, 0, out, sizeof out), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_has(err, "its format");
    /* NULL prints as (null), as on the GPU. */
    assert_ok(print("%s|", 0, 0, 0, out, sizeof out));
    assert_string_equal(out, "(null)|");
}

int main(void) {
    (void)run;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_huge_widths_and_precisions_are_bounded),
        cmocka_unit_test(test_strings_that_wrap_or_are_not_device_memory_fault),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
