/* The warp-level matrix instructions and bar.arrive (PTX ISA "Warp Level Matrix
 * Multiply-Accumulate Instructions": wmma.load, wmma.store, wmma.mma, mma, ldmatrix; "Parallel
 * Synchronization and Communication Instructions: bar, barrier").
 *
 * A matrix instruction runs once for the whole warp (all 32 lanes, converged, as .aligned
 * requires): it gathers every lane's fragment registers into whole matrices, computes, and
 * scatters the result. Fragment layouts are the ISA's figures for mma.m16n8k16 ("Matrix
 * Fragments for mma.m16n8k16 with floating point type"): with groupID = lane >> 2 and
 * tig = lane % 4, element i of A is at row groupID + 8 * ((i >> 1) & 1), column tig * 2 + (i & 1)
 * + 8 * (i >> 2); of B at row tig * 2 + (i & 1) + 8 * ((i >> 1) & 1), column groupID; of C and D
 * at row groupID + 8 * ((i >> 1) & 1), column tig * 2 + (i & 1). wmma's layouts are left to the
 * implementation by the ISA; the mock's m16n16k16 fragments are two m16n8k16 ones side by side
 * (B, C and D: elements 4-7 are the columns 8-15), and f16 A and B fragments, which have 16
 * elements for 8 distinct ones, hold them twice (elements 8-15 repeat 0-7). Products are summed
 * in double and rounded once to the accumulator's type. */
#include <math.h>
#include <string.h>

#include "ptx_run.h"
#include "ptx_val.h"

#define SLOT(s, l) R[((size_t)(s) << 5) + (l)]

/* The slots the carriers before `in` hold, in order. */
static const uint32_t *arg_slots(const pinst *in, uint32_t *out) {
    const pinst *a = in - in->vec;
    for (int k = 0; k < in->vec; k++) {
        memcpy(out + 8 * k, a[k].d, 4 * sizeof out[0]);
        memcpy(out + 8 * k + 4, a[k].s, 4 * sizeof out[0]);
    }
    return out;
}

/* Row and column of element j of a fragment (0 A, 1 B, else C or D) in lane l. */
static void place(int frag, unsigned l, int j, int *r, int *c) {
    int g = (int)(l >> 2), t = (int)(l & 3);
    j &= 7;
    if (frag == 1) {
        *r = t * 2 + (j & 1) + 8 * ((j >> 1) & 1);
        *c = g + 8 * (j >> 2);
    } else {
        *r = g + 8 * ((j >> 1) & 1);
        *c = t * 2 + (j & 1) + 8 * (j >> 2);
    }
}

static bool half16(int t) { return t == T_F16 || t == T_BF16; }

static double elem_value(uint64_t reg, int t, int j) {
    if (!half16(t)) return f32(reg);
    uint32_t h = (uint32_t)(reg >> (16 * (j & 1))) & 0xffffu;
    if (t == T_BF16) return f32((uint64_t)h << 16);
    return ptx__half_to_float((uint16_t)h);
}

/* Element j of lane l's fragment of `n` registers from slots s: its register's bits. */
static uint64_t *elem_reg(uint64_t *R, const uint32_t *s, int t, unsigned l, int j) {
    return &SLOT(s[half16(t) ? j / 2 : j], l);
}

static uint64_t to_bits(double v, int t) {
    if (t == T_F32) return b32((float)v);
    return ptx__half_from_float((float)v); /* exact sums of halves round once; else twice */
}

/* Gathers a rows x cols matrix from the fragments of all lanes (elements 0..n-1). */
static void gather(uint64_t *R, const uint32_t *s, int frag, int t, int n, double *mat, int cols) {
    for (unsigned l = 0; l < 32; l++) {
        for (int j = 0; j < n; j++) {
            int r, c;
            place(frag, l, j, &r, &c);
            mat[r * cols + c] = elem_value(*elem_reg(R, s, t, l, j), t, j);
        }
    }
}

static void scatter(uint64_t *R, const uint32_t *s, int t, int n, const double *mat, int cols) {
    for (unsigned l = 0; l < 32; l++) {
        for (int j = 0; j < n; j++) {
            int r, c;
            place(2, l, j, &r, &c);
            uint64_t *reg = elem_reg(R, s, t, l, j), v = to_bits(mat[r * cols + c], t);
            if (t == T_F32)
                *reg = v;
            else if (j & 1)
                *reg = (*reg & 0xffffu) | v << 16;
            else
                *reg = v;
        }
    }
}

/* D = A B + C: m16n8k16 (mma) or m16n16k16 (wmma). */
static void mma(const pinst *in, uint64_t *R, bool wmma) {
    uint32_t s[32];
    arg_slots(in, s);
    int nd = (int)(in->imm & 0xff), na = (int)((in->imm >> 8) & 0xff),
        nb = (int)((in->imm >> 16) & 0xff), at = in->type2, dt = in->space & 15,
        ct = in->space >> 4, cols = wmma ? 16 : 8;
    const uint32_t *sd = s, *sa = s + nd, *sb = sa + na, *sc = sb + nb;
    double a[16 * 16], b[16 * 16], c[16 * 16], d[16 * 16];
    int ea = at == T_F16 && wmma ? 8 : (half16(at) ? 2 : 1) * na; /* distinct elements */
    if (ea > 8) ea = 8;
    int eb = half16(at) ? 2 * nb : nb;
    if (eb > (wmma ? 8 : 4)) eb = wmma ? 8 : 4;
    gather(R, sa, 0, at, ea, a, 16);
    gather(R, sb, 1, at, eb, b, cols);
    gather(R, sc, 2, ct, wmma ? 8 : 4, c, cols);
    for (int r = 0; r < 16; r++) {
        for (int col = 0; col < cols; col++) {
            double sum = c[r * cols + col];
            for (int k = 0; k < 16; k++) sum += a[r * 16 + k] * b[k * cols + col];
            d[r * cols + col] = sum;
        }
    }
    scatter(R, sd, dt, wmma ? 8 : 4, d, cols);
}

