/* The fuzzer's instructions on modules, libraries, launch and occupancy (see fuzz_ops.c). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_ops.h"

/* ------------------------------------------------------------------------------------------ */
/* Interesting values                                                                         */
/* ------------------------------------------------------------------------------------------ */

static const uint32_t dims[] = {1,     0,           2,           32,        64,   132,
                                264,   265,         1023,        1024,      1025, 65535,
                                65536, 0x7fffffffu, 0x80000000u, UINT32_MAX};
static const uint32_t smems[] = {0,     1,      1024,   49151,  49152,
                                 49153, 232448, 232449, 233472, UINT32_MAX};
static const uint64_t smems64[] = {0,         1,      1024,   49151,      49152,
                                   49153,     232448, 232449, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
                                   UINT64_MAX};
static const int block_sizes[] = {32, 0, 1, -1, 64, 256, 1024, 1025, INT_MAX, INT_MIN};
static const int block_limits[] = {0, 32, 1024, 1025, -1, INT_MIN, 1, 100};

/* ------------------------------------------------------------------------------------------ */
/* Images, names and files                                                                    */
/* ------------------------------------------------------------------------------------------ */

#define PTX_HEAD ".version 6.0\n.target sm_70\n.address_size 64\n\n"

static const char *const images[FZ_IMAGE_COUNT] = {
    [FZ_IMAGE_KERNELS] = PTX_HEAD ".visible .entry cushim_empty(\n)\n{\n    ret;\n}\n"
                                  ".visible .entry cushim_saxpy(\n    .param .u32 n\n)\n{\n"
                                  "    ret;\n}\n"
                                  ".visible .entry cushim_grid_barrier(\n)\n{\n    ret;\n}\n",
    [FZ_IMAGE_JIT_ERROR] = PTX_HEAD "// MOCK_JIT_ERROR\n"
                                    ".visible .entry cushim_broken(\n)\n{\n    ret;\n}\n",
    [FZ_IMAGE_SMALL] = ".visible .entry k()\n{\nret;\n}\n",
    [FZ_IMAGE_EMPTY] = "",
    [FZ_IMAGE_ELF] = "\x7f"
                     "ELF\x02\x01\x01",
    /* a fatbin's magic, version 1 and a header size of 0: the mock reads the header's fields
     * as the driver does, so the bytes it reads must be there */
    [FZ_IMAGE_FATBIN] = "\x50\xed\x55\xba\x01\x00\x00",
    [FZ_IMAGE_COMMENTS] = PTX_HEAD "// .entry hidden_line(\n/* .entry hidden_block( */\n"
                                   ".visible .entry visible(\n)\n{\n    ret;\n}\n",
    [FZ_IMAGE_UNTERMINATED] = PTX_HEAD ".visible .entry k(\n)\n{\n    ret;\n}\n/* .entry x(",
};

static const char *const names[FZ_NAME_COUNT] = {
    [FZ_NAME_EMPTY_KERNEL] = "cushim_empty",
    [FZ_NAME_SAXPY] = "cushim_saxpy",
    [FZ_NAME_BARRIER] = "cushim_grid_barrier",
    [FZ_NAME_K] = "k",
    [FZ_NAME_VISIBLE] = "visible",
    [FZ_NAME_MISSING] = "cushim_no_such_kernel",
    [FZ_NAME_BLANK] = "",
};

static char image_bytes[FZ_BYTES_MAX + 8];
static char name_bytes[FZ_NAME_MAX + 8];
static char paths[FZ_PATH_COUNT][64];

/* The image an operand names, or NULL. */
static const void *read_image(fz_reader *r, int *which) {
    *which = fz_u8(r) % FZ_IMAGE_COUNT;
    if (*which == FZ_IMAGE_BYTES) {
        fz_bytes(r, image_bytes, FZ_BYTES_MAX);
        return image_bytes;
    }
    return images[*which];
}

