/* The texture and surface instructions, decoded: PTX ISA 9.7.10 "Texture Instructions" (tex
 * 9.7.10.3, tld4 9.7.10.4, txq 9.7.10.5) and 9.7.11 "Surface Instructions" (suld 9.7.11.1,
 * sust 9.7.11.2, suq 9.7.11.4), in unified mode: the object is a .u64 handle in a register, or
 * the name of one of the module's `.texref` or `.surfref`, resolved here to a constant
 * MOCK_PTX_REF_TAG | index (samplers as operands and multisample geometries are refused with
 * a sentence). */
#include <string.h>

#include "ptx_tex.h"

/* The dotted parts of the opcode word after the first: each taken once. */
typedef struct parts {
    const char *w[12];
    size_t n[12];
    bool used[12];
    int count;
} parts;

static bool take(parts *p, const char *s) {
    for (int i = 0; i < p->count; i++) {
        if (!p->used[i] && ptx__is(p->w[i], p->n[i], s)) return p->used[i] = true;
    }
    return false;
}

static int take_of(parts *p, const char *const *names, int count) {
    for (int i = 0; i < count; i++) {
        if (take(p, names[i])) return i;
    }
    return -1;
}

/* One register, or a number as a constant (a float bit pattern for float coordinates). */
static bool element(dec *d, bool fl, uint32_t *slot) {
    ptx__skip(&d->l);
    const char *w;
    size_t n = ptx__word(&d->l, &w);
    if (n == 0) {
        uint64_t v;
        bool is_f;
        double f;
        if (!ptx__number(&d->l, &v, &is_f, &f)) return dec_fail(d, "a bad operand");
        if (fl && is_f) {
            float x = (float)f;
            uint32_t b;
            memcpy(&b, &x, 4);
            v = b;
        }
        *slot = dec_const(d, v);
        return true;
    }
    if (ptx__is(w, n, "_")) {
        *slot = SL_SINK;
        return true;
    }
    uint32_t idx;
    const dname *x = dec_lookup(d, w, n, &idx);
    if (x == NULL || x->kind != N_REG) {
        return dec_fail(d, "'%.*s' is not a register", (int)n, w);
    }
    *slot = x->slot + idx;
    return true;
}

/* A vector {a, b, ...} or one element: its slots and count. */
static bool vector(dec *d, bool fl, uint32_t *slots, int *count) {
    ptx__skip(&d->l);
    *count = 0;
    if (!ptx__eat(&d->l, '{')) {
        *count = 1;
        return element(d, fl, &slots[0]);
    }
    for (;;) {
        if (*count == 4) return dec_fail(d, "a vector of more than 4 elements");
        if (!element(d, fl, &slots[(*count)++])) return false;
        ptx__skip(&d->l);
        if (ptx__eat(&d->l, '}')) return true;
        if (!ptx__eat(&d->l, ',')) return dec_fail(d, "a vector without ',' or '}'");
    }
}

/* The object: a register, or a texture (surface) reference of the module by name. */
static bool object(dec *d, bool surface, uint32_t *slot) {
    ptx__skip(&d->l);
    plex at = d->l;
    const char *w;
    size_t n = ptx__word(&d->l, &w);
    uint32_t idx;
    if (n > 0 && dec_lookup(d, w, n, &idx) == NULL) {
        for (size_t i = 0; i < d->m->nrefs; i++) {
            const struct pref *r = &d->m->refs[i];
            if (strlen(r->name) != n || memcmp(r->name, w, n) != 0) continue;
            if (r->surface != surface) {
                return dec_fail(d, "'%.*s' is a .%s, where the instruction takes a .%s", (int)n, w,
                                r->surface ? "surfref" : "texref", surface ? "surfref" : "texref");
            }
            *slot = dec_const(d, MOCK_PTX_REF_TAG | i);
            return true;
        }
        return dec_fail(d, "'%.*s' is neither a register nor a .%s of the module", (int)n, w,
                        surface ? "surfref" : "texref");
    }
    d->l = at;
    return element(d, false, slot);
}

