/* Where registrations are kept: the fatbins in a list, kernels and variables in one hash map
 * by address (a kernel under its host function and under its own address, its cudaKernel_t; a
 * variable under its host shadow). One lock guards both; it is never held across a driver
 * call, except that removing a fatbin unloads its modules after taking them out. */
#include <stdint.h>
#include <stdlib.h>

#include "runtime/rt_map.h"
#include "runtime/rt_registry.h"

enum { SLOT_KERNEL = 1, SLOT_VAR = 2 };

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

/* No lock of the runtime is inherited held by a forked child: the forking thread takes it
 * around fork() and both sides let it go. */
static void fork_prepare(void) { pthread_rwlock_wrlock(&lock); }
static void fork_done(void) { pthread_rwlock_unlock(&lock); }
CUSHIM__CONSTRUCTOR static void fork_handlers(void) {
    pthread_atfork(fork_prepare, fork_done, fork_done);
}
static cushim__rt_fatbin *fatbins;
static cushim__rt_map map;

void cushim__rt_registry_add_fatbin(cushim__rt_fatbin *fb) {
    fb->self = fb;
    fb->tag = CUSHIM__RT_FATBIN_TAG;
    pthread_rwlock_wrlock(&lock);
    fb->next = fatbins;
    fatbins = fb;
    pthread_rwlock_unlock(&lock);
}

cushim__rt_fatbin *cushim__rt_fatbin_of(void **handle) {
    if (handle == NULL) return NULL;
    cushim__rt_fatbin *fb = (cushim__rt_fatbin *)handle;
    return fb->tag == CUSHIM__RT_FATBIN_TAG ? fb : NULL;
}

static void left_out(const char *what, const char *name) {
    cushim__log(CUSHIM_LOG_ERROR,
                "cushim's runtime: out of memory registering %s %s; it will "
                "not be found",
                what, name);
}

void cushim__rt_registry_add_kernel(cushim__rt_kernel *k) {
    pthread_rwlock_wrlock(&lock);
    bool ok = cushim__rt_map_put(&map, k->host_fn, k, SLOT_KERNEL) &&
              cushim__rt_map_put(&map, k, k, SLOT_KERNEL);
    pthread_rwlock_unlock(&lock);
    if (!ok) left_out("kernel", k->name);
}

void cushim__rt_registry_add_var(cushim__rt_var *v) {
    pthread_rwlock_wrlock(&lock);
    bool ok = cushim__rt_map_put(&map, v->host_var, v, SLOT_VAR);
    pthread_rwlock_unlock(&lock);
    if (!ok) left_out("variable", v->name);
}

cushim__rt_kernel *cushim__rt_kernel_of(const void *p) {
    pthread_rwlock_rdlock(&lock);
    cushim__rt_map_slot *s = cushim__rt_map_find(&map, p);
    cushim__rt_kernel *k = s != NULL && s->kind == SLOT_KERNEL ? s->value : NULL;
    pthread_rwlock_unlock(&lock);
    return k;
}

cushim__rt_var *cushim__rt_var_of(const void *p) {
    pthread_rwlock_rdlock(&lock);
    cushim__rt_map_slot *s = cushim__rt_map_find(&map, p);
    cushim__rt_var *v = s != NULL && s->kind == SLOT_VAR ? s->value : NULL;
    if (v == NULL) {
        /* A managed variable is registered under its host pointer; a program names it by the
         * variable, which is where that pointer points once __cudaInitModule has run. */
        for (size_t i = 0; i < map.capacity && v == NULL; i++) {
            cushim__rt_var *m = map.slots[i].kind == SLOT_VAR ? map.slots[i].value : NULL;
            if (m != NULL && m->managed && *m->managed_ptr == p) v = m;
        }
    }
    pthread_rwlock_unlock(&lock);
    return v;
}

void cushim__rt_registry_each_var(cushim__rt_fatbin *fb, void (*fn)(cushim__rt_var *, void *),
                                  void *user) {
    pthread_rwlock_rdlock(&lock);
    for (size_t i = 0; i < map.capacity; i++) {
        cushim__rt_var *v = map.slots[i].kind == SLOT_VAR ? map.slots[i].value : NULL;
        if (v != NULL && (fb == NULL || v->fatbin == fb)) fn(v, user);
    }
    pthread_rwlock_unlock(&lock);
}

static void free_entry(cushim__rt_map_slot *s) {
    if (s->kind == SLOT_KERNEL) {
        cushim__rt_kernel *k = s->value;
        if (s->key == (const void *)k) { /* freed once, at its own address's slot */
            k->tag = 0;
            free(k->name);
            free(k);
        }
    } else {
        cushim__rt_var *v = s->value;
        free(v->name);
        free(v);
    }
    cushim__rt_map_remove(s);
}

void cushim__rt_registry_remove_fatbin(cushim__rt_fatbin *fb) {
    pthread_rwlock_wrlock(&lock);
    for (cushim__rt_fatbin **p = &fatbins; *p != NULL; p = &(*p)->next) {
        if (*p == fb) {
            *p = fb->next;
            break;
        }
    }
    /* Host addresses first, then the kernels' own, which free them. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < map.capacity; i++) {
            cushim__rt_map_slot *s = &map.slots[i];
            if (s->kind == SLOT_VAR && ((cushim__rt_var *)s->value)->fatbin == fb && pass == 1) {
                free_entry(s);
            } else if (s->kind == SLOT_KERNEL && ((cushim__rt_kernel *)s->value)->fatbin == fb &&
                       (pass == 1) == (s->key == s->value)) {
                free_entry(s);
            }
        }
    }
    fb->tag = 0;
    pthread_rwlock_unlock(&lock);
    for (int d = 0; d < CUSHIM__RT_MAX_DEVICES; d++) {
        cushim_module *m = atomic_exchange(&fb->module[d], NULL);
        if (m != NULL) cushim_module_release(m);
    }
    free(fb);
}

void cushim__rt_modules_drop(int device) {
    pthread_rwlock_wrlock(&lock);
    size_t n = 0;
    for (cushim__rt_fatbin *fb = fatbins; fb != NULL; fb = fb->next) n++;
    cushim_module **mods = calloc(n ? n : 1, sizeof *mods);
    size_t i = 0;
    for (cushim__rt_fatbin *fb = fatbins; fb != NULL; fb = fb->next, i++) {
        /* Without memory for the list the modules stay loaded (and are unloaded with their
         * fatbin); the addresses are forgotten either way. */
        if (mods != NULL) mods[i] = atomic_exchange(&fb->module[device], NULL);
    }
    for (size_t j = 0; j < map.capacity; j++) {
        if (map.slots[j].kind == SLOT_KERNEL) {
            atomic_store(&((cushim__rt_kernel *)map.slots[j].value)->fn[device], NULL);
        } else if (map.slots[j].kind == SLOT_VAR) {
            atomic_store(&((cushim__rt_var *)map.slots[j].value)->ptr[device], 0);
        }
    }
    pthread_rwlock_unlock(&lock);
    for (size_t j = 0; mods != NULL && j < n; j++) {
        if (mods[j] != NULL) cushim_module_release(mods[j]);
    }
    free(mods);
}

void cushim__rt_registry_each_fatbin(void (*fn)(cushim__rt_fatbin *, void *), void *user) {
    pthread_rwlock_rdlock(&lock);
    for (cushim__rt_fatbin *fb = fatbins; fb != NULL; fb = fb->next) fn(fb, user);
    pthread_rwlock_unlock(&lock);
}