static const char *read_name(fz_reader *r) {
    int which = fz_u8(r) % FZ_NAME_COUNT;
    if (which == FZ_NAME_BYTES) {
        fz_bytes(r, name_bytes, FZ_NAME_MAX);
        return name_bytes;
    }
    return names[which];
}

/* Files for FZ_PATH_*: anonymous memory files, named through /proc, so that nothing is left
 * behind and the fuzzer needs no scratch directory. */
static void make_file(int which, const char *text) {
    int fd = memfd_create("cushim-fuzz", 0);
    size_t len = strlen(text);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        fprintf(stderr, "cushim fuzz: cannot make a memory file; %s is a missing file instead\n",
                text == images[FZ_IMAGE_KERNELS] ? "the kernels file" : "a file");
        snprintf(paths[which], sizeof paths[which], "/nonexistent/cushim-fuzz-%d.ptx", which);
        return;
    }
    snprintf(paths[which], sizeof paths[which], "/proc/self/fd/%d", fd);
}

/* ------------------------------------------------------------------------------------------ */
/* Modules and libraries                                                                      */
/* ------------------------------------------------------------------------------------------ */

static CUcontext ctx_raw_of(const fz_handle *h) {
    return h->kind == FZ_KIND_CTX ? cushim_context_raw(h->p) : NULL;
}

/* Whether an image is one the mock loads, and one it cannot. */
static bool image_loads(int which) {
    return which == FZ_IMAGE_KERNELS || which == FZ_IMAGE_SMALL || which == FZ_IMAGE_COMMENTS ||
           which == FZ_IMAGE_UNTERMINATED;
}

static bool image_refused(int which) {
    return which == FZ_IMAGE_JIT_ERROR || which == FZ_IMAGE_EMPTY || which == FZ_IMAGE_ELF ||
           which == FZ_IMAGE_FATBIN || which == FZ_IMAGE_NULL;
}

static void check_load(const fz_call *c, CUresult res, int which, bool args_ok) {
    if (args_ok && image_loads(which)) fz_expect_ok(c, res);
    if (res == CUDA_SUCCESS && image_refused(which)) {
        fz_fail("%s loaded image %d, which the driver cannot", c->what, which);
    }
    if (args_ok && which == FZ_IMAGE_JIT_ERROR && res == CUDA_ERROR_INVALID_PTX) {
        fz_expect_error_has(c, "MOCK_JIT_ERROR"); /* the JIT's log, in the sentence */
    }
}

static void add_module(int slot, cushim_module *m, cushim_context *ctx) {
    fz_m.module[slot] = m;
    if (fz_module_find(m) != NULL) fz_fail("a new module %p is already in the model", (void *)m);
    fz_owner_rec *rec = &fz_m.modules[fz_m.nmodules++];
    memset(rec, 0, sizeof *rec);
    rec->p = m;
    rec->ctx = ctx;
}

/* slot, context handle, image (choice, then bytes for FZ_IMAGE_BYTES), options */
void fz_op_module_load(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_MODULE;
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    int which;
    const void *image = read_image(r, &which);
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_release_slot(FZ_KIND_MODULE, slot);
    h = fz_refresh(h);
    cushim_module *m = FZ_POISON(cushim_module);
    fz_call c;
    fz_begin(&c, "cushim_module_load_data");
    CUresult res = cushim_module_load_data(out_null ? NULL : &m, h.p, image);
    fz_end(&c, res, 0);
    bool args_ok = !out_null && h.kind == FZ_KIND_CTX;
    if (res == CUDA_SUCCESS && !args_ok) fz_fail("%s succeeded with bad arguments", c.what);
    check_load(&c, res, which, args_ok);
    if (out_null) return;
    fz_check_out(&c, res, m);
    if (res == CUDA_SUCCESS) add_module(slot, m, h.p);
}

