/* Finding and opening NVRTC and nvJitLink, filling their tables by dlsym, and their status. The
 * same code for each: what differs is in its generated cushim__dso. */
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/candidate.h"
#include "loader/diag.h"
#include "loader/dso.h"

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

/* Appends to the status message; cut, never overrun, when long. */
static void note(cushim__dso_state *s, const char *fmt, ...) CUSHIM__PRINTF(2, 3);
static void note(cushim__dso_state *s, const char *fmt, ...) {
    size_t used = strlen(s->message);
    if (used + 1 >= sizeof s->message) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message + used, sizeof s->message - used, fmt, ap);
    va_end(ap);
}

static void set_status(cushim__dso_state *s, cushim_lib_status status, CUresult r) {
    s->info.status = status;
    s->info.result = r;
}

static void resolve(const cushim__dso *d, void *h) {
    unsigned n = 0;
    for (unsigned i = 0; i < d->count; i++) {
        const cushim__dso_entry *e = &d->entries[i];
        void *fn = dlsym(h, e->symbol);
        if (fn == NULL) {
            memcpy(&fn, (const char *)d->missing + e->offset, sizeof fn);
        } else {
            n++;
        }
        /* Relaxed atomic stores: a trampoline on another thread may read the slot meanwhile. */
        __atomic_store_n((void **)((char *)d->live + e->offset), fn, __ATOMIC_RELAXED);
    }
    d->state->info.entries_resolved = n;
}

/* Opens one candidate. True when it is the library at the headers' major version, which ends
 * the search; false, with the reason noted, to go on. */
static bool try_candidate(const cushim__dso *d, const char *path, bool *refused) {
    cushim__dso_state *s = d->state;
    char why[512];
    if (strchr(path, '/') != NULL && !cushim__safe_to_open(path, why, sizeof why)) {
        note(s, "%s", why);
        return false;
    }
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *err = dlerror();
        note(s, "%s (%s); ", path, err ? err : "dlopen failed");
        return false;
    }
    void *version = dlsym(h, d->version_symbol);
    int major = 0, minor = 0;
    if (version == NULL || d->read_version(version, &major, &minor) != 0) {
        note(s, "%s (opened, but %s: not %s); ", path,
             version ? "its version cannot be read" : "it exports no version function", d->title);
        dlclose(h);
        return false;
    }
    if (major != d->header_major) {
        note(s,
             "%s (%s %d.%d, refused: cushim was built with the headers of %d.%d, and the "
             "ABI changes with the major version); ",
             path, d->title, major, minor, d->header_major, d->header_minor);
        *refused = true;
        dlclose(h);
        return false;
    }
    /* Never closed from here on: programs and linkers may outlive any shutdown hook. */
    struct link_map *lm = NULL;
    const char *where = path;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
        where = lm->l_name;
    }
    snprintf(s->path, sizeof s->path, "%s", where);
    s->info.path = s->path;
    s->info.version_major = major;
    s->info.version_minor = minor;
    resolve(d, h);
    s->message[0] = '\0';
    note(s, "loaded %s (%s %d.%d, headers %d.%d), %u of %u entries resolved", s->path, d->title,
         major, minor, d->header_major, d->header_minor, s->info.entries_resolved, d->count);
    set_status(s, CUSHIM_LIB_LOADED, CUDA_SUCCESS);
    return true;
}

/* One candidate path under a folder named by an environment variable; skipped when unset. */
static bool try_under(const cushim__dso *d, const char *dir, const char *sub, bool *refused) {
    if (dir == NULL || dir[0] == '\0') return false;
    char path[4096];
    snprintf(path, sizeof path, "%s%s/%s.%d", dir, sub, d->file, d->header_major);
    return try_candidate(d, path, refused);
}

