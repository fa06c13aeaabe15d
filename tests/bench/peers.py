#!/usr/bin/env python3
"""What the same operations cost through the Python CUDA libraries, for comparison with
cushim-bench: cuda.bindings (cuda.bindings.driver), cuda.core (at the top level from 1.0,
cuda.core.experimental before) and CuPy, each where it is importable.

Usage: peers.py [--ptx ptx/empty.ptx] [--batches 15] [--ops 1000] [--device 0] [--json]

Operations, as in cushim-bench: launch of cushim_empty (grid 1, block 32) and of
cushim_empty2(u64, u32) on a non-blocking stream, event record, query of an idle stream,
stream create + destroy, event create + destroy (CU_EVENT_DISABLE_TIMING). A library that does
not offer an operation shows "n/a". Each figure is the median over batches of the nanoseconds
per operation, timed with time.perf_counter_ns around a batch, after one warm-up batch; launch
and record batches are followed by an untimed synchronize. The Python loop's own cost per
iteration is printed as a baseline: every figure includes it.

The three libraries share the device's primary context. A library that cannot be imported is
skipped with a line saying so; one that fails while measuring is reported and the rest go on.
"""

import argparse
import ctypes
import json
import os
import sys
import traceback

OPS = [
    ("launch_empty", "launch, no parameters"),
    ("launch_params", "launch, two parameters"),
    ("event_record", "event record"),
    ("stream_query", "stream query, idle stream"),
    ("stream_create_destroy", "stream create + destroy"),
    ("event_create_destroy", "event create + destroy"),
]
SETTLE = {"launch_empty", "launch_params", "event_record"}

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PTX = os.path.normpath(os.path.join(HERE, "..", "..", "ptx", "empty.ptx"))


from peers_measure import enum_value, first_accepted, measure, python_baseline  # noqa: E402


# ----------------------------------------------------------------------------------------------
# cuda.bindings: the driver API, one Python call per driver call.
# ----------------------------------------------------------------------------------------------

