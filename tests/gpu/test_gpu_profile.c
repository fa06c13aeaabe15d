/* The mock's device profiles against the GPUs of this machine (issue 31, item 3). Every
 * multi-device test of the unit suite runs on the mock's two-device profile (h200x2): where it
 * and a real device or pair disagree, those tests prove less than they seem to.
 *
 * On a GPU (suite gpu): the mock (MOCK_PATH) is opened beside the driver (RTLD_LOCAL: the two
 * share no symbol) and given, for each GPU, one device of the profile that models it (two of
 * device 0's where the machine has one GPU: the two-device profile). Both are asked:
 *  - for device 0, then each later device where there is one: every attribute of cuda.h's
 *    CUdevice_attribute, and the answers for the pair of the device with itself. THE RULE
 *    (profile_rule.h): what the chip fixes must be equal (the mock claims to model it: limits,
 *    SM count, caches, compute capability, features); what the machine decides may differ (the
 *    list `machine` there, each with why) and is only printed. The attributes cushim caches per
 *    device (src/api/limits.c) are among those that must be equal, marked "cached" in the table;
 *  - for each pair of devices: cuDeviceCanAccessPeer and every CUdevice_P2PAttribute, equal but
 *    for the performance rank (an order among the links of one machine, which the mock's board
 *    of identical links does not model).
 * On the mock (suite unit, CUSHIM_MOCK_DEVICES=h200x2) the driver is the mock itself and
 * comparing would be trivially true: what runs there, and on a GPU too, is the consistency of
 * what the devices answer: peer answers symmetric and agreeing with ACCESS_SUPPORTED, each
 * device's contexts (cushim's and the primary) current on that device, peer access between two
 * devices' contexts enabled exactly where cuDeviceCanAccessPeer says. A part that needs a
 * second device skips, saying so. */
#include <dlfcn.h>

#include "gpu_util.h"

#include "cushim_mock.h"
#include "device_attrs.h"
#include "profile_rule.h"

#define MAX_COMPARED 8

static const cushim_driver_table *gpu; /* the driver cushim loaded */
static cushim_driver_table mock;       /* on a GPU: the entries of the mock used here */
static bool on_mock;                   /* the driver is the mock itself */
static int ndev;
static char profile[MAX_COMPARED][16]; /* the profile that models each compared device */

static const CUdevice_P2PAttribute p2p[] = {
    CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK,
    CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED,
    CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED,
};
#define NP2P (sizeof p2p / sizeof p2p[0])

/* What a driver answers for the pair (a, b): cuDeviceCanAccessPeer, then each of p2p; the
 * result codes and the values (-1 where the call failed). */
typedef struct pair_answer {
    CUresult r[1 + NP2P];
    int v[1 + NP2P];
} pair_answer;

static pair_answer ask_pair(const cushim_driver_table *d, int a, int b) {
    pair_answer p;
    p.v[0] = -1;
    p.r[0] = d->cuDeviceCanAccessPeer(&p.v[0], a, b);
    for (size_t i = 0; i < NP2P; i++) {
        p.v[1 + i] = -1;
        p.r[1 + i] = d->cuDeviceGetP2PAttribute(&p.v[1 + i], p2p[i], a, b);
        if (p.r[1 + i] != CUDA_SUCCESS) p.v[1 + i] = -1;
    }
    if (p.r[0] != CUDA_SUCCESS) p.v[0] = -1;
    return p;
}

static const char *pair_field(size_t i) {
    static const char *const names[] = {"cuDeviceCanAccessPeer",
                                        "PERFORMANCE_RANK",
                                        "ACCESS_SUPPORTED",
                                        "NATIVE_ATOMIC_SUPPORTED",
                                        "CUDA_ARRAY_ACCESS_SUPPORTED",
                                        "ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED"};
    return names[i];
}

/* Prints where two answers for a pair differ; how many of those must not (all but the
 * performance rank, field 1, when rank_may_differ). */
