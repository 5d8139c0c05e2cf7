#!/usr/bin/python3
"""Exit 0 when the differences of one test in a pg_regress regression.diffs are plan shapes
only: the HotheapRead node (its line, its own properties) and plan lines that moved under
it (same text, deeper indentation), else 1 (and print the lines that differ otherwise).

Usage: plan-only-diff.py REGRESSION.DIFFS TEST
"""
import re
import sys
from collections import Counter

OURS = re.compile(r'HotheapRead|Deformed Columns:|Detoasted Once:|Read Path:')
NOISE = re.compile(r'^(\(\d+ rows?\)|-+|QUERY PLAN)$')


def normalize(line):
    text = line[1:].strip()
    text = re.sub(r'^->\s+', '', text)
    # EXPLAIN ANALYZE: a scan below the node counts the rows before the filter, which moved
    # up to the node (its "Rows Removed by Filter" line moves with it).
    if 'Scan' in text:
        text = re.sub(r'actual rows=[0-9.]+', 'actual rows=N', text)
    return text


def main():
    path, test = sys.argv[1], sys.argv[2]
    removed, added = Counter(), Counter()
    inside = False
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('diff '):
                inside = re.search(r'/%s\.out"?\s*$' % re.escape(test), line) is not None or \
                    re.search(r'/expected/%s(_\d+)?\.out' % re.escape(test), line) is not None
                continue
            if not inside or line.startswith(('---', '+++', '@@')):
                continue
            if line[:1] not in '-+':
                continue
            text = normalize(line.rstrip('\n'))
            if OURS.search(text) or NOISE.match(text):
                continue
            # The scan below the node returns whole rows: its VERBOSE output list is new.
            if line[0] == '+' and text.startswith('Output:'):
                continue
            (removed if line[0] == '-' else added)[text] += 1
    removed_only = removed - added
    added_only = added - removed
    # Outputs moved up to the node keep their text; a removed Output: line must reappear.
    if not removed_only and not added_only:
        return 0
    shown = [('  - ' + t) for t in sorted(removed_only.elements())] + \
        [('  + ' + t) for t in sorted(added_only.elements())]
    print('\n'.join(line[:200] for line in shown[:40]))
    return 1


if __name__ == '__main__':
    sys.exit(main())