/* slot, context handle, path (choice), options */
void fz_op_module_file(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_MODULE;
    fz_handle h = fz_pick(r, FZ_KIND_CTX);
    int which = fz_u8(r) % FZ_PATH_COUNT;
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_release_slot(FZ_KIND_MODULE, slot);
    h = fz_refresh(h);
    const char *path = which == FZ_PATH_NULL ? NULL : paths[which];
    cushim_module *m = FZ_POISON(cushim_module);
    fz_call c;
    fz_begin(&c, "cushim_module_load_file");
    CUresult res = cushim_module_load_file(out_null ? NULL : &m, h.p, path);
    fz_end(&c, res, 0);
    bool args_ok = !out_null && h.kind == FZ_KIND_CTX;
    if (res == CUDA_SUCCESS && (!args_ok || which != FZ_PATH_KERNELS)) {
        fz_fail("%s succeeded with path %d", c.what, which);
    }
    if (args_ok && which == FZ_PATH_KERNELS && strncmp(paths[which], "/proc/", 6) == 0) {
        fz_expect_ok(&c, res);
    }
    if (args_ok &&
        (which == FZ_PATH_MISSING || which == FZ_PATH_DIRECTORY || which == FZ_PATH_BLANK)) {
        if (res != CUDA_ERROR_FILE_NOT_FOUND) {
            fz_fail("%s of an unreadable path returned %s", c.what, cushim_error_name(res));
        }
        if (which != FZ_PATH_BLANK) fz_expect_error_has(&c, path);
    }
    if (args_ok && which == FZ_PATH_JIT_ERROR && res == CUDA_ERROR_INVALID_PTX) {
        fz_expect_error_has(&c, "MOCK_JIT_ERROR");
        fz_expect_error_has(&c, path);
    }
    if (out_null) return;
    fz_check_out(&c, res, m);
    if (res == CUDA_SUCCESS) add_module(slot, m, h.p);
}

static fz_fn_rec *find_fn(fz_owner_rec *rec, const char *name, CUcontext raw) {
    for (int i = 0; i < rec->nfns; i++) {
        if (rec->fns[i].raw == raw && strcmp(rec->fns[i].name, name) == 0) return &rec->fns[i];
    }
    return NULL;
}

/* Records a function its owner returned, which must be the same object each time. */
static void note_function(const fz_call *c, fz_owner_rec *rec, fz_fn_rec *known, cushim_function *f,
                          const char *name, CUcontext raw, cushim_context *ctx, int fslot) {
    if (known != NULL && known->f != f) {
        fz_fail("%s of '%s' returned %p, and %p before", c->what, name, (void *)f,
                (void *)known->f);
    }
    if (known == NULL) {
        if (rec->nfns == FZ_MAX_FNS) fz_fail("the model's function records are full");
        fz_fn_rec *n = &rec->fns[rec->nfns++];
        /* Names are FZ_NAME_MAX bytes at most: the precision says so to gcc -O3's checks. */
        snprintf(n->name, sizeof n->name, "%.*s", FZ_NAME_MAX, name);
        n->raw = raw;
        n->ctx = ctx;
        n->f = f;
    }
    fz_fn_slot *s = &fz_m.fn[fslot];
    s->f = f;
    s->owner = rec->p;
    snprintf(s->name, sizeof s->name, "%.*s", FZ_NAME_MAX, name);
    s->raw = raw;
}

static void check_not_found(const fz_call *c, CUresult res, const char *name) {
    if (res == CUDA_ERROR_NOT_FOUND && name != NULL && name[0] != '\0') {
        fz_expect_error_has(c, name);
    }
}

