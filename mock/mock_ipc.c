/* Memory and events shared between processes (cuIpc*). Device memory of the mock is host
 * memory, so an exported allocation moves into a memory file at its own address: its pages are
 * copied into a memfd, which is then mapped over them (cuMemAlloc gives every allocation pages of
 * its own for this). The handle names the exporting process, the file's descriptor there and its
 * inode; another process opens the file through /proc/<pid>/fd, checks the inode, and maps it, so
 * that both see one allocation. The exporter must stay alive and keep the allocation, as on the
 * driver. An event handle is checked the same way, but the mock does not carry an event's
 * completion between processes: an opened event is always complete. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock.h"

#define PAGE ((size_t)4096)

/* What a handle holds, in its 64 bytes. */
typedef struct ipc_wire {
    char magic[8]; /* "cushimM\0" for memory, "cushimE\0" for an event */
    int32_t pid;   /* the exporting process */
    int32_t fd;    /* memory: the file's descriptor in that process */
    uint64_t ino;  /* memory: the file's inode; event: the event's id */
    uint64_t size; /* memory: the allocation's size */
    uint64_t token;
} ipc_wire;
_Static_assert(sizeof(ipc_wire) <= sizeof(CUipcMemHandle), "an IPC handle holds the wire form");
_Static_assert(sizeof(ipc_wire) <= sizeof(CUipcEventHandle), "an IPC handle holds the wire form");

static const char mem_magic[8] = "cushimM", event_magic[8] = "cushimE";

/* An allocation of this process exported, or one of another process opened here. */
typedef struct ipc_entry {
    uintptr_t base;
    size_t span; /* pages mapped */
    int fd;      /* exported: the memory file; opened: -1 */
    uint64_t ino;
    int32_t pid; /* opened: the exporter */
    int refs;    /* opened: cuIpcOpenMemHandle calls not yet closed */
    bool opened;
} ipc_entry;

static ipc_entry *entries;
static size_t nentries, capentries;
static uint64_t next_token = 1;

static size_t pages(size_t n) { return (n + PAGE - 1) / PAGE * PAGE; }

static ipc_entry *find(uintptr_t base, bool opened) {
    for (size_t i = 0; i < nentries; i++) {
        if (entries[i].base == base && entries[i].opened == opened) return &entries[i];
    }
    return NULL;
}

static void drop(ipc_entry *e) { *e = entries[--nentries]; }

/* Moves the pages of r into a memory file mapped where they were; the entry, or NULL with *r
 * unchanged when the system refuses (no memfd, no memory). */
