/* Texture and surface references (the deprecated cuTexRef* and cuSurfRef* entries): a module's
 * `.global .texref` or `.surfref` (mock__ptx_ref) gets a record on its first
 * cuModuleGetTexRef or cuModuleGetSurfRef, whose handle is the record. The setters keep what
 * the driver would bind (an array, a mipmapped array, linear or pitched memory, the format,
 * modes and flags); a launch takes the bindings of its module's references as they are then
 * (the driver's bindings take effect at launch), checked as a texture object's resource and
 * description are (mock__tex_view), into the launch's mock_ptx_ref array. A reference bound to
 * nothing, or to what is gone by the launch, faults the kernel's fetch with a sentence naming
 * it. The records live under the mock's lock, and die with their module. */
#include <stdlib.h>
#include <string.h>

#include "mock_array.h"

/* What a reference is bound to: one bit each, so that a getter names the bindings it answers. */
enum { B_NONE = 1, B_ARRAY = 2, B_MIPMAP = 4, B_LINEAR = 8, B_PITCH = 16, B_ANY = 31 };

struct CUtexref_st {
    struct CUtexref_st *next;
    const struct mock_ptx_module *m; /* NULL for cuTexRefCreate's */
    long index;
    bool surface;
    int bound; /* B_* */
    CUarray array;
    CUmipmappedArray mipmap;
    CUdeviceptr ptr;
    size_t bytes, width, height, pitch;
    CUarray_format format;
    int channels;
    CUDA_TEXTURE_DESC td;
};

static struct CUtexref_st *refs;

/* The live reference of that handle and kind, else NULL with a sentence. */
static struct CUtexref_st *live(const void *h, bool surface) {
    for (struct CUtexref_st *r = refs; r != NULL; r = r->next) {
        if (r == h && r->surface == surface) return r;
    }
    mock__why("%p is not a live %s reference", h, surface ? "surface" : "texture");
    return NULL;
}

static struct CUtexref_st *made(const struct mock_ptx_module *m, long index, bool surface) {
    struct CUtexref_st *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->m = m;
    r->index = index;
    r->surface = surface;
    r->bound = B_NONE;
    r->format = CU_AD_FORMAT_FLOAT;
    r->channels = 1;
    r->next = refs;
    refs = r;
    return r;
}

