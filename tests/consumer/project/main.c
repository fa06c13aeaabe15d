/* A consumer of cushim: it needs nothing but cushim.h and the library, runs with or without a
 * driver, and checks that the status it gets is coherent. */
#include <cushim.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    CUresult r = cushim_init();
    const cushim_driver_info *info = cushim_driver_state();
    printf("cushim %d.%d.%d, header %d, %u entries: %s\n", CUSHIM_VERSION_MAJOR,
           CUSHIM_VERSION_MINOR, CUSHIM_VERSION_PATCH, info->header_version, info->entries_total,
           cushim_error_name(r));
    if (info->result != r || info->header_version != CUDA_VERSION) return 1;
    if (info->entries_total != CUSHIM_TABLE_ENTRIES || info->message == NULL) return 1;
    if (r == CUDA_SUCCESS) return cushim_driver() != NULL ? 0 : 1;
    /* No driver: an error and a reason, never a crash; the raw table answers the same. */
    if (strlen(cushim_last_error()) == 0) return 1;
    return cushim_driver() != NULL && cushim_driver()->cuInit(0) == r ? 0 : 1;
}
