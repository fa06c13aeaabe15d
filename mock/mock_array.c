/* CUDA arrays and mipmapped arrays: host memory the mock owns, laid out without padding (row
 * after row, slice or layer after slice), checked as the driver checks their descriptors. The
 * 1D copies to and from them (cuMemcpyHtoA, ...) are in mock_array_copy.c, the 2D and 3D
 * copies that name arrays in mock_memcpy.c. */
#include <stdlib.h>
#include <string.h>

#include "mock_array.h"

/* Bytes of one channel of a format, 0 for a format the mock does not implement (the block
 * compressed and packed video formats of cuda.h): for arrays, textures and references. */
size_t mock__format_bytes(CUarray_format f) {
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

#define ARRAY_FLAGS                                                                                \
    (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |                     \
     CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT)

/* The descriptor as the driver checks it: a width; a height for a depth (but a layered 1D
 * array has layers and no height); 1, 2 or 4 channels of a known format; cube maps square with
 * 6 faces (a multiple of 6 when layered); extents within the device's largest 3D texture. */
static CUresult check_desc(const CUDA_ARRAY3D_DESCRIPTOR *d) {
    if (d->Width == 0) return mock__why("the array's Width is 0"), CUDA_ERROR_INVALID_VALUE;
    bool layered = (d->Flags & CUDA_ARRAY3D_LAYERED) != 0;
    if (d->Depth != 0 && d->Height == 0 && !layered) {
        mock__why("a 3D array needs a Height as well as a Depth");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (layered && d->Depth == 0) {
        mock__why("a layered array needs its layers in Depth");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) {
        mock__why("NumChannels is %u, not 1, 2 or 4", d->NumChannels);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (mock__format_bytes(d->Format) == 0) {
        mock__why("the mock implements the 8-, 16- and 32-bit integer, half and float array "
                  "formats, not format 0x%x",
                  (unsigned)d->Format);
        return (d->Format & 0x80) ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    }
    if ((d->Flags & ~(unsigned)ARRAY_FLAGS) != 0) {
        mock__why("array flags 0x%x are not ones the mock implements (sparse and deferred "
                  "mapping arrays are not)",
                  d->Flags & ~(unsigned)ARRAY_FLAGS);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if ((d->Flags & CUDA_ARRAY3D_CUBEMAP) && (d->Width != d->Height || d->Depth == 0 ||
                                              d->Depth % 6 != 0 || (!layered && d->Depth != 6))) {
        mock__why("a cube map is square with 6 faces (layers of 6 when layered)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (d->Width > 65536u * 4 || d->Height > 65536u || d->Depth > 65536u) {
        mock__why("the array's extent %zux%zux%zu is beyond the device's limits", d->Width,
                  d->Height, d->Depth);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* The arrays made since the last reset, for mock__array_span: a copy looks its side up among
 * them, not among every record. A killed one (its context destroyed) stays in the list, dead;
 * the records themselves live until reset. */
static struct CUarray_st **made;
static size_t nmade, capmade;

/* A new array record with zeroed storage (a level of `owner` when that is not NULL). */
static CUresult make(struct CUarray_st **out, const CUDA_ARRAY3D_DESCRIPTOR *d,
                     struct CUmipmappedArray_st *owner) {
    CUresult r = check_desc(d);
    if (r != CUDA_SUCCESS) return r;
    struct CUctx_st *c;
    r = mock__alloc_ctx(&c);
    if (r != CUDA_SUCCESS) return r;
    size_t elem = mock__format_bytes(d->Format) * d->NumChannels;
    size_t rows = d->Height ? d->Height : 1, slices = d->Depth ? d->Depth : 1;
    size_t bytes = d->Width * elem * rows * slices; /* at most 2^18 * 16 * 2^16 * 2^16 */
    if (bytes > mock__devx[c->device].total_mem - mock__used(c->device, -1)) {
        mock__why("an array of %zu bytes does not fit in the device's free memory", bytes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    unsigned char *data = calloc(1, bytes);
    bool room = mock__grow(&made, &capmade, nmade + 1, sizeof *made);
    struct CUarray_st *a = data != NULL && room ? mock__new(sizeof *a, MOCK_K_ARRAY, c) : NULL;
    if (a == NULL) {
        free(data);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->desc = *d;
    a->data = data;
    a->elem = elem;
    a->rows = rows;
    a->slices = slices;
    a->bytes = bytes;
    a->owner = owner;
    made[nmade++] = a;
    *out = a;
    return CUDA_SUCCESS;
}

struct CUarray_st *mock__array(CUarray h) {
    mock_obj *o = mock__find(h);
    if (o == NULL || o->kind != MOCK_K_ARRAY) {
        mock__why("%p is not an array the mock made", (void *)h);
        return NULL;
    }
    if (!o->alive) {
        mock__why("array %p was destroyed", (void *)h);
        return NULL;
    }
    return (struct CUarray_st *)o;
}

void mock__array_free_record(struct CUarray_st *a) {
    free(a->data);
    a->data = NULL;
}

void mock__array_reset(void) {
    free(made);
    made = NULL;
    nmade = capmade = 0;
}

CUresult mock__array_span(const char *what, uintptr_t p, size_t n) {
    for (size_t i = 0; i < nmade; i++) {
        struct CUarray_st *a = made[i];
        uintptr_t base = (uintptr_t)a->data;
        /* The end of one array may be the start of the next (an allocator packs small ones):
         * an address there belongs to this one only for an empty span. */
        if (!a->h.alive || a->data == NULL || p < base || p - base > a->bytes ||
            (p - base == a->bytes && n > 0))
            continue;
        if (n <= a->bytes - (p - base)) return CUDA_SUCCESS;
        mock__why("the %s runs %zu bytes past the end of its %zu-byte array", what,
                  n - (a->bytes - (p - base)), a->bytes);
        return CUDA_ERROR_INVALID_VALUE;
    }
    mock__why("the %s is not inside a live array", what);
    return CUDA_ERROR_INVALID_VALUE;
}

static void free_data(void *p) { free(p); }

/* Its work done, its objects unusable, its storage freed once no kernel runs. */
static void destroy(struct CUarray_st *a) {
    if (a->h.ctx != NULL && a->h.ctx->active) mock__ctx_sync(a->h.ctx);
    mock__texobj_orphan(a);
    for (size_t i = 0; i < nmade; i++) {
        if (made[i] == a) {
            made[i] = made[--nmade];
            break;
        }
    }
    mock__defer(free_data, a->data);
    a->data = NULL;
    mock__kill(&a->h);
}

CUresult CUDAAPI mock_cuArray3DCreate(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) {
    MOCK_ENTER(cuArray3DCreate);
    if (out == NULL || d == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUarray_st *a;
    CUresult r = make(&a, d, NULL);
    if (r == CUDA_SUCCESS) *out = a;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuArrayCreate(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d) {
    MOCK_ENTER(cuArrayCreate);
    if (out == NULL || d == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {
        .Width = d->Width, .Height = d->Height, .Format = d->Format, .NumChannels = d->NumChannels};
    struct CUarray_st *a;
    CUresult r = make(&a, &d3, NULL);
    if (r == CUDA_SUCCESS) *out = a;
    return mock__leave(r);
}

CUresult CUDAAPI mock_cuArrayDestroy(CUarray h) {
    MOCK_ENTER(cuArrayDestroy);
    struct CUarray_st *a = mock__array(h);
    if (a == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    if (a->owner != NULL) {
        mock__why("array %p is a level of a mipmapped array: cuMipmappedArrayDestroy frees it",
                  (void *)h);
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    destroy(a);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray h) {
    MOCK_ENTER(cuArray3DGetDescriptor);
    if (d == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUarray_st *a = mock__array(h);
    if (a == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    *d = a->desc;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *d, CUarray h) {
    MOCK_ENTER(cuArrayGetDescriptor);
    if (d == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUarray_st *a = mock__array(h);
    if (a == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    *d = (CUDA_ARRAY_DESCRIPTOR){.Width = a->desc.Width,
                                 .Height = a->desc.Height,
                                 .Format = a->desc.Format,
                                 .NumChannels = a->desc.NumChannels};
    return mock__leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Mipmapped arrays: level i halves each extent (down to 1) but not the layers               */
/* ------------------------------------------------------------------------------------------ */

static size_t half(size_t v, unsigned i) {
    if (v == 0) return 0;
    v >>= i;
    return v ? v : 1;
}

CUresult CUDAAPI mock_cuMipmappedArrayCreate(CUmipmappedArray *out,
                                             const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels) {
    MOCK_ENTER(cuMipmappedArrayCreate);
    if (out == NULL || d == NULL || levels == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    bool layered = (d->Flags & CUDA_ARRAY3D_LAYERED) != 0;
    size_t big = d->Width > d->Height ? d->Width : d->Height;
    if (!layered && d->Depth > big) big = d->Depth;
    unsigned most = 1;
    while (big >> most) most++;
    if (levels > most) {
        mock__why("%u levels for a largest extent of %zu: at most %u", levels, big, most);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult r = check_desc(d);
    struct CUctx_st *c;
    if (r == CUDA_SUCCESS) r = mock__alloc_ctx(&c);
    if (r != CUDA_SUCCESS) return mock__leave(r);
    struct CUmipmappedArray_st *m = mock__new(sizeof *m, MOCK_K_MIPMAP, c);
    if (m == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    for (unsigned i = 0; i < levels && r == CUDA_SUCCESS; i++) {
        CUDA_ARRAY3D_DESCRIPTOR l = *d;
        l.Width = half(d->Width, i);
        l.Height = half(d->Height, i);
        if (!layered) l.Depth = half(d->Depth, i);
        r = make(&m->level[i], &l, m);
        if (r == CUDA_SUCCESS) m->levels = i + 1;
    }
    if (r != CUDA_SUCCESS) {
        for (unsigned i = 0; i < m->levels; i++) destroy(m->level[i]);
        mock__kill(&m->h);
        return mock__leave(r);
    }
    *out = m;
    return mock__leave(CUDA_SUCCESS);
}

static struct CUmipmappedArray_st *mipmap(CUmipmappedArray h) {
    mock_obj *o = mock__find(h);
    if (o == NULL || o->kind != MOCK_K_MIPMAP || !o->alive) {
        mock__why("%p is not a live mipmapped array of the mock", (void *)h);
        return NULL;
    }
    return (struct CUmipmappedArray_st *)o;
}

CUresult CUDAAPI mock_cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray h, unsigned level) {
    MOCK_ENTER(cuMipmappedArrayGetLevel);
    if (out == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUmipmappedArray_st *m = mipmap(h);
    if (m == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    if (level >= m->levels) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *out = m->level[level];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuMipmappedArrayDestroy(CUmipmappedArray h) {
    MOCK_ENTER(cuMipmappedArrayDestroy);
    struct CUmipmappedArray_st *m = mipmap(h);
    if (m == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    for (unsigned i = 0; i < m->levels; i++) destroy(m->level[i]);
    mock__kill(&m->h);
    return mock__leave(CUDA_SUCCESS);
}