/* wmma.load / wmma.store of m16n16k16: each lane's elements at their place in the matrix in
 * memory (row or column major, `stride` elements apart). */
static int access(pblock *b, pwarp *w, const pinst *in, uint64_t *R) {
    uint32_t s[8];
    arg_slots(in, s);
    int t = in->type2, frag = in->sub == MM_LOAD_A ? 0 : in->sub == MM_LOAD_B ? 1 : 2;
    size_t es = t == T_F32 ? 4 : 2;
    int n = (int)in->imm * (es == 2 ? 2 : 1);
    bool wr = in->sub == MM_STORE;
    if (wr && n > 8) n = 8;
    for (unsigned l = 0; l < 32; l++) {
        pthr *th = &b->t[w->first + l];
        uint64_t base = SLOT(in->s[0], l) + SLOT(in->s[2], l);
        if (in->flags & F_ADDR32) base = (uint32_t)base;
        uint64_t stride = (uint32_t)SLOT(in->s[1], l);
        for (int j = 0; j < n; j++) {
            int r, c;
            place(frag, l, j, &r, &c);
            uint64_t idx = in->rnd == 0 ? (uint64_t)r * stride + (uint64_t)c
                                        : (uint64_t)c * stride + (uint64_t)r;
            void *p = ptx__addr(b, th, in, in->space, base + idx * es, es, wr);
            if (p == NULL) return TS_FAULT;
            uint64_t *reg = elem_reg(R, s, t, l, j);
            if (es == 4) {
                if (wr)
                    store(p, 4, *reg);
                else
                    *reg = load(p, T_U32);
            } else if (wr) {
                store(p, 2, *reg >> (16 * (j & 1)));
            } else {
                uint64_t h = load(p, T_U16);
                *reg = (j & 1) ? ((*reg & 0xffffu) | h << 16) : h;
            }
        }
    }
    return TS_RUN;
}

/* ldmatrix: lanes 8i..8i+7 give the rows of matrix i (8 elements of 16 bits each); lane l
 * receives row l/4, elements 2(l%4) and 2(l%4)+1 of each matrix (of its transpose, .trans). */
static int ldmatrix(pblock *b, pwarp *w, const pinst *in, uint64_t *R) {
    uint32_t s[8];
    arg_slots(in, s);
    int nm = (int)in->imm;
    uint16_t mat[4][8][8];
    for (int i = 0; i < nm; i++) {
        for (unsigned rr = 0; rr < 8; rr++) {
            unsigned l = (unsigned)i * 8 + rr;
            uint64_t a = SLOT(in->s[0], l) + SLOT(in->s[2], l);
            if (in->flags & F_ADDR32) a = (uint32_t)a;
            const unsigned char *p = ptx__addr(b, &b->t[w->first + l], in, in->space, a, 16, false);
            if (p == NULL) return TS_FAULT;
            for (int e = 0; e < 8; e++) mat[i][rr][e] = (uint16_t)load(p + 2 * e, T_U16);
        }
    }
    for (unsigned l = 0; l < 32; l++) {
        unsigned r = l >> 2, c = 2 * (l & 3);
        for (int i = 0; i < nm; i++) {
            uint32_t lo = in->rnd ? mat[i][c][r] : mat[i][r][c];
            uint32_t hi = in->rnd ? mat[i][c + 1][r] : mat[i][r][c + 1];
            SLOT(s[i], l) = hi << 16 | lo;
        }
    }
    return TS_RUN;
}

int ptx__mma(pblock *b, pwarp *w, const pinst *in, uint32_t m, uint64_t *R) {
    if (in->sub == MM_ARGS) return TS_RUN;
    if (m != 0xffffffffu) {
        return ptx__fault(b, &b->t[w->first + (unsigned)__builtin_ctz(m)], in,
                          CUDA_ERROR_ILLEGAL_INSTRUCTION,
                          "a warp-level matrix instruction (.sync.aligned) executed by %u lanes "
                          "of the warp, not all 32 together",
                          lanes_in(m));
    }
    switch (in->sub) {
    case MM_WMMA:
    case MM_MMA: mma(in, R, in->sub == MM_WMMA); return TS_RUN;
    case MM_LDMATRIX: return ldmatrix(b, w, in, R);
    default: return access(b, w, in, R);
    }
}

/* bar.arrive a, b: the lanes of m count at barrier a (b threads in all) and go on. */
void ptx__bar_arrive(pblock *b, const pinst *in, uint32_t m, const uint64_t *R) {
    unsigned l0 = (unsigned)__builtin_ctz(m);
    uint32_t id = (uint32_t)SLOT(in->s[0], l0) % 16;
    b->bar_arrived[id] += lanes_in(m);
    b->bar_arrive_count[id] = (uint32_t)SLOT(in->s[1], l0);
}