/* function slot, module handle, name (choice, then bytes for FZ_NAME_BYTES), options */
void fz_op_module_function(fz_reader *r) {
    int fslot = fz_u8(r) % FZ_N_FUNC;
    fz_handle h = fz_pick(r, FZ_KIND_MODULE);
    const char *name = read_name(r);
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_owner_rec *rec = h.kind == FZ_KIND_MODULE ? fz_module_find(h.p) : NULL;
    CUcontext raw = rec != NULL ? cushim_context_raw(rec->ctx) : NULL;
    fz_fn_rec *known = rec != NULL && name != NULL ? find_fn(rec, name, raw) : NULL;
    if (rec != NULL && known == NULL && rec->nfns == FZ_MAX_FNS) return;
    cushim_function *f = FZ_POISON(cushim_function);
    fz_call c;
    fz_begin(&c, "cushim_module_function");
    CUresult res = cushim_module_function(out_null ? NULL : &f, h.p, name);
    fz_end(&c, res, 0);
    /* A name asked before is answered from the module, without the driver. */
    if (known != NULL && !out_null && res != CUDA_SUCCESS) {
        fz_fail("%s of '%s', found before, failed with %s", c.what, name, cushim_error_name(res));
    }
    if (res == CUDA_SUCCESS && (out_null || rec == NULL || name == NULL)) {
        fz_fail("%s succeeded with bad arguments", c.what);
    }
    check_not_found(&c, res, name);
    if (out_null) return;
    fz_check_out(&c, res, f);
    if (res == CUDA_SUCCESS) note_function(&c, rec, known, f, name, raw, NULL, fslot);
}

/* slot, image (choice, then bytes for FZ_IMAGE_BYTES), options */
void fz_op_library_load(fz_reader *r) {
    int slot = fz_u8(r) % FZ_N_LIBRARY;
    int which;
    const void *image = read_image(r, &which);
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_release_slot(FZ_KIND_LIBRARY, slot);
    cushim_library *lib = FZ_POISON(cushim_library);
    fz_call c;
    fz_begin(&c, "cushim_library_load_data");
    CUresult res = cushim_library_load_data(out_null ? NULL : &lib, image);
    fz_end(&c, res, 0);
    if (res == CUDA_SUCCESS && out_null) fz_fail("%s succeeded with bad arguments", c.what);
    check_load(&c, res, which, !out_null);
    if (out_null) return;
    fz_check_out(&c, res, lib);
    if (res != CUDA_SUCCESS) return;
    fz_m.library[slot] = lib;
    if (fz_library_find(lib) != NULL)
        fz_fail("a new library %p is already in the model", (void *)lib);
    fz_owner_rec *rec = &fz_m.libraries[fz_m.nlibraries++];
    memset(rec, 0, sizeof *rec);
    rec->p = lib;
}

/* function slot, library handle, context handle, name (choice, then bytes), options */
void fz_op_library_function(fz_reader *r) {
    int fslot = fz_u8(r) % FZ_N_FUNC;
    fz_handle h = fz_pick(r, FZ_KIND_LIBRARY);
    fz_handle x = fz_pick(r, FZ_KIND_CTX);
    const char *name = read_name(r);
    bool out_null = fz_u8(r) & FZ_CREATE_OUT_NULL;
    fz_owner_rec *rec = h.kind == FZ_KIND_LIBRARY ? fz_library_find(h.p) : NULL;
    CUcontext raw = ctx_raw_of(&x);
    /* cushim keeps a library's functions by name and driver context: a second cushim context
     * of the same primary context gets the function (and the reference) of the first. */
    fz_fn_rec *known = rec != NULL && raw != NULL && name != NULL ? find_fn(rec, name, raw) : NULL;
    if (rec != NULL && known == NULL && rec->nfns == FZ_MAX_FNS) return;
    cushim_function *f = FZ_POISON(cushim_function);
    fz_call c;
    fz_begin(&c, "cushim_library_function");
    CUresult res = cushim_library_function(out_null ? NULL : &f, h.p, x.p, name);
    fz_end(&c, res, 0);
    if (known != NULL && !out_null && res != CUDA_SUCCESS) {
        fz_fail("%s of '%s', found before, failed with %s", c.what, name, cushim_error_name(res));
    }
    if (res == CUDA_SUCCESS && (out_null || rec == NULL || raw == NULL || name == NULL)) {
        fz_fail("%s succeeded with bad arguments", c.what);
    }
    check_not_found(&c, res, name);
    if (out_null) return;
    fz_check_out(&c, res, f);
    if (res == CUDA_SUCCESS) note_function(&c, rec, known, f, name, raw, x.p, fslot);
}

