// cushim::cushim from C++, run with CUSHIM_DRIVER=/nonexistent: the same checks as main.c,
// through the C++ compiler.
#include <cushim.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

int main() {
    const char *driver = std::getenv("CUSHIM_DRIVER");
    if (driver == nullptr || std::string(driver) != "/nonexistent") {
        std::cerr << "run me with CUSHIM_DRIVER=/nonexistent\n";
        return 2;
    }
    const CUresult r = cushim_init();
    const std::string why = cushim_last_error();
    std::cout << "cushim_init from C++: " << cushim_error_name(r) << ": " << why << "\n";
    if (r == CUDA_SUCCESS || why.empty()) return 1;
    const cushim_driver_info *info = cushim_driver_state();
    return info->result == r && info->header_version == CUDA_VERSION ? 0 : 1;
}