static int compare_pairs(const char *what, const char *a_name, const pair_answer *a,
                         const char *b_name, const pair_answer *b, bool rank_may_differ) {
    int bad = 0;
    for (size_t i = 0; i < 1 + NP2P; i++) {
        if (a->r[i] == b->r[i] && a->v[i] == b->v[i]) continue;
        bool may = rank_may_differ && i == 1;
        printf("# %s %-36s %s %s %d, %s %s %d%s\n", what, pair_field(i), a_name,
               cushim_error_name(a->r[i]), a->v[i], b_name, cushim_error_name(b->r[i]), b->v[i],
               may ? "  (may differ: an order among one machine's links)" : "  MUST BE EQUAL");
        if (!may) bad++;
    }
    return bad;
}

/* Resolves the mock's entries used here through its own cuGetProcAddress, as cushim's loader
 * resolves a driver's. */
static bool open_reference(const char *spec) {
    cushim_mock_api api;
    if (!cushim_mock_open(&api, MOCK_PATH) || !api.set_devices(spec)) return false;
    void *h = dlopen(MOCK_PATH, RTLD_NOW | RTLD_LOCAL);
    void *sym = h != NULL ? dlsym(h, "cuGetProcAddress_v2") : NULL;
    if (sym == NULL) return false;
    __typeof__(cuGetProcAddress) *get_proc;
    memcpy(&get_proc, &sym, sizeof get_proc);
    struct {
        const char *name;
        void **slot;
    } want[] = {
        {"cuInit", (void **)&mock.cuInit},
        {"cuDeviceGetName", (void **)&mock.cuDeviceGetName},
        {"cuDeviceTotalMem", (void **)&mock.cuDeviceTotalMem},
        {"cuDeviceGetAttribute", (void **)&mock.cuDeviceGetAttribute},
        {"cuDeviceCanAccessPeer", (void **)&mock.cuDeviceCanAccessPeer},
        {"cuDeviceGetP2PAttribute", (void **)&mock.cuDeviceGetP2PAttribute},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        CUdriverProcAddressQueryResult found;
        if (get_proc(want[i].name, want[i].slot, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,
                     &found) != CUDA_SUCCESS ||
            *want[i].slot == NULL) {
            return false;
        }
    }
    return mock.cuInit(0) == CUDA_SUCCESS;
}

/* Whether the library cushim loaded is a cushim mock. */
static bool driver_is_mock(void) {
    const char *path = cushim_driver_state()->path;
    void *h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    bool mock_api = h != NULL && dlsym(h, "cushim_mock_get_api") != NULL;
    if (h != NULL) dlclose(h);
    return mock_api;
}

static int setup(void **state) {
    (void)state;
    gpu_require();
    gpu = cushim_driver();
    if (gpu->cuDeviceGetCount(&ndev) != CUDA_SUCCESS) return -1;
    on_mock = driver_is_mock();
    printf("# the driver: %s (%s), %d device%s\n", cushim_driver_state()->path,
           on_mock ? "the mock: its profile is not compared with itself" : "compared with the mock",
           ndev, ndev == 1 ? "" : "s");
    if (on_mock) return 0;
    /* One device of the mock per GPU compared, each of the profile that models that GPU (device
     * 0's where none does, which that device's test then says); two where there is one GPU. */
    char spec[MAX_COMPARED * 8] = "";
    int n = ndev < 2 ? 2 : ndev < MAX_COMPARED ? ndev : MAX_COMPARED;
    for (int d = 0; d < n; d++) {
        char name[256] = "";
        if (d < ndev && gpu->cuDeviceGetName(name, (int)sizeof name, d) != CUDA_SUCCESS) return -1;
        const char *p = d < ndev ? profile_of(name) : profile[0];
        if (d == 0 && p == NULL) {
            fprintf(stderr,
                    "skip: device 0 is \"%s\", which no profile of the mock models (h200, "
                    "ada)\n",
                    name);
            exit(GPU_SKIP);
        }
        snprintf(profile[d], sizeof profile[d], "%s", p != NULL ? p : "");
        snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%s%s", d ? "," : "",
                 p != NULL ? p : profile[0]);
    }
    printf("# the mock's devices: %s\n", spec);
    if (!open_reference(spec)) {
        fprintf(stderr, "the mock at %s could not be opened beside the driver\n", MOCK_PATH);
        return -1;
    }
    return 0;
}