/* ------------------------------------------------------------------------------------------ */
/* Launch and occupancy                                                                       */
/* ------------------------------------------------------------------------------------------ */

static CUstream default_stream(void) {
    return cushim_driver_state()->per_thread_stream ? CU_STREAM_PER_THREAD : NULL;
}

static cushim_dim3 read_dim3(fz_reader *r) {
    cushim_dim3 d;
    d.x = fz_pick_u32(r, dims, COUNT(dims));
    d.y = fz_pick_u32(r, dims, COUNT(dims));
    d.z = fz_pick_u32(r, dims, COUNT(dims));
    return d;
}

/* Launches f with cfg (NULL when cfg_null) and checks the driver's record of it. */
static CUresult launch(const fz_handle *f, const fz_handle *s, const cushim_launch_config *cfg,
                       bool cooperative, bool params, fz_call *c) {
    const char *entry = cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel";
    int launches = fz_mock.launch_count(), calls = fz_mock.calls(entry);
    unsigned n = 1;
    void *args[] = {&n, &n, &n, &n};
    fz_begin(c, cooperative ? "cushim_launch_cooperative" : "cushim_launch");
    CUresult res = cooperative ? cushim_launch_cooperative(f->p, cfg, params ? args : NULL)
                               : cushim_launch(f->p, cfg, params ? args : NULL);
    fz_end(c, res, 0);
    int now = fz_mock.launch_count();
    if (res != CUDA_SUCCESS) {
        /* One exception: on the default stream, the launch is made and then restoring the
         * caller's context fails; cushim reports that failure, and the kernel did launch. */
        bool restore_refused = c->faulted && strcmp(c->faulted_entry, "cuCtxSetCurrent") == 0 &&
                               s->kind == FZ_KIND_NONE && now == launches + 1;
        if (now != launches && !restore_refused) {
            fz_fail("%s failed with %s, but the driver launched", c->what, cushim_error_name(res));
        }
        /* The pre-checks refuse what the driver would call an invalid value. */
        if (res == CUDA_ERROR_INVALID_VALUE && fz_mock.calls(entry) != calls && !c->faulted &&
            !fz_m.limits_stale) {
            fz_fail("%s: the driver refused with CUDA_ERROR_INVALID_VALUE a launch that "
                    "cushim's pre-checks let through",
                    c->what);
        }
        return res;
    }
    if (f->kind != FZ_KIND_FUNC || cfg == NULL ||
        !(s->kind == FZ_KIND_STREAM || s->kind == FZ_KIND_NONE)) {
        fz_fail("%s succeeded with bad arguments", c->what);
    }
    const cushim_mock_launch *l = now == launches + 1 ? fz_mock.launch(launches) : NULL;
    const fz_fn_slot *fs = &fz_m.fn[f->slot];
    CUstream stream = s->kind == FZ_KIND_STREAM ? cushim_stream_raw(s->p) : default_stream();
    if (l == NULL || strcmp(l->kernel, fs->name) != 0 || l->cooperative != cooperative ||
        l->grid[0] != cfg->grid.x || l->grid[1] != cfg->grid.y || l->grid[2] != cfg->grid.z ||
        l->block[0] != cfg->block.x || l->block[1] != cfg->block.y || l->block[2] != cfg->block.z ||
        l->shared_mem_bytes != cfg->shared_mem_bytes || l->stream != stream ||
        (s->kind == FZ_KIND_NONE && l->context != fs->raw)) {
        fz_fail("%s succeeded, but the driver recorded %d launches, the last %s", c->what,
                now - launches, l != NULL ? l->kernel : "none");
    }
    return res;
}

/* function handle, grid (three values), block (three values), shared memory (value),
 * stream handle (an empty slot: the default stream), options */
