/* Texture and surface objects: their resource and descriptions checked as the driver checks
 * them, kept for the getters, and the interpreter's view of them (mock_ptx_texture) handed to
 * a running kernel by handle. A handle is an index + 1 into a table under a read-write lock of
 * its own: a kernel looks one up with the mock's lock released. A destroyed object's entry is
 * given to the next create, as the driver reuses handles. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_array.h"

typedef struct texobj {
    bool alive, surface;
    bool orphan; /* its array was destroyed */
    bool has_view;
    const struct CUarray_st *array; /* the array read, NULL for linear memory */
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUDA_RESOURCE_VIEW_DESC view;
    mock_ptx_texture t;
} texobj;

static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static texobj *table;
static size_t ntable, captable;

/* The view of an array (its first level for a mipmapped one). */
static void view_array(mock_ptx_texture *t, const struct CUarray_st *a, unsigned levels) {
    const CUDA_ARRAY3D_DESCRIPTOR *d = &a->desc;
    /* A cube map's faces are its layers (6 of them, 6 per cube of a cube map array). */
    bool layered = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    t->data = a->data;
    t->format = (int)d->Format;
    t->channels = (int)d->NumChannels;
    t->elem = a->elem;
    t->width = (uint32_t)d->Width;
    t->height = (uint32_t)a->rows;
    t->depth = layered ? 1 : (uint32_t)a->slices;
    t->layers = layered ? (uint32_t)d->Depth : 0;
    t->dims = d->Depth != 0 && !layered ? 3 : d->Height != 0 ? 2 : 1;
    t->pitch = d->Width * a->elem;
    t->slice = t->pitch * a->rows;
    t->levels = levels;
    t->level[0] =
        (struct mock_ptx_level){t->data, t->width, t->height, t->depth, t->pitch, t->slice};
}

/* The resource as the driver checks it, into t (and the array read). Linear memory starts at
 * the device's texture alignment, a pitched one's rows at its pitch alignment. */
