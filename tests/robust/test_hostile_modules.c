/* Hostile input to modules and libraries: images, files and kernel names. */
#include "hostile.h"

/* ------------------------------------------------------------------------------------------ */
/* Module images and files, kernel names                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_module_load_refuses_bad_images(void **state) {
    (void)state;
    failures = cases = 0;
    /* Images the driver refuses: nothing is left behind and the sentence names the call. */
    static const struct {
        const char *what;
        const char *image;
        CUresult want;
    } images[] = {
        {"an empty string", "", CUDA_ERROR_INVALID_IMAGE},
        {"a truncated ELF header",
         "\x7f"
         "ELF\x02\x01\x01",
         CUDA_ERROR_INVALID_IMAGE},
        {"a fatbin magic and nothing else", "\x50\xed\x55\xba", CUDA_ERROR_INVALID_IMAGE},
        {"PTX that does not compile", ".version 8.0\n// MOCK_JIT_ERROR\n", CUDA_ERROR_INVALID_PTX},
    };
    for (size_t i = 0; i < sizeof images / sizeof images[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "cushim_module_load_data of %s", images[i].what);
        cushim_module *m = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_module_load_data", images[i].want,
                      cushim_module_load_data(&m, fx.ctx, images[i].image), &before, BY_DRIVER);
        if (m != NULL) FAILED(label, "the out-pointer is not NULL");
        snprintf(label, sizeof label, "cushim_library_load_data of %s", images[i].what);
        cushim_library *lib = SENTINEL;
        before = start();
        CUresult r = cushim_library_load_data(&lib, images[i].image);
        /* A library may compile lazily, so a PTX error may wait for the first kernel. */
        if (r == CUDA_SUCCESS && images[i].want == CUDA_ERROR_INVALID_PTX) {
            cushim_library_release(lib);
            continue;
        }
        check_refusal(label, "cushim_library_load_data", images[i].want, r, &before, BY_DRIVER);
        if (lib != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    /* Text that is not PTX at all. The mock takes any text as PTX with no kernels, a real
     * driver refuses it; either way nothing may come of it but an error or an empty module. */
    cushim_module *m = NULL;
    CUresult r = cushim_module_load_data(&m, fx.ctx, "this is not PTX \x01\x02\x03\xff");
    if (r == CUDA_SUCCESS) {
        cushim_function *f = SENTINEL;
        assert_cu(CUDA_ERROR_NOT_FOUND, cushim_module_function(&f, m, KERNEL));
        assert_null(f);
        cushim_module_release(m);
    } else {
        assert_null(m);
        assert_non_null(strstr(cushim_last_error(), "cushim_module_load_data"));
    }
    assert_int_equal(mock.live(CUSHIM_MOCK_MODULE), 1);
    assert_int_equal(failures, 0);
}

static void test_module_load_file_refuses_bad_paths(void **state) {
    (void)state;
    failures = cases = 0;
    char long_path[8192];
    memset(long_path, 'a', sizeof long_path - 1);
    long_path[0] = '/';
    long_path[sizeof long_path - 1] = '\0';
    static const char fn[] = "cushim_module_load_file";
    /* Files that cannot be read are refused before the driver: a missing one, a directory, a
     * device that never ends (reading it whole would exhaust memory), a path too long. */
    const struct {
        const char *path, *text;
    } unreadable[] = {
        {"/nonexistent/cushim/kernels.ptx", "No such file"},
        {"relative/kernels.ptx", "relative/kernels.ptx"},
        {fx.dir_path, fx.dir_path},
        {"/dev/zero", "/dev/zero"},
        {"/dev/null/x", "/dev/null/x"},
        {long_path, "cannot open"}, /* the reason itself is past the sentence's length */
    };
    for (size_t i = 0; i < sizeof unreadable / sizeof unreadable[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "%s of '%.40s'", fn, unreadable[i].path);
        cushim_module *m = SENTINEL;
        snapshot before = start();
        CUresult r = cushim_module_load_file(&m, fx.ctx, unreadable[i].path);
        check_refusal(label, fn, CUDA_ERROR_FILE_NOT_FOUND, r, &before, BEFORE_DRIVER);
        if (m != NULL) FAILED(label, "the out-pointer is not NULL");
        if (r != CUDA_SUCCESS && strstr(cushim_last_error(), unreadable[i].text) == NULL) {
            FAILED(label, "the sentence lacks \"%s\": %s", unreadable[i].text, cushim_last_error());
        }
    }
    /* An empty file reads fine and is an empty image, which the driver refuses. */
    cushim_module *m = SENTINEL;
    snapshot before = start();
    check_refusal("an empty file", fn, CUDA_ERROR_INVALID_IMAGE,
                  cushim_module_load_file(&m, fx.ctx, fx.empty_path), &before, BY_DRIVER);
    assert_null(m);
    assert_non_null(strstr(cushim_last_error(), fx.empty_path));
    assert_int_equal(failures, 0);
}