/* [handle] or [handle, coordinates]: the handle into s[0], the coordinates into s[1..]. */
static bool address(dec *d, pinst *in, bool coords, bool fl, int want) {
    ptx__skip(&d->l);
    if (!ptx__eat(&d->l, '[')) return dec_fail(d, "an operand that is not [object, ...]");
    if (!object(d, in->sub >= TX_SULD, &in->s[0])) return false;
    ptx__skip(&d->l);
    if (coords) {
        uint32_t c[4];
        int nc;
        if (!ptx__eat(&d->l, ',')) {
            return dec_fail(d, "a sampler operand or no coordinates: the mock's interpreter "
                               "runs the unified mode, [object, coordinates]");
        }
        if (!vector(d, fl, c, &nc)) return false;
        ptx__skip(&d->l);
        if (ptx__eat(&d->l, ',')) {
            return dec_fail(d, "a sampler operand: the mock's interpreter runs the unified mode, "
                               "[object, coordinates]");
        }
        if (nc < want) return dec_fail(d, "%d coordinates where the geometry has %d", nc, want);
        for (int i = 0; i < 3; i++) in->s[1 + i] = i < want ? c[i] : SL_ZERO;
        in->aux = want == 4 ? c[3] : SL_ZERO;
        ptx__skip(&d->l);
    }
    if (!ptx__eat(&d->l, ']')) return dec_fail(d, "an address without ']'");
    return true;
}

static bool end(dec *d) {
    ptx__skip(&d->l);
    if (ptx__eat(&d->l, ';')) return true;
    return dec_fail(d, "more operands than the mock's interpreter runs (a mipmap level, a "
                       "gradient, an offset or a depth comparison)");
}

static bool comma(dec *d) {
    ptx__skip(&d->l);
    return ptx__eat(&d->l, ',') || dec_fail(d, "operands without ','");
}

static bool leftover(dec *d, parts *p, const char *op, size_t oplen) {
    for (int i = 0; i < p->count; i++) {
        if (!p->used[i]) {
            return dec_fail(d,
                            "the modifier '.%.*s' of '%.*s' is not supported by the mock's "
                            "interpreter",
                            (int)p->n[i], p->w[i], (int)oplen, op);
        }
    }
    return true;
}

/* Coordinates each geometry takes: a layer, then x, y, z. */
static int coords_of(int g) {
    static const int n[] = {
        [G_1D] = 1, [G_2D] = 2, [G_3D] = 3, [G_A1D] = 2, [G_A2D] = 3, [G_CUBE] = 3, [G_ACUBE] = 4};
    return n[g];
}

