#!/usr/bin/env python3
"""Writes the API fuzzer's seed corpus: tests/fuzz/corpus/, one file per scenario below.

Each seed is a small program in the fuzzer's input format (tests/fuzz/fuzz.h), written here
instruction by instruction so that it can be reviewed. The opcodes and choice numbers are read
from fuzz.h itself, so a seed cannot drift from the harness. Run it after changing either:

    python3 tests/fuzz/make-corpus.py            # rewrites tests/fuzz/corpus/ and findings/
    python3 tests/fuzz/make-corpus.py --check    # fails if the committed files differ

tests/fuzz/findings/ holds inputs that break an invariant because of a library bug not yet
fixed: the corpus replay does not run them. Once the bug is fixed, move the entry from
FINDINGS to SEEDS, so that it guards against the bug's return.
"""
import argparse
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent


def read_enums(header):
    """Every enumerator of fuzz.h, NAME -> value, following C's implicit numbering."""
    text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
    values = {}
    for body in re.findall(r"enum\s+\w+\s*\{(.*?)\}", text, flags=re.S):
        nxt = 0
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, value = item.partition("=")
            nxt = int(value.strip(), 0) if value else nxt
            values[name.strip()] = nxt
            nxt += 1
    return values


E = read_enums(HERE / "fuzz.h")
# FZ_KNOB_OCCUPANCY is a choice from this table of fuzz_ops.c.
OCCUPANCIES = [int(v) for v in re.search(r"occupancies\[\] = \{([^}]*)\}",
                                         (HERE / "fuzz_ops.c").read_text()).group(1).split(",")]

KINDS = ("CTX", "STREAM", "EVENT", "MODULE", "LIBRARY", "FUNC")
CTX, STREAM, EVENT, MODULE, LIBRARY, FUNC = (E["FZ_KIND_" + k] for k in KINDS)
POOL_START = {E["FZ_KIND_" + k]: E["FZ_POOL_" + k] for k in KINDS}

# Handles: a plain number is a slot of the kind the call expects; these name others.
NULL = 0x80 | E["FZ_POOL_NULL"]


def other(kind, slot):
    """Slot `slot` of `kind`, passed where a handle of another kind is expected."""
    return 0x80 | (POOL_START[kind] + slot)


def val(v):
    """A 32-bit value, given in full (the 0xff escape), signed or not."""
    return b"\xff" + (v & 0xFFFFFFFF).to_bytes(4, "little")


