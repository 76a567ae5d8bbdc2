#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kdoc_plain.py [--check] PAGE < kernel-doc-output: fill PAGE's blocks.

The kernel's scripts/kernel-doc -rst writes for Sphinx: each item opens
with a C-domain directive (".. c:function::", ".. c:struct::",
".. c:union::", ".. c:enum::", ".. c:macro::", ".. c:type::") and cross
references are roles (":c:type:`struct foo <foo>`", ":c:func:", ":ref:").
Plain docutils, which is all cmstat promises (and what GitHub renders),
rejects all of that.  This filter turns each item into plain
reStructuredText, keeping all of its content:

* the directive becomes a section titled with the name in ``literal``
  ("``cmstat_alloc()``", "``struct cmstat_heap_stats``"), underlined with
  "~", so every item has an id other pages can link to
  (api.rst#cmstat-alloc, api.rst#struct-cmstat-heap-stats);
* a function's or function-like macro's signature follows as a C code
  block, tidied and wrapped at 80 columns the way the kernel writes
  prototypes;
* the directive's indented body (the one-line purpose) becomes a plain
  paragraph, and sections kernel-doc indents without a container (a macro
  without parameters) are put in one, as it does for functions;
* every role becomes ``literal`` text of what it displays.

PAGE is the hand-written page with blocks like

    .. kernel-doc: cmstat_heap_create cmstat_heap_destroy
       cmstat_heap_name

    (anything: replaced)

    .. end kernel-doc

(rst comments, so the page renders before and after); each block gets
the named items, in that order.  The page is written to standard output.
It fails, rather than produce a page that quietly lacks something, when a
block names an item kernel-doc did not document, when a documented item
is in no block (a new API function must be placed on the page), or when
kernel-doc emits a Sphinx construct this filter does not know.

With --check, it writes nothing: it only fails as above.  That is how
scripts/docs.sh check holds Documentation/api.rst, whose blocks hold a
hand-written index of their items, to naming every documented item once;
without --check, scripts/docs.sh api renders the whole reference from the
same page.
"""

import re
import sys

DIRECTIVE = re.compile(r'^\.\. c:(function|struct|union|enum|macro|type)::\s*(.*?)\s*$')
# Anything else that only Sphinx understands: a C-domain directive we do not
# convert, DOC: section labels, kernel-doc -enable-lineno markers.
SPHINX_ONLY = re.compile(r'^\s*\.\. (c:\w+::|_[^:]*:\s*$|LINENO\b)')
ROLE = re.compile(r':(?:c:\w+|ref|doc|any):`((?:[^`\\]|\\.)+)`')
BLOCK_START = re.compile(r'^\.\. kernel-doc:\s*(.*)$')
BLOCK_END = '.. end kernel-doc'
WIDTH = 80


def fail(msg):
    sys.exit('kdoc_plain: ' + msg)


def literal_role(m):
    """A role as ``literal``: its display text, without rst escapes."""
    text = m.group(1)
    # "display <target>": only the display text is shown.
    target = re.match(r'^(.*?)\s*<[^<>]*>$', text, re.S)
    if target and target.group(1):
        text = target.group(1)
    # Inside ``literal`` backslashes are literal, so drop the escapes that
    # kernel-doc added for the role (cmstat_foo\(\)).
    return '``' + re.sub(r'\\(.)', r'\1', text) + '``'


def prototype(sig, name):
    """'void * foo (int a, int b)' -> 'void *foo(int a, int b)', wrapped."""
    at = re.search(r'\b%s\b' % re.escape(name), sig)
    if not at:
        return sig
    ret = sig[:at.start()].rstrip()
    stars = re.search(r'\s*(\**)$', ret)
    ret = ret[:stars.start()]
    head = (ret + ' ' if ret else '') + stars.group(1) + name
    args = sig[at.end():].strip()
    line = head + args
    if len(line) <= WIDTH or not args.startswith('('):
        return line
    # Kernel style: continuation lines aligned after the opening parenthesis.
    params = [p.strip() for p in args[1:-1].split(',')]
    lines, cur = [], head + '(' + params[0]
    indent = ' ' * (len(head) + 1)
    for p in params[1:]:
        if len(cur) + 2 + len(p) + 1 > WIDTH:
            lines.append(cur + ',')
            cur = indent + p
        else:
            cur += ', ' + p
    lines.append(cur + ')')
    return '\n'.join(lines)


def split_items(lines):
    """Cut kernel-doc's output at each C-domain directive."""
    items, cur = [], None
    for line in lines:
        if DIRECTIVE.match(line):
            cur = [line]
            items.append(cur)
        elif cur is not None:
            cur.append(line)
        elif line.strip():
            fail('text before the first item: %r' % line)
    return items


def convert(item):
    """One kernel-doc item -> (name, plain rst lines)."""
    kind, arg = DIRECTIVE.match(item[0]).groups()
    rest = item[1:]
    sig = None
    if kind == 'function':
        m = re.search(r'(\w+)\s*\(', arg)
        if not m:
            fail('cannot find the name in %r' % arg)
        name = m.group(1)
        title = name + '()'
        sig = prototype(arg, name)
    elif kind == 'macro':
        name = title = arg
        # kernel-doc prints the macro's signature as a ``literal`` line
        # after the directive; a parameterless macro's is just its name.
        i = 0
        while i < len(rest) and not rest[i].strip():
            i += 1
        m = re.match(r'^``(.*)``$', rest[i]) if i < len(rest) else None
        if m:
            rest = rest[i + 1:]
            if m.group(1) != name:
                sig = '#define ' + m.group(1)
                title = name + '()'
    else:
        # struct, union, enum; "type" is a typedef.
        name = arg.split()[-1]
        title = arg if kind == 'type' else kind + ' ' + name

    # The directive's body, which Sphinx shows beside the signature: the
    # blank and indented lines after it (the purpose, or for a typedef
    # "**Typedef**: purpose").
    i = 0
    while i < len(rest) and (not rest[i].strip() or rest[i][0] == ' '):
        i += 1
    body, rest = rest[:i], rest[i:]
    # The first paragraph is the purpose.  Anything after it in the body is
    # the sections of a macro without parameters, which kernel-doc indents
    # without a container: put them in one, as it does for functions.
    start = next((j for j, ln in enumerate(body) if ln.strip()), len(body))
    stop = next((j for j in range(start, len(body)) if not body[j].strip()),
                len(body))
    purpose = [ln.strip() for ln in body[start:stop]]
    tail = body[stop:]
    if any(ln.strip() for ln in tail):
        lead = min(len(ln) - len(ln.lstrip()) for ln in tail if ln.strip())
        tail = ['.. container:: kernelindent', ''] + \
               ['  ' + ln[lead:] if ln.strip() else '' for ln in tail]
    else:
        tail = []

    out = ['``%s``' % title, '~' * (len(title) + 4), '']
    if sig:
        out += ['.. code-block:: c', '']
        out += ['   ' + ln for ln in sig.split('\n')]
        out.append('')
    out += purpose + ['']
    out += tail
    out += rest
    for ln in out:
        if SPHINX_ONLY.match(ln):
            fail('%s: markup this filter does not convert: %r'
                 % (name, ln))
    out = [ROLE.sub(literal_role, ln).rstrip() for ln in out]
    # kernel-doc leaves runs of blank lines; one is all rst needs anywhere.
    out = [ln for j, ln in enumerate(out) if ln or (j and out[j - 1])]
    while out and not out[-1]:
        out.pop()
    return name, out


def fill(page, items):
    """Replace the content of every kernel-doc block of @page."""
    out, used, i = [], [], 0
    while i < len(page):
        m = BLOCK_START.match(page[i])
        if not m:
            out.append(page[i])
            i += 1
            continue
        names = m.group(1).split()
        out.append(page[i])
        i += 1
        # Indented lines continue the comment, and the list of names.
        while i < len(page) and page[i].startswith(' ') and page[i].strip():
            names += page[i].split()
            out.append(page[i])
            i += 1
        end = i
        while end < len(page) and page[end] != BLOCK_END:
            if BLOCK_START.match(page[end]):
                break
            end += 1
        if end == len(page) or page[end] != BLOCK_END:
            fail('"%s" without "%s"' % (m.group(0), BLOCK_END))
        for name in names:
            if name not in items:
                fail('the page names %s, which kernel-doc did not document'
                     % name)
            if name in used:
                fail('the page names %s twice' % name)
            used.append(name)
            out += [''] + items[name]
        out += ['', BLOCK_END]
        i = end + 1
    missing = [n for n in items if n not in used]
    if missing:
        fail('documented but on no kernel-doc block of the page: '
             + ' '.join(missing))
    return out


def main():
    args = sys.argv[1:]
    check = args[:1] == ['--check']
    if check:
        args = args[1:]
    if len(args) != 1:
        fail('usage: kdoc_plain.py [--check] PAGE < kernel-doc-output')
    items = {}
    for item in split_items(sys.stdin.read().split('\n')):
        name, lines = convert(item)
        if name in items:
            fail('two items named %s' % name)
        items[name] = lines
    with open(args[0], encoding='utf-8') as f:
        page = f.read().split('\n')
    if page and page[-1] == '':
        page.pop()
    out = fill(page, items)
    if not check:
        sys.stdout.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