static CUresult resource(const CUDA_RESOURCE_DESC *r, bool surface, mock_ptx_texture *t,
                         const struct CUarray_st **array) {
    memset(t, 0, sizeof *t);
    *array = NULL;
    if (r->flags != 0) return mock__why("resource flags must be 0"), CUDA_ERROR_INVALID_VALUE;
    if (surface && r->resType != CU_RESOURCE_TYPE_ARRAY) {
        mock__why("a surface object's resource must be an array");
        return CUDA_ERROR_INVALID_VALUE;
    }
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        const struct CUarray_st *a = mock__array(r->res.array.hArray);
        if (a == NULL) return CUDA_ERROR_INVALID_HANDLE;
        if (surface && !(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST)) {
            mock__why("the array was not made with CUDA_ARRAY3D_SURFACE_LDST");
            return CUDA_ERROR_INVALID_VALUE;
        }
        view_array(t, a, 1);
        *array = a;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
        mock_obj *o = mock__find(r->res.mipmap.hMipmappedArray);
        if (o == NULL || o->kind != MOCK_K_MIPMAP || !o->alive) {
            mock__why("the resource is not a live mipmapped array");
            return CUDA_ERROR_INVALID_HANDLE;
        }
        const struct CUmipmappedArray_st *m = (const struct CUmipmappedArray_st *)o;
        view_array(t, m->level[0], m->levels < 16 ? m->levels : 16);
        for (unsigned i = 1; i < t->levels; i++) {
            mock_ptx_texture l;
            view_array(&l, m->level[i], 1);
            t->level[i] = l.level[0];
        }
        *array = m->level[0];
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_LINEAR:
    case CU_RESOURCE_TYPE_PITCH2D: {
        bool lin = r->resType == CU_RESOURCE_TYPE_LINEAR;
        CUdeviceptr p = lin ? r->res.linear.devPtr : r->res.pitch2D.devPtr;
        CUarray_format f = lin ? r->res.linear.format : r->res.pitch2D.format;
        unsigned ch = lin ? r->res.linear.numChannels : r->res.pitch2D.numChannels;
        size_t cb = mock__format_bytes(f);
        if (cb == 0 || (ch != 1 && ch != 2 && ch != 4)) {
            mock__why("format 0x%x with %u channels is not one the mock reads", (unsigned)f, ch);
            return CUDA_ERROR_INVALID_VALUE;
        }
        /* The device's texture alignment is 512 bytes; the mock's allocations are aligned to
         * 256, which is what it asks for. */
        if (p == 0 || p % 256 != 0) {
            mock__why("the resource's device pointer is not aligned to the texture alignment");
            return CUDA_ERROR_INVALID_VALUE;
        }
        t->data = (unsigned char *)(uintptr_t)p;
        t->format = (int)f;
        t->channels = (int)ch;
        t->elem = cb * ch;
        t->height = t->depth = 1;
        t->levels = 1;
        size_t extent;
        if (lin) {
            size_t n = r->res.linear.sizeInBytes / t->elem;
            if (n == 0 || n > (1u << 27)) {
                mock__why("a linear resource of %zu elements (1 to 2^27)", n);
                return CUDA_ERROR_INVALID_VALUE;
            }
            t->width = (uint32_t)n;
            t->dims = 1;
            t->pitch = t->slice = extent = n * t->elem;
        } else {
            size_t w = r->res.pitch2D.width, h = r->res.pitch2D.height;
            size_t pitch = r->res.pitch2D.pitchInBytes;
            if (w == 0 || h == 0 || w > 131072 || h > 65536 || pitch % 32 != 0 ||
                pitch < w * t->elem) {
                mock__why("a pitched resource of %zux%zu elements with a pitch of %zu bytes "
                          "(a multiple of 32 holding a row)",
                          w, h, pitch);
                return CUDA_ERROR_INVALID_VALUE;
            }
            t->width = (uint32_t)w;
            t->height = (uint32_t)h;
            t->dims = 2;
            t->pitch = pitch;
            t->slice = extent = pitch * h;
            extent = pitch * (h - 1) + w * t->elem;
        }
        return mock__check_device("texture resource", (uintptr_t)p, extent);
    }
    default: mock__why("resource type %d", (int)r->resType); return CUDA_ERROR_INVALID_VALUE;
    }
}

#define TEX_FLAGS                                                                                  \
    (CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |                     \
     CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP)

static bool float_format(int f) { return f == CU_AD_FORMAT_HALF || f == CU_AD_FORMAT_FLOAT; }

/* The texture description: known modes and flags; linear filtering returns floats only, so an
 * integer format read as integers cannot use it. */
