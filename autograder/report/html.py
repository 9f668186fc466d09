"""What every HTML page of the kit shares: an offline document (inline CSS, a policy that forbids the rest),
escaping, and `code spans` of the grader's own sentences as <code>."""
from __future__ import annotations

import html
import re

from autograder.report.safe_text import text

# Nothing but inline styles and same-folder images: no script, no remote anything.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"

STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --muted: #555; --line: #d0d0d0; --soft: #f5f5f2; }
body { font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink);
       max-width: 62rem; margin: 1.5rem auto; padding: 0 1rem; overflow-wrap: break-word; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.3rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; } .meta { color: var(--muted); margin-top: 0; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .88rem; }
code { background: var(--soft); padding: 0 .2em; border-radius: 3px; }
pre { background: var(--soft); border: 1px solid var(--line); padding: .6rem .8rem; overflow-x: auto;
      line-height: 1.35; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: .8rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
.status { font-weight: 600; white-space: nowrap; }
.passed { color: #1a6e2e; } .partial { color: #8a5a00; } .failed, .error, .timeout { color: #a3161a; }
.missing, .not-implemented, .unknown { color: #555; }
section.exercise { border-top: 2px solid var(--line); margin-top: 1.6rem; }
.pitfall { border-left: 5px solid #c47f00; background: #fff8eb; padding: .5rem .9rem; margin: .8rem 0; }
.pitfall h4 { margin: .2rem 0 .4rem; font-size: 1rem; }
.where { border-left: 3px solid #a3161a; padding-left: .7rem; margin: .5rem 0; }
.where pre mark { background: #ffd9d9; color: inherit; font-weight: 600; }
.advice { border-left: 4px solid #3b6ea8; background: #eef4fb; padding: .3rem .8rem; margin: .6rem 0; }
.fix { background: #eaf6ec; border-left: 3px solid #1a6e2e; padding: .3rem .6rem; }
.note { background: #fdecec; border-left: 4px solid #a3161a; padding: .4rem .8rem; }
.case-title { margin-bottom: .2rem; font-weight: 600; }
.case pre { white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1rem 0; } figcaption { color: var(--muted); }
img { max-width: 100%; height: auto; }
.plot { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
.plot figure { flex: 0 1 640px; } .plot > * { min-width: 0; max-width: 100%; }
.scroll { overflow-x: auto; max-width: 100%; }  /* a table scrolls in its own box: the page never scrolls sideways */
.scroll:focus-visible, pre:focus-visible { outline: 3px solid #3b6ea8; outline-offset: 2px; }
.scroll table { margin: .4rem 0; }
"""


def scroll_box(content: str, label: str) -> str:
    """A table (or anything wide) in a box of its own that scrolls sideways on a narrow screen: a labelled region
    that takes the keyboard's focus, so that it can be scrolled without a mouse (WCAG 2.1.1)."""
    return f'<div class="scroll" role="region" aria-label="{esc(label)}" tabindex="0">{content}</div>'


def esc(value: object) -> str:
    """HTML-escaped, with lone surrogates and control characters escaped first (``safe_text.text``)."""
    return html.escape(text(value), quote=True)


def code_box(text: str, label: str, css: str = "") -> str:
    """Code or text in a <pre> that scrolls sideways when its lines are long: a labelled region that takes the
    keyboard's focus (``scroll_box``). ``text`` is HTML already (escape before)."""
    return f'<pre{css} aria-label="{esc(label)}" role="region" tabindex="0">{text}</pre>'


def page(title: str, body: str, lang: str = "en", nav: str = "") -> str:
    """A complete offline HTML document: inline CSS, and a policy that allows nothing else; ``nav`` (links to
    other pages) before the ``main`` landmark that holds ``body``."""
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{nav}<main>\n{body}\n</main>\n"
            "</body>\n</html>\n")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline(line: str) -> str:
    """Escape a line of feedback; `backticked` parts become <code>."""
    parts = _CODE_SPAN.split(line)
    return "".join(f"<code>{esc(part)}</code>" if i % 2 else esc(part) for i, part in enumerate(parts))