static CUresult module_ref(void **out, CUmodule hmod, const char *name, bool surface,
                           const char *entry) {
    if (out == NULL || name == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (hmod == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    struct CUmod_st *mod;
    MOCK_EXPECT(mod, hmod, CUSHIM_MOCK_MODULE, entry);
    const struct mock_ptx_module *m = mod->img.interp;
    bool is_surface = false;
    long i = m != NULL ? mock__ptx_ref(m, name, &is_surface) : -1;
    if (i < 0 || is_surface != surface) {
        mock__why("the module has no .%s named '%s'", surface ? "surfref" : "texref", name);
        return mock__leave(CUDA_ERROR_NOT_FOUND);
    }
    struct CUtexref_st *r = refs;
    while (r != NULL && (r->m != m || r->index != i)) r = r->next;
    if (r == NULL && (r = made(m, i, surface)) == NULL)
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    *out = r;
    return mock__leave(CUDA_SUCCESS);
}

/* Frees the reference `one`, or else those of the module m (NULL: all). */
static void drop(const struct CUtexref_st *one, const struct mock_ptx_module *m) {
    for (struct CUtexref_st **p = &refs; *p != NULL;) {
        struct CUtexref_st *r = *p;
        if (one != NULL ? r == one : m == NULL || r->m == m) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}

void mock__texref_forget(const struct mock_ptx_module *m) { drop(NULL, m); }

/* The resource a reference is bound to, as a texture object's. */
static void resource_of(const struct CUtexref_st *r, CUDA_RESOURCE_DESC *d) {
    memset(d, 0, sizeof *d);
    if (r->bound == B_ARRAY) {
        d->resType = CU_RESOURCE_TYPE_ARRAY;
        d->res.array.hArray = r->array;
    } else if (r->bound == B_MIPMAP) {
        d->resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        d->res.mipmap.hMipmappedArray = r->mipmap;
    } else if (r->bound == B_LINEAR) {
        d->resType = CU_RESOURCE_TYPE_LINEAR;
        d->res.linear.devPtr = r->ptr;
        d->res.linear.format = r->format;
        d->res.linear.numChannels = (unsigned)r->channels;
        d->res.linear.sizeInBytes = r->bytes;
    } else {
        d->resType = CU_RESOURCE_TYPE_PITCH2D;
        d->res.pitch2D.devPtr = r->ptr;
        d->res.pitch2D.format = r->format;
        d->res.pitch2D.numChannels = (unsigned)r->channels;
        d->res.pitch2D.width = r->width;
        d->res.pitch2D.height = r->height;
        d->res.pitch2D.pitchInBytes = r->pitch;
    }
}

CUresult mock__texref_snapshot(const struct mock_ptx_module *m, mock_ptx_ref **out, size_t *n) {
    *out = NULL;
    *n = mock__ptx_ref_count(m);
    if (*n == 0) return CUDA_SUCCESS;
    mock_ptx_ref *v = calloc(*n, sizeof *v);
    if (v == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < *n; i++) {
        snprintf(v[i].why, sizeof v[i].why, "was not bound when the kernel was launched");
    }
    for (const struct CUtexref_st *r = refs; r != NULL; r = r->next) {
        if (r->m != m || r->bound == B_NONE) continue;
        CUDA_RESOURCE_DESC d;
        resource_of(r, &d);
        mock_ptx_ref *e = &v[r->index];
        if (mock__tex_view(&d, r->surface ? NULL : &r->td, &e->t) == CUDA_SUCCESS) {
            e->bound = true;
        } else {
            snprintf(e->why, sizeof e->why, "is bound to what the launch could not read (%s)",
                     mock__why_text());
        }
    }
    *out = v;
    return CUDA_SUCCESS;
}

/* Entries: the reference checked, then one change or one answer. */
#define REF(entry, h, surface)                                                                     \
    MOCK_ENTER(entry);                                                                             \
    struct CUtexref_st *r = live((h), (surface));                                                  \
    if (r == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE)
#define TEXREF(entry, h) REF(entry, h, false)

static bool known_format(CUarray_format f, int ch) {
    return (ch == 1 || ch == 2 || ch == 4) && mock__format_bytes(f) != 0;
}

CUresult CUDAAPI mock_cuModuleGetTexRef(CUtexref *out, CUmodule hmod, const char *name) {
    MOCK_ENTER(cuModuleGetTexRef);
    return module_ref((void **)out, hmod, name, false, "cuModuleGetTexRef");
}

CUresult CUDAAPI mock_cuModuleGetSurfRef(CUsurfref *out, CUmodule hmod, const char *name) {
    MOCK_ENTER(cuModuleGetSurfRef);
    return module_ref((void **)out, hmod, name, true, "cuModuleGetSurfRef");
}

CUresult CUDAAPI mock_cuTexRefCreate(CUtexref *out) {
    MOCK_ENTER(cuTexRefCreate);
    if (out == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUtexref_st *r = made(NULL, -1, false);
    if (r == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    *out = r;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefDestroy(CUtexref h) {
    TEXREF(cuTexRefDestroy, h);
    if (r->m != NULL) {
        mock__why("a module's texture reference lives as long as its module");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    drop(r, NULL);
    return mock__leave(CUDA_SUCCESS);
}

/* An array (or a mipmapped array) bound: its format is the reference's from now on. The flags
 * must be CU_TRSA_OVERRIDE_FORMAT for a texture reference, 0 for a surface reference. */
static CUresult bind_array(struct CUtexref_st *r, CUarray a, CUmipmappedArray mm, unsigned flags) {
    if (flags != (r->surface ? 0u : CU_TRSA_OVERRIDE_FORMAT)) {
        mock__why("Flags must be %s", r->surface ? "0" : "CU_TRSA_OVERRIDE_FORMAT");
        return CUDA_ERROR_INVALID_VALUE;
    }
    const struct CUarray_st *arr;
    if (mm != NULL) {
        mock_obj *o = mock__find(mm);
        if (o == NULL || o->kind != MOCK_K_MIPMAP || !o->alive) {
            mock__why("not a live mipmapped array");
            return CUDA_ERROR_INVALID_HANDLE;
        }
        arr = ((const struct CUmipmappedArray_st *)o)->level[0];
    } else if ((arr = mock__array(a)) == NULL) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (r->surface && !(arr->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST)) {
        mock__why("the array was not made with CUDA_ARRAY3D_SURFACE_LDST");
        return CUDA_ERROR_INVALID_VALUE;
    }
    r->bound = mm != NULL ? B_MIPMAP : B_ARRAY;
    r->array = a;
    r->mipmap = mm;
    r->format = arr->desc.Format;
    r->channels = (int)arr->desc.NumChannels;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuTexRefSetArray(CUtexref h, CUarray a, unsigned int flags) {
    TEXREF(cuTexRefSetArray, h);
    return mock__leave(bind_array(r, a, NULL, flags));
}

CUresult CUDAAPI mock_cuTexRefSetMipmappedArray(CUtexref h, CUmipmappedArray a,
                                                unsigned int flags) {
    TEXREF(cuTexRefSetMipmappedArray, h);
    if (a == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    return mock__leave(bind_array(r, NULL, a, flags));
}

/* Linear or pitched memory: the device's texture alignment is the mock's allocation
 * alignment (256), so memory from cuMemAlloc has an offset of 0, as the driver says. */
static CUresult bind_memory(struct CUtexref_st *r, size_t *offset, CUdeviceptr p, size_t bytes) {
    if (p == 0 || p % 256 != 0) {
        mock__why("0x%llx is not aligned to the texture alignment (256 bytes on the mock); "
                  "memory from cuMemAlloc is",
                  (unsigned long long)p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult e = mock__check_device("texture reference", (uintptr_t)p, bytes);
    if (e != CUDA_SUCCESS) return e;
    if (offset != NULL) *offset = 0;
    r->ptr = p;
    r->bytes = bytes;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI mock_cuTexRefSetAddress_v2(size_t *offset, CUtexref h, CUdeviceptr p,
                                            size_t bytes) {
    TEXREF(cuTexRefSetAddress, h);
    size_t elem = mock__format_bytes(r->format) * (size_t)r->channels;
    if (bytes / elem == 0 || bytes / elem > (1u << 27)) {
        mock__why("%zu bytes are %zu elements of the reference's format (1 to 2^27)", bytes,
                  bytes / elem);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    CUresult e = bind_memory(r, offset, p, bytes);
    if (e == CUDA_SUCCESS) r->bound = B_LINEAR;
    return mock__leave(e);
}

CUresult CUDAAPI mock_cuTexRefSetAddress2D_v3(CUtexref h, const CUDA_ARRAY_DESCRIPTOR *d,
                                              CUdeviceptr p, size_t pitch) {
    TEXREF(cuTexRefSetAddress2D, h);
    if (d == NULL || !known_format(d->Format, (int)d->NumChannels))
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    CUresult e = bind_memory(r, NULL, p, pitch * (d->Height ? d->Height : 1));
    if (e != CUDA_SUCCESS) return mock__leave(e);
    r->bound = B_PITCH;
    r->format = d->Format;
    r->channels = (int)d->NumChannels;
    r->width = d->Width;
    r->height = d->Height;
    r->pitch = pitch;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetFormat(CUtexref h, CUarray_format f, int channels) {
    TEXREF(cuTexRefSetFormat, h);
    if (!known_format(f, channels)) {
        mock__why("format 0x%x with %d channels", (unsigned)f, channels);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    r->format = f;
    r->channels = channels;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetAddressMode(CUtexref h, int dim, CUaddress_mode am) {
    TEXREF(cuTexRefSetAddressMode, h);
    if (dim < 0 || dim > 2 || (unsigned)am > CU_TR_ADDRESS_MODE_BORDER)
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    r->td.addressMode[dim] = am;
    return mock__leave(CUDA_SUCCESS);
}

/* Setters of one field of the description, valid when `ok` holds of the value v. */
#define TEXREF_SET(entry, type, field, ok)                                                         \
    CUresult CUDAAPI mock_##entry(CUtexref h, type v) {                                            \
        TEXREF(entry, h);                                                                          \
        if (!(ok)) return mock__leave(CUDA_ERROR_INVALID_VALUE);                                   \
        r->td.field = v;                                                                           \
        return mock__leave(CUDA_SUCCESS);                                                          \
    }
TEXREF_SET(cuTexRefSetFilterMode, CUfilter_mode, filterMode,
           (unsigned)v <= CU_TR_FILTER_MODE_LINEAR)
TEXREF_SET(cuTexRefSetMipmapFilterMode, CUfilter_mode, mipmapFilterMode,
           (unsigned)v <= CU_TR_FILTER_MODE_LINEAR)
TEXREF_SET(cuTexRefSetMipmapLevelBias, float, mipmapLevelBias, true)
TEXREF_SET(cuTexRefSetMaxAnisotropy, unsigned int, maxAnisotropy, true)

CUresult CUDAAPI mock_cuTexRefSetMipmapLevelClamp(CUtexref h, float lo, float hi) {
    TEXREF(cuTexRefSetMipmapLevelClamp, h);
    r->td.minMipmapLevelClamp = lo;
    r->td.maxMipmapLevelClamp = hi;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetBorderColor(CUtexref h, float *rgba) {
    TEXREF(cuTexRefSetBorderColor, h);
    if (rgba == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    memcpy(r->td.borderColor, rgba, sizeof r->td.borderColor);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetFlags(CUtexref h, unsigned int flags) {
    TEXREF(cuTexRefSetFlags, h);
    if (flags &
        ~(unsigned)(CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB |
                    CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION | CU_TRSF_SEAMLESS_CUBEMAP)) {
        mock__why("flags 0x%x the driver does not define", flags);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    r->td.flags = flags;
    return mock__leave(CUDA_SUCCESS);
}

/* Getters: the reference checked, then NULL outputs (`missing`) are CUDA_ERROR_INVALID_VALUE. */
#define REF_OUT(entry, h, surface, missing)                                                        \
    REF(entry, h, surface);                                                                        \
    if (missing) return mock__leave(CUDA_ERROR_INVALID_VALUE)

/* Whether r is bound to one of `kinds` (B_*), else CUDA_ERROR_INVALID_VALUE with a sentence
 * naming what it is not bound to. */
static CUresult bound_to(const struct CUtexref_st *r, int kinds, const char *what) {
    if (r->bound & kinds) return CUDA_SUCCESS;
    mock__why("the %s reference is bound to no %s", r->surface ? "surface" : "texture", what);
    return CUDA_ERROR_INVALID_VALUE;
}

/* Getters of one value, read when the reference is bound to one of `kinds` (B_ANY: whatever it
 * is bound to, or nothing). */
#define REF_GET(entry, handle, surface, type, kinds, what, value)                                  \
    CUresult CUDAAPI mock_##entry(type *out, handle h) {                                           \
        REF_OUT(entry, h, surface, out == NULL);                                                   \
        CUresult e = bound_to(r, (kinds), (what));                                                 \
        if (e == CUDA_SUCCESS) *out = (type)(value);                                               \
        return mock__leave(e);                                                                     \
    }
#define TEXREF_GET(entry, type, kinds, what, value)                                                \
    REF_GET(entry, CUtexref, false, type, kinds, what, value)
TEXREF_GET(cuTexRefGetAddress_v2, CUdeviceptr, B_LINEAR | B_PITCH, "device memory", r->ptr)
TEXREF_GET(cuTexRefGetArray, CUarray, B_ARRAY, "CUDA array", r->array)
TEXREF_GET(cuTexRefGetMipmappedArray, CUmipmappedArray, B_MIPMAP, "mipmapped array", r->mipmap)
TEXREF_GET(cuTexRefGetFilterMode, CUfilter_mode, B_ANY, "", r->td.filterMode)
TEXREF_GET(cuTexRefGetMipmapFilterMode, CUfilter_mode, B_ANY, "", r->td.mipmapFilterMode)
TEXREF_GET(cuTexRefGetMipmapLevelBias, float, B_ANY, "", r->td.mipmapLevelBias)
TEXREF_GET(cuTexRefGetMaxAnisotropy, int, B_ANY, "", r->td.maxAnisotropy)
TEXREF_GET(cuTexRefGetFlags, unsigned int, B_ANY, "", r->td.flags)

CUresult CUDAAPI mock_cuTexRefGetAddressMode(CUaddress_mode *out, CUtexref h, int dim) {
    REF_OUT(cuTexRefGetAddressMode, h, false, out == NULL);
    if (dim < 0 || dim > 2) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *out = r->td.addressMode[dim];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetFormat(CUarray_format *f, int *channels, CUtexref h) {
    REF_OUT(cuTexRefGetFormat, h, false, f == NULL);
    *f = r->format;
    if (channels != NULL) *channels = r->channels;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMipmapLevelClamp(float *lo, float *hi, CUtexref h) {
    REF_OUT(cuTexRefGetMipmapLevelClamp, h, false, lo == NULL || hi == NULL);
    *lo = r->td.minMipmapLevelClamp;
    *hi = r->td.maxMipmapLevelClamp;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetBorderColor(float *out, CUtexref h) {
    REF_OUT(cuTexRefGetBorderColor, h, false, out == NULL);
    memcpy(out, r->td.borderColor, sizeof r->td.borderColor);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuSurfRefSetArray(CUsurfref h, CUarray a, unsigned int flags) {
    REF(cuSurfRefSetArray, h, true);
    return mock__leave(bind_array(r, a, NULL, flags));
}

REF_GET(cuSurfRefGetArray, CUsurfref, true, CUarray, B_ARRAY, "CUDA array", r->array)
