/* Built with cushim::mock linked before cushim::cuda: cushim_mock.h includes <cuda.h>, which
 * must still be the drop-in, or the program's driver calls would need libcuda. */
#include "cushim_mock.h"

#if !defined(CUSHIM_CUDA_DROPIN)
#error "cushim::mock put the toolkit's cuda.h before the drop-in"
#endif

int main(void) {
    cushim_mock_api api;
    return cushim_mock_open(&api, NULL) ? 0 : 1;
}
