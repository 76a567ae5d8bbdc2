#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""docs_check.py ROOT: render the documentation and check its links.

Prints one KTAP document for scripts/docs.sh, two results, each after the
problems it found as diagnostics:

  ok|not ok 1 docutils strict
  ok|not ok 2 links

Rendering: every .rst under ROOT/Documentation goes through plain docutils
(the html5 writer), the only renderer cmstat promises, and GitHub's.  Any
system message fails, down to INFO, which is what rst2html5 --strict
halts on (an unknown directive, such as Sphinx's toctree, is an INFO and
an ERROR); unlike --strict this goes on and lists every message of every
page.  One process renders all pages: docutils' start-up, not the pages,
is what costs.

Links: every relative href in the rendered pages, and every link in
README.md, must name an existing file or directory (relative to the page),
and a #fragment must be an id of the target page: an id docutils gave the
rendered .rst page, or the anchor GitHub gives a heading of a .md page.
Links with a scheme (https:, mailto:) are not followed.
"""

import html.parser
import io
import os
import re
import sys
import urllib.parse

import docutils
import docutils.core

MESSAGE = re.compile(r'\((DEBUG|INFO|WARNING|ERROR|SEVERE)/\d\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


class Anchors(html.parser.HTMLParser):
    """The ids and the link targets of one HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get('id'):
            self.ids.add(attrs['id'])
        if tag == 'a' and attrs.get('name'):
            self.ids.add(attrs['name'])
        if tag == 'a' and attrs.get('href') is not None:
            self.hrefs.append(attrs['href'])


def render(path):
    """Render @path; return (html, system messages)."""
    messages = io.StringIO()
    with open(path, encoding='utf-8') as f:
        source = f.read()
    out = docutils.core.publish_string(
        source, source_path=path, writer_name='html5',
        settings_overrides={
            # Reproducible: no docutils.conf of the user or the system.
            '_disable_config': True,
            'report_level': 1,
            'halt_level': 5,
            'warning_stream': messages,
            'output_encoding': 'unicode',
            'embed_stylesheet': False,
        })
    found = [ln for ln in messages.getvalue().splitlines() if MESSAGE.search(ln)]
    return out, found


def github_slugs(text):
    """The anchors GitHub gives the headings of a markdown page."""
    slugs, seen, fence = set(), {}, False
    for line in text.splitlines():
        if line.startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        slugs.add(slug if n == 0 else '%s-%d' % (slug, n))
    return slugs


def markdown_links(text):
    """(line number, target) of the links of a markdown page, outside code."""
    links, fence = [], False
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith('```'):
            fence = not fence
            continue
        if fence:
            continue
        line = re.sub(r'`[^`]*`', '', line)
        for m in re.finditer(r'\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)', line):
            links.append((no, m.group(1)))
        m = re.match(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s.*)?$', line)
        if m:
            links.append((no, m.group(1)))
    return links


def main():
    root = os.path.abspath(sys.argv[1])
    docs = os.path.join(root, 'Documentation')
    pages = sorted(os.path.join(d, f) for d, _, files in os.walk(docs)
                   for f in files if f.endswith('.rst'))

    ids, links, problems = {}, [], []
    for page in pages:
        rel = os.path.relpath(page, root)
        out, found = render(page)
        problems += found
        parser = Anchors()
        parser.feed(out)
        ids[page] = parser.ids
        links += [(rel, page, href) for href in parser.hrefs]
    if not pages:
        problems.append('no page under %s' % docs)
    print('KTAP version 1')
    print('1..2')
    result(1, 'docutils strict', [p.replace(root + os.sep, '') for p in problems],
           '%d pages, %d messages, docutils %s'
           % (len(pages), len(problems), docutils.__version__))

    readme = os.path.join(root, 'README.md')
    with open(readme, encoding='utf-8') as f:
        text = f.read()
    ids[readme] = github_slugs(text)
    links += [('README.md:%d' % no, readme, href)
              for no, href in markdown_links(text)]

    broken, between, checked = [], 0, 0
    for where, page, href in links:
        if SCHEME.match(href):
            continue
        checked += 1
        url = urllib.parse.urlsplit(href)
        path = urllib.parse.unquote(url.path)
        target = os.path.normpath(os.path.join(os.path.dirname(page), path)) \
            if path else page
        if path:
            between += 1
        if not os.path.exists(target):
            broken.append('%s: %s: no such file' % (where, href))
        elif url.fragment:
            if target not in ids:
                broken.append('%s: %s: #fragment into a file that is not a '
                              'checked page' % (where, href))
            elif urllib.parse.unquote(url.fragment) not in ids[target]:
                broken.append('%s: %s: no id "%s" in %s' % (
                    where, href, url.fragment, os.path.relpath(target, root)))
    if not between:
        broken.append('no link between files: did the pages render?')
    result(2, 'links', broken, '%d links, %d between files, %d broken'
           % (checked, between, len(broken)))
    return 1 if problems or broken else 0


def result(number, name, problems, detail):
    """One KTAP result, after its problems and counts as diagnostics."""
    for p in problems:
        print('# ' + p)
    print('# %s: %s' % (name, detail))
    print('%s %d %s' % ('not ok' if problems else 'ok', number, name))


if __name__ == '__main__':
    sys.exit(main())
