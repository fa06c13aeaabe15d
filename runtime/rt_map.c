/* Open addressing with linear probing; removed slots stay until the map grows. */
#include <stdint.h>
#include <stdlib.h>

#include "runtime/rt_map.h"

static size_t hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

cushim__rt_map_slot *cushim__rt_map_find(const cushim__rt_map *m, const void *key) {
    if (m->capacity == 0) return NULL;
    size_t mask = m->capacity - 1;
    for (size_t i = hash(key) & mask, n = 0; n < m->capacity; i = (i + 1) & mask, n++) {
        cushim__rt_map_slot *s = &m->slots[i];
        if (s->kind == 0) return NULL;
        if (s->kind > 0 && s->key == key) return s;
    }
    return NULL;
}

static bool grow(cushim__rt_map *m) {
    size_t cap = m->capacity ? m->capacity * 2 : 256;
    cushim__rt_map_slot *s = calloc(cap, sizeof *s);
    if (s == NULL) return false;
    size_t used = 0;
    for (size_t i = 0; i < m->capacity; i++) {
        if (m->slots[i].kind > 0) {
            size_t j = hash(m->slots[i].key) & (cap - 1);
            while (s[j].kind != 0) j = (j + 1) & (cap - 1);
            s[j] = m->slots[i];
            used++;
        }
    }
    free(m->slots);
    m->slots = s;
    m->capacity = cap;
    m->used = used;
    return true;
}

bool cushim__rt_map_put(cushim__rt_map *m, const void *key, void *value, int kind) {
    cushim__rt_map_slot *s = cushim__rt_map_find(m, key);
    if (s != NULL) {
        s->value = value;
        s->kind = kind;
        return true;
    }
    if ((m->used + 1) * 4 > m->capacity * 3 && !grow(m)) return false;
    size_t mask = m->capacity - 1, i = hash(key) & mask;
    while (m->slots[i].kind > 0) i = (i + 1) & mask;
    if (m->slots[i].kind == 0) m->used++;
    m->slots[i] = (cushim__rt_map_slot){key, value, kind};
    return true;
}
