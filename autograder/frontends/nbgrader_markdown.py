"""Students' Markdown in nbgrader's feedback pages, made inert by a well-kept sanitiser (bleach, nbconvert's).

nbgrader's feedback template renders every Markdown cell with ``markdown2html`` and nothing else: a student's
cell reaches the page handed back to them (and the instructor who opens it) with a live ``<script>``, an
``onerror`` handler, a remote image or frame (a beacon that says when and where the page was opened) or a
``javascript:`` link. ``SanitizeStudentMarkdown`` (in ``GenerateFeedback.preprocessors``) renders each
Markdown cell the student could edit (every one but the assignment's locked cells, which nbgrader restored
from the source at autograding) with nbconvert's own ``markdown2html`` and cleans the HTML with bleach, the
library nbconvert's sanitiser uses: text formatting, lists, tables, code and links only (http, https, mailto
and the page's own anchors), no script, style, frame, form, image or media, attributes ``href``, ``title``,
``class`` and ``id`` only; what is not allowed is dropped, its text kept as text. The cleaned HTML becomes the
cell's source on one line inside a ``<div>`` (newlines as ``&#10;``), which the template's ``markdown2html``
passes through as one HTML block, untouched.

Why not nbconvert's ``HTMLExporter.sanitize_html`` or its ``clean_html`` filter: their allowlist
(``bleach.ALLOWED_TAGS`` plus a few) has no paragraph, heading or line break, so every student's answer would
show its tags as text; and ``sanitize_html`` cleans every output too, stripping the ``style`` that lets the
kit's feedback in graded cells wrap its long lines (``nbgrader_outputs.feedback_output``).
"""
from __future__ import annotations

import bleach
from nbconvert.exporters.exporter import ResourcesDict
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

TAGS = frozenset({"p", "div", "span", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "b", "i",
                  "u", "s", "del", "sub", "sup", "small", "mark", "abbr", "code", "pre", "kbd", "samp", "var",
                  "blockquote", "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th",
                  "td", "caption", "a", "details", "summary"})
ATTRIBUTES = {"a": ["href", "title"], "abbr": ["title"], "th": ["align"], "td": ["align"], "*": ["class", "id"]}
PROTOCOLS = frozenset({"http", "https", "mailto"})  # and relative links (#anchors): bleach keeps those


def students_markdown(cell: NotebookNode) -> bool:
    """A Markdown cell the student could write: not one of the assignment's locked cells."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    locked = isinstance(meta, dict) and meta.get("locked") is True and meta.get("solution") is not True
    return cell.get("cell_type") == "markdown" and not locked


def inert(markdown: str) -> str:
    """Markdown rendered and cleaned, on one line in a ``<div>``: HTML from which no browser runs or fetches
    anything, and which Markdown renders as it is."""
    html = bleach.clean(markdown2html_mistune(markdown), tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS,
                        strip=True, strip_comments=True)
    return '<div class="student-markdown">' + html.strip().replace("\r", "").replace("\n", "&#10;") + "</div>"


class SanitizeStudentMarkdown(NbGraderPreprocessor):
    """Every Markdown cell a student could edit, rendered and cleaned before nbgrader's template renders it."""

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        index: int) -> tuple[NotebookNode, ResourcesDict]:
        if students_markdown(cell):
            cell.source = inert(cell.source)
            cell.pop("attachments", None)  # images the cell carries: no image is kept
        return cell, resources
