// The NVRTC consumer program of tests/consumer, compiled as C++ against the drop-ins.
#include "../consumer/project/nvrtc.c"
