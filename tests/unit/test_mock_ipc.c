/* Memory and events shared between processes on the mock: an allocation exported with
 * cuIpcGetMemHandle, or a cuMemCreate handle exported as a POSIX file descriptor, is opened by a
 * second process (this program, started again with a role), which reads what the first wrote
 * and writes back what the first then reads; bad handles are refused with their codes. */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mock_primary.h"

extern char **environ;

#define CHILD_FD 100 /* where the second process finds a descriptor it is given */

static void to_hex(const void *p, size_t n, char *out) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void from_hex(const char *s, void *p, size_t n) {
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;
        sscanf(s + 2 * i, "%2x", &v);
        b[i] = (unsigned char)v;
    }
}

/* Runs this program again as `role` with `arg`, giving it descriptor fd (or none for -1) as
 * CHILD_FD; its exit status. */
static int run_child(const char *role, const char *arg, int fd) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = '\0';
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (fd >= 0) posix_spawn_file_actions_adddup2(&fa, fd, CHILD_FD);
    char *argv[] = {self, (char *)role, (char *)arg, NULL};
    pid_t pid;
    fflush(NULL);
    assert_int_equal(posix_spawn(&pid, self, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* ----------------------------------------------------------------------------------------- */
/* The second process: exit 0 when all went as expected, else the number of the failed step.  */
/* ----------------------------------------------------------------------------------------- */

#define STEP(n, cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "# child step %d failed: %s\n", (n), cushim_last_error());             \
            return (n);                                                                            \
        }                                                                                          \
    } while (0)

static int child_start(void) {
    if (cushim_init() != CUDA_SUCCESS) return 90;
    CUcontext c;
    if (D->cuDevicePrimaryCtxRetain(&c, 0) != CUDA_SUCCESS) return 91;
    return D->cuCtxSetCurrent(c) == CUDA_SUCCESS ? 0 : 92;
}

/* Opens the allocation, checks 0..n-1 as bytes, writes 0x5a everywhere, closes. */
static int child_open_mem(const char *hex) {
    CUipcMemHandle h;
    from_hex(hex, &h, sizeof h);
    CUdeviceptr p = 0, again = 0;
    STEP(1, D->cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS);
    STEP(2, D->cuIpcOpenMemHandle(&again, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) == CUDA_SUCCESS);
    STEP(3, again == p); /* opened twice: one pointer, counted */
    CUdeviceptr base = 0;
    size_t size = 0;
    STEP(4, D->cuMemGetAddressRange(&base, &size, p) == CUDA_SUCCESS && base == p);
    unsigned char *seen = malloc(size);
    STEP(5, seen != NULL && D->cuMemcpyDtoH(seen, p, size) == CUDA_SUCCESS);
    for (size_t i = 0; i < size; i++) STEP(6, seen[i] == (unsigned char)i);
    free(seen);
    STEP(7, D->cuMemsetD8(p, 0x5a, size) == CUDA_SUCCESS);
    STEP(8, D->cuIpcCloseMemHandle(p) == CUDA_SUCCESS);
    STEP(9, D->cuIpcCloseMemHandle(p) == CUDA_SUCCESS); /* the second reference */
    STEP(10, D->cuIpcCloseMemHandle(p) == CUDA_ERROR_INVALID_VALUE);
    return 0;
}

/* The handle's memory is gone: the open is refused with CUDA_ERROR_INVALID_HANDLE. */
static int child_open_gone(const char *hex) {
    CUipcMemHandle h;
    from_hex(hex, &h, sizeof h);
    CUdeviceptr p = 0;
    STEP(1, D->cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ==
                CUDA_ERROR_INVALID_HANDLE);
    STEP(2, strstr(cushim_last_error(), "gone") != NULL);
    return 0;
}

static int child_open_event(const char *hex) {
    CUipcEventHandle h;
    from_hex(hex, &h, sizeof h);
    CUevent e;
    STEP(1, D->cuIpcOpenEventHandle(&e, h) == CUDA_SUCCESS);
    STEP(2, D->cuEventQuery(e) == CUDA_SUCCESS);
    STEP(3, D->cuStreamWaitEvent(NULL, e, 0) == CUDA_SUCCESS);
    STEP(4, D->cuEventDestroy(e) == CUDA_SUCCESS);
    return 0;
}

