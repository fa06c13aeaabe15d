/* Internal to the executor: the host threads that run a grid's blocks (ptx_pool.c). */
#ifndef CUSHIM_MOCK_PTX_POOL_H
#define CUSHIM_MOCK_PTX_POOL_H

/* Runs fn(arg, own) on the calling thread and on up to `helpers` host threads of the pool at
 * once, and returns when every one of those calls has returned. `own` is the thread's own
 * pointer, kept from one launch to the next, for what a thread keeps for its next launch (NULL
 * on the calling thread, which is no thread of the pool); when a helper ends, drop(*own) frees
 * what it holds. The pool's threads are made on first use and as more are asked for (at most
 * 255), sleep between launches, and are made again in a child after fork(); a helper that cannot
 * be made leaves the work to the others. */
void ptx__pool_run(void (*fn)(void *, void **), void *arg, int helpers, void (*drop)(void *));

#endif
