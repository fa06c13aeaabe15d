/* The README's launch-config idiom, as C (c11, c17) and as C++ (c++11 to c++23), each with
 * -Wall -Wextra -pedantic -Werror under gcc and clang. The lines between the README markers are
 * the README's own (readme_launch_config checks that they are there, in order). Compiled, not
 * run. */
#include <cushim.h>

CUresult launch_twice(const cushim_function *f, cushim_stream *s, void **params, unsigned n);

CUresult launch_twice(const cushim_function *f, cushim_stream *s, void **params, unsigned n) {
    /* README: begin */
    cushim_launch_config cfg = cushim_launch_config_make(CUSHIM_DIM3(n / 64), CUSHIM_DIM3(64));
    cfg.stream = s; /* any field not given is zero: no dynamic shared memory, no attribute */
    CUresult r = cushim_launch(f, &cfg, params);
    /* README: end */
    if (r != CUDA_SUCCESS) return r;
    /* Every other field, set after the call, as the header's comment shows. */
    cushim_launch_config more = cushim_launch_config_make(CUSHIM_DIM3(8, 2), CUSHIM_DIM3(32, 4, 1));
    more.shared_mem_bytes = 1024;
    more.cluster = CUSHIM_DIM3(2);
    more.priority = -1;
    more.has_priority = true;
    more.cooperative = false;
    more.programmatic_serialization = true;
    return cushim_launch(f, &more, params);
}
