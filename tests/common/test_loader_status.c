/* The driver status when there is no usable driver. One process per scenario (cushim_init runs
 * once per process); the scenario and what to expect come from the command line:
 *   test_loader_status STATUS RESULT TEXT...
 * STATUS is the expected cushim_driver_status word, RESULT the expected CUresult name, and each
 * TEXT must appear in the status message (or, written !TEXT, must not). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cushim.h"
#include "common/driver_status.h"

static int failures;

/* The last error is set again by each failing call; this proves the raw call set it. */
static void cushim_clear_last_error_for_test(void) {
    cushim_context *none = NULL;
    (void)cushim_context_retain(none);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("# FAIL %s:%d: ", __FILE__, __LINE__);                                          \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s STATUS RESULT [TEXT...]\n", argv[0]);
        return 2;
    }
    CUresult r = cushim_init();
    const cushim_driver_info *info = cushim_driver_state();
    CHECK(strcmp(driver_status_token(info->status), argv[1]) == 0, "status %s, expected %s",
          driver_status_token(info->status), argv[1]);
    CHECK(strcmp(cushim_error_name(r), argv[2]) == 0, "cushim_init returned %s, expected %s",
          cushim_error_name(r), argv[2]);
    CHECK(info->result == r, "info->result %d differs from cushim_init's %d", info->result, r);
    for (int i = 3; i < argc; i++) {
        if (argv[i][0] == '!') {
            CHECK(strstr(info->message, argv[i] + 1) == NULL, "message holds \"%s\": %s",
                  argv[i] + 1, info->message);
        } else {
            CHECK(strstr(info->message, argv[i]) != NULL, "message lacks \"%s\": %s", argv[i],
                  info->message);
        }
    }
    /* The failure is data, and the same on every later call; nothing is half-loaded. */
    CHECK(cushim_init() == r, "a second cushim_init gave another result");
    /* The raw table is never NULL: each slot answers the init result, with the reason. */
    const cushim_driver_table *cu = cushim_driver();
    CHECK(cu != NULL, "cushim_driver() is NULL without a driver");
    if (cu != NULL) {
        CUdevice dev = -1;
        cushim_clear_last_error_for_test();
        CHECK(cu->cuDeviceGet(&dev, 0) == r, "cuDeviceGet through the table gave %s",
              cushim_error_name(cu->cuDeviceGet(&dev, 0)));
        CHECK(strncmp(cushim_last_error(), "cuDeviceGet: ", 13) == 0 &&
                  strstr(cushim_last_error(), info->message) != NULL,
              "after a raw call the last error is \"%s\", not the entry and the status",
              cushim_last_error());
        const char *name = NULL, *text = NULL;
        CHECK(cu->cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &name) == CUDA_SUCCESS && name &&
                  strcmp(name, "CUDA_ERROR_INVALID_VALUE") == 0,
              "cuGetErrorName without a driver gave %s", name ? name : "NULL");
        CHECK(cu->cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text) == CUDA_SUCCESS && text &&
                  strcmp(text, cushim_error_string(CUDA_ERROR_INVALID_VALUE)) == 0,
              "cuGetErrorString without a driver gave %s", text ? text : "NULL");
        CHECK(cu->cuGetErrorName((CUresult)123456, &name) == CUDA_ERROR_INVALID_VALUE &&
                  name == NULL,
              "cuGetErrorName of an unknown code without a driver");
    }
    CHECK(!cushim_driver_has("cuInit"), "cushim_driver_has is true without a driver");
    CHECK(info->entries_resolved == 0, "%u entries resolved without a driver",
          info->entries_resolved);
    CHECK(info->entries_total == CUSHIM_TABLE_ENTRIES, "entries_total %u", info->entries_total);
    CHECK(info->header_version == CUDA_VERSION, "header_version %d", info->header_version);
    CHECK(strncmp(cushim_last_error(), "cushim_init: ", 13) == 0 &&
              strcmp(cushim_last_error() + 13, info->message) == 0,
          "last error \"%s\" is not cushim_init's and the status", cushim_last_error());
    if (info->status == CUSHIM_DRIVER_NOT_FOUND) {
        CHECK(info->path == NULL, "path %s for a driver not found", info->path);
    } else {
        CHECK(info->path != NULL, "no path for a library that was loaded");
    }
    /* Every object call degrades to the same code rather than crashing. */
    cushim_context *ctx = (cushim_context *)&ctx;
    CHECK(cushim_context_primary(&ctx, 0) == r && ctx == NULL,
          "cushim_context_primary without a driver");
    CHECK(cushim_device_synchronize() == r, "cushim_device_synchronize without a driver");
    printf("1..1\n%s - driver status %s, %s\n", failures ? "not ok 1" : "ok 1", argv[1], argv[2]);
    return failures ? 1 : 0;
}
