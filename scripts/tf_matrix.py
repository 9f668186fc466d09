"""The supported TensorFlow range, proved: each version in a venv of its own grades what the golden results say.

    .venv/bin/python scripts/tf_matrix.py                        # every supported release, Keras 3 and tf-keras
    .venv/bin/python scripts/tf_matrix.py --oldest --keras 3 --subset examples   # what CI (.ci/run) runs
    .venv/bin/python scripts/tf_matrix.py --nightly --out matrix.md

For each TensorFlow release, one after another, a fresh venv: `pip install "tensorflow-cpu==X.Y.*"` (x86-64;
`tensorflow` elsewhere), then the kit from this checkout with no extra, as students install it (`pip install -e
.`: editable, as graders install it, since the mistake models are not in the wheel); pip's own list must then
hold exactly one TensorFlow distribution, the one installed first (the kit brought none). Then a row with Keras 3
(TensorFlow's own) and a row with tf-keras (`pip install --no-deps "tf-keras==X.Y.*"` into the same venv:
tf-keras requires `tensorflow`, which beside `tensorflow-cpu` would be a second TensorFlow; and
TF_USE_LEGACY_KERAS=1), each of them:

1. what pip installed, and how long it took;
2. the example class graded (`autograder grade examples --format json --seed 1`) and compared, submission by
   submission and exercise by exercise (score, status, pitfalls), with tests/fixtures/example_class_seed1.json
   as it is in this checkout (other work changes it: the script reads it, it copies no number);
3. (Keras 3 rows) the tests' corpus (tests/submissions/<assignment>, `--seed 11`) compared with each folder's
   expected.yaml as tests/test_submissions.py compares it (status and pitfalls of the listed exercises, the
   others' status, ok_* at full marks, bad_* below); a tf-keras row, which changes only what Keras runs, leaves
   this 200-file corpus to its release's Keras 3 row;
4. the public checks (`autograder.selfcheck.check`, the students' kernel code) run in that venv's Python on
   every example notebook's code: each must give the verdict (passed, or failed and the pitfalls named) it
   gives in the Python that runs this script (the suite's TensorFlow), where every exercise the golden JSON
   passes passes;
5. after the release's last row, the venv deleted (``--keep`` keeps it).

tf-nightly (``--nightly``) is a row of information: its differences are listed, never a failure. The exit status
is 1 when a supported row differs, else 0. Each finished row is kept in WORK/rows.jsonl: run again with the same
``--work`` and the rows done are not run again (a long matrix survives an interruption). The Markdown table goes to stdout (and ``--out``); the details of
every difference to stderr. Each row downloads several hundred MB on first use (pip's cache keeps them).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOLDEN = ROOT / "tests" / "fixtures" / "example_class_seed1.json"
CORPUS = ROOT / "tests" / "submissions"
ASSIGNMENTS = ("custom_gradients", "higher_order", "jacobians", "implicit")
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0", "PYTHONWARNINGS": "ignore"}


@dataclass
class Row:
    release: str  # "2.16", or "nightly"
    keras: str  # "3" or "tf-keras"
    informational: bool = False
    installed: str = ""  # the TensorFlow distribution and version pip reports
    keras_version: str = ""
    install_seconds: float = 0.0
    install_mib: float = 0.0
    grade_seconds: float = 0.0
    checked: dict[str, tuple[int, int]] = field(default_factory=dict)  # part -> (as expected, total)
    differences: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def verdict(self) -> str:
        if self.error:
            return f"error: {self.error}"
        if self.differences:
            return f"{len(self.differences)} difference{'s' if len(self.differences) != 1 else ''}" + (
                " (information)" if self.informational else "")
        return "identical"


# --------------------------------------------------------------------------- one venv

def tensorflow_distribution() -> str:
    return "tensorflow-cpu" if platform.machine() == "x86_64" else "tensorflow"


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, **kwargs)


def folder_mib(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def pip(python: Path, *arguments) -> None:
    done = run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *arguments])
    if done.returncode != 0:
        raise RuntimeError(f"pip install {' '.join(map(str, arguments))}: {done.stderr.strip()[-400:]}")


def install(row: Row, venv: Path) -> Path:
    """A fresh venv with TensorFlow, then the kit by the students' line (no extra); its Python."""
    python = venv / "bin" / "python"
    started = time.monotonic()
    done = run([sys.executable, "-m", "venv", venv])
    if done.returncode != 0:
        raise RuntimeError(f"venv: {done.stderr[-300:]}")
    empty = folder_mib(venv)
    pip(python, *(["--pre", "tf-nightly"] if row.release == "nightly"
                  else [f"{tensorflow_distribution()}=={row.release}.*"]))
    pip(python, "-e", ROOT)  # the kit after TensorFlow, as on a student's machine
    row.install_seconds = time.monotonic() - started
    row.install_mib = folder_mib(venv) - empty
    describe(row, python)
    owners = row.installed.split(", ") if row.installed else []
    if len(owners) != 1:
        row.differences.append(f"install: {len(owners)} TensorFlow distributions after the kit: {row.installed}")
    return python


