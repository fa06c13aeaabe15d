/* The link tests that run on the mock (tests/unit/mock_exec/test_link.c) and on a GPU
 * (tests/gpu/test_gpu_load_checks.c) with one body, so that both ask the same of a link.
 * Include after <cmocka.h>, "cushim.h" and "assert_cu.h". */
#ifndef CUSHIM_LINK_CHECKS_H
#define CUSHIM_LINK_CHECKS_H

#include <stdint.h>
#include <string.h>

#include "link_ptx.h"

/* Runs the kernel `name` of m on one thread and returns the word it wrote to its argument. */
__attribute__((unused)) static uint32_t link_run(const cushim_driver_table *drv, CUmodule m,
                                                 const char *name) {
    CUfunction f;
    CUdeviceptr d;
    assert_ok(drv->cuModuleGetFunction(&f, m, name));
    assert_ok(drv->cuMemAlloc(&d, 4));
    void *params[] = {&d};
    assert_ok(drv->cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    uint32_t v = 0;
    assert_ok(drv->cuMemcpyDtoH(&v, d, sizeof v));
    assert_ok(drv->cuMemFree(d));
    return v;
}

/* The PTX inputs (each with its NUL) linked and loaded as a module, the link destroyed. */
__attribute__((unused)) static CUmodule link_load(const cushim_driver_table *drv,
                                                  const char *const *inputs, int n) {
    CUlinkState l;
    assert_ok(drv->cuLinkCreate(0, NULL, NULL, &l));
    for (int i = 0; i < n; i++) {
        assert_ok(drv->cuLinkAddData(l, CU_JIT_INPUT_PTX, (void *)inputs[i], strlen(inputs[i]) + 1,
                                     "input", 0, NULL, NULL));
    }
    void *image;
    size_t size;
    assert_ok(drv->cuLinkComplete(l, &image, &size));
    CUmodule m;
    assert_ok(drv->cuModuleLoadData(&m, image));
    assert_ok(drv->cuLinkDestroy(l));
    return m;
}

/* Each input's names without .visible are its own (PTX ISA "Linking Directives"): two inputs'
 * `seed` and `pick` stay apart (ka writes 7, kb 200), and a third input's visible `twice` and
 * `bias` keep their names. */
__attribute__((unused)) static void link_check_own_names(const cushim_driver_table *drv) {
    static const char *const inputs[] = {ptx_own_a, ptx_own_b, ptx_lib};
    CUmodule m = link_load(drv, inputs, 3);
    assert_int_equal(link_run(drv, m, "ka"), 7);
    assert_int_equal(link_run(drv, m, "kb"), 200);
    CUdeviceptr bias;
    size_t bytes;
    assert_ok(drv->cuModuleGetGlobal(&bias, &bytes, m, "bias"));
    assert_int_equal(bytes, 4);
    assert_ok(drv->cuModuleUnload(m));
}

#endif