/* Maps the exported memory file given as CHILD_FD, checks bytes 0..255 and writes 0xa5. */
static int child_import_fd(const char *size_text) {
    size_t size = (size_t)strtoull(size_text, NULL, 10);
    CUmemGenericAllocationHandle h;
    STEP(1, D->cuMemImportFromShareableHandle(&h, (void *)(intptr_t)CHILD_FD,
                                              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
                CUDA_SUCCESS);
    CUmemAllocationProp prop;
    STEP(2, D->cuMemGetAllocationPropertiesFromHandle(&prop, h) == CUDA_SUCCESS &&
                prop.location.id == 0);
    CUdeviceptr va;
    STEP(3, D->cuMemAddressReserve(&va, size, 0, 0, 0) == CUDA_SUCCESS);
    STEP(4, D->cuMemMap(va, size, 0, h, 0) == CUDA_SUCCESS);
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    STEP(5, D->cuMemSetAccess(va, size, &rw, 1) == CUDA_SUCCESS);
    unsigned char seen[256];
    STEP(6, D->cuMemcpyDtoH(seen, va, sizeof seen) == CUDA_SUCCESS);
    for (int i = 0; i < 256; i++) STEP(7, seen[i] == (unsigned char)(255 - i));
    STEP(8, D->cuMemsetD8(va, 0xa5, size) == CUDA_SUCCESS);
    STEP(9, D->cuMemUnmap(va, size) == CUDA_SUCCESS);
    STEP(10, D->cuMemRelease(h) == CUDA_SUCCESS);
    STEP(11, D->cuMemAddressFree(va, size) == CUDA_SUCCESS);
    return 0;
}

static int child(const char *role, const char *arg) {
    int r = child_start();
    if (r != 0) return r;
    if (strcmp(role, "open-mem") == 0) return child_open_mem(arg);
    if (strcmp(role, "open-gone") == 0) return child_open_gone(arg);
    if (strcmp(role, "open-event") == 0) return child_open_event(arg);
    if (strcmp(role, "import-fd") == 0) return child_import_fd(arg);
    return 99;
}

/* ----------------------------------------------------------------------------------------- */
/* The tests                                                                                 */
/* ----------------------------------------------------------------------------------------- */

static void test_ipc_memory_is_one_allocation_in_two_processes(void **state) {
    (void)state;
    enum { N = 4096 + 100 }; /* more than a page, not a whole number of them */
    static unsigned char bytes[N];
    for (int i = 0; i < N; i++) bytes[i] = (unsigned char)i;
    CUdeviceptr d;
    assert_ok(D->cuMemAlloc(&d, N));
    assert_ok(D->cuMemcpyHtoD(d, bytes, N));
    CUipcMemHandle h;
    assert_ok(D->cuIpcGetMemHandle(&h, d));
    char hex[2 * sizeof h + 1];
    to_hex(&h, sizeof h, hex);
    assert_int_equal(run_child("open-mem", hex, -1), 0);
    /* What the second process wrote is here, in the same allocation. */
    assert_ok(D->cuMemcpyDtoH(bytes, d, N));
    for (int i = 0; i < N; i++) assert_int_equal(bytes[i], 0x5a);
    /* A second export of the same allocation is the same memory, and still works. */
    CUipcMemHandle h2;
    assert_ok(D->cuIpcGetMemHandle(&h2, d));
    /* This process may not open its own handle; a handle the mock never made is refused. */
    CUdeviceptr p;
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, D->cuIpcOpenMemHandle(&p, h, 0));
    CUipcMemHandle junk;
    memset(&junk, 7, sizeof junk);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcOpenMemHandle(&p, junk, 0));
    assert_non_null(strstr(cushim_last_error(), "not made by the mock"));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcOpenMemHandle(&p, h, 2)); /* unknown flag */
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcCloseMemHandle(d));
    /* Only cuMemAlloc's memory is exported. */
    CUdeviceptr m;
    assert_ok(D->cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcGetMemHandle(&h, m));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcGetMemHandle(NULL, d));
    assert_ok(D->cuMemFree(m));
    /* Freed, the allocation is gone for the other process too. */
    assert_ok(D->cuMemFree(d));
    assert_int_equal(run_child("open-gone", hex, -1), 0);
}