def add_tf_keras(row: Row, venv: Path) -> None:
    python = venv / "bin" / "python"
    started, before = time.monotonic(), folder_mib(venv)
    # tf-keras names `tensorflow` as its requirement: beside tensorflow-cpu it would bring a second TensorFlow,
    # so it is installed without its dependencies (TensorFlow is there; keras's others come with TensorFlow).
    wanted = ["--pre", "tf-keras-nightly"] if row.release == "nightly" else [f"tf-keras=={row.release}.*"]
    pip(python, "--no-deps", *wanted)
    row.install_seconds, row.install_mib = time.monotonic() - started, folder_mib(venv) - before
    describe(row, python)


def describe(row: Row, python: Path) -> None:
    """The TensorFlow and Keras distributions pip lists in the venv."""
    listed = json.loads(run([python, "-m", "pip", "list", "--format", "json"]).stdout)
    names = {p["name"].lower().replace("_", "-"): p["version"] for p in listed}
    row.installed = ", ".join(f"{n} {v}" for n, v in sorted(names.items())
                              if n.startswith(("tensorflow", "tf-nightly", "intel-tensorflow"))
                              and not n.startswith(("tensorflow-io", "tensorflow-estimator")))
    row.keras_version = ", ".join(f"{n} {v}" for n, v in sorted(names.items())
                                  if n in ("keras", "keras-nightly", "tf-keras", "tf-keras-nightly"))


