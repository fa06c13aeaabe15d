// C = A * B for row-major float matrices (A m x k, B k x n) in 16 x 16 shared tiles. Each product
// is one fused multiply-add in order of k, so the host can compute the same bits.
#define T 16
extern "C" __global__ void k_matmul(const float *a, const float *b, float *c, int m, int n, int k) {
    __shared__ float as[T][T];
    __shared__ float bs[T][T];
    int row = blockIdx.y * T + threadIdx.y;
    int col = blockIdx.x * T + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < k; t += T) {
        as[threadIdx.y][threadIdx.x] =
            row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] =
            col < n && t + threadIdx.y < k ? b[(t + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < T && t + j < k; j++)
            sum = __fmaf_rn(as[threadIdx.y][j], bs[j][threadIdx.x], sum);
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = sum;
}
