/* cushim_mock.h, the mock driver's control header, as C and as C++ with -Wall -Wextra
 * -pedantic -Werror: its inline cushim_mock_open and the API it fills. Compiled, not run. */
#include "cushim_mock.h"
#include "cushim_mock.h"

int main(void) {
    cushim_mock_api mock;
    if (!cushim_mock_open(&mock, NULL)) return 1;
    mock.reset();
    mock.fail_call("cuInit", 1, CUDA_ERROR_NO_DEVICE);
    const cushim_mock_launch *first = mock.launch_count() > 0 ? mock.launch(0) : NULL;
    return first != NULL && first->cooperative ? 2 : 0;
}
