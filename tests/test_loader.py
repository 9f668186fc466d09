"""Reading submissions: IPython syntax neutralised with line numbers kept, read-only demos skipped unless used."""
from __future__ import annotations

import nbformat

from autograder.load.cells import READ_ONLY_DEMO, read_submission
from autograder.load.ipython import neutralise_ipython


def test_magics_and_shell_lines_become_python_on_the_same_lines():
    code, skipped = neutralise_ipython("%matplotlib inline\nif True:\n  !pip list\nfiles = !ls\ndoc = '''\n%not a magic\n'''\n")
    assert skipped is None
    lines = code.splitlines()
    assert lines[0] == "pass" and lines[1] == "if True:" and lines[2] == "  pass" and lines[3] == "files = None"
    assert lines[5] == "%not a magic"  # inside a string: text, not a magic
    compile(code, "<cell>", "exec")


def test_cell_magics_run_their_body_or_are_skipped():
    code, skipped = neutralise_ipython("%%time\ny = 2\n")
    assert skipped is None and code.splitlines() == ["", "y = 2"]
    assert neutralise_ipython("%%bash\nrm -rf /\n")[1] == "cell magic %%bash is not run by the grader"


def test_python_file_with_a_bom_or_a_coding_cookie_is_read(tmp_path):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfx = 1\n")
    (tmp_path / "latin.py").write_bytes("# -*- coding: latin-1 -*-\nname = 'Jos\xe9'\n".encode("latin-1"))
    assert read_submission(tmp_path / "bom.py").cells[0].code == "x = 1\n"
    assert "José" in read_submission(tmp_path / "latin.py").cells[0].code


def cell(source, **nbgrader):
    made = nbformat.v4.new_code_cell(source)
    if nbgrader:
        made.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": False, "locked": True,
                                     "task": False, **nbgrader}
    return made


def test_read_only_demo_cells_are_skipped_unless_the_student_uses_what_they_define(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        cell("import tensorflow as tf", grade_id="setup"),
        cell("import time\nx = tf.constant(1.0)\nprint('slow demo')", grade_id="demo_a"),
        cell("def helper(t):\n    return t * 2", grade_id="demo_b"),
        cell("def log1pexp(x):\n    return helper(x)", grade_id="log1pexp", solution=True, locked=False),
        cell("assert False", grade_id="check_log1pexp"),
        cell("def mine(f, x):\n    return f(x)"),  # a cell the student added: always runs
    ]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    skipped = {c.grade_id: c.skipped for c in read_submission(path).cells}
    assert skipped["setup"] is None and skipped["log1pexp"] is None and skipped[None] is None
    assert skipped["demo_a"] == READ_ONLY_DEMO  # `x` is only a parameter in the student's code
    assert skipped["demo_b"] is None  # the solution calls `helper`, which only this demo defines
    assert skipped["check_log1pexp"].startswith("a test cell")


def test_a_percent_line_inside_a_string_stays_text_when_it_is_the_only_line_that_looks_like_ipython():
    code = "doc = '''\n%not a magic\n!nor a shell line\n'''\n"  # the tokenizer runs only for such cells: here it must
    assert neutralise_ipython(code) == (code, None)
    plain = "def f(x):\n    return x % 2\n"  # nothing that could be IPython: returned as it was, untokenized
    assert neutralise_ipython(plain) == (plain, None)


def test_a_cell_nested_to_the_limit_is_read_and_one_level_deeper_is_refused():
    from autograder.load.reading import MAX_DEPTH, unreadable_code

    # Module, Assign, then one level per unary minus and the constant: 197 minus signs make MAX_DEPTH = 200 levels.
    assert MAX_DEPTH == 200
    assert unreadable_code("x = " + "-" * 197 + "1\n", "cell [1]") is None
    assert unreadable_code("x = " + "-" * 198 + "1\n", "cell [1]") == (
        "cell [1] is nested 201 levels deep, more than the 200 the grader reads")
