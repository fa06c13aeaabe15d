/* Memory pools on the mock: a pool made by cuMemPoolCreate serves allocations, names itself in
 * their pointer attributes, becomes a device's current pool, grants access per device, and is
 * refused once destroyed; the forms of CUDA 13 that name a location agree with the device ones. */
#include "mock_primary.h"

static void test_created_pool_serves_and_answers(void **state) {
    (void)state;
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    CUmemoryPool pool, def, cur;
    assert_ok(D->cuMemPoolCreate(&pool, &props));
    assert_ok(D->cuDeviceGetDefaultMemPool(&def, 0));
    assert_ptr_not_equal(pool, def);
    CUdeviceptr p;
    assert_ok(D->cuMemAllocFromPoolAsync(&p, 256, pool, NULL));
    CUmemoryPool owner = NULL;
    assert_ok(D->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
    assert_ptr_equal(owner, pool);
    assert_ok(D->cuMemFreeAsync(p, NULL));
    /* The device's current pool serves cuMemAllocAsync. */
    assert_ok(D->cuDeviceSetMemPool(0, pool));
    assert_ok(D->cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(cur, pool);
    CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    assert_ok(D->cuMemGetMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED));
    assert_ptr_equal(cur, pool);
    assert_ok(D->cuMemGetDefaultMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED));
    assert_ptr_equal(cur, def);
    assert_ok(D->cuMemAllocAsync(&p, 64, NULL));
    assert_ok(D->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
    assert_ptr_equal(owner, pool);
    assert_ok(D->cuMemFreeAsync(p, NULL));
    assert_ok(D->cuStreamSynchronize(NULL));
    /* Access: the owner always reads and writes; one device cannot take its own away. */
    CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    assert_ok(D->cuMemPoolGetAccess(&f, pool, &dev0));
    assert_int_equal(f, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccessDesc none = {dev0, CU_MEM_ACCESS_FLAGS_PROT_NONE};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPoolSetAccess(pool, &none, 1));
    CUmemAccessDesc rw = {dev0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    assert_ok(D->cuMemPoolSetAccess(pool, &rw, 1));
    CUmemLocation bad = {CU_MEM_LOCATION_TYPE_DEVICE, 9};
    assert_cu(CUDA_ERROR_INVALID_DEVICE, D->cuMemPoolGetAccess(&f, pool, &bad));
    /* Destroyed: the default comes back, and the pool is a misuse, named. */
    assert_ok(D->cuMemPoolDestroy(pool));
    assert_ok(D->cuDeviceGetMemPool(&cur, 0));
    assert_ptr_equal(cur, def);
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuMemAllocFromPoolAsync(&p, 64, pool, NULL));
    assert_non_null(strstr(mock.memory_error(), "already destroyed"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPoolDestroy(def)); /* a default pool stays */
    assert_ok(D->cuDeviceSetMemPool(0, def));
}

static void test_pool_arguments_are_checked(void **state) {
    (void)state;
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    CUmemoryPool pool;
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPoolCreate(NULL, &props));
    props.location.id = 5;
    assert_cu(CUDA_ERROR_INVALID_DEVICE, D->cuMemPoolCreate(&pool, &props));
    props.location = (CUmemLocation){CU_MEM_LOCATION_TYPE_HOST, 0};
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuMemPoolCreate(&pool, &props));
    CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemGetMemPool(&pool, &dev0, CU_MEM_ALLOCATION_TYPE_MAX));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemGetDefaultMemPool(NULL, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED));
    int junk;
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuDeviceSetMemPool(0, (CUmemoryPool)&junk));
    assert_non_null(strstr(mock.memory_error(), "never made by the mock"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_created_pool_serves_and_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pool_arguments_are_checked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
