#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the library's folders call each other in one direction.

    layers.py BUILD_DIR README [REPO]

README (tool/README.md) writes the order of the folders of tool/lib/ on
one indented line, lowest first: "core < part < ... < job"; folders
joined by "," are peers, which may not call each other. Reads the
symbols of every object BUILD_DIR/tool/lib/FOLDER/*.o (nm) and prints one
line per reference that goes against the order, naming the object, the
symbol and the object that defines it; prints a folder of tool/lib/ that
the order does not list. Nothing when all is well. With REPO, an object
whose source REPO/tool/lib/FOLDER/NAME.c is gone (a build left from
before a file moved) is not read.
"""
import glob
import os
import subprocess
import sys


def main():
    build, readme = sys.argv[1], sys.argv[2]
    level = {}
    with open(readme) as fh:
        lines = [l.strip() for l in fh if l.startswith('    core < ')]
    if len(lines) != 1:
        sys.exit(f'{readme}: no one line "    core < ..." giving the order')
    for n, peers in enumerate(lines[0].split('<')):
        for folder in peers.split(','):
            level[folder.strip()] = n
    objects = sorted(glob.glob(os.path.join(build, 'tool', 'lib', '*', '*.o')))
    if len(sys.argv) > 3:
        objects = [o for o in objects
                   if os.path.exists(os.path.join(sys.argv[3], os.path.relpath(o, build))[:-2] + '.c')]
    defined, undefined = {}, []
    problems = []
    for obj in objects:
        folder = os.path.basename(os.path.dirname(obj))
        name = f'{folder}/{os.path.basename(obj)}'
        if folder not in level:
            problems.append(f'{name}: folder {folder} is not in the order')
            continue
        out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] in 'TDRBVW':
                defined[fields[2]] = name
            elif len(fields) == 2 and fields[0] == 'U':
                undefined.append((name, fields[1]))
    for name, sym in undefined:
        if sym not in defined:
            continue
        user, owner = name.split('/')[0], defined[sym].split('/')[0]
        if user != owner and level[owner] >= level[user]:
            problems.append(f'{name}: calls {sym} of {defined[sym]}, '
                            f'which {user}/ may not call')
    for p in sorted(set(problems)):
        print(p)


if __name__ == '__main__':
    main()
