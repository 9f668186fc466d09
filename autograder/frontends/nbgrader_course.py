"""An nbgrader course that works on its first command: this repository itself, or one `autograder course init` lays out.

nbgrader keeps what it knows about a course in ``gradebook.db``, which only ``nbgrader generate_assignment``
fills: a fresh clone (the database is not committed) has none, so ``nbgrader autograde`` and formgrader's first
Autograde click fail ("No assignment with ID ... exists in the database"). The course's ``nbgrader_config.py``
calls ``prepare_course(c)`` last, so that every nbgrader command (and formgrader, which reads the file again on
each request) finds, before it starts:

- the gradebook knowing every assignment of ``solutions/`` (its notebooks, graded cells and locked cells, as
  nbgrader's own ``GenerateAssignment`` records them: it runs into a scratch folder, so ``assignments/`` is not
  rewritten) and every student with a folder in ``submitted/``;
- ``submitted/``: in the kit's own checkout, the bundled example class (copied once from
  ``examples/submitted/``, nbgrader's layout; the copy is git-ignored, so collected work never lands in
  ``examples/``);
- the exchange folder, when it lives inside the course (the default: ``exchange/``).

What is already there costs one read of the database. Several nbgrader processes may start at once (formgrader,
a terminal): a lock file serialises the first preparation.

``init_course`` lays out an instructor's own course: the kit's solutions as nbgrader's source, the released
notebooks, the config, an exchange, and an empty ``submitted/`` or the example class.
"""
from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from autograder.config import KIT_ROOT

EXAMPLE_CLASS = Path("examples") / "submitted"  # relative to a course's root: the kit's checkout has one
LOCK_FILE = ".autograder-course.lock"
IGNORED = ("gradebook.db", "/submitted/", "/autograded/", "/feedback/", "/exchange/", ".autograder-seed", LOCK_FILE,
           ".ipynb_checkpoints/")


def say(message: str) -> None:
    print(f"autograder: {message}", file=sys.stderr)


# --------------------------------------------------------------------------- before every nbgrader command

def prepare_course(config) -> None:
    """Make the course at ``config.CourseDirectory.root`` ready for nbgrader's commands (see the module's note).

    Never raises: a course that cannot be prepared still runs nbgrader's command, which then says what it lacks.
    """
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    root = Path(coursedir.root)
    tools = Path(sys.executable).parent  # nbgrader runs `alembic` from PATH: the venv's, even if not activated
    if shutil.which("alembic") is None and (tools / "alembic").is_file():
        os.environ["PATH"] = str(tools) + (os.pathsep + os.environ["PATH"] if "PATH" in os.environ else "")
    try:
        with _locked(root):
            _seed_example_class(root, root / coursedir.submitted_directory)
            _make_exchange(coursedir, config)
            _sync_gradebook(coursedir, config)
    except Exception as error:  # noqa: BLE001 - nbgrader's own command goes on and reports what is missing
        say(f"could not prepare the course at {root} for nbgrader ({type(error).__name__}: {error}); "
            "`nbgrader generate_assignment ID --force` fills the gradebook by hand")


