// saxpy through the CUDA driver API from C++, as existing C++ code is written: <cuda.h>, the
// driver's own names, RAII owners and exceptions. Built against cushim's drop-in, unchanged.
//   dropin_saxpy_cxx PTX_FILE
// Exits 0 when every element is right, 1 on a driver error or a wrong element.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

struct driver_error : std::runtime_error {
    explicit driver_error(const std::string &what) : std::runtime_error(what) {}
};

void check(CUresult r, const char *call) {
    if (r == CUDA_SUCCESS) return;
    const char *name = "unknown", *text = "unknown";
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    throw driver_error(std::string(call) + " failed: " + name + " (" + text + ")");
}
#define CHECK(call) check((call), #call)

// The driver's entries are ordinary functions: their types and addresses work as with libcuda.
static_assert(std::is_same<decltype(&cuMemFree), CUresult (*)(CUdeviceptr)>::value,
              "cuMemFree keeps cuda.h's type");

struct device_buffer {
    CUdeviceptr ptr = 0;
    explicit device_buffer(size_t bytes) { CHECK(cuMemAlloc(&ptr, bytes)); }
    ~device_buffer() { cuMemFree(ptr); }
    device_buffer(const device_buffer &) = delete;
    device_buffer &operator=(const device_buffer &) = delete;
};

struct context {
    CUcontext ctx = nullptr;
    explicit context(CUdevice dev) { CHECK(cuCtxCreate(&ctx, nullptr, 0, dev)); }
    ~context() { cuCtxDestroy(ctx); }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
};

int run(const char *ptx_path) {
    const unsigned n = 1u << 16;
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    context ctx(dev);
    CUmodule mod;
    CHECK(cuModuleLoad(&mod, ptx_path));
    CUfunction saxpy;
    CHECK(cuModuleGetFunction(&saxpy, mod, "cushim_saxpy"));

    std::vector<float> x(n), y(n), out(n);
    for (unsigned i = 0; i < n; i++) {
        x[i] = 0.5f * static_cast<float>(i);
        y[i] = 3.0f;
    }
    device_buffer dx(n * sizeof(float)), dy(n * sizeof(float));
    auto copy_in = &cuMemcpyHtoD;  // taking an entry's address works as with libcuda
    CHECK(copy_in(dx.ptr, x.data(), n * sizeof(float)));
    CHECK(copy_in(dy.ptr, y.data(), n * sizeof(float)));
    unsigned count = n;
    float a = -1.5f;
    void *params[] = {&count, &a, &dx.ptr, &dy.ptr};
    CHECK(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(out.data(), dy.ptr, n * sizeof(float)));
    CHECK(cuModuleUnload(mod));

    unsigned wrong = 0;
    for (unsigned i = 0; i < n; i++) {
        if (out[i] != std::fma(a, x[i], y[i])) wrong++;
    }
    std::printf("saxpy (C++): %u of %u elements wrong\n", wrong, n);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s PTX_FILE\n", argv[0]);
        return 2;
    }
    try {
        return run(argv[1]);
    } catch (const driver_error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
