#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a source file does not name its licence in an SPDX line at its top (LICENSE).

Usage: scripts/check_spdx.py [--fix] [SOURCE_DIR]. The sources are the files git tracks with a
code extension or a #! line, but for test data and the generated bpf/vmlinux/vmlinux.h. The
kernel programs under bpf/ are "GPL-2.0-only OR BSD-2-Clause", everything else "Apache-2.0". The
line sits in the first three lines (after a #! line). --fix adds the missing ones.
"""
import os
import subprocess
import sys

KERNEL = "GPL-2.0-only OR BSD-2-Clause"
USER = "Apache-2.0"
C_FAMILY = (".c", ".cpp", ".h")
CODE = C_FAMILY + (".sh", ".py", ".cmake", ".in")


def sources(root):
    names = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
    for rel in names.splitlines():
        if rel.startswith(("tests/data/", "LICENSES/")) or rel == "bpf/vmlinux/vmlinux.h":
            continue
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        if rel.endswith(CODE) or os.path.basename(rel) == "CMakeLists.txt":
            yield rel
            continue
        with open(path, "rb") as f:
            if f.read(2) == b"#!":
                yield rel


def expected_line(rel):
    licence = KERNEL if rel.startswith("bpf/") else USER
    lead = "//" if rel.endswith(C_FAMILY) else "#"
    return f"{lead} SPDX-License-Identifier: {licence}"


def main():
    args = sys.argv[1:]
    fix = "--fix" in args
    args = [a for a in args if a != "--fix"]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    bad = []
    for rel in sources(root):
        path = os.path.join(root, rel)
        lines = open(path, encoding="utf-8").read().split("\n")
        want = expected_line(rel)
        if want in lines[:3]:
            continue
        if any("SPDX-License-Identifier" in l for l in lines[:3]):
            bad.append(f"{rel}: names another licence than `{want}` (LICENSE says which part is which)")
            continue
        if not fix:
            bad.append(f"{rel}: no `{want}` in its first lines")
            continue
        at = 1 if lines and lines[0].startswith("#!") else 0
        lines.insert(at, want)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} file(s) without their SPDX line: scripts/check_spdx.py --fix adds them")
        return 1
    print("spdx: every source file names its licence")
    return 0


if __name__ == "__main__":
    sys.exit(main())
