/* The rule of test_gpu_profile.c: which device attributes of a GPU the mock's profile of it must
 * answer alike (what the chip fixes: every attribute not listed in `machine`), which may differ
 * and why (what the machine decides), which cushim caches, and which profile models a GPU. */
#ifndef CUSHIM_PROFILE_RULE_H
#define CUSHIM_PROFILE_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cuda.h>

/* What cushim reads once per device and keeps (src/api/limits.c, read_device): its launch
 * checks refuse by them before the driver, so these above all must be the GPU's. */
static const CUdevice_attribute cached[] = {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
};

/* What the machine decides rather than the chip: these may differ from the profile. */
static const char *const CLOCKS = "the board's clocks: the SKU (SXM or NVL), its power limit and "
                                  "any locked clocks set them";
static const char *const PLACE = "where the board sits in this host and on its baseboard";
static const char *const SKU = "the SKU and the board's maker (one chip, several boards)";
static const char *const ADMIN = "a setting of the machine's administrator or operating system";
static const char *const HOST = "the host: its NUMA layout, its memory system (HMM, ATS, "
                                "NVLink-C2C) and its kernel's support";
static const char *const FABRIC = "the driver's modules and the fabric (nvidia-peermem, dma-buf, "
                                  "IMEX, NVSwitch), installed per machine";
static const char *const DRIVER = "deprecated: what the driver answers has changed across its "
                                  "versions, not with the chip";
static const struct {
    CUdevice_attribute attr;
    const char *const *why;
} machine[] = {
    {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &CLOCKS},
    {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &CLOCKS},
    {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &PLACE},
    {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &PLACE},
    {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &PLACE},
    {CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, &PLACE},
    {CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, &PLACE},
    {CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, &SKU},
    {CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID, &SKU},
    {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, &ADMIN},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &ADMIN},
    {CU_DEVICE_ATTRIBUTE_MPS_ENABLED, &ADMIN},
    {CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, &ADMIN},
    {CU_DEVICE_ATTRIBUTE_TCC_DRIVER, &ADMIN},
    {CU_DEVICE_ATTRIBUTE_NUMA_CONFIG, &HOST},
    {CU_DEVICE_ATTRIBUTE_NUMA_ID, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, &HOST},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, &HOST},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, &HOST},
    {CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, &HOST},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED, &FABRIC},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, &DRIVER},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, &DRIVER},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, &DRIVER},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, &DRIVER},
};

static const char *machine_reason(int attr) {
    for (size_t i = 0; i < sizeof machine / sizeof machine[0]; i++) {
        if ((int)machine[i].attr == attr) return *machine[i].why;
    }
    return NULL;
}

static bool is_cached(int attr) {
    for (size_t i = 0; i < sizeof cached / sizeof cached[0]; i++) {
        if ((int)cached[i] == attr) return true;
    }
    return false;
}

/* The mock's profile of a GPU, by its name (NULL: none models it). */
static const char *profile_of(const char *name) {
    static const struct {
        const char *in_name, *not_in_name, *profile;
    } models[] = {
        {"H200", NULL, "h200"},
        {"RTX 4060", "Ti", "ada"},
    };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        if (strstr(name, models[i].in_name) != NULL &&
            (models[i].not_in_name == NULL || strstr(name, models[i].not_in_name) == NULL)) {
            return models[i].profile;
        }
    }
    return NULL;
}

#endif
