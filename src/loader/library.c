/* Finding, checking and opening a library that cushim loads at run time, once, with a message
 * naming every path tried. What the library is and how it starts are the instance's
 * (library.h). */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/diag.h"
#include "loader/fork.h"
#include "loader/library.h"
#include "loader/tables.h"

void cushim__library_note(cushim__library *lib, const char *fmt, ...) {
    size_t used = strlen(lib->message);
    if (used + 1 >= sizeof lib->message) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lib->message + used, sizeof lib->message - used, fmt, ap);
    va_end(ap);
}

void cushim__library_finish(cushim__library *lib, cushim_driver_status status, CUresult r) {
    lib->info.status = status;
    lib->info.result = r;
    lib->init_result = r;
}

/* dlopen cannot be trusted with every file: a FIFO or a device blocks it or feeds it forever,
 * and an ELF file cut short after its program headers is mapped and then dies of SIGBUS when a
 * segment past the end is touched. So a candidate given as a path is looked at first; false,
 * with the reason noted, refuses it. Anything else odd (text, a short file, a directory) is
 * left to dlopen, whose own words are clear. */
static bool safe_to_open(cushim__library *lib, const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return true; /* dlopen will say why, in its words */
    bool ok = true;
    struct stat st;
    Elf64_Ehdr eh;
    bool have_stat = fstat(fd, &st) == 0; /* without it dlopen fails too, and says why */
    if (have_stat && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
                      S_ISSOCK(st.st_mode))) {
        cushim__library_note(lib, "%s (not a regular file, so not a shared library); ", path);
        ok = false;
    } else if (have_stat && S_ISREG(st.st_mode) &&
               pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
               memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
               eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (unsigned i = 0; i < eh.e_phnum && ok; i++) {
            Elf64_Phdr ph;
            off_t at = (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof ph);
            if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) break; /* dlopen's to say */
            if (ph.p_type == PT_LOAD && (ph.p_offset > (Elf64_Off)st.st_size ||
                                         ph.p_filesz > (Elf64_Off)st.st_size - ph.p_offset)) {
                cushim__library_note(
                    lib, "%s (cut short: a segment ends at byte %llu of a file of %lld bytes); ",
                    path, (unsigned long long)(ph.p_offset + ph.p_filesz), (long long)st.st_size);
                ok = false;
            }
        }
    }
    close(fd);
    return ok;
}

/* A forwarding library (forward/: cushim under NVIDIA's libnvrtc.so.13) is found first by its
 * soname when it is first on LD_LIBRARY_PATH: its entries are cushim's own trampolines, so
 * taking it would call back into this loader. True when the marker lies in this object. */
static const char in_this_object;
static bool is_cushim_itself(void *marker) {
    Dl_info theirs, ours;
    return dladdr(marker, &theirs) != 0 && dladdr(&in_this_object, &ours) != 0 &&
           theirs.dli_fbase == ours.dli_fbase;
}

/* Opens one candidate. Returns true when it was the library (whatever its state), which ends
 * the search; false, with the reason noted, to go on to the next candidate. */
static bool try_candidate(cushim__library *lib, const char *path) {
    if (strchr(path, '/') != NULL && !safe_to_open(lib, path)) return false;
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *err = dlerror();
        cushim__library_note(lib, "%s (%s); ", path, err ? err : "dlopen failed");
        return false;
    }
    void *marker = dlsym(h, lib->marker);
    if (marker == NULL) {
        cushim__library_note(lib, "%s (opened, but it exports no %s: not a %s); ", path,
                             lib->marker, lib->noun);
        lib->saw_non_library = true;
        dlclose(h);
        return false;
    }
    if (is_cushim_itself(marker)) {
        cushim__library_note(lib, "%s (cushim itself, a forwarding library: skipped); ", path);
        dlclose(h);
        return false;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
        snprintf(lib->loaded_path, sizeof lib->loaded_path, "%s", lm->l_name);
    } else {
        snprintf(lib->loaded_path, sizeof lib->loaded_path, "%s", path);
    }
    lib->info.path = lib->loaded_path;
    /* The library is never closed: objects made with it may outlive any shutdown hook. */
    lib->start(lib, h, marker);
    return true;
}