def val64(v):
    return b"\xff" + (v & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")


def raw_bytes(data):
    assert len(data) <= 255
    return bytes([len(data)]) + data


def u8(v):
    return bytes([v])


class Program:
    def __init__(self, contexts_first=False):
        self.b = bytearray([E["FZ_HEADER_CONTEXTS_FIRST"] if contexts_first else 0])

    def op(self, name, *operands):
        self.b.append(E["FZ_OP_" + name])
        for o in operands:
            self.b += o if isinstance(o, (bytes, bytearray)) else u8(o)
        return self

    # Contexts
    def primary(self, slot, ordinal=0, out_null=False):
        return self.op("CTX_PRIMARY", slot, val(ordinal), int(out_null))

    def create(self, slot, ordinal=0, flags=0, out_null=False):
        return self.op("CTX_CREATE", slot, val(ordinal), val(flags), int(out_null))

    def retain(self, kind, h):
        return self.op("RETAIN", kind, h)

    def release(self, kind, h):
        return self.op("RELEASE", kind, h)

    def set_current(self, h):
        return self.op("SET_CURRENT", h)

    def ctx_sync(self, h):
        return self.op("CTX_SYNC", h)

    def device_sync(self):
        return self.op("DEVICE_SYNC")

    def priority_range(self, h, least_null=False, greatest_null=False):
        return self.op("PRIORITY_RANGE", h, int(least_null) | 2 * int(greatest_null))

    # Streams and events
    def stream(self, slot, ctx, flags=0, priority=0, out_null=False):
        return self.op("STREAM_CREATE", slot, ctx, val(flags), val(priority), int(out_null))

    def stream_sync(self, h):
        return self.op("STREAM_SYNC", h)

    def stream_query(self, h):
        return self.op("STREAM_QUERY", h)

    def wait(self, s, e, flags=0):
        return self.op("STREAM_WAIT", s, e, val(flags))

    def same_queue(self, a, b):
        return self.op("SAME_QUEUE", a, b)

    def event(self, slot, ctx, flags=0, out_null=False):
        return self.op("EVENT_CREATE", slot, ctx, val(flags), int(out_null))

    def record(self, e, s):
        return self.op("EVENT_RECORD", e, s)

    def event_query(self, h):
        return self.op("EVENT_QUERY", h)

    def event_sync(self, h):
        return self.op("EVENT_SYNC", h)

    def elapsed(self, a, b, ms_null=False):
        return self.op("ELAPSED", a, b, int(ms_null))

    # Modules and libraries
    @staticmethod
    def _image(image):
        if isinstance(image, bytes):
            return u8(E["FZ_IMAGE_BYTES"]) + raw_bytes(image)
        return u8(E["FZ_IMAGE_" + image])

    @staticmethod
    def _name(name):
        if isinstance(name, bytes):
            return u8(E["FZ_NAME_BYTES"]) + raw_bytes(name)
        return u8(E["FZ_NAME_" + name])

    def module(self, slot, ctx, image="KERNELS", out_null=False):
        return self.op("MODULE_LOAD", slot, ctx, self._image(image), int(out_null))

    def module_file(self, slot, ctx, path="KERNELS", out_null=False):
        return self.op("MODULE_FILE", slot, ctx, E["FZ_PATH_" + path], int(out_null))

    def function(self, fslot, mod, name="EMPTY_KERNEL", out_null=False):
        return self.op("MODULE_FUNCTION", fslot, mod, self._name(name), int(out_null))

    def library(self, slot, image="KERNELS", out_null=False):
        return self.op("LIBRARY_LOAD", slot, self._image(image), int(out_null))

    def lib_function(self, fslot, lib, ctx, name="EMPTY_KERNEL", out_null=False):
        return self.op("LIBRARY_FUNCTION", fslot, lib, ctx, self._name(name), int(out_null))

    # Launch and occupancy
    def launch(self, f, grid=(1, 1, 1), block=(32, 1, 1), smem=0, stream=NULL,
               cooperative=False, cfg_null=False, params=False):
        opt = (E["FZ_LAUNCH_COOPERATIVE"] * cooperative | E["FZ_LAUNCH_CFG_NULL"] * cfg_null |
               E["FZ_LAUNCH_PARAMS"] * params)
        dims = b"".join(val(d) for d in tuple(grid) + tuple(block))
        return self.op("LAUNCH", f, dims, val(smem), stream, opt)

    def occ_active(self, f, block=256, smem=0, out_null=False):
        return self.op("OCC_ACTIVE", f, val(block), val64(smem), int(out_null))

    def occ_potential(self, f, smem=0, limit=0, grid_null=False, block_null=False,
                      callback=False, callback_null=False):
        opt = (E["FZ_OCC_OUT_NULL"] * grid_null | E["FZ_OCC_OUT2_NULL"] * block_null |
               E["FZ_OCC_CALLBACK"] * callback | E["FZ_OCC_CALLBACK_NULL"] * callback_null)
        return self.op("OCC_POTENTIAL", f, val64(smem), val(limit), opt)

    def coop_grid(self, f, block=256, smem=0):
        return self.op("OCC_COOP_GRID", f, val(block), val64(smem))

    def coop_at_limit(self, f, block=1024, smem=0, delta=0, stream=NULL):
        return self.op("COOP_AT_LIMIT", f, val(block), val(smem), delta + 1, stream)

    # Faults and knobs
    def fail_any(self, nth, code="OUT_OF_MEMORY"):
        return self.op("FAIL_ANY", nth - 1, E["FZ_CODE_" + code])

    def fail_call(self, entry, nth=1, code="OUT_OF_MEMORY"):
        return self.op("FAIL_CALL", E["FZ_ENTRY_" + entry], nth - 1, E["FZ_CODE_" + code])

    def disarm(self):
        return self.op("DISARM")

    def pending(self, on):
        return self.op("KNOB", E["FZ_KNOB_PENDING"], int(on))

    def occupancy(self, blocks_per_sm):
        return self.op("KNOB", E["FZ_KNOB_OCCUPANCY"], OCCUPANCIES.index(blocks_per_sm))

    def launch_us(self, us):
        return self.op("KNOB", E["FZ_KNOB_LAUNCH_US"], val(us))

    def kernel(self, static_smem, max_threads):
        return self.op("KNOB", E["FZ_KNOB_KERNEL"], val(static_smem), val(max_threads))


def basics(p=None):
    """A created context in slot 0, a stream in slot 0, the kernels module and cushim_empty."""
    p = p or Program()
    return p.create(0).stream(0, 0).module(0, 0).function(0, 0, "EMPTY_KERNEL")


INT_MIN, INT_MAX, UINT_MAX = -(2 ** 31), 2 ** 31 - 1, 2 ** 32 - 1

SEEDS = {}
FINDINGS = {}


def seed(name, into=SEEDS):
    def add(fn):
        into[name] = fn()
        return fn
    return add


def finding(name):
    return seed(name, FINDINGS)


@seed("empty")
def _():
    return Program()


@seed("primary-retain-release")
def _():
    # Two cushim contexts of one primary context, one retained into a third slot.
    return (Program().primary(0).primary(1).retain(CTX, 0).ctx_sync(2).release(CTX, 0)
            .ctx_sync(1).release(CTX, 1).release(CTX, 2))


@seed("context-ordinals-and-flags")
def _():
    p = Program()
    for ordinal in (0, 1, 2, -1, 255, 256, INT_MAX, INT_MIN):
        p.primary(0, ordinal).create(1, ordinal)
    for flags in (1, 2, 4, 8, 0x10, 0xFF, 0x100, UINT_MAX):
        p.create(2, 0, flags)
    return p.primary(3, 0, out_null=True).create(3, 0, out_null=True)


@seed("stream-event-record-query")
def _():
    p = basics().event(0, 0)
    p.launch(0, stream=0).record(0, 0).stream_query(0).event_query(0)
    return p.event_sync(0).event_query(0).stream_query(0).stream_sync(0)


@seed("stream-priorities-and-flags")
def _():
    p = Program().create(0).priority_range(0).priority_range(0, least_null=True)
    p.priority_range(0, True, True)
    for prio in (0, -1, -5, -6, 1, INT_MIN, INT_MAX):
        p.stream(1, 0, 0, prio)
    for flags in (1, 2, 3, UINT_MAX):
        p.stream(2, 0, flags)
    return p.stream(3, 0, out_null=True)


@seed("event-flags")
def _():
    p = Program().primary(0)
    for flags in (0, 1, 2, 4, 6, 3, 7, 8, UINT_MAX):
        p.event(1, 0, flags)
    return p.event(2, 0, out_null=True)


@seed("wait-event-across-streams")
def _():
    p = basics().stream(1, 0, 1).event(0, 0, 2)
    p.launch(0, stream=0).record(0, 0).wait(1, 0).wait(NULL, 0).wait(1, 0, 2).stream_query(1)
    return p.event_sync(0).stream_query(1).same_queue(0, 1).same_queue(0, 0)


@seed("elapsed-time")
def _():
    p = basics().event(0, 0).event(1, 0, 1).event(2, 0, 2)
    p.elapsed(0, 1)  # neither recorded
    p.record(0, 0).launch(0, stream=0).launch(0, stream=0).record(1, 0).elapsed(0, 1)
    p.event_sync(1).elapsed(0, 1).elapsed(1, 0).elapsed(0, 1, ms_null=True)
    return p.record(2, 0).elapsed(0, 2).elapsed(2, 0)


@seed("module-images")
def _():
    p = Program().create(0)
    for image in ("KERNELS", "JIT_ERROR", "SMALL", "EMPTY", "ELF", "FATBIN", "COMMENTS",
                  "UNTERMINATED", "NULL", b".entry fuzz_k(\n)\n{\n}\n", b"\x7fEL"):
        p.module(1, 0, image)
    return p.module(2, 0, out_null=True)


@seed("module-files")
def _():
    p = Program().create(0)
    for path in ("KERNELS", "JIT_ERROR", "EMPTY", "MISSING", "DIRECTORY", "BLANK", "NULL"):
        p.module_file(1, 0, path)
    return p.function(0, 1, "SAXPY").launch(0, (2, 1, 1), (64, 1, 1))


@seed("module-function-names")
def _():
    p = Program().create(0).module(0, 0).module(1, 0, "COMMENTS")
    for name in ("EMPTY_KERNEL", "SAXPY", "BARRIER", "K", "MISSING", "BLANK", "NULL",
                 b"cushim_saxpy", b"cushim_emp"):
        p.function(0, 0, name)
    p.function(1, 1, "VISIBLE").function(2, 1, b"hidden_line").function(2, 1, b"hidden_block")
    return p.function(3, 0, "SAXPY").function(3, 0, "SAXPY", out_null=True)


@seed("launch-configs")
def _():
    p = basics()
    for grid, block in (((1, 1, 1), (1024, 1, 1)), ((0, 1, 1), (32, 1, 1)),
                        ((1, 1, 1), (0, 1, 1)), ((1, 1, 1), (1025, 1, 1)),
                        ((1, 1, 1), (32, 32, 2)), ((1, 1, 1), (1, 1, 65)),
                        ((2 ** 31 - 1, 65535, 65535), (1, 1, 1)), ((2 ** 31, 1, 1), (1, 1, 1)),
                        ((1, 65536, 1), (1, 1, 1)), ((UINT_MAX, UINT_MAX, UINT_MAX), (32, 1, 1))):
        p.launch(0, grid, block)
    for smem in (49152, 49153, 232448, UINT_MAX):
        p.launch(0, smem=smem, stream=0)
    return p.launch(0, cfg_null=True).launch(0, params=True, stream=0)


@seed("library-contexts")
def _():
    p = Program().create(0).primary(1).create(2, 1).stream(0, 0).stream(1, 2)
    p.library(0).lib_function(0, 0, 0, "SAXPY").lib_function(1, 0, 1, "SAXPY")
    p.lib_function(2, 0, 2, "EMPTY_KERNEL").lib_function(3, 0, 1, "MISSING")
    p.launch(0, stream=1).launch(1).launch(2, stream=0).launch(0, cooperative=True)
    p.release(CTX, 0).release(CTX, 2).launch(0).launch(2)
    return p.library(1, "JIT_ERROR").library(1, "NULL").library(1, out_null=True)


@seed("library-shared-primary")
def _():
    # Two cushim contexts of one primary: the second lookup gets the first one's function.
    p = Program().primary(0).primary(1).library(0)
    p.lib_function(0, 0, 0, "SAXPY").lib_function(1, 0, 1, "SAXPY")
    return p.release(CTX, 0).launch(1).release(LIBRARY, 0).release(CTX, 1)


@seed("cooperative-at-the-limit")
def _():
    p = basics()
    for block in (1024, 256, 32, 1):
        for delta in (-1, 0, 1):
            p.coop_at_limit(0, block, 0, delta)
    p.coop_at_limit(0, 1024, 49152, 0, stream=0).coop_at_limit(0, 64, 232448, 1)
    return p.launch(0, (265, 1, 1), (1024, 1, 1), cooperative=True)


@seed("occupancy-queries")
def _():
    p = basics()
    for block in (32, 0, -1, 1024, 1025, INT_MAX):
        p.occ_active(0, block).coop_grid(0, block)
    p.occ_active(0, 256, 2 ** 64 - 1).occ_active(0, 256, out_null=True)
    p.occ_potential(0).occ_potential(0, 1024, 256).occ_potential(0, limit=-1)
    p.occ_potential(0, grid_null=True).occ_potential(0, block_null=True)
    p.occ_potential(0, 16, callback=True).occ_potential(0, 2 ** 40, 128, callback=True)
    return p.occ_potential(0, callback=True, callback_null=True)


@seed("handle-confusion")
def _():
    p = basics().event(0, 0).library(0).lib_function(1, 0, 0)
    p.stream_query(other(EVENT, 0)).event_query(other(STREAM, 0)).ctx_sync(other(FUNC, 0))
    p.stream_sync(other(CTX, 0)).event_sync(other(MODULE, 0)).record(0, other(EVENT, 0))
    p.record(other(STREAM, 0), 0).wait(other(EVENT, 0), other(STREAM, 0))
    p.elapsed(other(STREAM, 0), 0).function(2, other(LIBRARY, 0), "EMPTY_KERNEL")
    p.lib_function(2, other(MODULE, 0), 0).lib_function(2, 0, other(STREAM, 0))
    p.launch(other(STREAM, 0)).launch(0, stream=other(EVENT, 0))
    p.launch(0, stream=other(FUNC, 0), cooperative=True).occ_active(other(CTX, 0))
    p.stream(1, other(STREAM, 0)).event(1, other(EVENT, 0)).module(1, other(MODULE, 0))
    for kind in (CTX, STREAM, EVENT, MODULE, LIBRARY):
        p.retain(kind, other(FUNC, 0)).release(kind, other(FUNC, 0)).retain(kind, NULL)
        p.release(kind, NULL)
    p.retain(CTX, other(STREAM, 0)).release(STREAM, other(CTX, 0))
    return p.priority_range(other(EVENT, 0)).same_queue(0, other(EVENT, 0))


@seed("raw-context-switches")
def _():
    p = Program().create(0).primary(1).create(2, 1)
    p.device_sync().set_current(0).device_sync().stream(0, 1).event(0, 2).record(0, NULL)
    p.set_current(1).module(0, 2).function(0, 0, "SAXPY").launch(0).set_current(NULL)
    p.wait(NULL, 0).set_current(other(STREAM, 0)).device_sync()
    return p.set_current(2).release(CTX, 2).device_sync().stream_sync(0)


@seed("children-outlive-their-context-slot")
def _():
    p = basics().event(0, 0).release(CTX, 0)
    p.launch(0, stream=0).record(0, 0).event_sync(0).stream_query(0).launch(0)
    return p.release(MODULE, 0).release(STREAM, 0).release(EVENT, 0)


@seed("current-context-destroyed-by-release")
def _():
    # The context current on the thread is destroyed by the last release: it is popped.
    return Program().create(0).set_current(0).stream(0, 0).release(CTX, 0).device_sync() \
        .release(STREAM, 0).device_sync()


@seed("teardown-contexts-first")
def _():
    p = basics(Program(contexts_first=True)).event(0, 0).library(0).lib_function(1, 0, 0)
    return p.primary(1).stream(1, 1).event(1, 1, 2)


@seed("fault-in-stream-create")
def _():
    p = Program().create(0).primary(1)
    for nth in (1, 2, 3, 4):
        p.fail_any(nth).stream(0, 0, 0, -3)
        p.fail_any(nth, "INVALID_CONTEXT").stream(1, 1)
    p.fail_call("STREAM_CREATE", 1, "OUT_OF_MEMORY").stream(2, 0)
    return p.fail_call("CTX_SET_CURRENT", 2, "INVALID_CONTEXT").stream(3, 0, 1)


@seed("fault-in-context-create")
def _():
    p = Program()
    for nth in range(1, 6):
        p.fail_any(nth).create(nth % 4)
    p.fail_call("CTX_CREATE").create(0).fail_call("PRIMARY_RETAIN").primary(1)
    p.fail_call("DEVICE_GET", 1, "INVALID_DEVICE").primary(2)
    return p.fail_call("CTX_GET_CURRENT").create(3)


@seed("fault-in-module-and-function")
def _():
    p = Program().create(0)
    for nth in range(1, 5):
        p.fail_any(nth, "LAUNCH_FAILED").module(nth % 3, 0)
    p.module(0, 0)
    for nth in range(1, 6):
        p.fail_any(nth, "UNKNOWN").function(nth % 4, 0, "SAXPY")
    p.fail_call("FUNC_GET_ATTRIBUTE", 2).function(0, 0, "BARRIER").library(0)
    p.fail_call("LIBRARY_GET_KERNEL").lib_function(1, 0, 0)
    p.fail_call("KERNEL_GET_FUNCTION", 1, "INVALID_CONTEXT").lib_function(1, 0, 0)
    return p.fail_call("LIBRARY_LOAD").library(1)


@seed("fault-in-launch")
def _():
    p = basics()
    p.fail_call("LAUNCH", 1, "LAUNCH_FAILED").launch(0, stream=0)
    p.fail_call("LAUNCH", 1, "LAUNCH_FAILED").launch(0)
    p.fail_call("LAUNCH_COOPERATIVE", 1, "LAUNCH_FAILED").launch(0, cooperative=True)
    p.fail_call("OCC_ACTIVE", 1, "NOT_READY").coop_at_limit(0, 512, 0, 0)
    p.fail_call("CTX_SET_CURRENT", 1, "INVALID_CONTEXT").launch(0)
    p.fail_call("CTX_SET_CURRENT", 2, "INVALID_CONTEXT").launch(0)
    return p.fail_call("OCC_POTENTIAL").occ_potential(0).fail_call("OCC_ACTIVE").occ_active(0)


@seed("fault-in-record-and-wait")
def _():
    p = basics().event(0, 0).stream(1, 0)
    p.fail_call("EVENT_RECORD", 1, "INVALID_HANDLE").record(0, 0)
    p.fail_call("CTX_SET_CURRENT", 2, "CONTEXT_IS_DESTROYED").record(0, NULL)
    p.fail_call("STREAM_WAIT_EVENT").wait(1, 0).fail_call("CTX_SET_CURRENT").wait(NULL, 0)
    p.fail_call("EVENT_SYNCHRONIZE", 1, "LAUNCH_FAILED").event_sync(0)
    p.fail_call("STREAM_SYNCHRONIZE", 1, "LAUNCH_FAILED").stream_sync(1)
    return p.fail_call("CTX_SYNCHRONIZE", 1, "LAUNCH_FAILED").ctx_sync(0)


@seed("fault-in-release")
def _():
    # The driver refuses destroys: cushim logs them and lets its objects go.
    p = basics().event(0, 0).stream(1, 0)
    p.fail_call("STREAM_DESTROY").release(STREAM, 0)
    p.fail_call("CTX_SET_CURRENT", 1, "INVALID_CONTEXT").release(STREAM, 1)
    p.fail_call("EVENT_DESTROY").release(EVENT, 0)
    p.fail_call("MODULE_UNLOAD").release(MODULE, 0)
    return p.fail_call("CTX_DESTROY").release(CTX, 0)


@seed("fault-armed-then-disarmed")
def _():
    return basics().fail_any(3).disarm().launch(0).fail_call("LAUNCH").disarm().launch(0)


@seed("knobs-pending-and-occupancy")
def _():
    p = basics().event(0, 0).pending(False).launch(0, stream=0).record(0, 0).event_query(0)
    p.pending(True).launch_us(0).launch(0, stream=0).stream_query(0).launch_us(1000000000)
    p.occupancy(0).coop_at_limit(0, 32, 0, 0).occupancy(1000).coop_grid(0, 32)
    return p.occupancy(-1).coop_at_limit(0, 1024, 0, 1)


@seed("knobs-kernel-attributes")
def _():
    p = Program().kernel(49152, 256).create(0).module(0, 0).function(0, 0, "SAXPY")
    p.launch(0, block=(256, 1, 1), smem=1).launch(0, block=(512, 1, 1)).occ_potential(0)
    p.kernel(1024, 1024).function(1, 0, "BARRIER").launch(1, block=(1024, 1, 1), smem=48128)
    return p.launch(1, smem=48129).coop_at_limit(1, 1024, 0, 0)


@seed("context-create-while-current")
def _():
    # Found by the fuzzer: cuCtxCreate pushes the new context, and cushim_context_create used to
    # put the caller's context back with cuCtxSetCurrent, which replaces the top of the stack,
    # so the caller's context was on it twice; destroying it popped one copy and left the
    # destroyed context current. It now pops; this seed keeps it so.
    return Program().create(0).set_current(0).create(1).release(CTX, 0).device_sync()


def write(out, seeds, check):
    out.mkdir(parents=True, exist_ok=True)
    stale = {p.name for p in out.iterdir() if p.is_file()} - set(seeds)
    differ = sorted(stale)
    for name, prog in seeds.items():
        path = out / name
        data = bytes(prog.b)
        if path.is_file() and path.read_bytes() == data:
            continue
        differ.append(name)
        if not check:
            path.write_bytes(data)
    if check:
        if differ:
            print("make-corpus: differs from the script: " + ", ".join(differ), file=sys.stderr)
            return 1
        return 0
    for name in stale:
        (out / name).unlink()
    print(f"make-corpus: {len(seeds)} inputs in {out}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args()
    return (write(HERE / "corpus", SEEDS, args.check) |
            write(HERE / "findings", FINDINGS, args.check))


if __name__ == "__main__":
    sys.exit(main())
