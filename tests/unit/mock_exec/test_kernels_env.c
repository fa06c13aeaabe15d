/* CUSHIM_MOCK_KERNELS is looked at before dlopen, as cushim looks at CUSHIM_DRIVER: a FIFO, a
 * directory, a relative path, a text file and an ELF file cut short are refused with a sentence
 * on stderr naming the path and why, and a launch neither hangs nor dies of SIGBUS. Each case
 * runs in a forked child under an alarm (the mock opens the library once per process); the
 * parent never initialises. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "fork_util.h"

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
                          ".visible .entry env_probe()\n{\n\tret;\n}\n";

static char dir[64], good[4096];
static const char *path_now, *want_now;

/* Launches env_probe (which no library implements) once and waits for it, with stderr in a file;
 * checks what the mock said. */
static void child_launch(void) {
    setenv("CUSHIM_MOCK_KERNELS", path_now, 1);
    char log[96];
    snprintf(log, sizeof log, "%s/stderr", dir);
    CHILD_CHECK(freopen(log, "w", stderr) != NULL);
    cushim_context *ctx = NULL;
    cushim_module *m = NULL;
    cushim_function *f = NULL;
    CHILD_CHECK(cushim_context_create(&ctx, 0, 0) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_module_load_data(&m, ctx, ptx) == CUDA_SUCCESS);
    CHILD_CHECK(cushim_module_function(&f, m, "env_probe") == CUDA_SUCCESS);
    cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(1), .shared_mem_bytes = 0, .stream = NULL};
    /* Whether the launch is refused or runs no code is the mock's rule for a kernel without an
     * implementation; here only the library's refusal and the absence of a hang matter. */
    cushim_launch(f, &cfg, NULL);
    cushim_context_synchronize(ctx);
    fflush(stderr);
    FILE *in = fopen(log, "r");
    CHILD_CHECK(in != NULL);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    if (want_now == NULL) {
        CHILD_CHECK(strstr(text, "is refused") == NULL);
    } else {
        char head[4200];
        snprintf(head, sizeof head, "CUSHIM_MOCK_KERNELS=\"%s\" is refused", path_now);
        CHILD_CHECK(strstr(text, head) != NULL);
        CHILD_CHECK(strstr(text, want_now) != NULL);
    }
    cushim_module_release(m);
    cushim_context_release(ctx);
}

static void check(const char *path, const char *want) {
    path_now = path;
    want_now = want;
    int status = run_child(child_launch, 20);
    if (status != 0) fail_msg("CUSHIM_MOCK_KERNELS=%s: the child failed", path);
}

/* The start of the good library, cut at `bytes`. */
static void write_cut(const char *to, size_t bytes) {
    FILE *in = fopen(good, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char *buf = malloc(bytes);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, bytes, in), bytes);
    assert_int_equal(fwrite(buf, 1, bytes, out), bytes);
    free(buf);
    fclose(in);
    fclose(out);
}

static void test_bad_libraries_are_refused(void **state) {
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/kernels.fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    check(path, "a FIFO");
    unlink(path);

    snprintf(path, sizeof path, "%s/cut.so", dir);
    write_cut(path, 1024);
    check(path, "cut short");
    write_cut(path, 80); /* the header, and the program headers past the end */
    check(path, "cut short");
    unlink(path);

    snprintf(path, sizeof path, "%s/text.so", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a library\n", f);
    fclose(f);
    check(path, "not an ELF file");
    unlink(path);

    check(dir, "a directory");
    check("libcushim-mock-test-kernels.so", "not an absolute path");
    check("/nonexistent/kernels.so", "cannot be opened");
    /* The real one still loads, silently. */
    check(good, NULL);
}

int main(void) {
    const char *env = getenv("CUSHIM_MOCK_KERNELS");
    if (env == NULL || strlen(env) >= sizeof good) return 77;
    strcpy(good, env);
    strcpy(dir, "/tmp/cushim-kernels-env-XXXXXX");
    if (mkdtemp(dir) == NULL) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_libraries_are_refused),
    };
    int r = cmocka_run_group_tests_name("mock_kernels_env", tests, NULL, NULL);
    char log[96];
    snprintf(log, sizeof log, "%s/stderr", dir);
    unlink(log);
    rmdir(dir);
    return r;
}