void fz_op_launch(fz_reader *r) {
    fz_handle f = fz_pick(r, FZ_KIND_FUNC);
    cushim_launch_config cfg;
    memset(&cfg, 0, sizeof cfg); /* no launch attributes */
    cfg.grid = read_dim3(r);
    cfg.block = read_dim3(r);
    cfg.shared_mem_bytes = fz_pick_u32(r, smems, COUNT(smems));
    fz_handle s = fz_pick(r, FZ_KIND_STREAM);
    cfg.stream = s.p;
    uint8_t opt = fz_u8(r);
    fz_call c;
    launch(&f, &s, (opt & FZ_LAUNCH_CFG_NULL) ? NULL : &cfg, opt & FZ_LAUNCH_COOPERATIVE,
           opt & FZ_LAUNCH_PARAMS, &c);
}

/* function handle, block size (value), shared memory (64-bit value), options */
void fz_op_occ_active(fz_reader *r) {
    fz_handle f = fz_pick(r, FZ_KIND_FUNC);
    int block = fz_pick_int(r, block_sizes, COUNT(block_sizes));
    uint64_t smem = fz_pick_u64(r, smems64, COUNT(smems64));
    bool out_null = fz_u8(r) & FZ_OCC_OUT_NULL;
    int blocks = -1;
    fz_call c;
    fz_begin(&c, "cushim_occupancy_max_active_blocks");
    CUresult res = cushim_occupancy_max_active_blocks(out_null ? NULL : &blocks, f.p, block, smem);
    fz_end(&c, res, 0);
    bool valid = !out_null && f.kind == FZ_KIND_FUNC && block > 0;
    if (valid) fz_expect_ok(&c, res);
    if (res == CUDA_SUCCESS && (!valid || blocks < 0)) {
        fz_fail("%s succeeded with %d blocks for block size %d", c.what, blocks, block);
    }
}

/* What the callback of cushim_occupancy_max_potential_block_size_fn answers: set per call. */
static uint64_t smem_per_thread;

static size_t smem_for_block(int block_size) {
    return (size_t)((uint64_t)block_size * smem_per_thread); /* wraps on purpose */
}

/* function handle, shared memory (64-bit value), block limit (value), options */
void fz_op_occ_potential(fz_reader *r) {
    fz_handle f = fz_pick(r, FZ_KIND_FUNC);
    uint64_t smem = fz_pick_u64(r, smems64, COUNT(smems64));
    int limit = fz_pick_int(r, block_limits, COUNT(block_limits));
    uint8_t opt = fz_u8(r);
    int grid = -1, block = -1;
    int *pg = (opt & FZ_OCC_OUT_NULL) ? NULL : &grid;
    int *pb = (opt & FZ_OCC_OUT2_NULL) ? NULL : &block;
    bool callback = opt & FZ_OCC_CALLBACK, callback_null = opt & FZ_OCC_CALLBACK_NULL;
    fz_call c;
    CUresult res;
    if (callback) {
        smem_per_thread = smem;
        fz_begin(&c, "cushim_occupancy_max_potential_block_size_fn");
        res = cushim_occupancy_max_potential_block_size_fn(
            pg, pb, f.p, callback_null ? NULL : smem_for_block, limit);
    } else {
        fz_begin(&c, "cushim_occupancy_max_potential_block_size");
        res = cushim_occupancy_max_potential_block_size(pg, pb, f.p, smem, limit);
    }
    fz_end(&c, res, 0);
    bool valid = pg != NULL && pb != NULL && f.kind == FZ_KIND_FUNC && limit >= 0 &&
                 !(callback && callback_null);
    if (valid) fz_expect_ok(&c, res);
    if (res != CUDA_SUCCESS) return;
    if (!valid || grid < 0 || block < 0 || block > 1024 || (limit > 0 && block > limit)) {
        fz_fail("%s succeeded with a grid of %d and blocks of %d (limit %d)", c.what, grid, block,
                limit);
    }
}

