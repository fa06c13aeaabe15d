// Texture and surface objects: a 2D fetch at given coordinates (every channel), an integer
// fetch, a gather, a surface read, changed and written back, a cube map and mipmap levels (by
// level of detail, and by gradients).
extern "C" __global__ void k_tex2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void k_tex1dfetch(cudaTextureObject_t t, const int *at, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, at[i]);
}

extern "C" __global__ void k_gather(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 0);
}

extern "C" __global__ void k_surface(cudaSurfaceObject_t s, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float v = surf2Dread<float>(s, x * 4, y);
        surf2Dwrite(v * 2.0f + (float)(x + 100 * y), s, x * 4, y);
    }
}

extern "C" __global__ void k_cube(cudaTextureObject_t t, const float4 *dir, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float>(t, dir[i].x, dir[i].y, dir[i].z);
}

extern "C" __global__ void k_lod(cudaTextureObject_t t, const float *lod, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float>(t, 0.3f, 0.6f, lod[i]);
}

// tex2DGrad: the gradient g along x for even i, along y for odd i (the other one zero).
extern "C" __global__ void k_grad(cudaTextureObject_t t, const float *g, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 dx = make_float2(i & 1 ? 0.0f : g[i], 0.0f), dy = make_float2(0.0f, i & 1 ? g[i] : 0.0f);
        out[i] = tex2DGrad<float>(t, 0.3f, 0.6f, dx, dy);
    }
}