def grade(python: Path, env: dict, *args: str) -> list[dict]:
    done = run([python, "-m", "autograder", "grade", *args, "--format", "json", "--jobs", "2"], cwd=ROOT, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"autograder grade {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


# --------------------------------------------------------------------------- comparisons

def compare_examples(results: list[dict], golden: list[dict]) -> tuple[int, list[str]]:
    """(exercises as golden, differences) over every submission of the golden file."""
    mine = {r["submission"]: r for r in results}
    same, differences = 0, []
    for expected in golden:
        got = mine.get(expected["submission"])
        if got is None:
            differences.append(f"examples: {expected['submission']} not graded")
            continue
        if got["score"] != expected["score"]:
            differences.append(f"examples: {expected['submission']}: score {got['score']} (golden {expected['score']})")
        theirs = {e["id"]: e for e in got["exercises"]}
        for item in expected["exercises"]:
            other = theirs.get(item["id"], {})
            key = ("score", "status", "pitfalls")
            if all(other.get(k) == item[k] for k in key):
                same += 1
            else:
                differences.append(f"examples: {expected['submission']} {item['id']}: "
                                   f"{[other.get(k) for k in key]} (golden {[item[k] for k in key]})")
    return same, differences


def compare_corpus(assignment: str, results: list[dict]) -> tuple[int, int, list[str]]:
    """tests/test_submissions.py's rules against expected.yaml: (as expected, total, differences)."""
    import yaml

    spec = yaml.safe_load((CORPUS / assignment / "expected.yaml").read_text(encoding="utf-8"))
    graded = {Path(r["submission"]).name: r for r in results}
    same, total, differences = 0, 0, []
    for name, listed in sorted(spec["files"].items()):
        total += 1
        result = graded.get(name)
        wrong = [] if result is not None else ["not graded"]
        for item in (result or {}).get("exercises", []):
            if item["id"] in listed:
                status, *pitfalls = listed[item["id"]].split()
                if (item["status"], item["pitfalls"]) != (status, pitfalls):
                    wrong.append(f"{item['id']} {item['status']} {item['pitfalls']} (expected {status} {pitfalls})")
                elif name.startswith("ok_") != (item["score"] == item["max_score"]):
                    wrong.append(f"{item['id']} scored {item['score']} / {item['max_score']}")
            elif item["status"] != spec["others"]:
                wrong.append(f"{item['id']} {item['status']} (expected {spec['others']})")
        if wrong:
            differences.append(f"corpus: {assignment}/{name}: " + "; ".join(wrong))
        else:
            same += 1
    return same, total, differences


def public_checks_here(out: Path) -> None:
    """Run in a row's own Python: every example notebook's code in a namespace of its own, then each exercise's
    public check on it (failures raise there, as under nbgrader), verdicts written to ``out``."""
    import contextlib
    import io

    os.environ["NBGRADER_EXECUTION"] = "validate"  # a failing check raises: its verdict is the exception
    from autograder.course import assignment_by_id
    from autograder.load.cells import read_submission
    from autograder.selfcheck import SelfCheckFailed, check

    verdicts = {}
    for path in sorted((ROOT / "examples" / "submitted").glob("*/*/*.ipynb")):
        source = read_submission(path)
        assignment = assignment_by_id(source.metadata.get("autograder", {}).get("assignment") or path.stem)
        namespace: dict = {"__name__": "__main__", "In": [""]}
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for cell in source.runnable_cells:
                namespace["In"].append(cell.source)
                try:
                    exec(compile(cell.code, f"<cell {cell.index}>", "exec"), namespace)
                except Exception:  # noqa: BLE001  (a student's cell that raises, as in a kernel)
                    pass
            for exercise in assignment.exercises:
                key = f"{path.relative_to(ROOT).as_posix()}::{exercise.id}"
                try:
                    check(exercise.id, namespace)
                    verdicts[key] = "passed"
                except (SelfCheckFailed, NotImplementedError) as failed:
                    verdicts[key] = "failed " + str(failed).splitlines()[0].partition("public checks failed")[2].strip()
                except Exception as error:  # noqa: BLE001  (the check itself broke: a difference to report)
                    verdicts[key] = f"broke {type(error).__name__}: {error}"
    out.write_text(json.dumps(verdicts, indent=1), encoding="utf-8")


def compare_public_checks(verdicts: dict[str, str], baseline: dict[str, str]) -> tuple[int, int, list[str]]:
    """The same verdict (passed, or failed and the pitfalls named) as in this checkout's own Python."""
    same, differences = 0, []
    for key, expected in sorted(baseline.items()):
        got = verdicts.get(key, "not run")
        if got == expected:
            same += 1
        else:
            differences.append(f"public checks: {key}: {got} (this checkout's Python: {expected})")
    return same, len(baseline), differences


def public_checks_baseline(work: Path, golden: list[dict]) -> dict[str, str]:
    """The public checks' verdicts in the Python running this script (the suite's TensorFlow): what every row
    must say. Where the golden JSON says an exercise passed, its public check must pass here too."""
    out = work / "public-baseline.json"
    done = run([sys.executable, Path(__file__), "--public-checks-here", out], cwd=ROOT, env={**os.environ, **QUIET})
    if done.returncode != 0:
        raise SystemExit(f"tf_matrix: the public checks failed in this Python: {done.stderr.strip()[-600:]}")
    baseline = json.loads(out.read_text(encoding="utf-8"))
    wrong = [f"{r['submission']}::{e['id']}" for r in golden for e in r["exercises"]
             if e["status"] == "passed" and baseline.get(f"{r['submission']}::{e['id']}") != "passed"]
    if wrong:
        raise SystemExit(f"tf_matrix: public checks fail in this Python where the golden JSON passes: {wrong}")
    return baseline


# --------------------------------------------------------------------------- a row, the table

def check_release(rows: list[Row], work: Path, subset: str, keep: bool, baseline: dict[str, str] | None,
                  kept: Path) -> None:
    """One venv for a release; its rows (Keras 3, then tf-keras) one after another."""
    venv = work / f"venv-{rows[0].release}"
    shutil.rmtree(venv, ignore_errors=True)
    try:
        python = None
        for row in rows:
            print(f"tf_matrix: TensorFlow {row.release}, Keras {row.keras} ...", file=sys.stderr, flush=True)
            try:
                if python is None:
                    python = install(row, venv)
                if row.keras == "tf-keras":
                    add_tf_keras(row, venv)
                check_row(row, python, work, subset, baseline)
            except RuntimeError as error:
                row.error = str(error).replace("\n", " ")[:300]
            print(f"tf_matrix:   {row.installed or '?'}, {row.keras_version or '?'}: {row.verdict} "
                  f"({row.install_seconds:.0f} s install, {row.grade_seconds:.0f} s grading)", file=sys.stderr, flush=True)
            for difference in row.differences:
                print(f"tf_matrix:     {difference}", file=sys.stderr)
            if not row.error:
                with kept.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(asdict(row)) + "\n")
    finally:
        if not keep:
            shutil.rmtree(venv, ignore_errors=True)


