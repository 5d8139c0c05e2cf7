#!/usr/bin/env python3
"""Each alternative expected file differs from its base only where it exists to.

pg_regress accepts expected/NAME_N.out in place of expected/NAME.out. An alternative is
only compared when a run produces it (another server version, debug_discard_caches), so a
change to the base that the alternative does not follow goes unseen until such a run.

The rule: beside each alternative expected/NAME_N.out, expected/NAME_N.hunks records why
it exists (its "#" lines) and the hunks by which it differs from expected/NAME.out (a
unified diff without context, as this script writes it). The check compares the hunks of
today's diff (difflib, no context) with the recorded ones, by their lines only (not their
line numbers, which move whenever the base gains or loses lines elsewhere): a hunk in the
diff that is not recorded is a change to the base (or the alternative) outside the
alternative's own lines, not made in both; a recorded hunk that is gone is one of the
alternative's own differences changed or lost. Either fails, naming the file and the hunk.

    python3 scripts/check-alternatives.py              # check; ends "N passed, N failed"
    python3 scripts/check-alternatives.py --record expected/read_path_1.out
        # after changing an alternative's own differences on purpose: rewrite its .hunks
        # (the "#" lines kept)
    python3 scripts/check-alternatives.py --root DIR   # the tree at DIR (default: this one)

Each alternative is one check. Exits non-zero on a failure.
"""
import argparse
import difflib
import os
import re
import sys

ALTERNATIVE = re.compile(r'^(?P<base>.+)_[0-9]+\.out$')


def read_lines(path):
    with open(path, encoding='utf-8') as f:
        return f.read().splitlines()


def hunks(base_lines, alt_lines, base_name, alt_name):
    """The diff's hunks without context: each (header, [lines starting "-" or "+"])."""
    out = []
    diff = difflib.unified_diff(base_lines, alt_lines, base_name, alt_name, n=0, lineterm='')
    for line in diff:
        if line.startswith('---') or line.startswith('+++'):
            if not out:
                continue
        if line.startswith('@@'):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    return out


def recorded_hunks(path):
    """The "#" lines and the hunks of a .hunks file."""
    comments, out = [], []
    for line in read_lines(path):
        if line.startswith('#') and not out:
            comments.append(line)
        elif line.startswith('@@'):
            out.append((line, []))
        elif out and line[:1] in ('-', '+'):
            out[-1][1].append(line)
    return comments, out


def show(hunk):
    return '\n'.join('      ' + line for line in [hunk[0]] + hunk[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--record', metavar='EXPECTED_N_OUT', nargs='+')
    args = ap.parse_args()
    os.chdir(args.root)

    if args.record:
        for alt in args.record:
            m = ALTERNATIVE.match(alt)
            if not m:
                sys.exit(f'check-alternatives: {alt} is not an alternative (NAME_N.out)')
            base, record = m['base'] + '.out', alt[:-len('.out')] + '.hunks'
            comments = recorded_hunks(record)[0] if os.path.exists(record) else [
                f'# Why {alt} exists beside {base}: (say it here)']
            with open(record, 'w', encoding='utf-8') as f:
                for line in comments:
                    f.write(line + '\n')
                f.write(f'--- {base}\n+++ {alt}\n')
                for header, lines in hunks(read_lines(base), read_lines(alt), base, alt):
                    f.write('\n'.join([header] + lines) + '\n')
            print(f'check-alternatives: wrote {record}')
        return 0

    passed = failed = 0
    alternatives = sorted(f for f in os.listdir('expected') if ALTERNATIVE.match(f))
    for name in alternatives:
        alt = 'expected/' + name
        base = 'expected/' + ALTERNATIVE.match(name)['base'] + '.out'
        record = alt[:-len('.out')] + '.hunks'
        problems = []
        if not os.path.exists(base):
            problems.append(f'no base file {base}')
        elif not os.path.exists(record):
            problems.append(f'no {record} recording its hunks '
                            f'(python3 scripts/check-alternatives.py --record {alt})')
        else:
            actual = hunks(read_lines(base), read_lines(alt), base, alt)
            recorded = recorded_hunks(record)[1]
            # Matched by their lines, in order; what is left over on either side is reported.
            sm = difflib.SequenceMatcher(a=[tuple(h[1]) for h in recorded], b=[tuple(h[1]) for h in actual],
                                         autojunk=False)
            for tag, i1, i2, j1, j2 in sm.get_opcodes():
                if tag == 'equal':
                    continue
                for h in actual[j1:j2]:
                    problems.append(f'{h[0]} of the diff against {base} is not in {record} (the '
                                    f'base changed here and the alternative did not, or the other '
                                    f'way round):\n{show(h)}')
                for h in recorded[i1:i2]:
                    problems.append(f'{h[0]} recorded in {record} is not in the diff against '
                                    f'{base} (one of its own differences changed):\n{show(h)}')
        if problems:
            failed += 1
            for p in problems:  # the first line names the file and the hunk
                print(f'FAIL {alt}: {p}')
        else:
            passed += 1
            print(f'ok   {alt} ({base} + the {len(recorded)} hunks of {record})')
    if failed:
        print('check-alternatives: update the alternative as its base changed, or, if its own '
              'differences changed on purpose, python3 scripts/check-alternatives.py --record FILE')
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
