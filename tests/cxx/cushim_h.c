/* cushim.h as C (c11, c17) and as C++ (c++11 to c++23), each with -Wall -Wextra -pedantic
 * -Werror: included twice (its guard), CUSHIM_DIM3 in its three forms, a few calls. The file is
 * in the common subset of C and C++; it is compiled, not run. */
#include <cushim.h>
#include <cushim.h>

#include <stddef.h>
#include <string.h>

static unsigned volume(cushim_dim3 d) { return d.x * d.y * d.z; }

int main(void) {
    cushim_dim3 one = CUSHIM_DIM3(4);
    cushim_dim3 two = CUSHIM_DIM3(4, 2);
    /* C++ before C++20 has no designated initialisers, and a positional one that stops short
     * of the launch attributes draws -Wmissing-field-initializers: zero it, then set fields. */
    cushim_launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = CUSHIM_DIM3(8, 2, 3);
    cfg.block = CUSHIM_DIM3(128);
    cfg.cluster = CUSHIM_DIM3(2);
    cfg.has_priority = true;
    CUresult (*init)(void) = &cushim_init;
    CUresult r = init();
    const cushim_driver_info *info = cushim_driver_state();
    const char *why = cushim_last_error();
    cushim_context *ctx = NULL;
    if (r == CUDA_SUCCESS && cushim_context_primary(&ctx, 0) == CUDA_SUCCESS)
        cushim_context_release(ctx);
    return (int)(volume(one) + volume(two) + volume(cfg.grid) + volume(cfg.block)) +
           (info->result == r) + (why != NULL) + (cushim_error_name(r) != NULL) +
           (cushim_driver_has("cuInit") ? 1 : 0);
}
