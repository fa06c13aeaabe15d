/* cushim::cushim from C, run with CUSHIM_DRIVER=/nonexistent: cushim_init fails, says why, and
 * the program goes on. */
#include <cushim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char *driver = getenv("CUSHIM_DRIVER");
    if (driver == NULL || strcmp(driver, "/nonexistent") != 0) {
        fprintf(stderr, "run me with CUSHIM_DRIVER=/nonexistent\n");
        return 2;
    }
    CUresult r = cushim_init();
    const char *why = cushim_last_error();
    printf("cushim_init: %s: %s\n", cushim_error_name(r), why);
    if (r == CUDA_SUCCESS || why == NULL || strlen(why) == 0) return 1;
    const cushim_driver_info *info = cushim_driver_state();
    if (info->result != r || info->header_version != CUDA_VERSION) return 1;
    return 0;
}
