/* cushim::mock: cushim_mock.h opens the installed mock that cushim_MOCK_DRIVER names, and
 * cushim loads it as its driver. Run with CUSHIM_DRIVER set to that path. */
#include <cushim.h>
#include <cushim_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char *driver = getenv("CUSHIM_DRIVER");
    if (driver == NULL || strcmp(driver, MOCK_DRIVER) != 0) {
        fprintf(stderr, "run me with CUSHIM_DRIVER=%s\n", MOCK_DRIVER);
        return 2;
    }
    cushim_mock_api mock;
    if (!cushim_mock_open(&mock, MOCK_DRIVER)) return 1;
    mock.reset();
    CUresult r = cushim_init();
    printf("cushim_init on the installed mock: %s\n", cushim_error_name(r));
    return r == CUDA_SUCCESS && mock.launch_count() == 0 ? 0 : 1;
}