def peer_bindings(ptx, device):
    try:
        from cuda.bindings import driver
    except ImportError:
        from cuda import cuda as driver  # cuda-python before 12.6 named it so
    ok = driver.CUresult.CUDA_SUCCESS

    def check(result):
        err = result[0]
        if err != ok:
            raise RuntimeError("cuda.bindings: %s" % err)
        return result[1] if len(result) == 2 else result[1:]

    check(driver.cuInit(0))
    dev = check(driver.cuDeviceGet(device))
    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    image = ctypes.create_string_buffer(ptx)
    module = check(driver.cuModuleLoadData(ctypes.addressof(image)))
    f_empty = check(driver.cuModuleGetFunction(module, b"cushim_empty"))
    f_empty2 = check(driver.cuModuleGetFunction(module, b"cushim_empty2"))
    nonblocking = enum_value(driver.CUstream_flags.CU_STREAM_NON_BLOCKING)
    no_timing = enum_value(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
    stream = check(driver.cuStreamCreate(nonblocking))
    idle = check(driver.cuStreamCreate(nonblocking))
    event = check(driver.cuEventCreate(no_timing))
    # kernelParams as the C API takes it: the address of an array of pointers to the values.
    a, b = ctypes.c_uint64(0), ctypes.c_uint32(7)
    params = (ctypes.c_void_p * 2)(ctypes.addressof(a), ctypes.addressof(b))
    params_addr = ctypes.addressof(params)
    # The closure below holds only the address; these objects must outlive it, or the values
    # the driver reads through params_addr are freed memory.
    keep_alive = (a, b, params)
    launch, record, query = driver.cuLaunchKernel, driver.cuEventRecord, driver.cuStreamQuery

    def launch_empty(n):
        for _ in range(n):
            if launch(f_empty, 1, 1, 1, 32, 1, 1, 0, stream, 0, 0)[0] != ok:
                raise RuntimeError("cuLaunchKernel failed")

    def launch_params(n):
        assert keep_alive
        for _ in range(n):
            err = launch(f_empty2, 1, 1, 1, 32, 1, 1, 0, stream, params_addr, 0)[0]
            if err != ok:
                raise RuntimeError("cuLaunchKernel failed: %s" % err)

    def event_record(n):
        for _ in range(n):
            if record(event, stream)[0] != ok:
                raise RuntimeError("cuEventRecord failed")

    def stream_query(n):
        for _ in range(n):
            if query(idle)[0] != ok:
                raise RuntimeError("cuStreamQuery did not answer CUDA_SUCCESS")

    def stream_create(n):
        for _ in range(n):
            s = check(driver.cuStreamCreate(nonblocking))
            check(driver.cuStreamDestroy(s))

    def event_create(n):
        for _ in range(n):
            e = check(driver.cuEventCreate(no_timing))
            check(driver.cuEventDestroy(e))

    def settle():
        check(driver.cuStreamSynchronize(stream))

    def close():
        check(driver.cuStreamSynchronize(stream))
        check(driver.cuEventDestroy(event))
        check(driver.cuStreamDestroy(idle))
        check(driver.cuStreamDestroy(stream))
        check(driver.cuModuleUnload(module))
        # The primary context stays retained: the next peers use it too, and releasing the
        # last reference would tear it down between them.

    return {"launch_empty": launch_empty, "launch_params": launch_params,
            "event_record": event_record, "stream_query": stream_query,
            "stream_create_destroy": stream_create, "event_create_destroy": event_create}, \
        settle, close


# ----------------------------------------------------------------------------------------------
# cuda.core: Device, Stream, Event, ObjectCode, launch.
# ----------------------------------------------------------------------------------------------

def peer_core(ptx, device):
    import inspect

    import cuda.core as cc
    if not hasattr(cc, "Device"):  # before cuda.core 1.0 the API lived in .experimental
        from cuda.core import experimental as cc

    dev = cc.Device(device)
    dev.set_current()
    if hasattr(cc.ObjectCode, "from_ptx"):
        code = cc.ObjectCode.from_ptx(ptx)  # bytes: the image itself (a str would be a path)
    else:
        code = cc.ObjectCode(ptx, "ptx")  # cuda.core 0.1
    k_empty = code.get_kernel("cushim_empty")
    k_empty2 = code.get_kernel("cushim_empty2")
    options = first_accepted(cc.StreamOptions, ({"nonblocking": True}, {"non_blocking": True}))
    stream = dev.create_stream(options=options)
    # cuda.core renamed its event options across versions; a timing-free event is the aim.
    event_options = first_accepted(cc.EventOptions, ({"enable_timing": False},
                                                     {"timing_disabled": True},
                                                     {"disable_timing": True}, {}))
    event = dev.create_event(options=event_options) if hasattr(dev, "create_event") else \
        stream.record(options=event_options)

    # launch(stream, config, kernel, *args) from cuda.core 0.2; before, launch(kernel, config,
    # *args) with the stream in the LaunchConfig.
    try:
        first = next(iter(inspect.signature(cc.launch).parameters))
    except (TypeError, ValueError, StopIteration):
        first = "stream"
    if first == "stream":
        config = cc.LaunchConfig(grid=1, block=32)

        def do_launch(kernel, *args):
            cc.launch(stream, config, kernel, *args)
    else:
        config = cc.LaunchConfig(grid=1, block=32, stream=stream)

        def do_launch(kernel, *args):
            cc.launch(kernel, config, *args)

    try:
        import numpy as np
        arg_a, arg_b = np.uint64(0), np.uint32(7)
    except ImportError:
        arg_a, arg_b = ctypes.c_uint64(0), ctypes.c_uint32(7)

    def launch_empty(n):
        for _ in range(n):
            do_launch(k_empty)

    def launch_params(n):
        for _ in range(n):
            do_launch(k_empty2, arg_a, arg_b)

    def event_record(n):
        for _ in range(n):
            stream.record(event)

    def stream_create(n):
        for _ in range(n):
            dev.create_stream(options=options).close()

    def event_create(n):
        for _ in range(n):
            dev.create_event(options=event_options).close()

    ops = {"launch_empty": launch_empty, "launch_params": launch_params,
           "event_record": event_record, "stream_create_destroy": stream_create}
    # cuda.core's Stream has no query; Device.create_event and Event.close are newer than 0.1.
    if hasattr(dev, "create_event") and hasattr(event, "close"):
        ops["event_create_destroy"] = event_create

    def close():
        stream.sync()
        if hasattr(event, "close"):
            event.close()
        stream.close()

    return ops, stream.sync, close


# ----------------------------------------------------------------------------------------------
# CuPy: RawModule for the launches, cupy.cuda.runtime for the rest (thin wrappers of the CUDA
# runtime, whose own objects, cupy.cuda.Stream and Event, add a little on top).
# ----------------------------------------------------------------------------------------------

def peer_cupy(ptx_path, device):
    import cupy
    import numpy as np
    from cupy.cuda import runtime

    cupy.cuda.Device(device).use()
    module = cupy.RawModule(path=ptx_path)
    k_empty = module.get_function("cushim_empty")
    k_empty2 = module.get_function("cushim_empty2")
    stream = cupy.cuda.Stream(non_blocking=True)
    nonblocking = getattr(runtime, "streamNonBlocking", 1)
    no_timing = getattr(runtime, "eventDisableTiming", 2)
    idle = runtime.streamCreateWithFlags(nonblocking)
    event = runtime.eventCreateWithFlags(no_timing)
    args2 = (np.uint64(0), np.uint32(7))
    grid, block = (1,), (32,)

    def launch_empty(n):
        with stream:  # RawKernel launches on the current stream
            for _ in range(n):
                k_empty(grid, block, ())

    def launch_params(n):
        with stream:
            for _ in range(n):
                k_empty2(grid, block, args2)

    def event_record(n):
        ptr = stream.ptr
        for _ in range(n):
            runtime.eventRecord(event, ptr)

    def stream_query(n):
        for _ in range(n):
            if runtime.streamQuery(idle) != 0:
                raise RuntimeError("cudaStreamQuery did not answer cudaSuccess")

    def stream_create(n):
        for _ in range(n):
            runtime.streamDestroy(runtime.streamCreateWithFlags(nonblocking))

    def event_create(n):
        for _ in range(n):
            runtime.eventDestroy(runtime.eventCreateWithFlags(no_timing))

    def close():
        stream.synchronize()
        runtime.eventDestroy(event)
        runtime.streamDestroy(idle)

    return {"launch_empty": launch_empty, "launch_params": launch_params,
            "event_record": event_record, "stream_query": stream_query,
            "stream_create_destroy": stream_create, "event_create_destroy": event_create}, \
        stream.synchronize, close


# ----------------------------------------------------------------------------------------------

def importable(name):
    try:
        __import__(name)
        return None
    except Exception as e:  # ImportError, or a library that fails to load its own parts
        return "%s: %s" % (type(e).__name__, e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ptx", default=DEFAULT_PTX)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    with open(args.ptx, "rb") as f:
        ptx = f.read()

    peers = [
        ("cuda.bindings", ("cuda.bindings.driver", "cuda.cuda"),
         lambda: peer_bindings(ptx, args.device)),
        ("cuda.core", ("cuda.core",), lambda: peer_core(ptx, args.device)),
        ("cupy", ("cupy",), lambda: peer_cupy(args.ptx, args.device)),
    ]
    baseline = python_baseline(args.batches, args.ops)
    results, notes = {}, []
    for name, modules, setup in peers:
        why = None
        for m in modules:
            why = importable(m)
            if why is None:
                break
        if why is not None:
            notes.append("%s: skipped, not importable (%s)" % (name, why))
            continue
        try:
            ops, settle, close = setup()
        except Exception:
            notes.append("%s: skipped, setup failed:\n%s" % (name, traceback.format_exc()))
            continue
        results[name] = {}
        for op, _ in OPS:
            fn = ops.get(op)
            if fn is None:
                continue
            try:
                results[name][op] = measure(fn, settle if op in SETTLE else None,
                                            args.batches, args.ops)
            except Exception:
                notes.append("%s %s: failed:\n%s" % (name, op, traceback.format_exc()))
        try:
            close()
        except Exception:
            notes.append("%s: cleanup failed:\n%s" % (name, traceback.format_exc()))

    if args.json:
        print(json.dumps({"tool": "peers.py", "batches": args.batches, "ops_per_batch": args.ops,
                          "python_loop_ns": baseline, "results_ns": results, "notes": notes},
                         indent=2))
        return 0
    names = list(results)
    print("peers.py: median ns per operation over %d batches of %d, after a warm-up batch" %
          (args.batches, args.ops))
    print("python %s; an empty loop iteration costs %.1f ns (included below)" %
          (sys.version.split()[0], baseline))
    for note in notes:
        if ": skipped" in note:
            print(note.rstrip())
    if names:
        print("\n%-30s" % "operation" + "".join("%15s" % n for n in names))
        for op, label in OPS:
            cells = []
            for n in names:
                v = results[n].get(op)
                cells.append("%15s" % ("n/a" if v is None else "%.1f" % v))
            print("%-30s" % label + "".join(cells))
    else:
        print("\nno peer could be measured")
    for note in notes:
        if ": skipped" not in note:
            print(note.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
