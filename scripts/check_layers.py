#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when an include points up the layer map of docs/design.md ("Layers").

Usage: scripts/check_layers.py [SOURCE_DIR]. A file of folder F (src/F/..., or reports/) may
include "G/..." only when G is F, or G is on a lower line of the map: the folder is the layer, with
no exception (src/main.cpp, at the top of src/, is the cli layer). Prints each offending include
and exits 1.
"""
import os
import re
import sys


def layer_map(root):
    text = open(os.path.join(root, "docs", "design.md"), encoding="utf-8").read()
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    if not block:
        sys.exit("docs/design.md has no ```layers block: the map this check reads")
    rank = {}
    for level, line in enumerate(l for l in block.group(1).splitlines() if l.strip()):
        for name in line.split():
            rank[name] = level
    return rank


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    rank = layer_map(root)
    bad = []
    for top in ("src", "reports"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                parts = rel.split(os.sep)
                own = "reports" if parts[0] == "reports" else parts[1] if len(parts) > 2 else "cli"
                if own not in rank:
                    bad.append(f"{rel}: folder {own} is not in the layer map (docs/design.md, Layers)")
                    continue
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    m = re.match(r'\s*#\s*include\s+"([^/"]+)/', line)
                    if not m or m.group(1) not in rank or m.group(1) == own:
                        continue
                    target = m.group(1)
                    if rank[target] >= rank[own]:
                        bad.append(f"{rel}:{n}: {own} includes {target} ({line.strip()}): "
                                   f"{target} is {'a peer' if rank[target] == rank[own] else 'above'} in the map")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} include(s) against the layer map of docs/design.md")
        return 1
    print(f"layers: every include of src/ and reports/ points down the map ({len(rank)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
