/* Internal to the executor: the host threads that run a grid's blocks (ptx_pool.c). */
#ifndef CUSHIM_MOCK_PTX_POOL_H
#define CUSHIM_MOCK_PTX_POOL_H

/* Runs fn(arg) on the calling thread and on up to `helpers` host threads of the pool at once,
 * and returns when every one of those calls has returned. The pool's threads are made on first
 * use and as more are asked for (at most 255), sleep between launches, and are made again in a
 * child after fork(); a helper that cannot be made leaves the work to the others. */
void ptx__pool_run(void (*fn)(void *), void *arg, int helpers);

#endif