@contextlib.contextmanager
def _locked(root: Path):
    try:
        handle = open(root / LOCK_FILE, "a+")
    except OSError:  # a read-only course: nothing to make, nothing to lock
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _seed_example_class(root: Path, submitted: Path) -> None:
    """The kit's own checkout: ``submitted/`` starts as a copy of the example class (once, when it is missing)."""
    examples = root / EXAMPLE_CLASS
    if submitted.exists() or not examples.is_dir() or submitted.resolve() == examples.resolve():
        return
    scratch = Path(tempfile.mkdtemp(prefix=".submitted-", dir=root))
    try:
        shutil.copytree(examples, scratch / "class", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        os.rename(scratch / "class", submitted)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    say(f"{submitted.name}/ holds the bundled example class (copied from {EXAMPLE_CLASS}/; delete it and "
        f"`mkdir {submitted.name}` for an empty class)")


def _make_exchange(coursedir, config) -> None:
    """The exchange's course folders (outbound, inbound), made by nbgrader's own release code, when the exchange
    is the course's own folder (a shared one, e.g. JupyterHub's, is the admin's): `nbgrader collect` and `list`
    then work before the first release."""
    root = Path(coursedir.root).resolve()
    exchange = config.Exchange.get("root") if "Exchange" in config else None
    if not (isinstance(exchange, str) and exchange and Path(exchange).resolve().is_relative_to(root)):
        return
    if (Path(exchange) / coursedir.course_id / "inbound").is_dir():
        return
    from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment

    quiet = _quiet_log(logging.ERROR)  # "Creating exchange directory" is what we asked for
    scoped = type(coursedir)(config=config, root=coursedir.root, assignment_id="-", log=quiet)
    release = ExchangeReleaseAssignment(coursedir=scoped, config=config, log=quiet)
    release.ensure_root()
    release.init_dest()  # the course's folder, outbound/ and inbound/ with nbgrader's modes (no assignment)


def _quiet_log(level: int = logging.WARNING) -> logging.Logger:
    """A logger for nbgrader's classes run here: their routine INFO lines would read as the command's own."""
    log = logging.getLogger(f"autograder.nbgrader_course.{logging.getLevelName(level).lower()}")
    log.setLevel(level)
    return log


def _known(database: Path) -> tuple[set[tuple[str, str]], set[str]]:
    """(assignment, notebook) pairs and students the gradebook knows (empty sets: no gradebook yet)."""
    if not database.is_file():
        return set(), set()
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"assignment", "notebook", "student"} <= tables:
            return set(), set()
        notebooks = set(db.execute("SELECT a.name, n.name FROM notebook n JOIN assignment a ON n.assignment_id = a.id"))
        students = {name for (name,) in db.execute("SELECT id FROM student")}
    return notebooks, students


def _sync_gradebook(coursedir, config) -> None:
    """Record every source assignment and every submitted student that the gradebook does not know yet."""
    root = Path(coursedir.root)
    url = coursedir.db_url
    if not url.startswith("sqlite:///"):  # another database: nbgrader's own commands keep it
        return
    database = Path(url[len("sqlite:///"):])
    source = root / coursedir.source_directory
    wanted = {folder.name: {nb.stem for nb in folder.glob("*.ipynb")}
              for folder in sorted(source.iterdir()) if folder.is_dir() and any(folder.glob("*.ipynb"))} \
        if source.is_dir() else {}
    submitted = root / coursedir.submitted_directory
    students = {folder.name for folder in submitted.iterdir()
                if folder.is_dir() and not folder.name.startswith(".")} if submitted.is_dir() else set()
    notebooks, known_students = _known(database)
    missing = [assignment for assignment, names in wanted.items()
               if any((assignment, name) not in notebooks for name in names)]
    for assignment in missing:
        _record_assignment(coursedir, config, assignment)
    if students - known_students:
        from nbgrader.api import Gradebook

        with Gradebook(url, coursedir.course_id) as gradebook:
            for student in sorted(students - known_students):
                gradebook.update_or_create_student(student)
    if missing or students - known_students:
        say(f"the gradebook ({database.name}) now knows "
            + ", ".join(filter(None, [f"the assignments {', '.join(missing)}" if missing else "",
                                      f"{len(students - known_students)} students of {submitted.name}/"
                                      if students - known_students else ""])))