static ipc_entry *share(mock_range *r) {
    if (r->base % PAGE != 0) return NULL; /* cuMemAlloc's allocations start on a page */
    size_t span = pages(r->size);
    if (!mock__grow(&entries, &capentries, nentries + 1, sizeof *entries)) return NULL;
    int fd = memfd_create("cushim-mock-ipc", MFD_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (ftruncate(fd, (off_t)span) != 0 || fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    /* Copied through a second mapping, not write(): device memory the program never wrote is
     * uninitialised, and a copy of it is no bug (valgrind reports it in a system call). */
    void *copy = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (copy == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    mock__wait_kernels(); /* none may write the old pages while they are replaced */
    memcpy(copy, (void *)r->base, span);
    munmap(copy, span);
    if (mmap((void *)r->base, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        close(fd);
        return NULL;
    }
    ipc_entry *e = &entries[nentries++];
    *e = (ipc_entry){.base = r->base, .span = span, .fd = fd, .ino = (uint64_t)st.st_ino};
    return e;
}

void mock__ipc_forget(mock_range *r) {
    ipc_entry *e = find(r->base, r->kind == MOCK_MEM_IPC);
    if (e == NULL) return;
    if (!e->opened) {
        /* Back to private pages before the allocator takes them again; the file goes. */
        mock__wait_kernels();
        mmap((void *)e->base, e->span, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        close(e->fd);
    }
    drop(e);
}

void mock__ipc_reset(void) {
    for (size_t i = 0; i < nentries; i++) {
        if (!entries[i].opened) close(entries[i].fd);
    }
    free(entries);
    entries = NULL;
    nentries = capentries = 0;
}

CUresult CUDAAPI mock_cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
    MOCK_ENTER(cuIpcGetMemHandle);
    if (h == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult rc = mock__need_current("cuIpcGetMemHandle", &c);
    if (rc != CUDA_SUCCESS) return mock__leave(rc);
    mock_range *r = mock__range_at((uintptr_t)p, false);
    if (r == NULL || r->kind != MOCK_MEM_DEVICE) {
        mock__why("0x%llx is not memory of cuMemAlloc (only that can be exported)",
                  (unsigned long long)p);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    ipc_entry *e = find(r->base, false);
    if (e == NULL) e = share(r);
    if (e == NULL) {
        mock__why("the allocation at 0x%llx could not be moved into shared memory: %s",
                  (unsigned long long)r->base, strerror(errno));
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    ipc_wire w = {.pid = (int32_t)getpid(), .fd = e->fd, .ino = e->ino, .size = r->size};
    memcpy(w.magic, mem_magic, sizeof w.magic);
    w.token = next_token++;
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &w, sizeof w);
    return mock__leave(CUDA_SUCCESS);
}

/* The wire form of a handle, checked: one the mock made, in another process. */
static CUresult read_wire(const char *bytes, const char magic[8], ipc_wire *w) {
    memcpy(w, bytes, sizeof *w);
    if (memcmp(w->magic, magic, sizeof w->magic) != 0) {
        mock__why("the handle was not made by the mock's cuIpcGet%sHandle",
                  magic == mem_magic ? "Mem" : "Event");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (w->pid == (int32_t)getpid()) {
        mock__why("the handle was made by this process: the driver opens handles of other "
                  "processes only");
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return CUDA_SUCCESS;
}

/* Opens the exporter's memory file and checks that it is the one the handle names. */
static int open_exported(const ipc_wire *w, CUresult *rc) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_ino != w->ino ||
        (uint64_t)st.st_size < w->size) {
        mock__why("the memory of the handle is gone: process %d has exited or freed it (%s)",
                  (int)w->pid, fd < 0 ? strerror(errno) : "another file is in its place");
        if (fd >= 0) close(fd);
        *rc = CUDA_ERROR_INVALID_HANDLE;
        return -1;
    }
    return fd;
}

CUresult CUDAAPI mock_cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle h,
                                            unsigned int flags) {
    MOCK_ENTER(cuIpcOpenMemHandle_v2);
    if (pdptr == NULL || (flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUctx_st *c;
    CUresult rc = mock__need_current("cuIpcOpenMemHandle", &c);
    if (rc != CUDA_SUCCESS) return mock__leave(rc);
    ipc_wire w;
    rc = read_wire(h.reserved, mem_magic, &w);
    if (rc != CUDA_SUCCESS) return mock__leave(rc);
    /* Opened already: the same pointer, one more reference. */
    for (size_t i = 0; i < nentries; i++) {
        if (entries[i].opened && entries[i].pid == w.pid && entries[i].ino == w.ino) {
            entries[i].refs++;
            *pdptr = (CUdeviceptr)entries[i].base;
            return mock__leave(CUDA_SUCCESS);
        }
    }
    int fd = open_exported(&w, &rc);
    if (fd < 0) return mock__leave(rc);
    size_t span = pages((size_t)w.size);
    void *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED || !mock__grow(&entries, &capentries, nentries + 1, sizeof *entries)) {
        if (m != MAP_FAILED) munmap(m, span);
        return mock__leave(CUDA_ERROR_MAP_FAILED);
    }
    mock_range rg = {.base = (uintptr_t)m,
                     .size = (size_t)w.size,
                     .kind = MOCK_MEM_IPC,
                     .ctx = c,
                     .device = c->device,
                     .storage = m,
                     .made_by = mock__entry_name()};
    rc = mock__add_range(&rg);
    if (rc != CUDA_SUCCESS) {
        munmap(m, span);
        return mock__leave(rc);
    }
    entries[nentries++] = (ipc_entry){.base = (uintptr_t)m,
                                      .span = span,
                                      .fd = -1,
                                      .ino = w.ino,
                                      .pid = w.pid,
                                      .refs = 1,
                                      .opened = true};
    *pdptr = (CUdeviceptr)(uintptr_t)m;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuIpcCloseMemHandle(CUdeviceptr p) {
    MOCK_ENTER(cuIpcCloseMemHandle);
    ipc_entry *e = find((uintptr_t)p, true);
    if (e == NULL) {
        mock__why("0x%llx is not a pointer cuIpcOpenMemHandle returned (or it was closed)",
                  (unsigned long long)p);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (--e->refs > 0) return mock__leave(CUDA_SUCCESS);
    mock__ctx_sync(mock__range_at((uintptr_t)p, false)->ctx); /* work queued on it finishes */
    mock__drop_range(mock__range_at((uintptr_t)p, false), mock__entry_name()); /* drops e */
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuIpcGetEventHandle(CUipcEventHandle *h, CUevent he) {
    MOCK_ENTER(cuIpcGetEventHandle);
    if (h == NULL || he == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUevent_st *e;
    MOCK_EXPECT(e, he, CUSHIM_MOCK_EVENT, "cuIpcGetEventHandle");
    if (!(e->flags & CU_EVENT_INTERPROCESS)) {
        mock__why("the event was not created with CU_EVENT_INTERPROCESS");
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    ipc_wire w = {.pid = (int32_t)getpid(), .fd = -1, .ino = (uint64_t)(uintptr_t)he};
    memcpy(w.magic, event_magic, sizeof w.magic);
    w.token = next_token++;
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &w, sizeof w);
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuIpcOpenEventHandle(CUevent *ph, CUipcEventHandle h) {
    MOCK_ENTER(cuIpcOpenEventHandle);
    if (ph == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUctx_st *c;
    CUresult rc = mock__need_current("cuIpcOpenEventHandle", &c);
    if (rc != CUDA_SUCCESS) return mock__leave(rc);
    ipc_wire w;
    rc = read_wire(h.reserved, event_magic, &w);
    if (rc != CUDA_SUCCESS) return mock__leave(rc);
    if (kill(w.pid, 0) != 0 && errno == ESRCH) {
        mock__why("the process %d that made the event handle has exited", (int)w.pid);
        return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    }
    struct CUevent_st *e = mock__new(sizeof *e, CUSHIM_MOCK_EVENT, c);
    if (e == NULL) return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    e->flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    mock__state.live[CUSHIM_MOCK_EVENT]++;
    *ph = e;
    return mock__leave(CUDA_SUCCESS);
}