/* A FIFO with no writer: opening it to read would block for good, so it is refused by its type
 * before it is opened, with a sentence that says what it is. The alarm turns a hang into a
 * failure. */
static void test_module_load_file_refuses_a_fifo(void **state) {
    (void)state;
    failures = cases = 0;
    char fifo[96];
    snprintf(fifo, sizeof fifo, "%s/kernels.ptx", fx.dir_path);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    cushim_module *m = SENTINEL;
    alarm(10);
    snapshot before = start();
    CUresult r = cushim_module_load_file(&m, fx.ctx, fifo);
    alarm(0);
    unlink(fifo);
    check_refusal("a FIFO", "cushim_module_load_file", CUDA_ERROR_FILE_NOT_FOUND, r, &before,
                  BEFORE_DRIVER);
    assert_null(m);
    assert_non_null(strstr(cushim_last_error(), fifo));
    assert_non_null(strstr(cushim_last_error(), "FIFO"));
    assert_int_equal(failures, 0);
}

static void test_kernel_names_empty_and_very_long(void **state) {
    (void)state;
    failures = cases = 0;
    size_t long_len = 1 << 16;
    char *long_name = malloc(long_len + 1);
    assert_non_null(long_name);
    memset(long_name, 'k', long_len);
    long_name[long_len] = '\0';
    const char *names[] = {"", " ", long_name, KERNEL "\n", "cushim_empt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char label[160];
        snprintf(label, sizeof label, "kernel name %zu (%zu characters)", i, strlen(names[i]));
        cushim_function *f = SENTINEL;
        snapshot before = start();
        check_refusal(label, "cushim_module_function", CUDA_ERROR_NOT_FOUND,
                      cushim_module_function(&f, fx.module, names[i]), &before, BY_DRIVER);
        if (f != NULL) FAILED(label, "the out-pointer is not NULL");
        f = SENTINEL;
        before = start();
        check_refusal(label, "cushim_library_function", CUDA_ERROR_NOT_FOUND,
                      cushim_library_function(&f, fx.library, fx.ctx, names[i]), &before,
                      BY_DRIVER);
        if (f != NULL) FAILED(label, "the out-pointer is not NULL");
    }
    free(long_name);
    /* The failed names left the kernels as they were: the same objects come back. */
    cushim_function *f = NULL;
    assert_ok(cushim_module_function(&f, fx.module, KERNEL));
    assert_ptr_equal(f, fx.fn);
    assert_ok(cushim_library_function(&f, fx.library, fx.ctx, KERNEL));
    assert_ptr_equal(f, fx.lib_fn);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        HOSTILE_TEST(test_module_load_refuses_bad_images),
        HOSTILE_TEST(test_module_load_file_refuses_bad_paths),
        HOSTILE_TEST(test_module_load_file_refuses_a_fifo),
        HOSTILE_TEST(test_kernel_names_empty_and_very_long),
        HOSTILE_TEST(test_everything_works_after_the_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