/* Device d against device d of the mock: every attribute of cuda.h, the name's model, the
 * memory, the pair with itself. Prints every difference; returns how many must not be. */
static int compare_device(int d) {
    char name[256] = "", mock_name[256] = "";
    assert_ok(gpu->cuDeviceGetName(name, (int)sizeof name, d));
    assert_ok(mock.cuDeviceGetName(mock_name, (int)sizeof mock_name, d));
    if (profile[d][0] == '\0') {
        printf("# device %d is \"%s\", which no profile of the mock models: not compared\n", d,
               name);
        return 0;
    }
    printf("# device %d: \"%s\" against the mock's \"%s\" (profile %s)\n", d, name, mock_name,
           profile[d]);
    size_t gpu_mem = 0, mock_mem = 0;
    assert_ok(gpu->cuDeviceTotalMem(&gpu_mem, d));
    assert_ok(mock.cuDeviceTotalMem(&mock_mem, d));
    printf("# device %d total memory: gpu %zu, mock %zu bytes (may differ: the SKU, and what the "
           "driver keeps back)\n",
           d, gpu_mem, mock_mem);
    device_attr attrs[512];
    int n = header_device_attributes(attrs, 512);
    assert_true(n > 140);
    int must = 0, may = 0, unknown = 0;
    for (int i = 0; i < n; i++) {
        CUdevice_attribute a = (CUdevice_attribute)attrs[i].value;
        int g = 0, m = 0;
        CUresult gr = gpu->cuDeviceGetAttribute(&g, a, d);
        CUresult mr = mock.cuDeviceGetAttribute(&m, a, d);
        if (mr != CUDA_SUCCESS) {
            printf("# device %d %-48s the mock does not answer (%s)  MUST ANSWER\n", d,
                   attrs[i].name, cushim_error_name(mr));
            must++;
            continue;
        }
        if (gr != CUDA_SUCCESS) {
            /* A driver older than the toolkit's cuda.h: not the profile's business. */
            printf("# device %d %-48s the driver does not answer (%s)\n", d, attrs[i].name,
                   cushim_error_name(gr));
            unknown++;
            continue;
        }
        if (g == m) continue;
        const char *why = machine_reason(a);
        printf("# device %d %-48s gpu %11d  mock %11d  %s%s%s\n", d, attrs[i].name, g, m,
               is_cached(a) ? "(cached by cushim) " : "",
               why != NULL ? "may differ: " : "MUST BE EQUAL", why != NULL ? why : "");
        if (why != NULL) {
            may++;
        } else {
            must++;
        }
    }
    /* A device and itself: no peer, no link to ask about. */
    pair_answer gs = ask_pair(gpu, d, d), ms = ask_pair(&mock, d, d);
    char what[32];
    snprintf(what, sizeof what, "pair (%d, %d)", d, d);
    must += compare_pairs(what, "gpu", &gs, "mock", &ms, false);
    printf("# device %d: %d attributes compared; %d differ as the machine may, %d the driver does "
           "not know, %d differ where they must not\n",
           d, n, may, unknown, must);
    return must;
}

/* Device d's contexts: cushim's and the primary, each current on device d. */
static void check_contexts(int d) {
    CUdevice dev = -1, current = -1;
    assert_ok(gpu->cuDeviceGet(&dev, d));
    cushim_context *c = NULL;
    assert_ok(cushim_context_create(&c, d, 0));
    assert_int_equal(cushim_context_device(c), dev);
    assert_ok(gpu->cuCtxSetCurrent(cushim_context_raw(c)));
    assert_ok(gpu->cuCtxGetDevice(&current));
    assert_int_equal(current, dev);
    CUcontext primary = NULL;
    assert_ok(gpu->cuDevicePrimaryCtxRetain(&primary, dev));
    assert_ok(gpu->cuCtxSetCurrent(primary));
    current = -1;
    assert_ok(gpu->cuCtxGetDevice(&current));
    assert_int_equal(current, dev);
    assert_ok(gpu->cuCtxSetCurrent(NULL));
    assert_ok(gpu->cuDevicePrimaryCtxRelease(dev));
    cushim_context_release(c);
    printf("# device %d: a created context and the primary context, each current on device %d\n", d,
           d);
}

