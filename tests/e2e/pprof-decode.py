#!/usr/bin/env python3
"""Decode a gzip-compressed pprof profile independently of our protobuf-c
code and print a JSON digest for pprof.sh: string_table[0], sample types,
per-type totals, functions per stack, locations with inline lines, mappings
with build-ids, label keys.

    pprof-decode.py PROFILE.pb.gz PROTO_DIR

The decoding is protoc's (protobuf-compiler: `protoc --decode` against the
profile.proto in PROTO_DIR, upstream's from golang-github-google-pprof-dev
where installed); this script only reads protoc's text format.
"""
import gzip
import json
import re
import subprocess
import sys

ESC = {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', "'": b"'", '\\': b'\\',
       'a': b'\a', 'b': b'\b', 'f': b'\f', 'v': b'\v', '?': b'?'}


def unquote(s):
    """A text-format string literal (C escapes, octal bytes) -> str."""
    assert s[0] == '"' and s[-1] == '"', s
    s, out, i = s[1:-1], bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != '\\':
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n in '01234567':
            m = re.match(r'[0-7]{1,3}', s[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
        elif n == 'x':
            m = re.match(r'[0-9a-fA-F]{1,2}', s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            out += ESC[n]
            i += 2
    return out.decode('utf-8', 'replace')


def parse(lines):
    """protoc's text format (one field per line) -> {field: [values]}."""
    stack = [{}]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line == '}':
            stack.pop()
        elif line.endswith('{'):
            msg = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(msg)
            stack.append(msg)
        else:
            key, val = line.split(':', 1)
            val = val.strip()
            val = unquote(val) if val.startswith('"') else int(val) if re.fullmatch(r'-?\d+', val) else val
            stack[-1].setdefault(key, []).append(val)
    if len(stack) != 1:
        raise ValueError('unbalanced braces in protoc output')
    return stack[0]


def one(msg, key, default=0):
    return msg.get(key, [default])[0]


def main():
    path, proto_dir = sys.argv[1], sys.argv[2]
    with gzip.open(path, 'rb') as f:
        raw = f.read()
    text = subprocess.run(['protoc', '--decode=perftools.profiles.Profile',
                           '--proto_path=' + proto_dir, 'profile.proto'],
                          input=raw, stdout=subprocess.PIPE, check=True).stdout
    p = parse(text.decode('utf-8').splitlines())
    st = p.get('string_table', [])
    funcs = {one(f, 'id'): f for f in p.get('function', [])}
    locs = {one(loc, 'id'): loc for loc in p.get('location', [])}

    def fname(ln):
        return st[one(funcs[one(ln, 'function_id')], 'name')]

    types = p.get('sample_type', [])
    totals = [0] * len(types)
    stacks, labels = [], []
    for smp in p.get('sample', []):
        for i, v in enumerate(smp.get('value', [])):
            totals[i] += v
        names = []
        for lid in smp.get('location_id', []):
            if lid not in locs:
                raise ValueError('sample refers to missing location %d' % lid)
            names += [fname(ln) for ln in locs[lid].get('line', [])]
        stacks.append(';'.join(names))
        for lab in smp.get('label', []):
            k = st[one(lab, 'key')]
            if k not in labels:
                labels.append(k)
    print(json.dumps({
        'string0': st[0] if st else None,
        'types': [st[one(t, 'type')] + '/' + st[one(t, 'unit')] for t in types],
        'totals': totals,
        'stacks': stacks,
        'inline': [[fname(ln) + ':' + str(one(ln, 'line')) for ln in loc['line']]
                   for loc in p.get('location', []) if len(loc.get('line', [])) > 1],
        'mappings': [{'file': st[one(m, 'filename')], 'build_id': st[one(m, 'build_id')],
                      'start': one(m, 'memory_start')} for m in p.get('mapping', [])],
        'labels': labels,
    }))


if __name__ == '__main__':
    main()
