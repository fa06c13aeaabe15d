/* NVRTC and nvJitLink as instances of the loader's library: where they are looked for, how
 * they start (their version, then dlsym per entry), and their status as a cushim_lib_info. The
 * search itself, the checks before dlopen and the message are library.c's. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/diag.h"
#include "loader/dso.h"
#include "loader/tables.h"

/* The toolkit's library folder found when cushim was built (meson.build); empty if none. */
#ifndef CUSHIM_TOOLKIT_LIBDIR
#define CUSHIM_TOOLKIT_LIBDIR ""
#endif

extern const cushim__dso cushim__nvrtc_dso, cushim__nvjitlink_dso;

const cushim__dso *cushim__dso_find(cushim_lib id) {
    switch (id) {
    case CUSHIM_LIB_NVRTC: return &cushim__nvrtc_dso;
    case CUSHIM_LIB_NVJITLINK: return &cushim__nvjitlink_dso;
    }
    return NULL;
}

/* The search order: the soname of the headers' major version, the unversioned name, the
 * toolkit found at build time, $CUDA_HOME, $CUDA_PATH, /usr/local/cuda. Worked out under the
 * library's lock before each search, since the folders come from the environment. */
static void prepare_candidates(const cushim__dso *d) {
    cushim__dso_state *s = d->state;
    const char *dirs[] = {CUSHIM_TOOLKIT_LIBDIR, secure_getenv("CUDA_HOME"),
                          secure_getenv("CUDA_PATH"), "/usr/local/cuda"};
    const char *subs[] = {"", "/lib64", "/lib64", "/lib64"};
    size_t n = 0;
    snprintf(s->paths[n], sizeof s->paths[n], "%s.%d", d->file, d->header_major);
    s->candidates[n] = s->paths[n];
    n++;
    s->candidates[n++] = d->file;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (dirs[i] == NULL || dirs[i][0] == '\0') continue;
        snprintf(s->paths[n], sizeof s->paths[n], "%s%s/%s.%d", dirs[i], subs[i], d->file,
                 d->header_major);
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen = seen || strcmp(s->candidates[k], s->paths[n]) == 0;
        if (!seen) s->candidates[n] = s->paths[n], n++;
    }
    d->lib->candidates = s->candidates;
    d->lib->candidate_count = n;
}

const char *cushim__dso_why(const cushim__dso *d) {
    /* A forked child's reset points the status at the shared reason, not at the message. */
    const char *m = d->lib->info.message;
    return m != NULL ? m : d->lib->message;
}

static void *lookup(void *handle, const char *symbol, int version, int mode) {
    (void)version;
    (void)mode;
    return dlsym(handle, symbol);
}

