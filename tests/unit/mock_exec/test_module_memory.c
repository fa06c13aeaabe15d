/* The mock's memory for modules is bounded (issue 28): unloaded modules and libraries are freed
 * (the resident set stays within 1 MiB over 20,000 load/unload cycles after a warm-up), a fatbin
 * of 16 compressed PTX entries keeps only the entry the device uses (its load peaks under
 * 300 MB), code a graph still holds outlives its module's unload, and cuModuleLoad and
 * cuLibraryLoadFromFile refuse what is not a regular file. MOCK_MODULE_CYCLES sets the cycles. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec_util.h"
#include "fatbin_util.h"
#include "rss_util.h"

static const char ptx_put[] =
    PTX_HEAD ".visible .entry put(.param .u64 p)\n{\n.reg .b32 %r<2>; .reg .b64 %rd<3>;\n"
             "ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;\n"
             "mov.u32 %r1, 42; st.global.u32 [%rd2], %r1;\nret;\n}\n";

/* A field of /proc/self/status in KiB (VmRSS, VmHWM). */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, n) == 0 && line[n] == ':') v = atol(line + n + 1);
    }
    fclose(f);
    assert_true(v >= 0);
    return v;
}

static void cycles(long n) {
    for (long i = 0; i < n; i++) {
        CUmodule m;
        CUfunction f;
        CUlibrary l;
        CUkernel k;
        assert_ok(t->cuModuleLoadData(&m, ptx_put));
        assert_ok(t->cuModuleGetFunction(&f, m, "put"));
        assert_ok(t->cuModuleUnload(m));
        assert_ok(t->cuLibraryLoadData(&l, ptx_put, NULL, NULL, 0, NULL, NULL, 0));
        assert_ok(t->cuLibraryGetKernel(&k, l, "put"));
        assert_ok(t->cuKernelGetFunction(&f, k));
        assert_ok(t->cuLibraryUnload(l));
    }
}

static void test_load_unload_cycles_are_flat(void **state) {
    (void)state;
    bool bound = !rss_measured_elsewhere();
    const char *env = getenv("MOCK_MODULE_CYCLES");
    long n = env ? atol(env) : bound ? 20000 : 500;
    cycles(bound ? 6000 : 500); /* past the 4096 dead records kept of each kind */
    long before = status_kib("VmRSS");
    cycles(n);
    long after = status_kib("VmRSS");
    fprintf(stderr, "# %ld module and library load/unload cycles: RSS %ld KiB -> %ld KiB (%+ld)\n",
            n, before, after, after - before);
    if (bound) assert_true(after - before < 1024);
}

/* A graph that holds a launch of an unloaded module's kernel still runs it (the driver leaves
 * that undefined; the mock must not read freed memory). */