static void load(const cushim__dso *d) {
    cushim__dso_state *s = d->state;
    cushim_lib_info *in = &s->info;
    memset(in, 0, sizeof *in);
    in->name = d->title;
    in->env = d->env;
    in->message = s->message;
    in->header_major = d->header_major;
    in->header_minor = d->header_minor;
    in->entries_total = d->count;
    s->message[0] = '\0';
    set_status(s, CUSHIM_LIB_NOT_FOUND, CUDA_ERROR_FILE_NOT_FOUND);

    bool found = false, refused = false;
    const char *env = secure_getenv(d->env);
    if (env != NULL) {
        /* When set, it is the only candidate: a silent fallback would hide a typo. */
        if (env[0] == '\0') {
            note(s,
                 "%s is set but empty: give the absolute path of %s, or unset it to search "
                 "the usual places.",
                 d->env, d->title);
        } else if (env[0] != '/') {
            note(s,
                 "%s=%s is not an absolute path, so it is refused (a relative path would "
                 "depend on the working directory); no other library was tried.",
                 d->env, env);
        } else {
            note(s, "%s not loaded; tried %s: ", d->title, d->env);
            found = try_candidate(d, env, &refused);
            if (!found) note(s, "no other library was tried since %s is set.", d->env);
        }
    } else {
        note(s, "%s not found; tried: ", d->title);
        char soname[256];
        snprintf(soname, sizeof soname, "%s.%d", d->file, d->header_major);
        found = try_candidate(d, soname, &refused) || try_candidate(d, d->file, &refused) ||
                try_under(d, CUSHIM_TOOLKIT_LIBDIR, "", &refused) ||
                try_under(d, secure_getenv("CUDA_HOME"), "/lib64", &refused) ||
                try_under(d, secure_getenv("CUDA_PATH"), "/lib64", &refused) ||
                try_under(d, "/usr/local/cuda", "/lib64", &refused);
        if (!found) {
            note(s, "install the CUDA toolkit's %s %d, or set %s to its absolute path.", d->title,
                 d->header_major, d->env);
        }
    }
    if (!found && refused) set_status(s, CUSHIM_LIB_WRONG_VERSION, CUDA_ERROR_NOT_SUPPORTED);
    atomic_store_explicit(&s->loaded, found, memory_order_release);
}

CUresult cushim__dso_load(const cushim__dso *d) {
    cushim__dso_state *s = d->state;
    if (atomic_load_explicit(&s->loaded, memory_order_acquire)) return CUDA_SUCCESS;
    bool did_load = false;
    pthread_mutex_lock(&s->lock);
    if (!s->attempted) {
        load(d);
        s->attempted = true;
        did_load = true;
    }
    CUresult r = s->info.result;
    pthread_mutex_unlock(&s->lock);
    /* Logged outside the lock, as the driver's loader does: the log has a lock of its own. */
    if (did_load) cushim__log(CUSHIM_LOG_INFO, "%s", s->message);
    if (r != CUDA_SUCCESS) cushim__set_error("%s", s->message);
    return r;
}

int cushim__dso_absent(const cushim__dso *d, unsigned index) {
    cushim__dso_state *s = d->state;
    const char *name = d->entries[index].name;
    if (!atomic_flag_test_and_set(&s->said)) {
        cushim__log(CUSHIM_LOG_WARN, "%s: %s", name, s->message);
    }
    cushim__set_error("%s: %s", name, s->message);
    return d->failure;
}

int cushim__dso_missing(const cushim__dso *d, unsigned index) {
    cushim__dso_state *s = d->state;
    cushim__set_error("%s is not available: %s (%s %d.%d) does not export %s",
                      d->entries[index].name, s->path, d->title, s->info.version_major,
                      s->info.version_minor, d->entries[index].symbol);
    return d->failure;
}

void cushim__dso_reset(const cushim__dso *d) {
    cushim__dso_state *s = d->state;
    pthread_mutex_lock(&s->lock);
    atomic_store_explicit(&s->loaded, false, memory_order_release);
    memcpy(d->live, d->lazy, d->table_size);
    s->attempted = false;
    atomic_flag_clear(&s->said);
    memset(&s->info, 0, sizeof s->info);
    s->message[0] = '\0';
    s->path[0] = '\0';
    pthread_mutex_unlock(&s->lock);
}

CUSHIM_API const cushim_lib_info *cushim_lib_get_info(cushim_lib which) {
    static const cushim_lib_info unknown = {
        .status = CUSHIM_LIB_NOT_FOUND,
        .result = CUDA_ERROR_INVALID_VALUE,
        .name = "unknown",
        .env = "",
        .message = "cushim_lib_get_info: not a library cushim loads (use CUSHIM_LIB_NVRTC or "
                   "CUSHIM_LIB_NVJITLINK)",
    };
    const cushim__dso *d = cushim__dso_find(which);
    if (d == NULL) {
        cushim__set_error("%s", unknown.message);
        return &unknown;
    }
    cushim__dso_load(d);
    return &d->state->info;
}