/* The largest cooperative grid, and the active blocks per SM it is made of, for f. */
static CUresult coop_grid(const fz_handle *f, int block, uint64_t smem, int *grid, fz_call *c) {
    fz_begin(c, "cushim_occupancy_max_cooperative_grid");
    CUresult res = cushim_occupancy_max_cooperative_grid(grid, f->p, block, smem);
    fz_end(c, res, 0);
    bool valid = f->kind == FZ_KIND_FUNC && block > 0;
    if (valid) fz_expect_ok(c, res);
    if (res == CUDA_SUCCESS && (!valid || *grid < 0)) {
        fz_fail("%s succeeded with a grid of %d for block size %d", c->what, *grid, block);
    }
    return res;
}

/* function handle, block size (value), shared memory (64-bit value) */
void fz_op_occ_coop_grid(fz_reader *r) {
    fz_handle f = fz_pick(r, FZ_KIND_FUNC);
    int block = fz_pick_int(r, block_sizes, COUNT(block_sizes));
    uint64_t smem = fz_pick_u64(r, smems64, COUNT(smems64));
    int grid = -1, per_sm = -1;
    fz_call c, d;
    if (coop_grid(&f, block, smem, &grid, &c) != CUDA_SUCCESS) return;
    /* The grid is the blocks per SM times the SMs, as the launch's own check computes it. */
    fz_begin(&d, "cushim_occupancy_max_active_blocks");
    CUresult res = cushim_occupancy_max_active_blocks(&per_sm, f.p, block, smem);
    fz_end(&d, res, 0);
    fz_expect_ok(&d, res);
    long long expected = (long long)per_sm * MOCK_SMS;
    if (res == CUDA_SUCCESS && grid != (expected > INT_MAX ? INT_MAX : expected)) {
        fz_fail("%s is %d, but %d blocks per SM x %d SMs is %lld", c.what, grid, per_sm, MOCK_SMS,
                expected);
    }
}

/* function handle, block size (value), shared memory (value), delta (byte % 3 - 1),
 * stream handle */
void fz_op_coop_at_limit(fz_reader *r) {
    fz_handle f = fz_pick(r, FZ_KIND_FUNC);
    int block = fz_pick_int(r, block_sizes, COUNT(block_sizes));
    uint32_t smem = fz_pick_u32(r, smems, COUNT(smems));
    int delta = fz_u8(r) % 3 - 1;
    fz_handle s = fz_pick(r, FZ_KIND_STREAM);
    int grid = -1;
    fz_call c, d;
    if (coop_grid(&f, block, smem, &grid, &c) != CUDA_SUCCESS) return;
    long long blocks = (long long)grid + delta;
    if (blocks <= 0 || block <= 0) return;
    cushim_launch_config cfg = {.grid = {(unsigned)blocks, 1, 1},
                                .block = {(unsigned)block, 1, 1},
                                .shared_mem_bytes = smem,
                                .stream = s.p};
    CUresult res = launch(&f, &s, &cfg, true, false, &d);
    /* The grid cushim_occupancy_max_cooperative_grid gives launches; one block more does not. */
    if (c.faulted || d.faulted) return;
    if (delta <= 0 && res == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
        fz_fail("a cooperative launch of %lld blocks of %d (the largest grid is %d) was refused "
                "as too large",
                blocks, block, grid);
    }
    if (delta > 0 && res == CUDA_SUCCESS) {
        fz_fail("a cooperative launch of %lld blocks of %d (the largest grid is %d) launched",
                blocks, block, grid);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Setup                                                                                      */
/* ------------------------------------------------------------------------------------------ */

void fz_ops_code_init(void) {
    make_file(FZ_PATH_KERNELS, images[FZ_IMAGE_KERNELS]);
    make_file(FZ_PATH_JIT_ERROR, images[FZ_IMAGE_JIT_ERROR]);
    make_file(FZ_PATH_EMPTY, "");
    snprintf(paths[FZ_PATH_MISSING], sizeof paths[0], "/nonexistent/cushim-fuzz.ptx");
    snprintf(paths[FZ_PATH_DIRECTORY], sizeof paths[0], "/");
    paths[FZ_PATH_BLANK][0] = '\0';
}
