#!/usr/bin/env python3
"""A parent whose buildtype is debug built cushim's mock: its own code at -O0, the PTX interpreter
optimised with debug information all the same (issue 27). Reads the parent's
compile_commands.json, given as the argument."""
import json, shlex, sys

def level(command):
    """The optimisation level the compiler sees: the last -O flag."""
    flags = [a for a in shlex.split(command) if a.startswith("-O")]
    return flags[-1] if flags else "-O0"

commands = json.load(open(sys.argv[1]))
parent = [c for c in commands if c["file"].endswith("main.c")]
interp = [c for c in commands if "/mock/ptx/ptx_" in c["file"].replace("\\", "/")]
if not parent or level(parent[0]["command"]) != "-O0":
    sys.exit("the parent's own code is not built at -O0: the test proves nothing")
if not interp:
    sys.exit("the parent builds no PTX interpreter (mock/ptx/ptx_*.c)")
slow = [c["file"] for c in interp if level(c["command"]) not in ("-O2", "-O3")]
if slow:
    sys.exit("the interpreter is built unoptimised in a debug parent: " + ", ".join(slow))
nodebug = [c["file"] for c in interp if "-g" not in shlex.split(c["command"])]
if nodebug:
    sys.exit("the interpreter has no debug information: " + ", ".join(nodebug))
print(f"the parent's main.c at -O0; {len(interp)} interpreter files at "
      f"{sorted(set(level(c['command']) for c in interp))} with -g")
