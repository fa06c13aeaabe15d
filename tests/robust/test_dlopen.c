/* libcushim.so loaded with dlopen, as Python's ctypes or a plugin host would: it must load
 * (no initial-exec thread-local data, which needs room a busy process may not have), work, and
 * unload cleanly with objects made and freed on this thread before.
 *   test_dlopen LIBCUSHIM_SO   (CUSHIM_DRIVER names the mock) */
#include <dlfcn.h>
#include <stdio.h>

#include "cushim.h"

#define NEED(name)                                                                                 \
    __typeof__(&name) p_##name;                                                                    \
    *(void **)&p_##name = dlsym(h, #name);                                                         \
    if (p_##name == NULL) {                                                                        \
        fprintf(stderr, "FAIL: %s not exported: %s\n", #name, dlerror());                          \
        return 1;                                                                                  \
    }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_dlopen LIBCUSHIM_SO\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    NEED(cushim_init);
    NEED(cushim_last_error);
    NEED(cushim_context_create);
    NEED(cushim_context_release);
    NEED(cushim_event_create);
    NEED(cushim_event_release);
    NEED(cushim_stream_create);
    NEED(cushim_stream_release);
    if (p_cushim_init() != CUDA_SUCCESS) {
        fprintf(stderr, "FAIL: cushim_init: %s\n", p_cushim_last_error());
        return 1;
    }
    cushim_context *ctx = NULL;
    if (p_cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) {
        fprintf(stderr, "FAIL: cushim_context_create: %s\n", p_cushim_last_error());
        return 1;
    }
    /* Enough creates and releases to fill this thread's block cache. */
    for (int i = 0; i < 100; i++) {
        cushim_event *e = NULL;
        cushim_stream *s = NULL;
        if (p_cushim_event_create(&e, ctx, 0) != CUDA_SUCCESS ||
            p_cushim_stream_create(&s, ctx, 0, 0) != CUDA_SUCCESS) {
            fprintf(stderr, "FAIL: create %d: %s\n", i, p_cushim_last_error());
            return 1;
        }
        p_cushim_stream_release(s);
        p_cushim_event_release(e);
    }
    p_cushim_context_release(ctx);
    if (dlclose(h) != 0) {
        fprintf(stderr, "FAIL: dlclose: %s\n", dlerror());
        return 1;
    }
    printf("PASS: loaded with dlopen, 100 events and streams made and freed, unloaded\n");
    return 0;
}
