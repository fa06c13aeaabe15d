"""The measuring helpers of peers.py: a batch timed with time.perf_counter_ns, the median over
batches, and small shims over the libraries' differences between versions."""

import statistics
import time


def measure(batch, settle, batches, ops):
    """Median ns per operation of batch(ops), over `batches` timed batches after one warm-up;
    settle() (untimed) after each batch when given."""
    times = []
    for i in range(batches + 1):
        t0 = time.perf_counter_ns()
        batch(ops)
        t1 = time.perf_counter_ns()
        if settle is not None:
            settle()
        if i > 0:
            times.append((t1 - t0) / ops)
    return statistics.median(times)


def python_baseline(batches, ops):
    def batch(n):
        for _ in range(n):
            pass
    return measure(batch, None, batches, ops)


def enum_value(e):
    return getattr(e, "value", e)


def first_accepted(cls, keyword_sets):
    """cls(**kw) for the first kw in keyword_sets that cls accepts."""
    for kw in keyword_sets:
        try:
            return cls(**kw)
        except TypeError:
            continue
    raise TypeError("%s accepts none of %s" % (cls.__name__, keyword_sets))
