/* What the driver refuses when a module loads, the mock refuses then too (issue 28, item 5),
 * with the driver's codes and the reason in the JIT's error log: PTX its interpreter cannot
 * parse (CUDA_ERROR_INVALID_PTX), a .target above the device (the JIT's CUDA_ERROR_INVALID_PTX
 * for bare PTX, CUDA_ERROR_NO_BINARY_FOR_GPU for a fatbin with nothing for the device), sizes
 * no device has, a damaged compressed fatbin entry (CUDA_ERROR_INVALID_IMAGE, naming the damage,
 * not a missing library); and a kernel name the image does not have is CUDA_ERROR_NOT_FOUND. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "exec_util.h"
#include "fatbin_util.h"

static char jit_log[1024];

/* cuModuleLoadDataEx with an error log; the module is unloaded when it loaded. */
static CUresult load(const void *image) {
    CUmodule m = NULL;
    jit_log[0] = '\0';
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
    CUresult r = t->cuModuleLoadDataEx(&m, image, 2, opts, vals);
    if (r == CUDA_SUCCESS)
        assert_ok(t->cuModuleUnload(m));
    else
        assert_null(m);
    return r;
}

static void test_unparsable_ptx_is_refused_at_load(void **state) {
    (void)state;
    static const char unclosed[] = PTX_HEAD ".visible .entry k(.param .u64 p)\n{\n\tret;\n";
    assert_int_equal(load(unclosed), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "the body of k is not closed"));
    static const char stray[] = PTX_HEAD ".visible .entry k()\n{\n\tret;\n}\n) junk;\n";
    assert_int_equal(load(stray), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "unexpected ')'"));
    /* The library entry refuses it the same way. */
    CUlibrary l = NULL;
    assert_int_equal(t->cuLibraryLoadData(&l, unclosed, NULL, NULL, 0, NULL, NULL, 0),
                     CUDA_ERROR_INVALID_PTX);
    assert_null(l);
}

static void test_target_above_the_device_is_refused_at_load(void **state) {
    (void)state;
    static const char sm100[] =
        ".version 8.8\n.target sm_100\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
    assert_int_equal(load(sm100), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "SM version specified by .target is higher"));
    assert_non_null(strstr(jit_log, "compute_90 or lower"));
    /* In a fatbin with no other entry: no binary for the device. */
    fatbin f = {0};
    assert_true(fat_add(&f, sm100, sizeof sm100, 0, 100, 0));
    assert_int_equal(load(f.p), CUDA_ERROR_NO_BINARY_FOR_GPU);
    assert_non_null(strstr(jit_log, "no binary for the device"));
    /* With an entry the device runs beside it, that one is used. */
    static const char sm80[] =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k80()\n{\n\tret;\n}\n";
    assert_true(fat_add(&f, sm80, sizeof sm80, 0, 80, 0));
    CUmodule m;
    CUfunction fn;
    assert_ok(t->cuModuleLoadData(&m, f.p));
    assert_ok(t->cuModuleGetFunction(&fn, m, "k80"));
    assert_int_equal(t->cuModuleGetFunction(&fn, m, "k"), CUDA_ERROR_NOT_FOUND);
    assert_ok(t->cuModuleUnload(m));
    free(f.p);
}

static void test_sizes_no_device_has_are_refused_at_load(void **state) {
    (void)state;
    /* 16 EiB of .global, which ptxas would wrap */
    static const char wraps[] = PTX_HEAD ".global .b8 g[18446744073709551616];\n";
    assert_int_equal(load(wraps), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "2^64 bytes or more"));
    /* 4 EiB: no device's memory holds it */
    static const char huge[] = PTX_HEAD ".global .b8 g[4611686018427387904];\n";
    assert_int_equal(load(huge), CUDA_ERROR_OUT_OF_MEMORY);
    assert_non_null(strstr(jit_log, "more than the device's"));
    /* 200 GB, more than the H200's 141 GB, though less than a host might reserve */
    static const char over[] = PTX_HEAD ".global .b8 g[200000000000];\n";
    assert_int_equal(load(over), CUDA_ERROR_OUT_OF_MEMORY);
    /* 256 MiB of static shared memory for one entry */
    static const char shared[] = PTX_HEAD ".shared .b8 s[268435456];\n"
                                          ".visible .entry k()\n{\n\tret;\n}\n";
    assert_int_equal(load(shared), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "too much shared data"));
    /* 64 KiB of parameters */
    static const char params[] = ".version 8.1\n.target sm_90\n.address_size 64\n"
                                 ".visible .entry k(.param .align 8 .b8 p[65536])\n{\n\tret;\n}\n";
    assert_int_equal(load(params), CUDA_ERROR_INVALID_PTX);
    assert_non_null(strstr(jit_log, "too much parameter space"));
}

static void test_damaged_compressed_entry_names_the_damage(void **state) {
    (void)state;
    void *zlib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (zlib == NULL) skip();
    size_t (*compress)(void *, size_t, const void *, size_t, int);
    void *c = dlsym(zlib, "ZSTD_compress");
    assert_non_null(c);
    memcpy(&compress, &c, sizeof c);
    static const char ptx[] = PTX_HEAD ".visible .entry z()\n{\n\tret;\n}\n";
    unsigned char z[512];
    size_t zlen = compress(z, sizeof z, ptx, sizeof ptx, 3);
    assert_true(zlen > 8 && zlen < sizeof z);
    fatbin good = {0}, bad = {0};
    assert_true(fat_add(&good, z, zlen, sizeof ptx, 90, FAT_ZSTD));
    z[0] ^= 0xff; /* the zstd frame's magic */
    assert_true(fat_add(&bad, z, zlen, sizeof ptx, 90, FAT_ZSTD));
    CUmodule m;
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&m, good.p));
    assert_ok(t->cuModuleGetFunction(&f, m, "z"));
    /* Names are read from the decompressed text: another name is not found. */
    assert_int_equal(t->cuModuleGetFunction(&f, m, "not_there"), CUDA_ERROR_NOT_FOUND);
    assert_ok(t->cuModuleUnload(m));
    assert_int_equal(load(bad.p), CUDA_ERROR_INVALID_IMAGE);
    assert_non_null(strstr(jit_log, "damaged"));
    assert_null(strstr(jit_log, "libzstd"));
    free(good.p);
    free(bad.p);
    dlclose(zlib);
}

static void test_unknown_kernel_name_is_not_found(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&m, ptx_two));
    assert_int_equal(t->cuModuleGetFunction(&f, m, "stepp"), CUDA_ERROR_NOT_FOUND);
    assert_int_equal(t->cuModuleGetFunction(&f, m, ""), CUDA_ERROR_NOT_FOUND);
    assert_ok(t->cuModuleUnload(m));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unparsable_ptx_is_refused_at_load, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_target_above_the_device_is_refused_at_load, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_sizes_no_device_has_are_refused_at_load, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_damaged_compressed_entry_names_the_damage, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_unknown_kernel_name_is_not_found, exec_setup,
                                        exec_teardown),
    };
    return cmocka_run_group_tests_name("mock_load_checks", tests, NULL, NULL);
}
