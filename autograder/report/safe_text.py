"""Text a student controls, made safe for each writer: the one place every writer's escaping lives.

A file name, a student's folder, an exception's type and message all end up in reports. Any of them may
hold what a writer cannot encode or must not pass on as it is:

- a lone surrogate (a file name that was not UTF-8, a JSON "\\udc80"): no UTF-8 writer can encode it, so
  an unescaped one would end the report with a UnicodeEncodeError;
- control characters: a newline in a file name writes a fake line into the text report, an ANSI escape
  (ESC [ ...) recolours or clears the instructor's terminal, a carriage return overwrites the line;
  Unicode's bidirectional overrides reorder what is shown (Trojan Source, CVE-2021-42574);
- rich's markup (``[/x]`` in a path raises MarkupError): the class table renders ``rich.text.Text`` cells,
  which are never parsed as markup (``cell``);
- spreadsheet formulas: a gradebook cell starting with =, +, -, @, a tab or a carriage return runs as a
  formula in Excel, LibreOffice or Google Sheets; OWASP's CSV injection guidance: prefix such a cell with a
  single quote (the csv module quotes the separators and quotes inside it).

Escapes are visible and reversible by eye: ``\\x1b``, ``\\n``, ``\\u202e``.
"""
from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls but tab and newline, DEL, C1 controls, line and paragraph separators, bidi embeddings,
# overrides and isolates, the BOM / zero-width no-break space.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_LINE_CONTROL = re.compile("[\t\n]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# OWASP: =, +, -, @, tab, carriage return; and the full-width forms some spreadsheets also read as formulas.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def encodable(value: object) -> str:
    """The text with every lone surrogate written as its escape: what any UTF-8 writer can encode."""
    return _SURROGATE.sub(_escape, str(value))


def text(value: object) -> str:
    """Multi-line text for people (feedback, notes): newlines and tabs kept, every other control escaped."""
    return _CONTROL.sub(_escape, encodable(value))


def line(value: object) -> str:
    """One line for people (a name, a path, a type, an id): every control escaped, newlines and tabs too."""
    return _LINE_CONTROL.sub(_escape, text(value))


def cell(value: object):
    """A cell of a rich table: one safe line as a ``Text``, which rich never parses as markup."""
    from rich.text import Text

    return Text(line(value))


def spreadsheet(value: object) -> str:
    """A gradebook cell that no spreadsheet runs as a formula (OWASP's CSV injection guidance)."""
    value = line(value)
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def plot_label(value: object) -> str:
    """A label for matplotlib: one safe line, with its mathtext dollar signs taken literally."""
    return line(value).replace("$", r"\$")