static CUresult texture(const CUDA_TEXTURE_DESC *d, mock_ptx_texture *t) {
    for (int i = 0; i < 3; i++) {
        if ((unsigned)d->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER) {
            mock__why("address mode %d", (int)d->addressMode[i]);
            return CUDA_ERROR_INVALID_VALUE;
        }
        t->address[i] = (int)d->addressMode[i];
    }
    if ((unsigned)d->filterMode > CU_TR_FILTER_MODE_LINEAR ||
        (unsigned)d->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR || (d->flags & ~TEX_FLAGS)) {
        mock__why("a filter mode or flags the driver does not define");
        return CUDA_ERROR_INVALID_VALUE;
    }
    bool as_int = (d->flags & CU_TRSF_READ_AS_INTEGER) != 0 && !float_format(t->format);
    if (d->filterMode == CU_TR_FILTER_MODE_LINEAR && as_int) {
        mock__why("linear filtering of an integer format read as integers: it returns floats "
                  "only (read as normalized float)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (d->filterMode == CU_TR_FILTER_MODE_LINEAR &&
        (t->format == CU_AD_FORMAT_UNSIGNED_INT32 || t->format == CU_AD_FORMAT_SIGNED_INT32)) {
        mock__why("linear filtering of 32-bit integers");
        return CUDA_ERROR_INVALID_VALUE;
    }
    t->filter = (int)d->filterMode;
    t->mipmap_filter = (int)d->mipmapFilterMode;
    t->lod_bias = d->mipmapLevelBias;
    t->min_lod = d->minMipmapLevelClamp;
    t->max_lod = d->maxMipmapLevelClamp;
    t->flags = d->flags;
    memcpy(t->border, d->borderColor, sizeof t->border);
    return CUDA_SUCCESS;
}

CUresult mock__tex_view(const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *td,
                        mock_ptx_texture *t) {
    const struct CUarray_st *a;
    CUresult e = resource(r, td == NULL, t, &a);
    if (e == CUDA_SUCCESS && td != NULL) e = texture(td, t);
    /* Linear memory has no address modes: a fetch outside it reads zeros (the programming
     * guide's tex1Dfetch; the H200 answers 0 at -2, -1 and one past the end, gpu_texref). */
    if (e == CUDA_SUCCESS && r->resType == CU_RESOURCE_TYPE_LINEAR) {
        for (int i = 0; i < 3; i++) t->address[i] = CU_TR_ADDRESS_MODE_BORDER;
        memset(t->border, 0, sizeof t->border);
    }
    return e;
}

/* A free entry (its index), or the table grown by one; SIZE_MAX when out of memory. */
static size_t new_entry(void) {
    for (size_t i = 0; i < ntable; i++) {
        if (!table[i].alive) return i;
    }
    if (!mock__grow(&table, &captable, ntable + 1, sizeof *table)) return SIZE_MAX;
    return ntable++;
}

static CUresult create(unsigned long long *out, const CUDA_RESOURCE_DESC *r,
                       const CUDA_TEXTURE_DESC *td, const CUDA_RESOURCE_VIEW_DESC *v,
                       bool surface) {
    if (out == NULL || r == NULL || (!surface && td == NULL)) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    CUresult e = mock__need_current(mock__entry_name(), &c);
    if (e != CUDA_SUCCESS) return e;
    texobj o;
    memset(&o, 0, sizeof o);
    e = resource(r, surface, &o.t, &o.array);
    if (e == CUDA_SUCCESS && !surface) e = texture(td, &o.t);
    if (e != CUDA_SUCCESS) return e;
    if (v != NULL &&
        (v->format != CU_RES_VIEW_FORMAT_NONE || v->firstMipmapLevel != 0 || v->firstLayer != 0)) {
        mock__why("resource views other than the whole resource in its own format");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    o.alive = true;
    o.surface = surface;
    o.res = *r;
    if (td != NULL) o.tex = *td;
    if (v != NULL) {
        o.view = *v;
        o.has_view = true;
    }
    pthread_rwlock_wrlock(&table_lock);
    size_t i = new_entry();
    if (i != SIZE_MAX) table[i] = o;
    pthread_rwlock_unlock(&table_lock);
    if (i == SIZE_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
    *out = (unsigned long long)i + 1;
    return CUDA_SUCCESS;
}

/* The live entry of that handle and kind (called with the lock held, either way). */
static texobj *entry(unsigned long long h, bool surface) {
    if (h == 0 || h > ntable || !table[h - 1].alive || table[h - 1].surface != surface) {
        mock__why("%llu is not a live %s object", h, surface ? "surface" : "texture");
        return NULL;
    }
    return &table[h - 1];
}

static CUresult destroy(unsigned long long h, bool surface) {
    pthread_rwlock_wrlock(&table_lock);
    texobj *o = entry(h, surface);
    if (o != NULL) o->alive = false;
    pthread_rwlock_unlock(&table_lock);
    return o != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Copies part of a live entry out: 0 resource, 1 texture description, 2 view. */
static CUresult get(void *out, unsigned long long h, bool surface, int what) {
    if (out == NULL) return CUDA_ERROR_INVALID_VALUE;
    pthread_rwlock_rdlock(&table_lock);
    texobj *o = entry(h, surface);
    CUresult r = o != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    if (o != NULL && what == 0) *(CUDA_RESOURCE_DESC *)out = o->res;
    if (o != NULL && what == 1) *(CUDA_TEXTURE_DESC *)out = o->tex;
    if (o != NULL && what == 2 && !o->has_view) r = CUDA_ERROR_INVALID_VALUE;
    if (o != NULL && what == 2 && o->has_view) *(CUDA_RESOURCE_VIEW_DESC *)out = o->view;
    pthread_rwlock_unlock(&table_lock);
    return r;
}

void mock__texobj_orphan(const struct CUarray_st *a) {
    pthread_rwlock_wrlock(&table_lock);
    for (size_t i = 0; i < ntable; i++) {
        if (table[i].array == a) table[i].orphan = true;
    }
    pthread_rwlock_unlock(&table_lock);
}

void mock__texobj_reset(void) {
    mock__array_reset();
    mock__texref_forget(NULL);
    pthread_rwlock_wrlock(&table_lock);
    free(table);
    table = NULL;
    ntable = captable = 0;
    pthread_rwlock_unlock(&table_lock);
}

bool mock__texobj_lookup(void *ctx, uint64_t h, bool surface, mock_ptx_texture *out, char *why,
                         size_t whylen) {
    (void)ctx;
    bool ok = false, in_memory = false;
    pthread_rwlock_rdlock(&table_lock);
    if (h == 0 || h > ntable || !table[h - 1].alive || table[h - 1].surface != surface) {
        snprintf(why, whylen, "0x%llx is not a live %s object", (unsigned long long)h,
                 surface ? "surface" : "texture");
    } else if (table[h - 1].orphan) {
        snprintf(why, whylen, "the array of %s object %llu was destroyed",
                 surface ? "surface" : "texture", (unsigned long long)h);
    } else {
        *out = table[h - 1].t;
        in_memory = table[h - 1].array == NULL;
        ok = true;
    }
    pthread_rwlock_unlock(&table_lock);
    if (ok && in_memory) {
        /* Linear or pitched device memory: still allocated, or the fetch faults. */
        uintptr_t lo, hi;
        size_t extent = out->pitch * (out->height - 1) + (size_t)out->width * out->elem;
        ok = mock__kernel_access((uintptr_t)out->data, extent, &lo, &hi, why, whylen);
    }
    return ok;
}

CUresult CUDAAPI mock_cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r,
                                        const CUDA_TEXTURE_DESC *t,
                                        const CUDA_RESOURCE_VIEW_DESC *v) {
    MOCK_ENTER(cuTexObjectCreate);
    return mock__leave(create(out, r, t, v, false));
}

CUresult CUDAAPI mock_cuTexObjectDestroy(CUtexObject h) {
    MOCK_ENTER(cuTexObjectDestroy);
    return mock__leave(destroy(h, false));
}

CUresult CUDAAPI mock_cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUtexObject h) {
    MOCK_ENTER(cuTexObjectGetResourceDesc);
    return mock__leave(get(out, h, false, 0));
}

CUresult CUDAAPI mock_cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *out, CUtexObject h) {
    MOCK_ENTER(cuTexObjectGetTextureDesc);
    return mock__leave(get(out, h, false, 1));
}

CUresult CUDAAPI mock_cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *out, CUtexObject h) {
    MOCK_ENTER(cuTexObjectGetResourceViewDesc);
    return mock__leave(get(out, h, false, 2));
}

CUresult CUDAAPI mock_cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r) {
    MOCK_ENTER(cuSurfObjectCreate);
    return mock__leave(create(out, r, NULL, NULL, true));
}

CUresult CUDAAPI mock_cuSurfObjectDestroy(CUsurfObject h) {
    MOCK_ENTER(cuSurfObjectDestroy);
    return mock__leave(destroy(h, true));
}

CUresult CUDAAPI mock_cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUsurfObject h) {
    MOCK_ENTER(cuSurfObjectGetResourceDesc);
    return mock__leave(get(out, h, true, 0));
}
