/* The drop-in nvrtc.h and nvJitLink.h, as C and as C++ with -Wall -Wextra -pedantic -Werror:
 * an unmodified translation unit whose NVRTC and nvJitLink functions keep their headers' types
 * (their addresses, and decltype in C++), included twice. Compiled, not run. */
#include <nvJitLink.h>
#include <nvrtc.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include <stddef.h>

typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);

#ifdef __cplusplus
#include <type_traits>
static_assert(std::is_same<decltype(&nvrtcCompileProgram), compile_fn>::value,
              "nvrtcCompileProgram has nvrtc.h's type");
typedef decltype(nvJitLinkVersion) jitlink_version_t;
#else
typedef nvJitLinkResult jitlink_version_t(unsigned int *, unsigned int *);
#endif

int main(void) {
    compile_fn compile = &nvrtcCompileProgram;
    jitlink_version_t *version = &nvJitLinkVersion;
    nvrtcProgram prog = NULL;
    nvJitLinkHandle link = NULL;
    unsigned major = 0, minor = 0;
    nvrtcResult r = nvrtcCreateProgram(&prog, "", "empty.cu", 0, NULL, NULL);
    if (r == NVRTC_SUCCESS) r = compile(prog, 0, NULL);
    nvrtcDestroyProgram(&prog);
    nvJitLinkResult j = version(&major, &minor);
    if (j == NVJITLINK_SUCCESS) j = nvJitLinkCreate(&link, 0, NULL);
    nvJitLinkDestroy(&link);
    return nvrtcGetErrorString(r) != NULL && j == NVJITLINK_SUCCESS ? 0 : 1;
}
