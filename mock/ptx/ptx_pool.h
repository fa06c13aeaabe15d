/* Internal to the executor: the host threads that run a grid's blocks (ptx_pool.c). */
#ifndef CUSHIM_MOCK_PTX_POOL_H
#define CUSHIM_MOCK_PTX_POOL_H

/* Runs fn(arg, who) on the calling thread (who 0) and on up to `helpers` host threads of the
 * pool at once (who 1 + the thread's place in the pool, the same at every launch), and returns
 * when every one of those calls has returned. The pool's threads are made on first
 * use and as more are asked for (at most 255), sleep between launches, and are made again in a
 * child after fork(); a helper that cannot be made leaves the work to the others. */
void ptx__pool_run(void (*fn)(void *, int), void *arg, int helpers);

#endif