/* The search: the library's variable, when set, is the only candidate (a silent fallback would
 * hide a typo); else each of its usual names in turn. */
static void search(cushim__library *lib) {
    lib->info.header_version = lib->header_version;
    lib->info.entries_total = lib->entry_count;
    lib->info.per_thread_stream = lib->per_thread_stream;
    lib->info.message = lib->message;
    /* Not found: cuda.h's sentence for CUDA_ERROR_NOT_INITIALIZED ("... initialization has
     * failed") is true of it, where CUDA_ERROR_STUB_LIBRARY's and CUDA_ERROR_NO_DEVICE's would
     * claim a library or a driver that is not there. */
    cushim__library_finish(lib, CUSHIM_DRIVER_NOT_FOUND, CUDA_ERROR_NOT_INITIALIZED);

    const char *env = secure_getenv(lib->env);
    if (env != NULL) {
        if (env[0] == '\0') {
            cushim__library_note(lib,
                                 "%s is set but empty: give the absolute path of %s, or unset it "
                                 "to search the usual places.",
                                 lib->env, lib->file_noun);
        } else if (env[0] != '/') {
            cushim__library_note(lib,
                                 "%s=%s is not an absolute path, so it is refused (a relative "
                                 "path would depend on the working directory); no other library "
                                 "was tried.",
                                 lib->env, env);
        } else {
            cushim__library_note(lib, "tried %s: ", lib->env);
            if (!try_candidate(lib, env)) {
                cushim__library_note(lib, "no other library was tried since %s is set.", lib->env);
            }
        }
    } else {
        cushim__library_note(lib, "no %s found; tried: ", lib->noun);
        bool found = false;
        for (size_t i = 0; i < lib->candidate_count && !found; i++) {
            found = try_candidate(lib, lib->candidates[i]);
        }
        if (!found) {
            cushim__library_note(lib, "%s, or set %s to its absolute path.", lib->install_hint,
                                 lib->env);
        }
    }
    if (lib->info.status == CUSHIM_DRIVER_NOT_FOUND) {
        lib->info.path = NULL;
        /* A library that opened but is not the one looked for: "a link to a shared object
         * failed to resolve" is what happened (its initialisation did not). */
        if (lib->saw_non_library) {
            cushim__library_finish(lib, CUSHIM_DRIVER_NOT_FOUND,
                                   CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
        }
    }
    atomic_store_explicit(&lib->loaded, lib->info.status == CUSHIM_DRIVER_LOADED,
                          memory_order_release);
}

/* The thread loading a library, while it does: a call back into cushim from the library's own
 * initialisation (an interposer's cuInit calling cushim_init) is answered without waiting on
 * the load it is part of. */
static _Thread_local const cushim__library *loading_here;

bool cushim__library_loading_here(const cushim__library *lib) { return loading_here == lib; }

/* Every library that has been asked to load, for the fork handlers; each added once. */
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static cushim__library *known[4];
static size_t known_count;
static bool atfork_failed;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static const char forked_while_loading[] =
    "this process was forked while another thread was initialising the %s, and a library "
    "half-initialised in the parent cannot be used in the child: use it in the child only when "
    "the parent did not, or start the child with exec";

/* Around fork(): every library's lock is taken, so that no child inherits one locked or a flag
 * half-written. Each is held only around a few stores, never across the library's code, so this
 * waits for no load. */
static void before_fork(void) {
    pthread_mutex_lock(&known_lock);
    for (size_t i = 0; i < known_count; i++) pthread_mutex_lock(&known[i]->lock);
}

static void after_fork_parent(void) {
    for (size_t i = known_count; i-- > 0;) pthread_mutex_unlock(&known[i]->lock);
    pthread_mutex_unlock(&known_lock);
}

/* In the single-threaded child, before fork() returns there. A library that was loaded, or was
 * being loaded by a thread that the child does not have, is the parent's: every slot back to
 * its stub, and every call answers CUDA_ERROR_NOT_INITIALIZED with the reason. A library that
 * the forking thread itself is loading (the library forked from inside its own initialisation)
 * is left to finish; one never loaded is free to load in the child. */
static void after_fork_child(void) {
    for (size_t i = 0; i < known_count; i++) {
        cushim__library *lib = known[i];
        bool other_loading = lib->loading && loading_here != lib;
        bool loaded = atomic_load_explicit(&lib->loaded, memory_order_relaxed);
        if (loaded || other_loading) {
            cushim__forked = true;
            cushim__reset_tables(lib);
            atomic_store_explicit(&lib->loaded, false, memory_order_relaxed);
            lib->attempted = true;
            lib->loading = false;
            lib->info.status = CUSHIM_DRIVER_INIT_FAILED;
            lib->info.result = CUDA_ERROR_NOT_INITIALIZED;
            lib->info.entries_resolved = 0;
            lib->init_result = CUDA_ERROR_NOT_INITIALIZED;
            if (loaded) {
                lib->info.message = cushim__forked_reason;
            } else {
                snprintf(lib->message, sizeof lib->message, forked_while_loading, lib->noun);
                lib->info.message = lib->message;
            }
        }
        pthread_cond_init(&lib->done, NULL); /* no thread of the parent waits here */
        pthread_mutex_unlock(&lib->lock);
    }
    pthread_mutex_unlock(&known_lock);
}

static void register_fork(void) {
    atfork_failed = pthread_atfork(before_fork, after_fork_parent, after_fork_child) != 0;
}

/* Before the library's lock is first taken: the fork handlers exist before any load. */
static void remember(cushim__library *lib) {
    pthread_once(&atfork_once, register_fork);
    pthread_mutex_lock(&known_lock);
    bool seen = false;
    for (size_t i = 0; i < known_count; i++) seen = seen || known[i] == lib;
    if (!seen && known_count < sizeof known / sizeof known[0]) known[known_count++] = lib;
    pthread_mutex_unlock(&known_lock);
}

CUresult cushim__library_load(cushim__library *lib) {
    if (loading_here == lib) {
        return cushim__fail(CUDA_ERROR_NOT_INITIALIZED,
                            "%s: initialisation is in progress on this thread: the %s being "
                            "loaded called back into cushim from its own initialisation, so it "
                            "cannot be used yet",
                            lib->init_name, lib->noun);
    }
    remember(lib);
    bool did_load = false;
    pthread_mutex_lock(&lib->lock);
    while (lib->loading) pthread_cond_wait(&lib->done, &lib->lock);
    if (!lib->attempted) {
        lib->attempted = true;
        lib->loading = true;
        pthread_mutex_unlock(&lib->lock);
        /* Without the lock: the search calls dlopen and the library's own initialisation,
         * which may call back into cushim or fork. */
        loading_here = lib;
        search(lib);
        loading_here = NULL;
        pthread_mutex_lock(&lib->lock);
        lib->loading = false;
        pthread_cond_broadcast(&lib->done);
        did_load = true;
    }
    CUresult r = lib->init_result;
    pthread_mutex_unlock(&lib->lock);
    /* Logged outside the lock: the log has a lock of its own, held across fork(), and taking it
     * under the load lock would order the two locks both ways (ThreadSanitizer saw it). */
    if (did_load) {
        cushim__log(CUSHIM_LOG_INFO, "%s", lib->message);
        if (atfork_failed) {
            cushim__log(CUSHIM_LOG_WARN,
                        "pthread_atfork failed: a forked child will not be told "
                        "that %s cannot be used there",
                        lib->the_noun);
        }
    }
    return r;
}

void cushim__library_forget(cushim__library *lib) {
    atomic_store_explicit(&lib->loaded, false, memory_order_release);
    cushim__reset_tables(lib);
    memset(&lib->info, 0, sizeof lib->info);
    lib->message[0] = '\0';
    lib->loaded_path[0] = '\0';
    lib->saw_non_library = false;
    lib->init_result = CUDA_ERROR_NOT_INITIALIZED;
    lib->attempted = false;
}
