// cooperative_groups grid sync (nvcc -arch=compute_90 -ptx -O3 gives cg_grid_sync.ptx, committed):
// the grid workspace comes through %envreg1/%envreg2 on a cooperative launch.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void gsum(int *data, int *out, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    if (i < n) atomicAdd(out, data[i]);
    g.sync();
    if (i == 0) out[1] = out[0] * 2;
    g.sync();
    if (i < n) data[i] = out[1];
}