static void test_graph_outlives_its_module(void **state) {
    (void)state;
    CUmodule m;
    CUfunction f;
    CUstream s;
    CUgraph g;
    CUgraphExec x;
    CUdeviceptr d;
    assert_ok(t->cuModuleLoadData(&m, ptx_put));
    assert_ok(t->cuModuleGetFunction(&f, m, "put"));
    assert_ok(t->cuMemAlloc(&d, 4));
    assert_ok(t->cuMemsetD32(d, 0, 1));
    assert_ok(t->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    void *params[] = {&d};
    assert_ok(t->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    assert_ok(t->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    assert_ok(t->cuStreamEndCapture(s, &g));
    assert_ok(t->cuGraphInstantiate(&x, g, 0));
    assert_ok(t->cuModuleUnload(m));
    for (int i = 0; i < 100; i++) { /* other modules take the freed memory */
        CUmodule other;
        assert_ok(t->cuModuleLoadData(&other, ptx_two));
        assert_ok(t->cuModuleUnload(other));
    }
    assert_ok(t->cuGraphLaunch(x, s));
    assert_ok(t->cuStreamSynchronize(s));
    uint32_t v = 0;
    assert_ok(t->cuMemcpyDtoH(&v, d, sizeof v));
    assert_int_equal(v, 42);
    assert_ok(t->cuGraphExecDestroy(x));
    assert_ok(t->cuGraphDestroy(g));
    assert_ok(t->cuStreamDestroy(s));
    assert_ok(t->cuMemFree(d));
}

/* ------------------------------------------------------------------------------------------ */
/* A fatbin of 16 zstd-compressed PTX entries, each large once decompressed                   */
/* ------------------------------------------------------------------------------------------ */

typedef size_t (*zstd_compress_fn)(void *, size_t, const void *, size_t, int);
typedef size_t (*zstd_bound_fn)(size_t);

/* The PTX of one entry: a kernel named k<arch>, then `pad` bytes of comment. */
static char *entry_text(unsigned arch, size_t pad, size_t *len) {
    char head[256];
    int n = snprintf(head, sizeof head,
                     ".version 8.0\n.target sm_%u\n.address_size 64\n"
                     ".visible .entry k%u(.param .u64 p)\n{\nret;\n}\n/*",
                     arch, arch);
    char *t = malloc((size_t)n + pad + 4);
    assert_non_null(t);
    memcpy(t, head, (size_t)n);
    memset(t + n, 'x', pad);
    memcpy(t + n + pad, "*/\n", 4);
    *len = (size_t)n + pad + 3;
    return t;
}

static unsigned char *compressed_fatbin(size_t pad, size_t *total, void **zlib) {
    static const unsigned arches[16] = {35, 37, 50, 52, 53, 60, 61, 62,
                                        70, 72, 75, 80, 86, 87, 89, 90};
    *zlib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (*zlib == NULL) return NULL;
    zstd_compress_fn compress;
    zstd_bound_fn bound;
    void *c = dlsym(*zlib, "ZSTD_compress"), *b = dlsym(*zlib, "ZSTD_compressBound");
    assert_true(c != NULL && b != NULL);
    memcpy(&compress, &c, sizeof c);
    memcpy(&bound, &b, sizeof b);
    fatbin f = {0};
    for (int i = 0; i < 16; i++) {
        size_t len;
        char *text = entry_text(arches[i], pad, &len);
        size_t zcap = bound(len);
        void *z = malloc(zcap);
        assert_non_null(z);
        size_t zlen = compress(z, zcap, text, len, 19);
        assert_true(zlen < zcap);
        free(text);
        assert_true(fat_add(&f, z, zlen, len, arches[i], FAT_ZSTD));
        free(z);
    }
    *total = f.len;
    return f.p;
}

static void test_fatbin_keeps_one_entry(void **state) {
    (void)state;
    bool bound = !rss_measured_elsewhere();
    size_t pad = bound ? (size_t)120 << 20 : (size_t)1 << 20; /* 16 x 120 MB if all were kept */
    size_t size = 0;
    void *zlib = NULL;
    unsigned char *fat = compressed_fatbin(pad, &size, &zlib);
    if (fat == NULL) skip(); /* no libzstd.so.1 to compress with */
    /* The peak from here on: writing 5 to clear_refs resets VmHWM (proc(5)). */
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    bool reset = fd >= 0 && write(fd, "5", 1) == 1;
    if (fd >= 0) close(fd);
    CUmodule m;
    CUfunction f;
    assert_ok(t->cuModuleLoadData(&m, fat));
    long peak = status_kib("VmHWM");
    fprintf(stderr, "# a %zu-byte fatbin of 16 compressed %zu-byte PTX entries: peak RSS %ld KiB\n",
            size, pad, peak);
    if (bound && reset) assert_true(peak < 300 * 1000);
    /* The device's (9.0) entry is the one used: its kernel, and no other entry's. */
    assert_ok(t->cuModuleGetFunction(&f, m, "k90"));
    assert_int_equal(t->cuModuleGetFunction(&f, m, "k50"), CUDA_ERROR_NOT_FOUND);
    assert_ok(t->cuModuleUnload(m));
    free(fat);
    dlclose(zlib);
}

/* ------------------------------------------------------------------------------------------ */
/* Files                                                                                      */
/* ------------------------------------------------------------------------------------------ */

static void test_load_file_refuses_what_is_not_a_regular_file(void **state) {
    (void)state;
    char dir[] = "/tmp/cushim-module-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {"/dev/zero", fifo, dir};
    for (size_t i = 0; i < 3; i++) {
        CUmodule m = NULL;
        CUlibrary l = NULL;
        assert_int_equal(t->cuModuleLoad(&m, paths[i]), CUDA_ERROR_FILE_NOT_FOUND);
        assert_int_equal(t->cuLibraryLoadFromFile(&l, paths[i], NULL, NULL, 0, NULL, NULL, 0),
                         CUDA_ERROR_FILE_NOT_FOUND);
        assert_null(m);
    }
    /* A regular file still loads. */
    char file[64];
    snprintf(file, sizeof file, "%s/put.ptx", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(ptx_put, f);
    fclose(f);
    CUmodule m;
    CUfunction fn;
    assert_ok(t->cuModuleLoad(&m, file));
    assert_ok(t->cuModuleGetFunction(&fn, m, "put"));
    assert_ok(t->cuModuleUnload(m));
    unlink(file);
    unlink(fifo);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_unload_cycles_are_flat, exec_setup,
                                        exec_teardown),
        cmocka_unit_test_setup_teardown(test_graph_outlives_its_module, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_fatbin_keeps_one_entry, exec_setup, exec_teardown),
        cmocka_unit_test_setup_teardown(test_load_file_refuses_what_is_not_a_regular_file,
                                        exec_setup, exec_teardown),
    };
    return cmocka_run_group_tests_name("mock_module_memory", tests, NULL, NULL);
}
