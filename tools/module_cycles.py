#!/usr/bin/env python3
"""Checks the module graph cargo-modules prints (DOT) for cycles, or the library's long files.

    module_cycles.py GRAPH.dot
        Reads the "uses" edges between modules and prints every strongly connected component
        of more than one module, with its edges; exits 1 if there is one.

    module_cycles.py --long-files SRC ARCHITECTURE.md LIMIT
        Lists every .rs file under SRC over LIMIT lines; exits 1 if one is not named (as
        `path`, relative to the repository) in ARCHITECTURE.md's "Long files" section.
"""
import collections
import os
import re
import sys

USES = re.compile(r'^\s*"([^"]+)" -> "([^"]+)" \[label="uses"')


def components(edges):
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    nodes = sorted(set(edges) | {w for ws in edges.values() for w in ws})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def cycles(path):
    edges = collections.defaultdict(set)
    count = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = USES.match(line)
            if m and m.group(1) != m.group(2):
                edges[m.group(1)].add(m.group(2))
                count += 1
    if count == 0:
        print(f"no 'uses' edges in {path}: not a cargo-modules graph?", file=sys.stderr)
        return 2
    found = components(edges)
    modules = len(set(edges) | {w for ws in edges.values() for w in ws})
    if not found:
        print(f"ok   {modules} modules, {count} uses edges, no cycle")
        return 0
    for component in found:
        print(f"CYCLE between {len(component)} modules:")
        for v in component:
            print(f"    {v} -> {', '.join(w for w in sorted(edges[v]) if w in component)}")
    return 1


def long_files(src, architecture, limit):
    text = open(architecture, encoding="utf-8").read()
    section = text.split("### Long files", 1)
    named = set(re.findall(r"`([^`]+\.rs)`", section[1].split("\n## ", 1)[0])) if len(section) > 1 else set()
    bad = 0
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            if lines > limit:
                status = "ok  " if path in named else "LONG"
                bad += path not in named
                print(f"{status} {path}: {lines} lines")
    print(f"{'ok  ' if not bad else 'FAIL'} long files: {bad} over {limit} lines not explained in {architecture}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--long-files":
        sys.exit(long_files(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    if len(sys.argv) == 2:
        sys.exit(cycles(sys.argv[1]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