def _record_assignment(coursedir, config, assignment: str) -> None:
    """nbgrader's GenerateAssignment on ``solutions/<assignment>``: the gradebook as `nbgrader generate_assignment`
    leaves it; the released notebooks go to a scratch folder (``assignments/`` is the instructor's to regenerate)."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    quiet = _quiet_log()
    with tempfile.TemporaryDirectory(prefix="autograder-release-") as scratch:
        scoped = CourseDirectory(config=config, root=coursedir.root, release_directory=scratch,
                                 assignment_id=assignment, log=quiet)
        converter = GenerateAssignment(coursedir=scoped, config=config, log=quiet)
        converter.force = True
        converter.start()


# --------------------------------------------------------------------------- `autograder course init`

class CourseInitError(RuntimeError):
    pass


def init_course(target: Path, example_class: bool = False) -> list[str]:
    """Lay out a course in ``target`` (new or empty); return what was written, for the message."""
    kit_files = {"solutions": KIT_ROOT / "solutions", "assignments": KIT_ROOT / "assignments",
                 "nbgrader_config.py": KIT_ROOT / "nbgrader_config.py"}
    if example_class:
        kit_files["submitted"] = KIT_ROOT / EXAMPLE_CLASS
    absent = [str(path) for path in kit_files.values() if not path.exists()]
    if absent:
        raise CourseInitError(f"the kit's checkout is needed (a clone with `pip install -e .`): {', '.join(absent)} "
                              "not found")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise CourseInitError(f"{target} exists and is not an empty folder: choose a new one")
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    written = []
    for name, source in kit_files.items():
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
        written.append(name + ("/" if source.is_dir() else ""))
    if not (target / "submitted").exists():
        (target / "submitted").mkdir()
        written.append("submitted/")
    (target / ".gitignore").write_text("".join(f"{entry}\n" for entry in IGNORED), encoding="utf-8")
    written.append(".gitignore")
    try:  # the config's own last step: the exchange, the gradebook and the seed, now rather than at the first command
        import nbgrader  # noqa: F401
        from traitlets.config.loader import PyFileConfigLoader
    except ImportError:
        say("nbgrader is not installed (pip install -e '.[nbgrader]'): the gradebook is made by the first nbgrader "
            "command")
        return written
    PyFileConfigLoader("nbgrader_config.py", path=str(target)).load_config()
    written += [name for name in ("exchange/", "gradebook.db", ".autograder-seed")
                if (target / name.rstrip("/")).exists()]
    return written


def course_command(args) -> int:
    """`autograder course init DIR [--example-class]`."""
    target = Path(args.directory)
    try:
        written = init_course(target, args.example_class)
    except (CourseInitError, OSError) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    students = sum(1 for p in (target / "submitted").iterdir() if p.is_dir())
    who = f"the example class ({students} students)" if args.example_class else "no student yet"
    print(f"wrote an nbgrader course in {target}: {', '.join(written)}; submitted/ holds {who}.\n"
          + next_steps(target, args.example_class))
    return 0


def next_steps(target: Path, example_class: bool) -> str:
    """What to type next, each line a command that works on the course as it was just made (a test runs them)."""
    formgrader = ("  jupyter server                                # formgrader at /formgrader: open the URL it prints "
                  "(its token logs you in)\n")
    if example_class:
        return (f"next (with the kit's venv active):\n  cd {target}\n"
                "  nbgrader autograde custom_gradients           # grades submitted/<student>/custom_gradients/\n"
                "  nbgrader generate_feedback custom_gradients   # feedback/<student>/custom_gradients/\n"
                + formgrader)
    return (f"next (with the kit's venv active):\n  cd {target}\n"
            "  nbgrader release_assignment custom_gradients  # into the exchange: students fetch and submit it\n"
            + formgrader +
            "once students have submitted (their side: docs/nbgrader.md):\n"
            "  nbgrader collect custom_gradients             # into submitted/<student>/custom_gradients/\n"
            "  nbgrader autograde custom_gradients\n"
            "  nbgrader generate_feedback custom_gradients\n"
            "  nbgrader release_feedback custom_gradients    # students: nbgrader fetch_feedback custom_gradients\n"
            "a notebook copied into submitted/<student>/custom_gradients/ by hand grades too (its feedback is handed "
            "over, not released).")
