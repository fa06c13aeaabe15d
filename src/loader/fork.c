/* The fork state, kept apart from the loader so that the bottom layer can read it. */
#include "loader/fork.h"

bool cushim__forked;
const char cushim__forked_reason[] =
    "this process was forked after cushim_init() initialised the CUDA driver, and the driver "
    "cannot be used in a forked child: use CUDA in the child only when the parent did not, or "
    "start the child with exec";

bool cushim__forked_lock_was_free(pthread_mutex_t *lock) {
    if (pthread_mutex_trylock(lock) != 0) return false;
    pthread_mutex_unlock(lock);
    return true;
}
