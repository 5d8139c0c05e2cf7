#!/usr/bin/env python3
"""Includes follow src's folders (src/README.md, "Folders"): a file may include headers of
its own folder and of the folders below it, never of a folder above or beside it.

    core    the pure C++ core: nothing but itself (no server header either)
    am      the access method and what every subsystem shares: itself
    stats   statistics: core, am
    update  the update path: core, am, stats
    read    the read path: core, am, stats
    src/module.cpp   _PG_init, which initializes every subsystem: all of them
    test/unit        the Catch2 tests of the core: core

Every project include names its folder ("update/relation_info.hpp"). Run by `make` before
anything is compiled; prints each forbidden include and exits 1 if there is one (silent
otherwise; -v says how many files it checked).
Usage: check-includes.py [-v] [ROOT]   (default: the current directory)
"""
import os
import re
import sys

ALLOWED = {
    "core": {"core"},
    "am": {"am"},
    "stats": {"stats", "core", "am"},
    "update": {"update", "core", "am", "stats"},
    "read": {"read", "core", "am", "stats"},
}
FOLDERS = set(ALLOWED)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root):
    """(path relative to root, the folders it may include)."""
    for folder, allowed in ALLOWED.items():
        directory = os.path.join(root, "src", folder)
        for name in sorted(os.listdir(directory)):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join("src", folder, name), allowed
    yield os.path.join("src", "module.cpp"), FOLDERS
    unit = os.path.join(root, "test", "unit")
    for name in sorted(os.listdir(unit)):
        if name.endswith((".cpp", ".hpp")):
            yield os.path.join("test", "unit", name), {"core"}


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    root = args[0] if args else "."
    unknown = sorted(set(os.listdir(os.path.join(root, "src"))) - FOLDERS - {"module.cpp", "README.md"})
    problems = [f"src/{name}: not a folder check-includes.py knows (add it to ALLOWED)" for name in unknown
                if not name.endswith(".o")]
    checked = 0
    for path, allowed in sources(root):
        checked += 1
        with open(os.path.join(root, path)) as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m is None:
                    continue
                target = m.group(1)
                folder = target.split("/")[0] if "/" in target else None
                if folder not in FOLDERS:
                    # The server's headers (postgres.h, utils/rel.h) and catch2/catch.hpp are
                    # not ours; a bare .hpp name would be.
                    if "/" not in target and target.endswith(".hpp"):
                        problems.append(f"{path}:{number}: #include \"{target}\" does not name its folder")
                    continue
                if folder not in allowed:
                    problems.append(f"{path}:{number}: #include \"{target}\": {path.split('/')[-2]} may include "
                                    f"{', '.join(sorted(allowed))}, not {folder} (src/README.md, \"Folders\")")
    for p in problems:
        print(f"check-includes: {p}")
    if problems:
        return 1
    if "-v" in sys.argv:
        print(f"check-includes: {checked} files, every include follows the folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
