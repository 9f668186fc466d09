"""nbgrader's feedback pages (`nbgrader generate_feedback`, formgrader's Generate Feedback) read on a phone and offline.

nbgrader's feedback template has no viewport meta tag (a phone lays it out 980 pixels wide and shrinks the text)
and loads MathJax from a CDN (offline, or where the CDN is blocked, a student reads raw ``$\\mathbb{R}^n$``).
``FeedbackExporter``, nbgrader's HTMLExporter for these pages (``c.GenerateFeedback.exporter_class`` in the
course's ``nbgrader_config.py``), renders every formula of the Markdown cells as MathML when the page is made
(latex2mathml; browsers draw MathML themselves, nothing is fetched) and writes the page with a viewport and a few
rules for narrow screens, without the MathJax script. A formula latex2mathml cannot read stays as its TeX, in
a ``code`` element: plain text, never a broken page.
"""
from __future__ import annotations

import html
import re

from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

try:  # nbconvert's own import of Jinja's context filter, whatever the Jinja version
    from jinja2 import pass_context
except ImportError:  # pragma: no cover - Jinja < 3
    from jinja2 import contextfilter as pass_context

VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
# nbgrader's page is Bootstrap 3's fixed-width container with the classic notebook's prompts beside each cell:
# on a narrow screen the container takes the screen's width, prompts go above their cells, and code and outputs
# scroll inside their own boxes (graded cells' feedback already wraps its lines).
NARROW_SCREEN_CSS = """<style>
@media (max-width: 767px) {
  body { padding-top: 0.5em; }
  .container { width: auto; padding-left: 6px; padding-right: 6px; }
  div.panel-body { padding: 6px; }
  div.cell, div.output_area { display: block; }
  div.prompt { min-width: 0; width: auto; text-align: left; padding: 0 0.4em; }
  div.input_area, div.output_subarea, div.inner_cell, div.text_cell_render { min-width: 0; max-width: 100%; }
  div.output_subarea { padding: 0.2em 0; }
  div.input_area pre, div.output_subarea pre, div.text_cell_render pre, div.text_cell_render table,
  div.output_subarea table { display: block; max-width: 100%; overflow-x: auto; }
  div.text_cell_render img, div.output_subarea img { max-width: 100%; height: auto; }
  div.text_cell_render p code, div.text_cell_render li code, div.text_cell_render h1, div.text_cell_render h2,
  div.text_cell_render h3, div.text_cell_render h4 { overflow-wrap: anywhere; }
}
math[display="block"] { display: block; overflow-x: auto; overflow-y: hidden; max-width: 100%; }
</style>"""
MATHJAX_SCRIPTS = re.compile(
    r'<script\b[^>]*\bsrc="[^"]*mathjax[^"]*"[^>]*>\s*</script>\s*'
    r'|<!-- MathJax configuration -->\s*<script type="text/x-mathjax-config">.*?</script>\s*'
    r'|<script type="text/x-mathjax-config">.*?</script>\s*', re.IGNORECASE | re.DOTALL)


def mathml(latex: str, display: str) -> str:
    """A formula as MathML (``display``: "inline" or "block"), or as its TeX in a ``code`` element."""
    from latex2mathml.converter import convert

    try:
        return convert(latex, display=display)
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds on TeX it does not know
        return f'<code class="tex">{html.escape(latex)}</code>'


class MathMLRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer, with formulas as MathML instead of text left for MathJax."""

    def inline_math(self, body: str) -> str:
        return mathml(body, "inline")

    def block_math(self, body: str) -> str:
        return mathml(body, "block")

    def latex_environment(self, name: str, body: str) -> str:
        return mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")


def for_phones_offline(page: str) -> str:
    """The page without the MathJax CDN script, with a viewport and the narrow-screen rules in its head."""
    page = MATHJAX_SCRIPTS.sub("", page)
    head = VIEWPORT + "\n" + NARROW_SCREEN_CSS + "\n"
    if 'name="viewport"' in page:
        head = NARROW_SCREEN_CSS + "\n"
    return page.replace("</head>", head + "</head>", 1)


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback HTML (its template, its preprocessors), readable on a phone and offline."""

    @pass_context
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        renderer = MathMLRenderer(escape=False, attachments=cell.get("attachments", {}),
                                  embed_images=self.embed_images,
                                  path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                                  anchor_link_text=self.anchor_link_text,
                                  exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)

    def from_notebook_node(self, nb, resources=None, **kw):
        page, resources = super().from_notebook_node(nb, resources, **kw)
        return for_phones_offline(page), resources
