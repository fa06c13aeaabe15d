// Tensor cores: a 16 x 16 x 16 product of halves into floats with nvcuda::wmma (wmma.load,
// wmma.mma, wmma.store), and the same tile as two m16n8k16 mma.sync of fragments loaded from
// shared memory by ldmatrix (.x4 for A, .x2.trans for B), written in inline PTX as libraries do.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// One warp: D = A B + C, A row major, B column major, C and D row major, all 16 x 16.
extern "C" __global__ void k_wmma(const __half *a, const __half *b, const float *c, float *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

// One warp: D = A B (A row major 16 x 16, B row major 16 x 16 in shared memory), as two
// m16n8k16 products; lane l writes its fragment's four floats of each to d.
extern "C" __global__ void k_mma(const __half *a, const __half *b, float *d) {
    __shared__ __align__(16) __half sa[256], sb[256];
    unsigned lane = threadIdx.x;
    for (unsigned i = lane; i < 256; i += 32) {
        sa[i] = a[i];
        sb[i] = b[i];
    }
    __syncwarp();
    unsigned a0, a1, a2, a3;
    // Matrices of A: rows 0-7 and 8-15 of columns 0-7, then of columns 8-15.
    unsigned row = lane % 16, col = lane / 16 * 8;
    unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[row * 16 + col]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(pa));
    for (int nt = 0; nt < 2; nt++) {
        unsigned b0, b1;
        // B's k rows 0-7 and 8-15 of columns nt*8..nt*8+7, transposed into the col fragment.
        unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(lane % 16) * 16 + nt * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b0), "=r"(b1)
                     : "r"(pb));
        float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        float *o = d + nt * 128 + lane * 4;
        o[0] = d0;
        o[1] = d1;
        o[2] = d2;
        o[3] = d3;
    }
}

// Producer and consumer warps on named barriers: warp 1 fills a shared slot and arrives
// (bar.arrive) at barrier 1; warp 0 waits there (bar.sync), adds the slot up and arrives at
// barrier 2, where warp 1 waits before refilling.
extern "C" __global__ void k_arrive(unsigned *out, int rounds) {
    __shared__ unsigned slot[32];
    unsigned lane = threadIdx.x % 32, sum = 0;
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x >= 32) {
            slot[lane] = r * 100 + lane;
            asm volatile("bar.arrive 1, 64;" ::: "memory");
            asm volatile("bar.sync 2, 64;" ::: "memory");
        } else {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            sum += slot[lane];
            asm volatile("bar.arrive 2, 64;" ::: "memory");
        }
    }
    out[threadIdx.x] = sum;
}
