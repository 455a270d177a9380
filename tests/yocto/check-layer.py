#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of meta-imgpatch that need no BitBake.

check-layer.py LAYER [--expected FILE]...
    Every shell function of the layer's recipes and classes passes
    `dash -n` and `bash -n` (BitBake runs them with /bin/sh) and uses none
    of the constructs BitBake's shell parser (bb/pysh, which reads every
    shell function to find the commands it runs) refuses. Then, for each
    FILE (what `bitbake -e imgpatch` printed, kept by ci/yocto-check.sh), the
    recipe's own value of every variable FILE lists is found in BitBake's:
    ${...} in the recipe's value stands for any text.

check-layer.py LAYER --emit FUNC [--var NAME=VALUE]... [--prelude FILE]
    Prints FUNC of the class (IMAGE_CMD:wic:append) and the class's shell
    functions, as a script with ${NAME} expanded the way BitBake does
    before it runs a shell task: the prelude, the functions, then FUNC's
    body.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# What bb/pysh does not take (tried with the bb/pysh of BitBake 2.8 and
# 2.18): pyshlex only knows $( and ${ after a $ (so $(( fails); pyshyacc
# raises NotImplementedError for a for loop without "in", for redirections
# after a function body and for "&" inside a compound command (an if, a
# loop; rejected here anywhere), and has no "select". Bash-only syntax that
# pysh takes ([[ ]], (( ))) is left to dash -n.
PYSH_REFUSES = [
    (re.compile(r'\$\(\('), 'arithmetic expansion $(( )): use $(expr ...)'),
    (re.compile(r'^\s*for\s+\w+\s*(;\s*)?(do\b|$)'),
     'a for loop without "in": BitBake\'s shell parser needs "in WORDS"'),
    (re.compile(r'^\}\s*[<>]'), 'a redirection after a function body'),
    (re.compile(r'(^|[^&|>])&\s*($|#|;|\})'), 'a command run in the background with "&"'),
    (re.compile(r'^\s*select\s'), '"select"'),
]

ASSIGN = re.compile(r'^(?:export\s+)?([A-Za-z0-9_${}:/.+-]+)\s*(\?\?=|\?=|:=|\+=|=\+|\.=|=\.|=)\s*"(.*)"\s*$', re.S)
FUNC = re.compile(r'^(?:fakeroot\s+)?([A-Za-z0-9_${}:.-]+)\s*\(\)\s*\{\s*$')


def logical_lines(path):
    """(line number, text) of each line, continuations joined."""
    out, buf, start = [], '', 0
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not buf:
                start = n
            if line.endswith('\\'):
                buf += line[:-1]
                continue
            out.append((start, buf + line))
            buf = ''
    return out


def shell_functions(path):
    """{name: (line, body lines)} of the shell functions in path."""
    funcs, name, body, start = {}, None, [], 0
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if name is None:
                m = FUNC.match(line)
                if m and not line.startswith('python'):
                    name, body, start = m.group(1), [], n
            elif line.startswith('}'):
                funcs[name] = (start, body, line)
                name = None
            else:
                body.append(line)
    if name is not None:
        raise SystemExit(f'{path}:{start}: function {name} is not closed by a "}}" alone on a line')
    return funcs


def assignments(path):
    """{variable: (operator, value)} of the plain assignments in path."""
    out = {}
    for _, line in logical_lines(path):
        m = ASSIGN.match(line)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


def layer_files(layer):
    for top, _, files in sorted(os.walk(layer)):
        for f in sorted(files):
            if f.endswith(('.bb', '.bbappend', '.bbclass')):
                yield os.path.join(top, f)


def check_shell(layer):
    errors = []
    for path in layer_files(layer):
        rel = os.path.relpath(path, layer)
        for name, (start, body, end) in shell_functions(path).items():
            script = 'f() {\n' + '\n'.join(body) + '\n}\n'
            for shell in ('dash', 'bash'):
                with tempfile.NamedTemporaryFile('w', suffix='.sh') as t:
                    t.write(script)
                    t.flush()
                    r = subprocess.run([shell, '-n', t.name], capture_output=True, text=True)
                if r.returncode:
                    errors.append(f'{rel}:{start}: shell function {name} does not pass "{shell} -n": '
                                  + r.stderr.strip().replace(t.name, name))
            for i, line in enumerate(body + [end]):
                code = re.sub(r"'[^']*'", "''", line.split(' #')[0])
                for pattern, why in PYSH_REFUSES:
                    if pattern.search(code):
                        errors.append(f'{rel}:{start + 1 + i}: shell function {name}: '
                                      f'BitBake cannot parse {why}')
    return errors