/* Skips the test, saying why, unless the driver sees device d. */
static bool need_device(int d) {
    if (d < ndev) return true;
    printf("# skip: device %d: the driver sees %d device%s; this part needs a second GPU "
           "(nvidia-h200-x2)\n",
           d, ndev, ndev == 1 ? "" : "s");
    return false;
}

/* Devices first to last - 1: each against its profile (on a GPU) and its contexts. */
static void check_devices(int first, int last) {
    int bad = 0;
    for (int d = first; d < last; d++) {
        int must = on_mock ? 0 : compare_device(d);
        check_contexts(d);
        if (must != 0) {
            printf("# device %d differs from the mock's %s profile in %d answers that must be "
                   "equal (the lines MUST BE EQUAL above)\n",
                   d, profile[d], must);
            bad++;
        }
    }
    if (bad != 0) fail_msg("devices that differ from their profiles where they must not: %d", bad);
}

static void test_device_0_is_its_profile(void **state) {
    (void)state;
    check_devices(0, 1);
}

/* Device 1 and every later one (up to MAX_COMPARED). */
static void test_devices_after_0_are_their_profiles(void **state) {
    (void)state;
    if (!need_device(1)) skip();
    check_devices(1, ndev < MAX_COMPARED ? ndev : MAX_COMPARED);
}

/* Peer access from a's context to b's: enabled exactly where cuDeviceCanAccessPeer says. */
static void check_peer_access(int a, int b, int can) {
    cushim_context *ca = NULL, *cb = NULL;
    assert_ok(cushim_context_create(&ca, a, 0));
    assert_ok(cushim_context_create(&cb, b, 0));
    assert_ok(gpu->cuCtxSetCurrent(cushim_context_raw(ca)));
    CUresult r = gpu->cuCtxEnablePeerAccess(cushim_context_raw(cb), 0);
    assert_cu(can ? CUDA_SUCCESS : CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, r);
    if (r == CUDA_SUCCESS) {
        assert_cu(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                  gpu->cuCtxEnablePeerAccess(cushim_context_raw(cb), 0));
        assert_ok(gpu->cuCtxDisablePeerAccess(cushim_context_raw(cb)));
    }
    assert_ok(gpu->cuCtxSetCurrent(NULL));
    cushim_context_release(cb);
    cushim_context_release(ca);
}

static void test_pairs_are_their_profile(void **state) {
    (void)state;
    if (!need_device(1)) skip();
    int n = ndev < MAX_COMPARED ? ndev : MAX_COMPARED, must = 0;
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            pair_answer ab = ask_pair(gpu, a, b), ba = ask_pair(gpu, b, a);
            char what[32];
            snprintf(what, sizeof what, "pair (%d, %d)", a, b);
            /* The same link both ways, and access as its attribute says. */
            must += compare_pairs(what, "a->b", &ab, "b->a", &ba, false);
            assert_ok(ab.r[0]);
            assert_ok(ab.r[2]);
            assert_int_equal(ab.v[0], ab.v[2]);
            if (!on_mock) {
                pair_answer mab = ask_pair(&mock, a, b);
                must += compare_pairs(what, "gpu", &ab, "mock", &mab, true);
            }
            printf("# pair (%d, %d): peer access %s, native atomics %d, arrays %d, rank %d\n", a, b,
                   ab.v[0] ? "yes" : "no", ab.v[3], ab.v[4], ab.v[1]);
            check_peer_access(a, b, ab.v[0]);
            check_peer_access(b, a, ba.v[0]);
        }
    }
    if (must != 0) {
        fail_msg("%d peer answers differ where they must not (the lines MUST BE EQUAL above)",
                 must);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* the table's lines before cmocka's verdict */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_0_is_its_profile),
        cmocka_unit_test(test_devices_after_0_are_their_profiles),
        cmocka_unit_test(test_pairs_are_their_profile),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
