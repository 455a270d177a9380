#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks how the library's files include its headers.

    includes.py REPO MAX_LINES

Prints one line per problem, nothing when there is none:
  - a header of tool/lib/ that declares nothing of its own (only includes
    others: a catch-all);
  - a file of tool/lib/, tests/unit/ or tests/fuzz/ that includes a header
    of tool/lib/ of which it uses no name (it includes more than it uses);
  - a folder header (tool/lib/FOLDER/*.h) longer than MAX_LINES lines.

A header's names are what it declares: a function, a struct, enum or
union it defines, an enum constant, a typedef, an extern object or a
macro with a value. They are found by reading the text, comments
removed, as the tree's own layout writes declarations (at the start of a
line). A file uses a header when it names one of them; imgpatch.h, which
every internal header starts from, is not held to this.
"""
import os
import re
import sys


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text,
                  flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def declared(text):
    text = strip_comments(text)
    # Macros with a value or parameters: an include guard declares nothing.
    names = set(re.findall(r'^#\s*define\s+(\w+)[ (\t]+\S', text, re.M))
    names |= set(re.findall(r'^(?:typedef\s+)?(?:struct|enum|union)\s+(\w+)\s*\{', text, re.M))
    for body in re.findall(r'^(?:typedef\s+)?enum[^{;]*\{(.*?)\}', text, re.M | re.S):
        names |= set(re.findall(r'^\s*([A-Za-z_]\w*)', body, re.M))
        names |= set(re.findall(r'[{,]\s*([A-Za-z_]\w*)', body))
    names |= set(re.findall(r'^typedef[^;]*?\(\s*\*\s*(\w+)\s*\)', text, re.M))
    names |= set(re.findall(r'^typedef[^;(]*\b(\w+)\s*;', text, re.M))
    names |= set(re.findall(r'^\}\s*(\w+)\s*;', text, re.M))
    names |= set(re.findall(r'^extern[^;(]*\b(\w+)\s*(?:\[\w*\])?;', text, re.M))
    for line in text.split('\n'):
        if not line or line[0].isspace() or line.startswith(('#', '}', 'typedef', 'extern')):
            continue
        m = re.search(r'\b([A-Za-z_]\w*)\s*\(', line)
        if m and not re.search(r'\(\s*\*\s*\w', line):
            names.add(m.group(1))
    return names


def used(text):
    return set(re.findall(r'\b([A-Za-z_]\w*)\b', strip_comments(text)))


def main():
    repo, max_lines = sys.argv[1], int(sys.argv[2])
    lib = os.path.join(repo, 'tool', 'lib')
    headers = {}
    for folder, _, files in os.walk(lib):
        for f in files:
            if f.endswith('.h'):
                path = os.path.join(folder, f)
                with open(path) as fh:
                    headers[os.path.relpath(path, lib)] = fh.read()
    names = {h: declared(t) for h, t in headers.items()}
    problems = []
    for h, text in sorted(headers.items()):
        if not names[h]:
            problems.append(f'tool/lib/{h}: declares nothing of its own (a catch-all header)')
        n = text.count('\n')
        if '/' in h and n > max_lines:
            problems.append(f'tool/lib/{h}: {n} lines, more than {max_lines}')
    dirs = [lib, os.path.join(repo, 'tests', 'unit'), os.path.join(repo, 'tests', 'fuzz')]
    for top in dirs:
        for folder, _, files in os.walk(top):
            for f in sorted(files):
                if not f.endswith(('.c', '.h')):
                    continue
                path = os.path.join(folder, f)
                with open(path) as fh:
                    text = fh.read()
                uses = used(text)
                for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
                    for base in (folder, lib):
                        rel = os.path.relpath(os.path.normpath(os.path.join(base, inc)), lib)
                        if rel in headers:
                            break
                    else:
                        continue
                    if rel != 'imgpatch.h' and not names[rel] & uses:
                        problems.append(f'{os.path.relpath(path, repo)}: includes {inc}, uses none of its names')
    for p in problems:
        print(p)


if __name__ == '__main__':
    main()