def value_pattern(value):
    """A regex for what BitBake makes of value: each ${...} is any text."""
    out, i = '', 0
    while i < len(value):
        if value.startswith('${', i):
            depth, j = 0, i
            while j < len(value):
                if value[j] == '{':
                    depth += 1
                elif value[j] == '}':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out += '.*'
            i = j + 1
        else:
            out += re.escape(value[i])
            i += 1
    return out


def check_expected(layer, expected):
    recipe = os.path.join(layer, 'recipes-devtools/imgpatch/imgpatch_git.bb')
    mine = {re.sub(r':(append|prepend)$', '', k.replace('${PN}', 'imgpatch')): v
            for k, v in assignments(recipe).items()}
    errors, checked = [], 0
    have = {}
    for n, line in enumerate(open(expected, encoding='utf-8'), 1):
        if line.startswith('#') or not line.strip():
            continue
        m = re.match(r'^([^=]+)="(.*)"$', line.rstrip('\n'))
        if not m:
            errors.append(f'{expected}:{n}: not NAME="VALUE"')
            continue
        have[m.group(1)] = m.group(2)
    for var, value in have.items():
        if var not in mine:
            errors.append(f'{os.path.basename(expected)}: {var}: the recipe does not set it')
            continue
        op, text = mine[var]
        if not re.search(value_pattern(text), value):
            errors.append(f'{os.path.basename(expected)}: {var}: the recipe has {op} "{text}", '
                          f'bitbake -e printed "{value}"')
        checked += 1
    for var in ('SUMMARY', 'LICENSE', 'LIC_FILES_CHKSUM', 'SRC_URI', 'IMGPATCH_SRCREV', 'DEPENDS', 'PV'):
        if var not in have:
            errors.append(f'{os.path.basename(expected)}: has no {var}')
    return errors, checked


def expand(text, values):
    def one(m):
        name = m.group(1)
        if name not in values:
            raise SystemExit(f'--emit: no --var for ${{{name}}}')
        return values[name]
    prev = None
    while prev != text:
        prev, text = text, re.sub(r'\$\{([A-Za-z0-9_]+)\}', one, text)
    return text


def emit(layer, func, pairs, prelude):
    cls = os.path.join(layer, 'classes/imgpatch.bbclass')
    values = {k: v for k, (_, v) in assignments(cls).items()}
    for pair in pairs:
        k, _, v = pair.partition('=')
        values[k] = v
    funcs = shell_functions(cls)
    if func not in funcs:
        raise SystemExit(f'--emit: the class has no shell function {func}')
    out = []
    if prelude:
        out.append(open(prelude, encoding='utf-8').read())
    for name, (_, body, _) in funcs.items():
        if name != func:
            out.append(f'{name}() {{\n' + expand('\n'.join(body), values) + '\n}\n')
    out.append(expand('\n'.join(funcs[func][1]), values) + '\n')
    sys.stdout.write('\n'.join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('layer')
    ap.add_argument('--expected', action='append', default=[])
    ap.add_argument('--emit')
    ap.add_argument('--var', action='append', default=[])
    ap.add_argument('--prelude')
    a = ap.parse_args()
    if a.emit:
        emit(a.layer, a.emit, a.var, a.prelude)
        return 0
    errors = check_shell(a.layer)
    nfuncs = sum(len(shell_functions(p)) for p in layer_files(a.layer))
    summary = [f'{nfuncs} shell functions pass dash -n, bash -n and the BitBake shell parser check']
    for e in a.expected:
        errs, n = check_expected(a.layer, e)
        errors += errs
        summary.append(f'{n} variables match {os.path.basename(e)}')
    for e in errors:
        print(f'{os.path.basename(a.layer)}: {e}', file=sys.stderr)
    if errors:
        return 1
    print(f'{os.path.basename(a.layer)}: ' + '; '.join(summary))
    return 0


if __name__ == '__main__':
    sys.exit(main())
