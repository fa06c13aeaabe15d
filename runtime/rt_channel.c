/* Channel formats of arrays and textures: cudaCreateChannelDesc fills a struct and asks nothing
 * of the driver. The arrays themselves live beside it in files of their own. */
#include "runtime/rt.h"

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