static int geometry(dec *d, parts *p, bool cube) {
    static const char *const g[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
    int k = take_of(p, g, cube ? 7 : 5);
    if (k < 0) {
        dec_fail(d,
                 "a geometry other than .1d, .2d, .3d, .a1d, .a2d%s (multisample textures "
                 "are not supported by the mock's interpreter)",
                 cube ? ", .cube, .acube" : "");
    }
    return k;
}

static int vec_of(parts *p) {
    if (take(p, "v4")) return 4;
    if (take(p, "v2")) return 2;
    return 1;
}

/* tex.grad's dPdx and dPdy (PTX ISA 9.7.10.3), .f32 vectors of one element per dimension:
 * their slots (x of dPdx, y of dPdx, x of dPdy, y of dPdy; SL_ZERO for a 1d's y), 15 bits each,
 * packed into -(imm + 1), so that imm < 0 says tex.grad. */
static bool gradients(dec *d, pinst *in, bool two) {
    uint32_t v[2][4], packed[4];
    for (int k = 0; k < 2; k++) {
        int n;
        if (!comma(d) || !vector(d, true, v[k], &n)) return false;
        if (n < (two ? 2 : 1)) return dec_fail(d, "a tex.grad gradient of %d elements", n);
        packed[2 * k] = v[k][0];
        packed[2 * k + 1] = two ? v[k][1] : SL_ZERO;
    }
    uint64_t bits = 0;
    for (int i = 0; i < 4; i++) {
        if (packed[i] >= 1u << 15) {
            return dec_fail(d, "tex.grad in a function of more than 32767 registers is not "
                               "supported by the mock's interpreter");
        }
        bits |= (uint64_t)packed[i] << (15 * i);
    }
    in->imm = -(int64_t)bits - 1;
    return true;
}

static bool tex_like(dec *d, parts *p, pinst *in, bool gather) {
    static const char *const comp[] = {"r", "g", "b", "a"};
    in->imm = gather ? take_of(p, comp, 4) : 0;
    if (gather && in->imm < 0) return dec_fail(d, "tld4 without .r, .g, .b or .a");
    bool level = !gather && take(p, "level");
    bool grad = !gather && !level && take(p, "grad");
    if (take(p, "base")) return dec_fail(d, "tex.base is not supported by the mock's interpreter");
    int g = geometry(d, p, true);
    if (g < 0) return false;
    if (grad && g != G_1D && g != G_2D && g != G_A1D && g != G_A2D) {
        return dec_fail(d, "tex.grad of .3d, .cube or .acube is not supported by the mock's "
                           "interpreter (it runs .1d, .2d, .a1d, .a2d)");
    }
    if (gather && (g == G_1D || g == G_3D || g == G_A1D)) {
        return dec_fail(d, "tld4 of a geometry other than .2d, .a2d, .cube, .acube");
    }
    in->space = (uint8_t)g;
    in->vec = 4;
    if (!take(p, "v4")) return dec_fail(d, "a texture fetch without .v4 (.v2.f16x2 is not run)");
    /* The result type, then the coordinates' type, in that order. */
    static const char *const ty[] = {"f32", "s32", "u32"};
    static const int tyv[] = {T_F32, T_S32, T_U32};
    int k = -1, c = -1;
    for (int i = 0; i < p->count && c < 0; i++) {
        for (int j = 0; j < 3 && !p->used[i]; j++) {
            if (!ptx__is(p->w[i], p->n[i], ty[j])) continue;
            p->used[i] = true;
            if (k < 0) {
                k = j;
            } else {
                c = j;
            }
        }
    }
    if (k < 0 || c < 0 || c == 2) {
        return dec_fail(d, "a texture fetch whose result is not .f32, .s32 or .u32 or whose "
                           "coordinates are not .f32 or .s32");
    }
    in->type2 = (uint8_t)tyv[k];
    in->rnd = (uint8_t)(c == 0 ? T_F32 : T_S32);
    uint32_t dst[4];
    int nd;
    ptx__skip(&d->l);
    if (!vector(d, false, dst, &nd)) return false;
    if (nd != 4) return dec_fail(d, "a .v4 fetch into %d registers", nd);
    if (d->l.p < d->l.end && *d->l.p == '|') {
        return dec_fail(d, "a texture fetch's predicate destination is not supported");
    }
    memcpy(in->d, dst, sizeof dst);
    if (!comma(d) || !address(d, in, true, c == 0, coords_of(g))) return false;
    if (level) { /* tex.level: the level of detail, a .f32, its slot + 1 in imm */
        uint32_t lod;
        if (!comma(d) || !element(d, true, &lod)) return false;
        in->imm = (int64_t)lod + 1;
    }
    if (grad && !gradients(d, in, g == G_2D || g == G_A2D)) return false;
    return end(d);
}

static bool query(dec *d, parts *p, pinst *in, bool surface) {
    static const char *const q[] = {"width",
                                    "height",
                                    "depth",
                                    "array_size",
                                    "num_mipmap_levels",
                                    "normalized_coords",
                                    "filter_mode",
                                    "addr_mode_0",
                                    "addr_mode_1",
                                    "addr_mode_2",
                                    "memory_layout"};
    int k = take_of(p, q, 11);
    bool ok = k >= 0 && (surface ? k <= Q_ARRAY_SIZE || k == Q_LAYOUT : k != Q_LAYOUT);
    if (!ok) {
        return dec_fail(d,
                        "a %s query other than those the mock's interpreter answers (width, "
                        "height, depth, array_size%s)",
                        surface ? "suq" : "txq",
                        surface ? ", memory_layout"
                                : ", num_mipmap_levels, normalized_coords, filter_mode, "
                                  "addr_mode_0/1/2");
    }
    if (take(p, "level")) return dec_fail(d, "txq.level is not supported");
    in->imm = k;
    if (!take(p, "b32")) return dec_fail(d, "a query whose type is not .b32");
    return element(d, false, &in->d[0]) && comma(d) && address(d, in, false, false, 0) && end(d);
}

static bool surface(dec *d, parts *p, pinst *in, bool store) {
    if (!take(p, "b")) {
        return dec_fail(d,
                        "%s.p (formatted surface access) is not supported by the mock's "
                        "interpreter",
                        store ? "sust" : "suld");
    }
    int g = geometry(d, p, false);
    if (g < 0) return false;
    in->space = (uint8_t)g;
    in->vec = (uint8_t)vec_of(p);
    static const char *const bt[] = {"b8", "b16", "b32", "b64"};
    static const int btv[] = {T_U8, T_U16, T_U32, T_U64};
    int k = take_of(p, bt, 4);
    if (k < 0) return dec_fail(d, "a surface access whose type is not .b8 to .b64");
    in->type2 = (uint8_t)btv[k];
    static const char *const cl[] = {"trap", "clamp", "zero"};
    int c = take_of(p, cl, 3);
    in->imm = c < 0 ? SC_TRAP : c;
    static const char *const cache[] = {"ca", "cg", "cs", "cv", "wb", "wt"};
    take_of(p, cache, 6);
    uint32_t v[4];
    int nv;
    if (store) {
        if (!address(d, in, true, false, coords_of(g)) || !comma(d) || !vector(d, false, v, &nv))
            return false;
    } else if (!vector(d, false, v, &nv) || !comma(d) ||
               !address(d, in, true, false, coords_of(g))) {
        return false;
    }
    if (nv != in->vec) return dec_fail(d, "%d registers for a .v%d access", nv, in->vec);
    for (int i = 0; i < 4; i++) in->d[i] = i < nv ? v[i] : SL_SINK;
    return end(d);
}

bool ptx__dec_tex(dec *d, const char *w, size_t n) {
    parts p;
    memset(&p, 0, sizeof p);
    const char *e = w + n, *q = w;
    while (q < e && *q != '.') q++;
    const char *op = w;
    size_t oplen = (size_t)(q - w);
    while (q < e) {
        const char *s = ++q;
        while (q < e && *q != '.') q++;
        if (p.count == 12) return dec_fail(d, "too many modifiers in '%.*s'", (int)n, w);
        p.w[p.count] = s;
        p.n[p.count++] = (size_t)(q - s);
    }
    pinst *in = dec_emit(d);
    if (in == NULL) return false;
    in->op = (uint16_t)(O_TEX * T_COUNT + T_NONE);
    for (int i = 0; i < 4; i++) in->d[i] = in->s[i] = SL_SINK;
    in->s[0] = SL_ZERO;
    bool ok;
    if (ptx__is(op, oplen, "tex") || ptx__is(op, oplen, "tld4")) {
        in->sub = ptx__is(op, oplen, "tex") ? TX_TEX : TX_TLD4;
        ok = tex_like(d, &p, in, in->sub == TX_TLD4);
    } else if (ptx__is(op, oplen, "txq") || ptx__is(op, oplen, "suq")) {
        in->sub = ptx__is(op, oplen, "txq") ? TX_TXQ : TX_SUQ;
        ok = query(d, &p, in, in->sub == TX_SUQ);
    } else {
        in->sub = ptx__is(op, oplen, "suld") ? TX_SULD : TX_SUST;
        ok = surface(d, &p, in, in->sub == TX_SUST);
    }
    return ok && leftover(d, &p, op, oplen);
}
