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

enum { B_NONE, B_ARRAY, B_MIPMAP, B_LINEAR, B_PITCH };

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

void mock__texref_forget(const struct mock_ptx_module *m) {
    for (struct CUtexref_st **p = &refs; *p != NULL;) {
        struct CUtexref_st *r = *p;
        if (m == NULL || r->m == m) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}

/* The resource a reference is bound to, as a texture object's. */
static void resource_of(const struct CUtexref_st *r, CUDA_RESOURCE_DESC *d) {
    memset(d, 0, sizeof *d);
    switch (r->bound) {
    case B_ARRAY:
        d->resType = CU_RESOURCE_TYPE_ARRAY;
        d->res.array.hArray = r->array;
        break;
    case B_MIPMAP:
        d->resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        d->res.mipmap.hMipmappedArray = r->mipmap;
        break;
    case B_LINEAR:
        d->resType = CU_RESOURCE_TYPE_LINEAR;
        d->res.linear.devPtr = r->ptr;
        d->res.linear.format = r->format;
        d->res.linear.numChannels = (unsigned)r->channels;
        d->res.linear.sizeInBytes = r->bytes;
        break;
    default:
        d->resType = CU_RESOURCE_TYPE_PITCH2D;
        d->res.pitch2D.devPtr = r->ptr;
        d->res.pitch2D.format = r->format;
        d->res.pitch2D.numChannels = (unsigned)r->channels;
        d->res.pitch2D.width = r->width;
        d->res.pitch2D.height = r->height;
        d->res.pitch2D.pitchInBytes = r->pitch;
        break;
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
#define TEXREF(entry, h)                                                                           \
    MOCK_ENTER(entry);                                                                             \
    struct CUtexref_st *r = live((h), false);                                                      \
    if (r == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE)

static bool known_format(CUarray_format f, int ch) {
    return (ch == 1 || ch == 2 || ch == 4) &&
           (f == CU_AD_FORMAT_UNSIGNED_INT8 || f == CU_AD_FORMAT_UNSIGNED_INT16 ||
            f == CU_AD_FORMAT_UNSIGNED_INT32 || f == CU_AD_FORMAT_SIGNED_INT8 ||
            f == CU_AD_FORMAT_SIGNED_INT16 || f == CU_AD_FORMAT_SIGNED_INT32 ||
            f == CU_AD_FORMAT_HALF || f == CU_AD_FORMAT_FLOAT);
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
    for (struct CUtexref_st **p = &refs; *p != NULL; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            break;
        }
    }
    free(r);
    return mock__leave(CUDA_SUCCESS);
}

/* An array (or a mipmapped array) bound: its format is the reference's from now on. */
static CUresult bind_array(struct CUtexref_st *r, CUarray a, CUmipmappedArray mm, unsigned flags) {
    if (flags != CU_TRSA_OVERRIDE_FORMAT) {
        mock__why("Flags must be CU_TRSA_OVERRIDE_FORMAT");
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

CUresult CUDAAPI mock_cuTexRefSetFilterMode(CUtexref h, CUfilter_mode fm) {
    TEXREF(cuTexRefSetFilterMode, h);
    if ((unsigned)fm > CU_TR_FILTER_MODE_LINEAR) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    r->td.filterMode = fm;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetMipmapFilterMode(CUtexref h, CUfilter_mode fm) {
    TEXREF(cuTexRefSetMipmapFilterMode, h);
    if ((unsigned)fm > CU_TR_FILTER_MODE_LINEAR) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    r->td.mipmapFilterMode = fm;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetMipmapLevelBias(CUtexref h, float bias) {
    TEXREF(cuTexRefSetMipmapLevelBias, h);
    r->td.mipmapLevelBias = bias;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetMipmapLevelClamp(CUtexref h, float lo, float hi) {
    TEXREF(cuTexRefSetMipmapLevelClamp, h);
    r->td.minMipmapLevelClamp = lo;
    r->td.maxMipmapLevelClamp = hi;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefSetMaxAnisotropy(CUtexref h, unsigned int n) {
    TEXREF(cuTexRefSetMaxAnisotropy, h);
    r->td.maxAnisotropy = n;
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

/* Getters: NULL outputs are CUDA_ERROR_INVALID_VALUE. */
#define OUT(p)                                                                                     \
    if ((p) == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE)

CUresult CUDAAPI mock_cuTexRefGetAddress_v2(CUdeviceptr *out, CUtexref h) {
    TEXREF(cuTexRefGetAddress, h);
    OUT(out);
    if (r->bound != B_LINEAR && r->bound != B_PITCH) {
        mock__why("the texture reference is bound to no device memory");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    *out = r->ptr;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetArray(CUarray *out, CUtexref h) {
    TEXREF(cuTexRefGetArray, h);
    OUT(out);
    if (r->bound != B_ARRAY) {
        mock__why("the texture reference is bound to no CUDA array");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    *out = r->array;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMipmappedArray(CUmipmappedArray *out, CUtexref h) {
    TEXREF(cuTexRefGetMipmappedArray, h);
    OUT(out);
    if (r->bound != B_MIPMAP) {
        mock__why("the texture reference is bound to no mipmapped array");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    *out = r->mipmap;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetAddressMode(CUaddress_mode *out, CUtexref h, int dim) {
    TEXREF(cuTexRefGetAddressMode, h);
    OUT(out);
    if (dim < 0 || dim > 2) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    *out = r->td.addressMode[dim];
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetFilterMode(CUfilter_mode *out, CUtexref h) {
    TEXREF(cuTexRefGetFilterMode, h);
    OUT(out);
    *out = r->td.filterMode;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetFormat(CUarray_format *f, int *channels, CUtexref h) {
    TEXREF(cuTexRefGetFormat, h);
    OUT(f);
    *f = r->format;
    if (channels != NULL) *channels = r->channels;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMipmapFilterMode(CUfilter_mode *out, CUtexref h) {
    TEXREF(cuTexRefGetMipmapFilterMode, h);
    OUT(out);
    *out = r->td.mipmapFilterMode;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMipmapLevelBias(float *out, CUtexref h) {
    TEXREF(cuTexRefGetMipmapLevelBias, h);
    OUT(out);
    *out = r->td.mipmapLevelBias;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMipmapLevelClamp(float *lo, float *hi, CUtexref h) {
    TEXREF(cuTexRefGetMipmapLevelClamp, h);
    OUT(lo);
    OUT(hi);
    *lo = r->td.minMipmapLevelClamp;
    *hi = r->td.maxMipmapLevelClamp;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetMaxAnisotropy(int *out, CUtexref h) {
    TEXREF(cuTexRefGetMaxAnisotropy, h);
    OUT(out);
    *out = (int)r->td.maxAnisotropy;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetBorderColor(float *out, CUtexref h) {
    TEXREF(cuTexRefGetBorderColor, h);
    OUT(out);
    memcpy(out, r->td.borderColor, sizeof r->td.borderColor);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuTexRefGetFlags(unsigned int *out, CUtexref h) {
    TEXREF(cuTexRefGetFlags, h);
    OUT(out);
    *out = r->td.flags;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuSurfRefSetArray(CUsurfref h, CUarray a, unsigned int flags) {
    MOCK_ENTER(cuSurfRefSetArray);
    struct CUtexref_st *r = live(h, true);
    if (r == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (flags != 0) {
        mock__why("Flags must be 0");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    return mock__leave(bind_array(r, a, NULL, CU_TRSA_OVERRIDE_FORMAT));
}

CUresult CUDAAPI mock_cuSurfRefGetArray(CUarray *out, CUsurfref h) {
    MOCK_ENTER(cuSurfRefGetArray);
    struct CUtexref_st *r = live(h, true);
    if (r == NULL || out == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    if (r->bound != B_ARRAY) {
        mock__why("the surface reference is bound to no CUDA array");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    *out = r->array;
    return mock__leave(CUDA_SUCCESS);
}
