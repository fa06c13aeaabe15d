/* Internal: a hash map from an address to a value with a kind, for the registry (kernels and
 * variables by host address) and the handles (cushim's streams and events by driver handle).
 * It takes no lock: each user guards its map with its own. */
#ifndef CUSHIM_RUNTIME_RT_MAP_H
#define CUSHIM_RUNTIME_RT_MAP_H

#include <stdbool.h>
#include <stddef.h>

/* kind 0 is an empty slot and CUSHIM__RT_MAP_GONE a removed one; users' kinds are 1 and up. */
#define CUSHIM__RT_MAP_GONE (-1)

typedef struct cushim__rt_map_slot {
    const void *key;
    void *value;
    int kind;
} cushim__rt_map_slot;

typedef struct cushim__rt_map {
    cushim__rt_map_slot *slots;
    size_t capacity, used; /* used counts live and removed slots */
} cushim__rt_map;

/* The slot of key, or NULL. */
cushim__rt_map_slot *cushim__rt_map_find(const cushim__rt_map *m, const void *key);
/* Sets key's value and kind (replacing an earlier value of the same key); false when the map
 * could not grow (out of memory). */
bool cushim__rt_map_put(cushim__rt_map *m, const void *key, void *value, int kind);
/* Removes the slot found. */
static inline void cushim__rt_map_remove(cushim__rt_map_slot *s) {
    s->kind = CUSHIM__RT_MAP_GONE;
    s->value = NULL;
}

#endif