void cushim__dso_start(const cushim__dso *d, void *handle, void *version_fn) {
    cushim__library *lib = d->lib;
    int major = 0, minor = 0;
    if (d->read_version(version_fn, &major, &minor) != 0) {
        cushim__library_note(lib, "%s: its version cannot be read, so it is not used.",
                             lib->loaded_path);
        cushim__library_finish(lib, CUSHIM_DRIVER_INIT_FAILED,
                               CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
        return;
    }
    lib->info.driver_version = major * 1000 + minor * 10;
    if (major != d->header_major) {
        cushim__library_note(lib,
                             "%s is %s %d.%d, refused: cushim was built with the headers of "
                             "%d.%d, and the ABI changes with the major version.",
                             lib->loaded_path, d->title, major, minor, d->header_major,
                             d->header_minor);
        cushim__library_finish(lib, CUSHIM_DRIVER_TOO_OLD, CUDA_ERROR_NOT_SUPPORTED);
        return;
    }
    lib->info.entries_resolved = cushim__resolve_tables(lib, lookup, handle, 0);
    lib->message[0] = '\0';
    cushim__library_note(lib, "loaded %s (%s %d.%d, headers %d.%d), %u of %u entries resolved",
                         lib->loaded_path, d->title, major, minor, d->header_major, d->header_minor,
                         lib->info.entries_resolved, lib->entry_count);
    cushim__library_finish(lib, CUSHIM_DRIVER_LOADED, CUDA_SUCCESS);
}

/* The public status of the load, composed under the library's lock whenever the library's own
 * status has changed since (a load, a reinit, a forked child's reset). */
static const cushim_lib_info *compose(const cushim__dso *d) {
    cushim__library *lib = d->lib;
    cushim__dso_state *s = d->state;
    pthread_mutex_lock(&lib->lock);
    bool stale =
        !s->composed || s->from_status != lib->info.status || s->from_result != lib->init_result;
    if (stale && !lib->loading) {
        const cushim_driver_info *in = &lib->info;
        cushim_lib_info *out = &s->info;
        memset(out, 0, sizeof *out);
        out->status = in->status == CUSHIM_DRIVER_LOADED    ? CUSHIM_LIB_LOADED
                      : in->status == CUSHIM_DRIVER_TOO_OLD ? CUSHIM_LIB_WRONG_VERSION
                                                            : CUSHIM_LIB_NOT_FOUND;
        /* Not found: CUDA_ERROR_NOT_INITIALIZED's sentence is about the driver; "file not
         * found" is what happened. */
        out->result = lib->init_result;
        if (in->status == CUSHIM_DRIVER_NOT_FOUND && out->result == CUDA_ERROR_NOT_INITIALIZED) {
            out->result = CUDA_ERROR_FILE_NOT_FOUND;
        }
        out->name = d->title;
        out->env = lib->env;
        out->message = cushim__dso_why(d);
        out->path = out->status == CUSHIM_LIB_LOADED ? lib->loaded_path : NULL;
        out->version_major = in->driver_version / 1000;
        out->version_minor = in->driver_version % 1000 / 10;
        out->header_major = d->header_major;
        out->header_minor = d->header_minor;
        out->entries_total = lib->entry_count;
        out->entries_resolved = out->status == CUSHIM_LIB_LOADED ? in->entries_resolved : 0;
        s->composed = lib->attempted;
        s->from_status = in->status;
        s->from_result = lib->init_result;
    }
    pthread_mutex_unlock(&lib->lock);
    return &s->info;
}

CUresult cushim__dso_load(const cushim__dso *d) {
    cushim__library *lib = d->lib;
    if (atomic_load_explicit(&lib->loaded, memory_order_acquire)) return CUDA_SUCCESS;
    pthread_mutex_lock(&lib->lock);
    if (!lib->attempted && !lib->loading) prepare_candidates(d);
    pthread_mutex_unlock(&lib->lock);
    /* The library's own answer decides: the composed status is only its public form. */
    if (cushim__library_load(lib) == CUDA_SUCCESS) return CUDA_SUCCESS;
    CUresult r = compose(d)->result;
    if (r == CUDA_SUCCESS) r = CUDA_ERROR_NOT_INITIALIZED; /* a forked child's reset */
    cushim__set_error("%s", cushim__dso_why(d));
    return r;
}

int cushim__dso_absent(const cushim__dso *d, unsigned index) {
    const char *name = d->lib->entries[index].name;
    if (!atomic_flag_test_and_set(&d->state->said)) {
        cushim__log(CUSHIM_LOG_WARN, "%s: %s not loaded: %s", name, d->title, cushim__dso_why(d));
    }
    cushim__set_error("%s: %s not loaded: %s", name, d->title, cushim__dso_why(d));
    return d->failure;
}

int cushim__dso_missing(const cushim__dso *d, unsigned index) {
    const cushim__library *lib = d->lib;
    cushim__set_error("%s is not available: %s (%s %d.%d) does not export %s",
                      lib->entries[index].name, lib->loaded_path, d->title,
                      d->state->info.version_major, d->state->info.version_minor,
                      lib->entries[index].symbol);
    return d->failure;
}

void cushim__dso_reset(const cushim__dso *d) {
    pthread_mutex_lock(&d->lib->lock);
    cushim__library_forget(d->lib);
    d->state->composed = false;
    atomic_flag_clear(&d->state->said);
    pthread_mutex_unlock(&d->lib->lock);
}

CUSHIM_API const cushim_lib_info *cushim_lib_state(cushim_lib which) {
    static const cushim_lib_info unknown = {
        .status = CUSHIM_LIB_NOT_FOUND,
        .result = CUDA_ERROR_INVALID_VALUE,
        .name = "unknown",
        .env = "",
        .message = "cushim_lib_state: not a library cushim loads (use CUSHIM_LIB_NVRTC or "
                   "CUSHIM_LIB_NVJITLINK)",
    };
    const cushim__dso *d = cushim__dso_find(which);
    if (d == NULL) {
        cushim__set_error("%s", unknown.message);
        return &unknown;
    }
    cushim__dso_load(d);
    return compose(d);
}