static void test_ipc_event_handles(void **state) {
    (void)state;
    CUevent e, plain;
    assert_ok(D->cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    assert_ok(D->cuEventRecord(e, NULL));
    CUipcEventHandle h;
    assert_ok(D->cuIpcGetEventHandle(&h, e));
    char hex[2 * sizeof h + 1];
    to_hex(&h, sizeof h, hex);
    assert_int_equal(run_child("open-event", hex, -1), 0);
    CUevent back;
    assert_cu(CUDA_ERROR_INVALID_CONTEXT, D->cuIpcOpenEventHandle(&back, h));
    CUipcEventHandle junk;
    memset(&junk, 0, sizeof junk);
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcOpenEventHandle(&back, junk));
    assert_ok(D->cuEventCreate(&plain, CU_EVENT_DISABLE_TIMING));
    assert_cu(CUDA_ERROR_INVALID_VALUE, D->cuIpcGetEventHandle(&h, plain));
    assert_ok(D->cuEventDestroy(plain));
    assert_ok(D->cuEventDestroy(e));
    assert_cu(CUDA_ERROR_INVALID_HANDLE, D->cuIpcGetEventHandle(&h, e)); /* destroyed */
}

static void test_shareable_fd_is_one_allocation_in_two_processes(void **state) {
    (void)state;
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    size_t g = 0;
    assert_ok(D->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h;
    assert_ok(D->cuMemCreate(&h, g, &prop, 0));
    CUdeviceptr va;
    assert_ok(D->cuMemAddressReserve(&va, g, 0, 0, 0));
    assert_ok(D->cuMemMap(va, g, 0, h, 0));
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    assert_ok(D->cuMemSetAccess(va, g, &rw, 1));
    unsigned char bytes[256];
    for (int i = 0; i < 256; i++) bytes[i] = (unsigned char)(255 - i);
    assert_ok(D->cuMemcpyHtoD(va, bytes, sizeof bytes));
    int fd = -1;
    assert_ok(D->cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    assert_true(fd >= 0);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", g);
    assert_int_equal(run_child("import-fd", size_text, fd), 0);
    assert_ok(D->cuMemcpyDtoH(bytes, va, sizeof bytes));
    for (int i = 0; i < 256; i++) assert_int_equal(bytes[i], 0xa5);
    /* The properties, a retained handle, and an import in this process too. */
    CUmemAllocationProp got;
    assert_ok(D->cuMemGetAllocationPropertiesFromHandle(&got, h));
    assert_int_equal(got.requestedHandleTypes, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemGenericAllocationHandle again;
    assert_ok(D->cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(va + 8)));
    assert_int_equal(again, h);
    assert_ok(D->cuMemRelease(again));
    CUmemGenericAllocationHandle imported;
    assert_ok(D->cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    assert_ok(D->cuMemRelease(imported));
    /* Refused: another handle type, a descriptor the mock did not make, a handle made without
     * the POSIX type. */
    int other = -1;
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemExportToShareableHandle(&other, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              D->cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)null_fd,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    assert_non_null(strstr(cushim_last_error(), "is not one"));
    close(null_fd);
    assert_cu(CUDA_ERROR_INVALID_HANDLE,
              D->cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)-1,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUmemGenericAllocationHandle local;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    assert_ok(D->cuMemCreate(&local, g, &prop, 0));
    assert_cu(CUDA_ERROR_INVALID_VALUE,
              D->cuMemExportToShareableHandle(&other, local,
                                              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    assert_ok(D->cuMemRelease(local));
    close(fd);
    assert_ok(D->cuMemUnmap(va, g));
    assert_ok(D->cuMemRelease(h));
    assert_ok(D->cuMemAddressFree(va, g));
}

int main(int argc, char **argv) {
    if (argc == 3) return child(argv[1], argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ipc_memory_is_one_allocation_in_two_processes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ipc_event_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shareable_fd_is_one_allocation_in_two_processes, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
