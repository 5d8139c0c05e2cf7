#!/usr/bin/env python3
"""Each function's instructions per unit of work, from two profiles bench/instructions.py kept
(--keep-profiles DIR): PREFIX.1 ran n units, PREFIX.2 ran 2n, so (cost in .2 - cost in .1) / n
is the function's cost per unit with the session's fixed costs cancelled, as instructions.py
does for the total.

    /usr/bin/python3 bench/profile_units.py DIR/small_hotheap 200 [--inclusive] [--top 40]
    /usr/bin/python3 bench/profile_units.py DIR/ctl_short_hotheap 4000 --against DIR/ctl_short_heap

--against: a second prefix (same n); shows both and the difference, largest differences first.
Reads the profiles with callgrind_annotate (Valgrind's).
"""
import argparse
import re
import subprocess

LINE = re.compile(r'^\s*([\d,]+)\s+\([^)]*\)\s+(?:\* )?(.*?)(?:\s+\[[^\]]*\])?$')
FILE_PREFIX = re.compile(r'^[^\s:]*:(?!:)')  # "???:" or "./path/file.c:", not "ns::"


def costs(path, inclusive):
    """function -> instructions, from callgrind_annotate's function table."""
    out = subprocess.run(['callgrind_annotate', f'--inclusive={"yes" if inclusive else "no"}',
                          '--threshold=100', '--auto=no', path],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    start = next(i for i, line in enumerate(out) if line.rstrip().endswith('file:function')) + 2
    result = {}
    for line in out[start:]:
        if not line.strip():
            break
        m = LINE.match(line)
        if m:
            name = FILE_PREFIX.sub('', m.group(2))
            result[name] = result.get(name, 0) + int(m.group(1).replace(',', ''))
    return result


def per_unit(prefix, units, inclusive):
    one, two = costs(f'{prefix}.1', inclusive), costs(f'{prefix}.2', inclusive)
    return {f: (two.get(f, 0) - one.get(f, 0)) / units for f in set(one) | set(two)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('prefix')
    ap.add_argument('units', type=int, help='n: the units of work of PREFIX.1')
    ap.add_argument('--against', help='a second prefix, shown beside and subtracted')
    ap.add_argument('--inclusive', action='store_true', help="a function's callees included")
    ap.add_argument('--top', type=int, default=40)
    args = ap.parse_args()

    a = per_unit(args.prefix, args.units, args.inclusive)
    if not args.against:
        for f, v in sorted(a.items(), key=lambda kv: -abs(kv[1]))[:args.top]:
            print(f'{v:12.1f}  {f}')
        return
    b = per_unit(args.against, args.units, args.inclusive)
    print(f'{"this":>12} {"against":>12} {"diff":>12}  function')
    rows = [(a.get(f, 0), b.get(f, 0), f) for f in set(a) | set(b)]
    for x, y, f in sorted(rows, key=lambda r: -abs(r[0] - r[1]))[:args.top]:
        print(f'{x:12.1f} {y:12.1f} {x - y:+12.1f}  {f}')


if __name__ == '__main__':
    main()