def check_row(row: Row, python: Path, work: Path, subset: str, baseline: dict[str, str] | None) -> None:
    name = f"{row.release}-{row.keras}"
    env = {**os.environ, **QUIET, "AUTOGRADER_CACHE": str(work / f"cache-{name}")}
    env.pop("AUTOGRADER_SOLUTIONS", None)
    env.pop("TF_USE_LEGACY_KERAS", None)
    if row.keras == "tf-keras":
        env["TF_USE_LEGACY_KERAS"] = "1"
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    started = time.monotonic()
    same, differences = compare_examples(grade(python, env, "examples", "--seed", "1"), golden)
    row.checked["examples"] = (same, sum(len(r["exercises"]) for r in golden))
    row.differences += differences
    if subset == "all" and row.keras == "3":
        corpus = [0, 0]
        for assignment in ASSIGNMENTS:
            results = grade(python, env, f"tests/submissions/{assignment}", "--assignment", assignment, "--seed", "11")
            same, total, differences = compare_corpus(assignment, results)
            corpus[0] += same
            corpus[1] += total
            row.differences += differences
        row.checked["corpus"] = (corpus[0], corpus[1])
    if subset == "all":
        verdicts = work / f"public-{name}.json"
        done = run([python, Path(__file__), "--public-checks-here", verdicts], cwd=ROOT, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"public checks: {done.stderr.strip()[-400:]}")
        same, total, differences = compare_public_checks(json.loads(verdicts.read_text()), baseline or {})
        row.checked["public checks"] = (same, total)
        row.differences += differences
    row.grade_seconds = time.monotonic() - started


def table(rows: list[Row], subset: str) -> str:
    parts = ["examples", "corpus", "public checks"] if subset == "all" else ["examples"]
    heads = ["TensorFlow", "Keras", "installed (pip list)", *[f"{p} as golden" for p in parts], "verdict",
             "install s / MiB", "grading s"]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for row in rows:
        checked = [f"{row.checked[p][0]} / {row.checked[p][1]}" if p in row.checked else "" for p in parts]
        keras = "Keras 3" if row.keras == "3" else "tf-keras (TF_USE_LEGACY_KERAS=1)"
        release = "tf-nightly (information)" if row.informational else row.release
        lines.append("| " + " | ".join([release, f"{keras}: {row.keras_version}", row.installed, *checked, row.verdict,
                                        f"{row.install_seconds:.0f} / {row.install_mib:.0f}",
                                        f"{row.grade_seconds:.0f}"]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", nargs="+", help="TensorFlow releases (default: every supported one)")
    parser.add_argument("--oldest", action="store_true", help="only the oldest supported release")
    parser.add_argument("--keras", choices=("3", "tf-keras", "both"), default="both")
    parser.add_argument("--nightly", action="store_true", help="add tf-nightly (information, never a failure)")
    parser.add_argument("--subset", choices=("examples", "all"), default="all",
                        help="examples: the example class against its golden JSON only (CI's fast subset)")
    parser.add_argument("--work", metavar="DIR", help="where the venvs go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep each venv")
    parser.add_argument("--out", metavar="FILE", help="also write the Markdown table here")
    parser.add_argument("--public-baseline", metavar="FILE",
                        help="the public checks' verdicts in the suite's Python, kept by an earlier run (default: "
                             "computed first, in this Python, and kept as WORK/public-baseline.json)")
    parser.add_argument("--public-checks-here", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.public_checks_here:
        public_checks_here(Path(args.public_checks_here))
        return 0
    from autograder.supported import NEWEST, OLDEST

    supported = [f"{OLDEST[0]}.{minor}" for minor in range(OLDEST[1], NEWEST[1] + 1)]
    releases = supported[:1] if args.oldest else args.versions or supported
    flavours = ["3", "tf-keras"] if args.keras == "both" else [args.keras]
    rows = [Row(release, keras) for release in reversed(releases) for keras in flavours]
    if args.nightly:
        rows += [Row("nightly", keras, informational=True) for keras in flavours]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="tf-matrix-"))
    work.mkdir(parents=True, exist_ok=True)
    baseline = None
    if args.subset == "all":
        print(f"tf_matrix: the public checks in this Python ({sys.executable}) ...", file=sys.stderr, flush=True)
        baseline = (json.loads(Path(args.public_baseline).read_text(encoding="utf-8")) if args.public_baseline
                    else public_checks_baseline(work, json.loads(GOLDEN.read_text(encoding="utf-8"))))
    kept = work / "rows.jsonl"
    done = {(r["release"], r["keras"]): Row(**r) for r in map(json.loads, kept.read_text().splitlines())} \
        if kept.exists() else {}
    rows = [done.get((row.release, row.keras), row) for row in rows]
    for release in dict.fromkeys(row.release for row in rows):
        todo = [row for row in rows if row.release == release and (row.release, row.keras) not in done]
        if todo:
            check_release(todo, work, args.subset, args.keep, baseline, kept)
    if not args.work and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    report = table(rows, args.subset)
    sys.stdout.write(report)
    if args.out:
        Path(args.out).write_text(report, encoding="utf-8")
    failed = [row for row in rows if not row.informational and (row.error or row.differences)]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
