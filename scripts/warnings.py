#!/usr/bin/python3
"""Compiler warnings per object across the builds of 'make series-check'.

    warnings.py DB LOG PREFIX

LOG is the output of one kbuild run (not silent, with --output-sync, so
that each object's "  CC  path.o" line comes right before its warnings).
DB (JSON) holds, for every object built so far, the warnings of its last
build, with line and column numbers and PREFIX (the tree's path) cut. For
each object LOG built, prints the warnings it has now that its last build
did not, then records its new warnings in DB. Exits 1 if it printed any.
An object that LOG did not rebuild keeps its earlier warnings.
"""

import collections
import json
import os
import re
import sys

OBJECT = re.compile(r"^\s+(?:CC|CC \[M\]|AS|AS \[M\]|LD|AR|HOSTCC)\s+(\S+)$")
WARNING = re.compile(r"^(\S+?):\d+:(?:\d+:)? warning: (.*)$")


def parse(log, prefix):
    """The warnings of each object the log built, as lists of lines."""
    built = collections.defaultdict(list)
    obj = None
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = OBJECT.match(line)
            if m:
                obj = m.group(1)
                built[obj]
                continue
            m = WARNING.match(line)
            if m and obj:
                path = m.group(1)
                if path.startswith(prefix):
                    path = path[len(prefix):].lstrip("/")
                built[obj].append(f"{path}: warning: {m.group(2)}")
    return built


def main():
    db_path, log, prefix = sys.argv[1:4]
    db = {}
    if os.path.exists(db_path):
        with open(db_path, encoding="utf-8") as f:
            db = json.load(f)
    new = 0
    for obj, warnings in sorted(parse(log, prefix).items()):
        added = collections.Counter(warnings) - collections.Counter(db.get(obj, []))
        for warning in sorted(added.elements()):
            print(f"{obj}: {warning}")
            new += 1
        db[obj] = warnings
    with open(db_path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(db, f, indent=0, sort_keys=True)
    os.replace(db_path + ".tmp", db_path)
    sys.exit(1 if new else 0)


if __name__ == "__main__":
    main()
