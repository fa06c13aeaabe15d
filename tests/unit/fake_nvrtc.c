/* A library that says it is NVRTC of FAKE_MAJOR.4 and has nothing else: the loader must refuse
 * another major version, and give every entry this one lacks a stub. */
#include <nvrtc.h>

__attribute__((visibility("default"))) nvrtcResult nvrtcVersion(int *major, int *minor) {
    *major = FAKE_MAJOR;
    *minor = 4;
    return NVRTC_SUCCESS;
}
