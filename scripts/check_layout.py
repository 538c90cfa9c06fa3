#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks lib/ against the layout of doc/architecture.md: which folder may include which.

Reads every `#include "..."` of lib/ (resolved against the including file's folder, then lib/)
and fails, naming the offending files, on:
  cycle   a cycle between folders of lib/
  arrow   an include against the arrows (api -> runtime -> {staging, fastpath} -> io;
          staging, fastpath -> gpu, sys; runtime -> io, gpu, sys), or from/into a folder the
          layout does not name
  mutual  two files of one folder including each other (a file is taken with its header: x.cpp
          and x.hpp are one unit, so that "driver.cpp includes async.hpp, async.cpp includes
          driver.hpp" counts)
  c-api   hipFileError_t, hipFileIOParams_t, hipfile.h (or hipfile_stats.h, which includes it)
          outside lib/api/
  json    an installed header (include/hipfile++/, include/hipfile-safetensors/) that includes a
          JSON library (nlohmann): JSON is the loader's private dependency

Exit 0 when nothing is found.
"""
import argparse
import os
import re
import sys

# What each folder may include besides itself: the arrows, closed under "through" (api reaches
# io through runtime, so it may name io's types directly).
ARROWS = {
    "api": {"runtime", "staging", "fastpath", "io", "gpu", "sys"},
    "runtime": {"staging", "fastpath", "io", "gpu", "sys"},
    "staging": {"io", "gpu", "sys"},
    "fastpath": {"io", "gpu", "sys"},
    "gpu": set(),
    "sys": set(),
    "io": set(),
}
SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".c", ".inl")
INCLUDE_QUOTED = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
INCLUDE_ANY = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
C_API_TOKEN = re.compile(r"\b(hipFileError_t|hipFileIOParams_t)\b")
C_API_HEADER = re.compile(r"(^|/)hipfile(_stats)?\.h$")  # hipfile_stats.h includes hipfile.h
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def sources(top):
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(folder, name)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def resolve(lib, including, target):
    """The included file as a path relative to lib/, or None when it is not one of lib/'s."""
    for base in (os.path.dirname(including), lib):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(candidate) and os.path.commonpath([candidate, lib]) == lib:
            return os.path.relpath(candidate, lib)
    return None


def folder_of(rel):
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else "."


def unit_of(rel):
    return os.path.splitext(rel)[0]


def include_edges(lib):
    """(including, included) pairs of lib/-relative paths."""
    edges = []
    for path in sources(lib):
        for target in INCLUDE_QUOTED.findall(read(path)):
            included = resolve(lib, path, target)
            if included is not None:
                edges.append((os.path.relpath(path, lib), included))
    return edges


def arrow_violations(edges):
    found = []
    for src, dst in edges:
        a, b = folder_of(src), folder_of(dst)
        if a != b and b not in ARROWS.get(a, set()):
            found.append(f"arrow: lib/{src} -> lib/{dst} ({a} -> {b})")
    return found


def strongly_connected(graph):
    """Tarjan's components of `graph` (node -> set of nodes), each with more than one node."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def cycle_violations(edges):
    graph = {}
    for src, dst in edges:
        a, b = folder_of(src), folder_of(dst)
        if a != b:
            graph.setdefault(a, set()).add(b)
    found = []
    for component in strongly_connected(graph):
        files = sorted({f"lib/{s}" for s, d in edges
                        if folder_of(s) in component and folder_of(d) in component
                        and folder_of(s) != folder_of(d)})
        found.append(f"cycle: {' <-> '.join(sorted(component))} ({', '.join(files)})")
    return found


def mutual_violations(edges):
    units = {}
    for src, dst in edges:
        a, b = unit_of(src), unit_of(dst)
        if a != b and folder_of(src) == folder_of(dst):
            units.setdefault(a, set()).add(b)
    found = []
    for a in sorted(units):
        for b in sorted(units[a]):
            if a < b and a in units.get(b, set()):
                found.append(f"mutual: lib/{a} <-> lib/{b}")
    return found


def c_api_violations(lib):
    found = []
    for path in sources(lib):
        rel = os.path.relpath(path, lib)
        if folder_of(rel) == "api":
            continue
        text = read(path)
        headers = [h for h in INCLUDE_ANY.findall(text) if C_API_HEADER.search(h)]
        tokens = sorted(set(C_API_TOKEN.findall(COMMENT.sub("", text))))
        if headers or tokens:
            found.append(f"c-api: lib/{rel} ({', '.join(headers + tokens)})")
    return found


def json_violations(root):
    found = []
    for name in ("hipfile++", "hipfile-safetensors"):
        top = os.path.join(root, "include", name)
        for path in sources(top) if os.path.isdir(top) else ():
            if any("nlohmann" in h for h in INCLUDE_ANY.findall(read(path))):
                found.append(f"json: {os.path.relpath(path, root)}")
    return found


def violations(root):
    lib = os.path.join(root, "lib")
    edges = include_edges(lib)
    return (cycle_violations(edges) + arrow_violations(edges) + mutual_violations(edges)
            + c_api_violations(lib) + json_violations(root))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(here), help="the source tree (default: this repository)")
    args = parser.parse_args()
    found = violations(os.path.abspath(args.root))
    for v in found:
        print(v)
    print(f"check_layout: {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
