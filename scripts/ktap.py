#!/usr/bin/python3
"""Flatten nested TAP/KTAP into one line per test case.

    ktap.py FILE

FILE is a kselftest runner's output (nesting shown by "# " prefixes) or a
kernel log with KUnit's results (nesting shown by four-space indents; the
printk timestamps are dropped). Prints one line per case that has no
subtests:

    RESULT<TAB>PATH<TAB>DETAIL

RESULT is PASS, FAIL or SKIP; PATH joins the names from the outermost
test down with " / "; DETAIL is the directive (a skip's reason). Also FAIL:
a test that printed fewer or more results than its plan, a "Bail out!",
a test that failed although each of its cases passed, and cases whose
parent never printed its own result (a run cut short).
"""
import re
import sys

STAMP = re.compile(r'^\[\s*[0-9.]+\] ')
RESULT = re.compile(r'^(not ok|ok) [0-9]+(?: -)?(?: (.*?))?'
                    r'(?: # *(.*))?$')
PLAN = re.compile(r'^1\.\.([0-9]+)(?: # *(.*))?$')
VERSION = re.compile(r'^K?TAP version [0-9]+$')


def depth_of(line):
    """The nesting depth of LINE and what is left of it."""
    depth = 0
    while True:
        if line.startswith('    '):
            line = line[4:]
        elif line.startswith('# '):
            line = line[2:]
        elif line == '#':
            line = ''
        else:
            return depth, line
        depth += 1


class Parser:
    def __init__(self):
        self.kids = {}      # depth -> [(status, name, detail, subtests)]
        self.plans = {}     # depth -> (count, directive)
        self.names = {}     # depth -> name the runner announced

    def close(self, depth):
        """The results at DEPTH and below, checked against their plans."""
        for d in sorted([d for d in self.kids if d > depth], reverse=True):
            orphans = self.kids.pop(d)
            self.check_plan(d, orphans)
            self.kids.setdefault(d - 1, []).append(
                ('FAIL', self.names.pop(d - 1, '(no result line)'),
                 'cut short', orphans))
        kids = self.kids.pop(depth, [])
        self.check_plan(depth, kids)
        return kids

    def check_plan(self, depth, kids):
        plan = self.plans.pop(depth, None)
        if plan is None:
            return
        count, directive = plan
        if count == 0 and directive.upper().startswith('SKIP'):
            kids.append(('SKIP', '(all)', directive[4:].strip(), []))
        elif count != len(kids):
            kids.append(('FAIL', '(plan)',
                         f'{count} planned, {len(kids)} reported', []))

    def line(self, raw):
        depth, line = depth_of(STAMP.sub('', raw.rstrip('\n')))
        if VERSION.match(line):
            if depth == 0:
                self.flush()
            return
        if depth and line.startswith('selftests: '):
            self.names[depth - 1] = line
            return
        m = PLAN.match(line)
        if m:
            self.plans[depth] = (int(m.group(1)), m.group(2) or '')
            return
        if line.startswith('Bail out!'):
            self.kids.setdefault(depth, []).append(
                ('FAIL', 'Bail out!', line[9:].strip(), []))
            return
        m = RESULT.match(line)
        if not m:
            return
        directive = (m.group(3) or '').strip()
        if m.group(1) == 'not ok':
            status = 'FAIL'
        elif directive.upper().startswith('SKIP'):
            status = 'SKIP'
            directive = directive[4:].strip()
        else:
            status = 'PASS'
        subtests = self.close(depth + 1)
        self.names.pop(depth, None)
        self.kids.setdefault(depth, []).append(
            (status, (m.group(2) or '').strip(), directive, subtests))

    def flush(self):
        for test in self.close(0):
            self.emit(test, [])

    def emit(self, test, path):
        status, name, detail, subtests = test
        path = path + [name]
        for sub in subtests:
            self.emit(sub, path)
        if not subtests or status == 'SKIP' or (
                status == 'FAIL' and (detail.startswith('TIMEOUT') or
                                      all(s[0] != 'FAIL' for s in subtests))):
            if subtests and status == 'FAIL':
                detail = detail or 'failed, though each of its cases passed'
            print(f'{status}\t{" / ".join(path)}\t{detail}')


def main():
    parser = Parser()
    with open(sys.argv[1], errors='replace') as f:
        for raw in f:
            parser.line(raw)
    parser.flush()


if __name__ == '__main__':
    main()
