#!/usr/bin/env python3
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
"""File-level call graph of osc/newrma, from the built objects.

usage: callgraph.py [--objdir DIR] [--dot] [--quiet]
                    [--max-upward N] [--max-cycle N]

Reads `nm` of every osc_newrma_*.o in DIR (default .libs, the libtool
objects of a built tree): file A depends on file B when A references a
symbol B defines.  Prints each dependency with the symbols behind it, then
every dependency from a lower layer to a higher one (LAYERS below) and every
cycle (strongly connected set of files).  Exit status 1 when there is
either, 0 when the graph is layered, 2 on a usage error.  --max-upward and
--max-cycle accept up to N upward dependencies and cycles of up to N files
(the ceiling tests/sh/callgraph.sh holds while the layering is unfinished,
so that it can only shrink).

The component instance mca_osc_newrma_component is not counted: it is the
MCA structure every file of an Open MPI component reads (osc/rdma's files
read mca_osc_rdma_component alike), data rather than a call.  Static
inline functions in headers do not appear in `nm` and are not counted.
"""
import argparse
import glob
import os
import subprocess
import sys
from collections import defaultdict

# lowest first; a file may depend on its own layer's files and lower ones.
# A file's layer is its name's prefix (osc_newrma_<layer>_*.c); the files
# without one are the required top-level files, placed here by name.
LAYERS = ["base", "transport", "am", "target", "origin", "glue"]
TOP_LEVEL = {
    "pool": "base",
    "ops": "origin",
    "sync": "origin",
    "progress": "glue",
    "module": "glue",
    "component": "glue",
    "stats": "glue",
}
IGNORED = {"mca_osc_newrma_component"}
PREFIX = "osc_newrma_"


def layer_of(name):
    prefix = name.split("_", 1)[0]
    layer = prefix if prefix in LAYERS and "_" in name else TOP_LEVEL.get(name)
    return LAYERS.index(layer) if layer is not None else None


def read_symbols(objdir):
    defined, used = {}, []
    objs = sorted(glob.glob(os.path.join(objdir, PREFIX + "*.o")))
    for obj in objs:
        name = os.path.basename(obj)[len(PREFIX):-2]
        out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used.append((name, parts[1]))
            elif len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = name
    return objs, defined, used


def edges_of(defined, used):
    edges = defaultdict(set)
    for name, sym in used:
        owner = defined.get(sym)
        if owner is not None and owner != name and sym not in IGNORED:
            edges[(name, owner)].add(sym)
    return edges


def cycles_of(nodes, edges):
    """Tarjan's strongly connected components of more than one file."""
    succ = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def short(sym):
    return sym.replace("ompi_osc_newrma_", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objdir", default=".libs")
    ap.add_argument("--dot", action="store_true", help="print the graph in Graphviz form only")
    ap.add_argument("--quiet", action="store_true", help="print only the problems")
    ap.add_argument("--max-upward", type=int, default=0, help="upward dependencies accepted")
    ap.add_argument("--max-cycle", type=int, default=0, help="files in a cycle accepted")
    args = ap.parse_args()

    objs, defined, used = read_symbols(args.objdir)
    if not objs:
        print("callgraph: no %s*.o in %s (build first)" % (PREFIX, args.objdir), file=sys.stderr)
        return 2
    nodes = {os.path.basename(o)[len(PREFIX):-2] for o in objs}
    unplaced = sorted(n for n in nodes if layer_of(n) is None)
    edges = edges_of(defined, used)

    if args.dot:
        print("digraph newrma {")
        for a, b in sorted(edges):
            print('  "%s" -> "%s";' % (a, b))
        print("}")
        return 0
    if not args.quiet:
        for i, lname in enumerate(LAYERS):
            files = sorted(n for n in nodes if layer_of(n) == i)
            print("layer %d %-9s %s" % (i, lname, " ".join(files)))
        for (a, b), syms in sorted(edges.items()):
            print("%-18s -> %-18s %s" % (a, b, " ".join(sorted(short(s) for s in syms))))

    upward = [(a, b, syms) for (a, b), syms in sorted(edges.items())
              if a not in unplaced and b not in unplaced and layer_of(a) < layer_of(b)]
    cycles = cycles_of(nodes, edges)
    for name in unplaced:
        print("UNPLACED %s: name it osc_newrma_<layer>_*, or add it to TOP_LEVEL in %s"
              % (name, os.path.basename(__file__)))
    for a, b, syms in upward:
        print("UPWARD %s (%s) -> %s (%s): %s" % (a, LAYERS[layer_of(a)], b,
                                                LAYERS[layer_of(b)],
                                                " ".join(sorted(short(s) for s in syms))))
    for comp in cycles:
        print("CYCLE " + " ".join(comp))
    print("%d files, %d dependencies, %d upward, %d cycles, %d unplaced"
          % (len(nodes), len(edges), len(upward), len(cycles), len(unplaced)))
    largest = max((len(c) for c in cycles), default=0)
    if unplaced or len(upward) > args.max_upward or largest > args.max_cycle:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
