/* Internal to the executor: a register's bits read as a type, and memory accesses of a
 * type's size (ptx_exec.c runs them for a warp's lanes, ptx_lane.c for one lane). */
#ifndef CUSHIM_MOCK_PTX_VAL_H
#define CUSHIM_MOCK_PTX_VAL_H

#include <math.h>
#include <string.h>

#include "ptx_int.h"

static inline float f32(uint64_t v) {
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, 4);
    return f;
}
static inline double f64(uint64_t v) {
    double f;
    memcpy(&f, &v, 8);
    return f;
}
static inline uint64_t b32(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}
static inline uint64_t b64(double f) {
    uint64_t b;
    memcpy(&b, &f, 8);
    return b;
}

static inline bool is_signed(int t) { return t == T_S8 || t == T_S16 || t == T_S32 || t == T_S64; }
static inline int bits_of(int t) {
    static const int b[T_COUNT] = {8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 1, 16, 32, 0};
    return b[t];
}

/* a c b for a floating-point comparison C_* (ordered, unordered, num, nan). */
static inline bool cmp_f(int c, double a, double b) {
    bool un = isnan(a) || isnan(b);
    switch (c) {
    case C_EQ: return !un && a == b;
    case C_NE: return !un && a != b;
    case C_LT: return !un && a < b;
    case C_LE: return !un && a <= b;
    case C_GT: return !un && a > b;
    case C_GE: return !un && a >= b;
    case C_EQU: return un || a == b;
    case C_NEU: return un || a != b;
    case C_LTU: return un || a < b;
    case C_LEU: return un || a <= b;
    case C_GTU: return un || a > b;
    case C_GEU: return un || a >= b;
    case C_NUM: return !un;
    case C_NAN: return un;
    default: return false;
    }
}

/* Integer value of a slot read as type t, sign- or zero-extended. */
static inline int64_t ival(uint64_t v, int t) {
    switch (t) {
    case T_U8: return (uint8_t)v;
    case T_U16: return (uint16_t)v;
    case T_U32: return (uint32_t)v;
    case T_S8: return (int8_t)(uint8_t)v;
    case T_S16: return (int16_t)(uint16_t)v;
    case T_S32: return (int32_t)(uint32_t)v;
    default: return (int64_t)v;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The loop                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Loads and stores are relaxed atomics of their natural size (the address was checked to be
 * aligned): other host threads may change the same word with atom, as other blocks do on the
 * GPU, and a plain access would be a data race in C. On x86 they are plain moves. */
#define RELAXED_LOAD(type, p) __atomic_load_n((const type *)(p), __ATOMIC_RELAXED)

static inline __attribute__((always_inline)) uint64_t load(const void *p, int t) {
    switch (t) {
    case T_U8: return RELAXED_LOAD(uint8_t, p);
    case T_S8: return (uint64_t)(int64_t)RELAXED_LOAD(int8_t, p);
    case T_U16:
    case T_F16:
    case T_BF16: return RELAXED_LOAD(uint16_t, p);
    case T_S16: return (uint64_t)(int64_t)RELAXED_LOAD(int16_t, p);
    case T_U32:
    case T_F32: return RELAXED_LOAD(uint32_t, p);
    case T_S32: return (uint64_t)(int64_t)RELAXED_LOAD(int32_t, p);
    default: return RELAXED_LOAD(uint64_t, p);
    }
}

static inline void store(void *p, size_t n, uint64_t v) {
    switch (n) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED); break;
    }
}

#endif
