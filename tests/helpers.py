"""What the tests share: the repository's paths, a quiet environment, the CLI run for real, HTML read back.

Test modules import these from here (never from each other, nor from conftest.py, which holds fixtures).
"""
from __future__ import annotations

import http.cookiejar
import functools
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.config import quiet_environment
from autograder.model.results import CaseReport, Explanation, ExerciseResult, Status, SubmissionResult, Where
from autograder.report import formats

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians", "implicit")
BIN = Path(sys.executable).parent


# --------------------------------------------------------------------------- time limits on a shared machine

SLOWNESS_VARIABLE = "AUTOGRADER_TEST_SLOWNESS"  # forces the factor below (e.g. 4 on a machine known to be busy)


def machine_slowness() -> float:
    """How many times slower than on a quiet machine work runs here now (at least 1): the larger of the load
    average per core (runnable processes sharing each core) and the measured wall time per CPU second of a short
    busy loop of this process. A test whose grader must finish honest work within a wall-clock limit multiplies
    that limit by this, so that load makes the test slower, never red."""
    forced = os.environ.get(SLOWNESS_VARIABLE)
    if forced:
        return max(1.0, float(forced))
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    wall, cpu = time.perf_counter(), time.process_time()
    while time.process_time() - cpu < 0.05:
        pass
    measured = (time.perf_counter() - wall) / max(time.process_time() - cpu, 1e-6)
    return max(1.0, load, measured)


def under_load(seconds: float, slowness: float | None = None) -> int:
    """``seconds`` on a quiet machine, scaled by ``machine_slowness()`` (whole seconds: they appear in messages)."""
    return math.ceil(seconds * (machine_slowness() if slowness is None else slowness))


def quiet_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess: TensorFlow silent, the venv's tools on PATH (nbgrader calls alembic)."""
    env = quiet_environment()
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run_autograder(*args: str, cwd: Path = ROOT, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, env=quiet_env(),
                          capture_output=True, text=True, timeout=timeout)


def grade_json(*args: str, cwd: Path = ROOT, timeout: float = 900, exit_code: int = 0) -> list[dict]:
    """Run `autograder grade ... --format json` for real and parse what it printed (``exit_code``: 1 where some
    submission cannot be graded, which still gets its result)."""
    done = run_autograder("grade", *args, "--format", "json", cwd=cwd, timeout=timeout)
    assert done.returncode == exit_code, f"autograder exited {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


# A decimal in feedback text ("0.428164", "3.172", "6.7e-05"); integers ("8 / 8 elements") are compared as text.
DECIMAL = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def assert_same_result(mine: dict, expected: dict) -> None:
    """A result equal to the golden one: every field exact (scores, statuses, pitfalls, cases), the feedback's
    text exact but its printed decimals within 1e-3 relative. Why: a float32 reduction's last bit depends on the
    CPU's vector width (AVX2 or AVX-512), so a printed value can differ in its sixth digit from one machine to
    another (measured: -0.00689781 here, -0.00689782 there, in dev's per_example_gradients)."""
    def split(result: dict) -> tuple[dict, list[str]]:
        exercises = [dict(e, feedback=DECIMAL.sub("#", e["feedback"])) for e in result.get("exercises", [])]
        numbers = [n for e in result.get("exercises", []) for n in DECIMAL.findall(e["feedback"])]
        return dict(result, exercises=exercises), numbers

    (mine_rest, mine_numbers), (expected_rest, expected_numbers) = split(mine), split(expected)
    assert mine_rest == expected_rest, mine["submission"]
    assert len(mine_numbers) == len(expected_numbers), mine["submission"]
    for got, want in zip(mine_numbers, expected_numbers):
        assert math.isclose(float(got), float(want), rel_tol=1e-3, abs_tol=1e-6), (mine["submission"], got, want)


def by_file(results: list[dict]) -> dict[str, dict]:
    return {Path(r["submission"]).name: r for r in results}


def exercise(result: dict, exercise_id: str) -> dict:
    return next(e for e in result["exercises"] if e["id"] == exercise_id)


# --------------------------------------------------------------------------- what one test run shares

def run_folder(tmp_path_factory) -> Path:
    """This test run's temporary folder that every pytest-xdist worker sees: the parent of the worker's own
    basetemp under xdist (pytest-xdist's documented way to share between workers), the basetemp without it.
    Outside the checkout, like every folder pytest makes."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(tmp_path_factory, name: str, make):
    """``(folder, data)``: what ``make(folder)`` made in ``folder`` and returned (JSON data), made once per test
    run however many workers and modules ask. The first to ask makes it under a file lock; the others wait on
    the lock, then read what it left. Why: an expensive result several modules read (the example class graded,
    a corpus graded) costs one grading per run, not one per module and worker. The folder is to be read, never
    changed: a test that changes what it holds works on a copy. A ``make`` that fails leaves nothing: the next
    to ask tries again (and fails with its own traceback)."""
    import fcntl

    root = run_folder(tmp_path_factory)
    folder, done = root / f"once-{name}", root / f"once-{name}.json"
    with open(root / f"once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when this process dies
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            data = make(folder)
            partial = done.with_suffix(".partial")
            partial.write_text(json.dumps(data), encoding="utf-8")
            partial.rename(done)
    return folder, json.loads(done.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- Gradescope's rules

def check_gradescope(data: dict) -> None:
    """Gradescope's rules for results.json (gradescope-autograders.readthedocs.io, "Autograder Specifications")."""
    assert isinstance(data, dict)
    assert isinstance(data["score"], (int, float)) and not isinstance(data["score"], bool)
    assert math.isfinite(data["score"]) and data["score"] >= 0
    assert "execution_time" not in data  # optional; a submission's time is its code's choice (round four)
    assert isinstance(data["output"], str) and data["output"]
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data[key] in formats.OUTPUT_FORMATS
    for key in ("visibility", "stdout_visibility"):
        assert data[key] in formats.VISIBILITIES
    assert isinstance(data["extra_data"], dict)
    assert isinstance(data["tests"], list) and data["tests"]
    allowed = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
               "visibility", "extra_data"}
    for test in data["tests"]:
        assert set(test) <= allowed, set(test) - allowed
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed")
        assert test["visibility"] in formats.VISIBILITIES
        assert isinstance(test["output"], str) and test.get("output_format", "text") in formats.OUTPUT_FORMATS
        assert all(isinstance(tag, str) for tag in test.get("tags", []))
    # The top-level score is the submission's total; the tests add up to it up to their 4-decimal rounding.
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]), abs=1e-4 * len(data["tests"]))
    json.dumps(data, allow_nan=False)  # plain JSON: no NaN or inf anywhere


# --------------------------------------------------------------------------- HTML, as parsers and browsers see it

SKIP_BROWSER = "AUTOGRADER_SKIP_BROWSER"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# As root (CI) Chromium needs --no-sandbox; without the background-networking flags it tries
# to reach Google's services, which a closed network refuses.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")

# --------------------------------------------------------------------------- helpers (also used by test_feedback_pages)

class Elements(HTMLParser):
    """Every element (tag, attributes) and the text of a document, as a browser's parser sees them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.chunks: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.chunks.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    @property
    def text(self) -> str:
        return " ".join("".join(self.chunks).split())


def chromium() -> str:
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name):
            return found
    if os.environ.get(SKIP_BROWSER) == "1":
        pytest.skip(f"no Chromium on this machine, and {SKIP_BROWSER}=1 says to skip the browser checks")
    pytest.fail(f"headless Chromium is needed to check the HTML pages in a real browser and none of "
                f"{', '.join(CHROMIUM_NAMES)} is on PATH: `apt-get install -y chromium` (.ci/run installs it), "
                f"or set {SKIP_BROWSER}=1 to skip these checks on this machine", pytrace=False)


def browser_dom(page: Path) -> str:
    """The DOM Chromium builds from ``page`` (a file), after its load event and every script it allows."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                               "--virtual-time-budget=10000", page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "<html" in done.stdout, (
        f"chromium failed ({done.returncode}) on {page}:\n{done.stderr[-3000:]}")
    return done.stdout


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: requests on fd 3,
    replies and events on fd 4, each a JSON object ended by a NUL byte), so that a page is laid out in a viewport
    of any size (a phone's 390 CSS pixels: a window cannot be narrower than 500), measured with a script of the
    test's own (the page's Content-Security-Policy does not apply to it) and photographed."""

    def __init__(self):
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        to_chromium, self._requests = os.pipe()
        self._replies, from_chromium = os.pipe()

        def wire() -> None:  # in the child: the protocol's two descriptors where Chromium expects them
            import fcntl

            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chromium, from_chromium)]  # 3 or 4 may be them
            os.dup2(high[0], 3)  # inheritable, unlike every descriptor Python opened (PEP 446)
            os.dup2(high[1], 4)

        self._process = subprocess.Popen(
            [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
             "--hide-scrollbars", "about:blank"],
            close_fds=False, preexec_fn=wire, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chromium)
        os.close(from_chromium)
        self._buffer = b""
        self._next_id = 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)

    def call(self, method: str, session: bool = False, timeout: float = 120, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._requests, json.dumps(message).encode() + b"\0")
        reply = self._wait(lambda m: m.get("id") == self._next_id, timeout)
        assert "error" not in reply, f"{method}: {reply['error']}"
        return reply.get("result", {})

    def _wait(self, wanted, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return message
            assert time.monotonic() < deadline, "Chromium did not answer in time"
            chunk = os.read(self._replies, 1 << 20)
            assert chunk, "Chromium closed its DevTools pipe"
            self._buffer += chunk

    def open(self, page: Path, width: int, height: int = 844, mobile: bool = True) -> None:
        """Load ``page`` in a viewport of ``width`` x ``height`` CSS pixels (a phone's, with ``mobile``: the page's
        viewport meta tag applies) and wait for its load event."""
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=mobile)
        self.call("Page.navigate", session=True, url=page.resolve().as_uri())
        self._wait(lambda m: m.get("method") == "Page.loadEventFired", 120)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def screenshot(self, target: Path, full_page: bool = True) -> Path:
        import base64

        data = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=full_page)
        target.write_bytes(base64.b64decode(data["data"]))
        return target

    def close(self) -> None:
        try:
            os.write(self._requests, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self._process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._requests)
            os.close(self._replies)
            self._profile.cleanup()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# How wide the document is, and which elements stick out of WIDTH pixels with no scrolling box of their own. (On a
# phone, Chromium widens the viewport to fit a page wider than the screen and shows it zoomed out: innerWidth says so.)
LAYOUT = """(() => {
  const width = WIDTH, wide = [];
  for (const element of document.body.querySelectorAll('*')) {
    if (element.getBoundingClientRect().right <= width + 0.5) continue;
    let clipped = false;
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(up).overflowX)) { clipped = true; break; }
    }
    if (!clipped) wide.push(element.tagName.toLowerCase() + (element.className ? '.' + element.className : '')
                            + ' ' + Math.round(element.getBoundingClientRect().right));
  }
  return {innerWidth: window.innerWidth, clientWidth: document.documentElement.clientWidth,
          scrollWidth: document.scrollingElement.scrollWidth, wide: wide.slice(0, 20)};
})()"""


def layout(browser: "Browser", page: Path, width: int) -> dict:
    """``LAYOUT`` measured on ``page`` opened in a phone's viewport ``width`` pixels wide."""
    browser.open(page, width)
    return browser.evaluate(LAYOUT.replace("WIDTH", str(int(width))))


# --------------------------------------------------------------------------- axe-core in headless Chromium
# axe-core (Deque's accessibility engine, the npm package `axe-core`) run in headless Chromium on a page.
#
# Why this way: axe-core is a single script, `axe.min.js`; its documented use is to inject it into the page and
# call `axe.run()`. The kit's tests already drive headless Chromium over the DevTools protocol (``helpers.Browser``:
# a pipe, no port, no Python dependency), so the script is evaluated there (DevTools' evaluation is not bound by a
# page's Content-Security-Policy, which forbids every script of the page's own). No Playwright, no Selenium, no
# Node process at test time: Node's npm only installs the file, outside the checkout (``.ci/run``).
#
# Where the file is: $AUTOGRADER_AXE_CORE, else the cache folder that ``.ci/run`` installs into. Without it the
# checks are skipped with the command that installs it; with AUTOGRADER_AXE_CORE set to a file that is missing,
# they fail (CI sets it, so a broken install cannot pass as a skip).
AXE_VARIABLE = "AUTOGRADER_AXE_CORE"
AXE_VERSION = "4.14.1"  # what .ci/run installs
AXE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder-tests" / "axe"
AXE_INSTALLED = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
AXE_INSTALL = f"npm install --prefix {AXE_CACHE} --no-audit --no-fund axe-core@{AXE_VERSION}"
# WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's tags for them
WCAG_22_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
AXE_WIDTHS = (1280, 390)  # a laptop, and a phone (where tables and code scroll in their own boxes)


def axe_script() -> str:
    """axe-core's script, or skip (fail, when AUTOGRADER_AXE_CORE names a file that is not there)."""
    named = os.environ.get(AXE_VARIABLE)
    path = Path(named) if named else AXE_INSTALLED
    if path.is_file():
        return path.read_text(encoding="utf-8")
    if named:
        pytest.fail(f"{AXE_VARIABLE}={named}, and there is no such file: install axe-core ({AXE_INSTALL})",
                    pytrace=False)
    pytest.skip(f"axe-core is not installed, so the accessibility checks cannot run: `{AXE_INSTALL}` (.ci/run does "
                f"it; Node's npm is needed), or set {AXE_VARIABLE} to an axe.min.js")


AXE_RUN = """axe.run(document, {runOnly: {type: 'tag', values: TAGS}, resultTypes: ['violations']}).then(r => ({
  version: axe.version, url: location.href,
  violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))}))"""


def violations(browser, script: str, page: Path | str, width: int) -> list[dict]:
    """axe-core's WCAG 2.2 AA violations on ``page`` (a file, or an http:// address) in a viewport ``width`` pixels
    wide (a phone's, below 500)."""
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=900, deviceScaleFactor=1,
                 mobile=width < 500)
    url = page if isinstance(page, str) else page.resolve().as_uri()
    browser.call("Page.navigate", session=True, url=url)
    browser._wait(lambda m: m.get("method") == "Page.loadEventFired", 120)
    loaded = browser.call("Runtime.evaluate", session=True, expression=script)
    assert "exceptionDetails" not in loaded, loaded
    found = browser.call("Runtime.evaluate", session=True, awaitPromise=True, returnByValue=True,
                         expression=AXE_RUN.replace("TAGS", json.dumps(list(WCAG_22_AA))))
    assert "exceptionDetails" not in found, found
    report = found["result"]["value"]
    assert report["url"] == url and report["version"], report  # axe ran, on this page
    return report["violations"]


def assert_accessible(browser, script: str, pages: list[Path | str]) -> None:
    """No page of ``pages`` has a violation at any of ``AXE_WIDTHS``."""
    assert pages, "no page to check: this would prove nothing"
    found = {f"{page} at {width} px": v for page in pages for width in AXE_WIDTHS
             if (v := violations(browser, script, page, width))}
    assert not found, json.dumps(found, indent=1)[:6000]


# --------------------------------------------------------------------------- hostile submissions, graded for real

HOSTILE = ROOT / "tests" / "submissions" / "hostile"
TOKEN_PLACEHOLDER = "__HOSTILE_SUITE_TOKEN__"
SECRET_VARIABLE = "HOSTILE_SUITE_SECRET"  # in every hostile grader's environment: no child may see it
SANDBOX_UID_BASE = 200_000  # autograder.run.processes: the uids a root grader gives its children
# Where a child could leave a file the machine (or a later child) sees; the host-writes attack tries them all.
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock", "/var/lock", "/dev/mqueue")


@dataclass
class GraderRun:
    """What one grader run left behind."""

    returncode: int | None  # None: still running after its timeout, killed
    seconds: float
    stdout: bytes
    stderr: bytes
    results: list | None
    problem: str  # why there are no results
    base: Path  # the run's own folder (its name carries the token)
    token: str
    cwd: Path  # the grader's working directory
    output: Path  # its --output file
    cache: Path  # its AUTOGRADER_CACHE
    leaked: list[str] = field(default_factory=list)  # processes of the run alive after the grader ended
    files_left: list[tuple[str, int]] = field(default_factory=list)  # (path, bytes) its submissions left on the host
    ipc_left: list[str] = field(default_factory=list)  # System V segments keyed by its token

    def describe(self) -> str:
        tail = self.stderr[-3000:].decode(errors="replace")
        return f"grader exit code {self.returncode} after {self.seconds:.0f} s; {self.problem}\nstderr tail:\n{tail}"


def read_quietly(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _uid_of(pid: str) -> int | None:
    for line in read_quietly(Path(f"/proc/{pid}/status")).splitlines():
        if line.startswith(b"Uid:"):
            return int(line.split()[1])
    return None


def processes_of_run(token: str, base: Path, uids: range | None) -> list[tuple[int, str]]:
    """Processes a run started: they carry its token (environment, or name), work below its folder, or run as
    one of the uids its grader gives its children (``uids``: the sandbox uids of a root grader, or the one
    unprivileged uid the whole run ran as)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        environ = read_quietly(Path(f"/proc/{name}/environ")).split(b"\0")
        command = read_quietly(Path(f"/proc/{name}/cmdline")).replace(b"\0", b" ").decode(errors="replace").strip()
        state = read_quietly(Path(f"/proc/{name}/stat")).rsplit(b")", 1)[-1].split()[:1]
        if state == [b"Z"]:
            continue  # a zombie holds nothing and runs nothing
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            cwd = ""
        uid = _uid_of(name)
        if (f"HOSTILE_SUITE_TOKEN={token}".encode() in environ or token in command or cwd.startswith(str(base))
                or (uids is not None and uid in uids)):
            found.append((int(name), command[:160]))
    return found


def kill_processes(processes: list[tuple[int, str]]) -> None:
    for pid, _ in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(4096)


def files_of_run(token: str) -> list[Path]:
    """Files a run's submissions left on the machine: named after its token, or starting with it. Two levels
    deep in the shared folders: a child's working directory and what is in it."""
    found = set()
    def listed(folder: Path) -> list[Path]:  # another test may remove its folder while this one looks
        try:
            return list(folder.iterdir()) if folder.is_dir() and not folder.is_symlink() else []
        except OSError:
            return []

    for root in {Path(tempfile.gettempdir()), *map(Path, SHARED_FOLDERS)}:
        level1 = listed(root)
        level2 = [path for folder in level1 for path in listed(folder)]
        for path in level1 + level2:
            try:
                if path.is_file() and not path.is_symlink() and (token in path.name or token.encode() in _head(path)):
                    found.add(path)
            except OSError:
                continue
    return sorted(found)


def ipc_of_run(token: str) -> list[str]:
    """System V shared memory segments keyed by the run's token (the host-writes attack makes one)."""
    key = int(token[:7], 16)
    rows = read_quietly(Path("/proc/sysvipc/shm")).decode().splitlines()[1:]
    return [row for row in rows if row.split() and int(row.split()[0]) == key]


def _remove_ipc(rows: list[str]) -> None:
    import ctypes

    libc = ctypes.CDLL(None)
    for row in rows:
        libc.shmctl(int(row.split()[1]), 0, None)  # IPC_RMID


def copy_submissions(names: list[str], folder: Path, token: str, seed: int | None = None) -> None:
    """Copy hostile files into ``folder`` with the run's token written in (their attacks are inert without it),
    and, given the run's ``seed``, what round three's memory oracle looks for (``oracle_patterns``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        data = (HOSTILE / name).read_bytes().replace(TOKEN_PLACEHOLDER.encode(), token.encode())
        if seed is not None and ORACLE_PLACEHOLDER.encode() in data:
            data = data.replace(f'"{ORACLE_PLACEHOLDER}"'.encode(), oracle_patterns("custom_gradients", seed).encode())
        (folder / name).write_bytes(data)


# --------------------------------------------------------------------------- round three: the course's secret

ORACLE_PLACEHOLDER = "__ROUND_THREE_PATTERNS__"
ORACLE_MASK = 0x5A


def int_digits(value: int) -> bytes:
    """A Python int's digits as CPython holds them in memory: 30 bits in each little-endian uint32."""
    digits = []
    while value:
        digits.append(value & (2**30 - 1))
        value >>= 30
    return b"".join(d.to_bytes(4, "little") for d in digits)


def random_hidden_arrays(assignment_id: str, seed: int) -> list[tuple[str, str, "object"]]:
    """(exercise, case id, array) of every array a hidden case draws from the seed (it differs under another
    seed: the contract's fixed edge values are not secret), in the order a student's child is handed them."""
    import numpy as np

    from autograder.course import assignment_by_id
    from autograder.run.handing import CaseBook, run_order
    from autograder.run.tasks import STUDENT, Task

    def arrays(value) -> list:
        if isinstance(value, np.ndarray):
            return [value]
        if isinstance(value, dict):
            return [a for key in sorted(value) for a in arrays(value[key])]
        if isinstance(value, (list, tuple)):
            return [a for item in value for a in arrays(item)]
        return []

    assignment = assignment_by_id(assignment_id)
    cases = {e.id: e.cases(seed) for e in assignment.exercises}
    others = {e.id: e.cases(seed + 1) for e in assignment.exercises}
    tasks = [Task(e.id, i, STUDENT) for e in assignment.exercises for i in range(len(cases[e.id]))]
    found = []
    for number in run_order(tasks, CaseBook(cases)):
        task = tasks[number]
        case, other = cases[task.exercise][task.case_index], others[task.exercise][task.case_index]
        if case.public:
            continue
        for mine, theirs in zip(arrays(dict(case.args)), arrays(dict(other.args))):
            if mine.size >= 2 and (mine.shape != theirs.shape or not np.array_equal(mine, theirs)):
                found.append((task.exercise, case.id, mine))
    return found


def secret_forms(assignment_id: str, seed: int) -> dict[str, str]:
    """What no output may hold (label -> text): the seed in decimal and hex, each exercise's key (hex, and the
    int numpy seeds from), and every random hidden input as round three's attacks write what they hold (the
    hex of its first 24 bytes, its first element as Python writes a float)."""
    from autograder.course import assignment_by_id
    from autograder.model.course import case_key

    forms = {"seed": str(seed), "seed hex": f"{seed:x}"}
    for exercise in assignment_by_id(assignment_id).exercises:
        key = case_key(seed, exercise.id)
        forms[f"{exercise.id} key"] = key.hex()
        forms[f"{exercise.id} key as an int"] = str(int.from_bytes(key, "big"))
    for exercise, case, array in random_hidden_arrays(assignment_id, seed):
        head = array.tobytes()[:24]
        if len(set(head)) > 1:  # an all-zero row (safe_norm's) says nothing of the seed
            forms[f"{exercise}/{case} bytes"] = head.hex()
        first = repr(float(array.flat[0]))
        if len(first) >= 8:  # "0.0" or "1.0" are in any output by chance; a drawn float has many digits
            forms[f"{exercise}/{case} first value"] = first
    return forms


def oracle_patterns(assignment_id: str, seed: int) -> str:
    """What leak_td_loss_memory_oracle.py looks for in its own process, as a Python literal: the seed's forms,
    then each random hidden case's largest input (its first 32 bytes) in the order cases are handed, each
    pattern's bytes masked (so the file's text holds no copy of it)."""
    patterns = [("seed-decimal", str(seed).encode()), ("seed-hex", f"{seed:x}".encode()),
                ("seed-le", seed.to_bytes(8, "little")), ("seed-digits", int_digits(seed))]
    largest: dict[str, bytes] = {}
    for exercise, case, array in random_hidden_arrays(assignment_id, seed):
        tag = f"case:{exercise}/{case}"
        if len(array.tobytes()) > len(largest.get(tag, b"")):
            largest[tag] = array.tobytes()
    patterns += [(tag, data[:32]) for tag, data in largest.items()]
    return repr([[tag, [byte ^ ORACLE_MASK for byte in data]] for tag, data in patterns])


def interpreter_for(uid: int) -> tuple[list[str], dict[str, str]] | None:
    """A Python that another user can run, with this environment's packages: this one when its whole path is
    open to others, else the system's of the same version with this one's site-packages; None when neither."""
    import site
    import sysconfig

    def open_to_others(path: str) -> bool:
        real = Path(os.path.realpath(path))
        return all(os.stat(p).st_mode & 0o001 for p in [real, *real.parents]) and os.stat(real).st_mode & 0o005

    if open_to_others(sys.executable):
        return [sys.executable], {}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/bin:/usr/local/bin")
    packages = [p for p in site.getsitepackages() + [sysconfig.get_paths()["purelib"]] if open_to_others(p)]
    if system and open_to_others(system) and packages:
        return [system], {"PYTHONPATH": os.pathsep.join(dict.fromkeys(packages))}
    return None


def grade_folder(folder: Path, base: Path, token: str, *args: str, uid: int | None = None,
                 cache: Path | None = None, timeout: float = 300, grace: float = 5,
                 wrapper: tuple[str, ...] = (), open_python: bool = False) -> GraderRun:
    """Run `autograder grade FOLDER --format json --output ...` for real, in its own session, working directory
    and output folder, all below ``base`` (whose name carries ``token``, as does the grader's environment), as
    ``uid`` when given (setpriv: the grader is then that unprivileged user), under ``wrapper`` (a command that
    runs the rest, e.g. setpriv dropping a capability). Whatever the run leaves behind
    (processes, files, shared memory) is recorded and removed."""
    cwd, out = base / "cwd", base / "out"
    cwd.mkdir(parents=True, exist_ok=True)
    out.mkdir(exist_ok=True)
    output = out / "results.json"
    cache = cache or base / "cache"
    env = quiet_env(HOSTILE_SUITE_TOKEN=token, AUTOGRADER_CACHE=str(cache), **{SECRET_VARIABLE: f"secret-{token}"})
    command = [sys.executable]
    if uid is not None or open_python:  # the grader, or its children, run as another user: they need its Python
        found = interpreter_for(uid or 0)
        if found is None:
            pytest.skip("no Python on this machine that another user may run with this environment's packages")
        command, extra = found
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), extra.get("PYTHONPATH", "")) if p)
    if uid is not None:
        env["HOME"] = str(base / "home")
        (base / "home").mkdir(exist_ok=True)
        for path in (base, *base.rglob("*")):
            os.lchown(path, uid, uid)
        command = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *command]
    command = [*wrapper, *command, "-m", "autograder", "grade", str(folder), "--format", "json", "--output",
               str(output), *args]
    started = time.monotonic()
    # Files, not pipes: a process that escapes the grader and keeps a pipe open must not hang the test.
    with open(base / "stdout", "wb") as stdout, open(base / "stderr", "wb") as stderr:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                   env=env, start_new_session=True)
        try:
            returncode = process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            returncode = None
    seconds = time.monotonic() - started
    uids = (range(uid, uid + 1) if uid is not None else
            range(SANDBOX_UID_BASE + (process.pid % 10_000) * 256, SANDBOX_UID_BASE + (process.pid % 10_000 + 1) * 256))
    deadline = time.monotonic() + grace  # what the grader ended, and its fork server, have time to exit
    while processes_of_run(token, base, uids) and time.monotonic() < deadline:
        time.sleep(0.25)
    leaked = processes_of_run(token, base, uids)
    kill_processes(leaked)
    left = [(path, path.stat().st_size) for path in files_of_run(token) if not path.is_relative_to(base)]
    for path, _ in left:  # a 2 GB file must not outlive the test either; nor the folder the run left it in
        path.unlink(missing_ok=True)
        if path.parent.name.startswith(("autograder-", "submission-")):
            try:
                path.parent.rmdir()
            except OSError:
                pass
    ipc = ipc_of_run(token)
    _remove_ipc(ipc)
    results, problem = None, ""
    try:
        results = json.loads(output.read_text())
    except (OSError, ValueError) as error:
        problem = f"no results file: {error}"
    return GraderRun(returncode, seconds, read_quietly(base / "stdout"), read_quietly(base / "stderr"), results,
                     problem, base, token, cwd, output, cache, [f"{pid} {command}" for pid, command in leaked],
                     [(str(path), size) for path, size in left], ipc)


def new_run_folder(prefix: str) -> tuple[Path, str]:
    """A fresh folder of the system's temporary directory named after a random token. Not pytest's tmp_path,
    whose name carries no token and which lies below a 0700 folder that another user cannot traverse."""
    import uuid

    token = uuid.uuid4().hex
    base = Path(tempfile.mkdtemp(prefix=f"autograder-{prefix}-{token}-"))
    base.chmod(0o755)
    return base, token


def entries_verify(cache: Path) -> list[str]:
    """The cache's entries whose MAC does not verify under its key (none, if nobody but the grader wrote)."""
    import hashlib
    import hmac

    key = read_quietly(cache / "key")
    bad = []
    for path in [*cache.glob("reference-*.json"), *cache.glob("results/result-*.json"), *cache.glob("durations.json")]:
        mac, _, data = read_quietly(path).partition(b"\n")
        if not hmac.compare_digest(mac, b"hmac-sha256:" + hmac.new(key, data, hashlib.sha256).hexdigest().encode()):
            bad.append(path.name)
    return bad


def keyed_entry(cache: Path, data: bytes) -> bytes:
    """A cache entry as the grader writes it: its HMAC under the cache folder's key, then the data (a test that
    edits an entry on purpose re-signs it with this; anyone without the key cannot)."""
    import hashlib
    import hmac

    key = (cache / "key").read_bytes()
    return b"hmac-sha256:" + hmac.new(key, data, hashlib.sha256).hexdigest().encode() + b"\n" + data


SCRIPT_TAG = "<script>alert(1)</script>"


def hand_made_result() -> SubmissionResult:
    """A result as the judge builds it, with what a hostile student controls in every text (nothing graded)."""
    where = Where("cell 7, line 2", cell=7, line=2, code="g = x.numpy()", detail="`x.numpy()` on line 2 cuts it",
                  excerpt=((1, "def f(x):"), (2, f"    g = x.numpy()  # {SCRIPT_TAG}"), (3, "    return g")))
    exercises = [
        ExerciseResult("td_loss", 0.5, 2.0, Status.PARTIAL, ["gradient-cut"], summary="1 of 4 cases passed.",
                       explanations=[Explanation("gradient-cut", "the gradient stops at `.numpy()`", "keep tensors",
                                                 where)],
                       cases=[CaseReport("f32", "float32, batch 2", True, f"raised ValueError: {SCRIPT_TAG}")],
                       more_failing=2, cases_passed=1, cases_total=4),
        ExerciseResult("checkpointed", 0.0, 2.0, Status.NOT_IMPLEMENTED, ["not-implemented"],
                       summary="`checkpointed` still raises NotImplementedError."),
        ExerciseResult("log1pexp", 2.0, 2.0, Status.PASSED, summary="All 6 cases passed."),
    ]
    return SubmissionResult("s/x.ipynb", SCRIPT_TAG, "custom_gradients", exercises, notes=[f"cell 3 raised {SCRIPT_TAG}"])


# --------------------------------------------------------------------------- Classroom 50, as it reads a result

CLASSROOM50_UTC = r"\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ"
CLASSROOM50_RUNNER_ENV = {  # what Classroom 50's autograde-runner sets for an autograder.py (its wiki, runner.py)
    "CLASSROOM": "autodiff-fall-2026", "ASSIGNMENT": "custom-gradients", "ASSIGNMENT_TYPE": "individual",
    "USERNAME": "octo-ada", "OWNER": "octo-ada", "SUBMISSION_TAG": "submit/2026-12-01T10-00-00Z-a1b2c3d",
    "COMMIT_URL": "https://github.com/autodiff-org/autodiff-fall-2026-custom-gradients-octo-ada/commit/a1b2c3d",
    "RELEASE_URL": "https://github.com/autodiff-org/autodiff-fall-2026-custom-gradients-octo-ada/releases/tag/"
                   "submit%2F2026-12-01T10-00-00Z-a1b2c3d",
    "REVIEW_URL": "https://github.com/autodiff-org/autodiff-fall-2026-custom-gradients-octo-ada/compare/0f0f...a1b2c3d",
    "PAGES_BASE_URL": "https://autodiff-org.github.io/classroom50", "GITHUB_ACTOR": "octo-ada",
    "GITHUB_REPOSITORY": "autodiff-org/autodiff-fall-2026-custom-gradients-octo-ada", "GITHUB_SHA": "a1b2c3d",
    "GITHUB_SERVER_URL": "https://github.com",
}


def classroom50_problem(data, env: dict[str, str] = CLASSROOM50_RUNNER_ENV) -> str | None:
    """None when Classroom 50 accepts ``data``, else why not: the checks of ``validate_result`` in its runner
    (runner.py) and its gradebook collector (collect_scores.py), field by field, for the run's identity."""
    if not isinstance(data, dict) or data.get("schema") != "classroom50/result/v1":
        return "schema"
    for name, variable in (("classroom", "CLASSROOM"), ("assignment", "ASSIGNMENT")):
        if data.get(name) != env[variable]:
            return f"{name} {data.get(name)!r} is not {env[variable]!r}"
    if not isinstance(data.get("owner"), str) or data["owner"].lower() != env["OWNER"].lower():
        return f"owner {data.get('owner')!r}"
    if data.get("assignment_type") != env.get("ASSIGNMENT_TYPE", "individual"):
        return "assignment_type"
    if not isinstance(data.get("submission"), str) or not data["submission"].startswith("submit/"):
        return "submission must be a submit/* tag"
    for name in ("commit", "release", "review", "datetime"):
        if not isinstance(data.get(name), str) or not data[name]:
            return f"{name} must be a non-empty string"
    for name in ("datetime", "graded_at"):  # RFC 3339 in UTC, as collect_scores parses them for lateness
        if name in data and not re.fullmatch(CLASSROOM50_UTC, data[name]):
            return f"{name} {data[name]!r} is not UTC RFC 3339"

    def count(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not count(data.get("score")) or not count(data.get("max-score")) or data["score"] > data["max-score"]:
        return "score / max-score must be non-negative integers, score <= max-score"
    if not isinstance(data.get("tests"), list):
        return "tests must be a list"
    for i, test in enumerate(data["tests"]):
        if not isinstance(test, dict) or not isinstance(test.get("test-name"), str) or not test["test-name"]:
            return f"tests[{i}].test-name"
        if not isinstance(test.get("passed"), bool):
            return f"tests[{i}].passed"
        if not count(test.get("score")) or not count(test.get("max-score")) or test["score"] > test["max-score"]:
            return f"tests[{i}] score / max-score"
    return None


# --------------------------------------------------------------------------- real nbgrader courses (issue 14)

def open_gradebook(course: Path):
    """nbgrader's gradebook of ``course`` (a context manager, as nbgrader's ``Gradebook``), imported when first
    needed: nbgrader's import costs each worker a second of CPU, and most test runs (the fast set) read none."""
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def generate_course(folder: Path) -> Path:
    """A course in ``folder``: the repository's solutions and nbgrader_config.py, and `nbgrader generate_assignment`
    run for every assignment (the releases in assignments/, the gradebook knowing each). conftest.py's
    ``generated_course`` makes it once per test run; ``nbgrader_course`` copies it."""
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    shutil.copy2(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    for assignment in ASSIGNMENT_IDS:
        run_nbgrader(folder, "generate_assignment", assignment, "--force")
    return folder


def nbgrader_course(folder: Path, generated: Path, executor: str | None = None) -> Path:
    """A course in ``folder``, a copy of ``generated`` (``generate_course``'s: every assignment generated) with
    its EXECUTOR line replaced when ``executor`` is given (the one line that picks the kernel path), and an
    empty submitted/."""
    shutil.copytree(generated, folder, dirs_exist_ok=True)
    config = (folder / "nbgrader_config.py").read_text(encoding="utf-8")
    if executor is not None:
        line = 'EXECUTOR = "autograder.frontends.nbgrader_executor.ContainedExecute"'
        assert config.count(line) == 1, "nbgrader_config.py has no EXECUTOR line to switch"
        (folder / "nbgrader_config.py").write_text(config.replace(line, f"EXECUTOR = {executor}"), encoding="utf-8")
    (folder / "submitted").mkdir(exist_ok=True)
    return folder


def with_references(cache: Path) -> Path:
    """``cache`` (a course's own cache folder) starting with the reference entries of the run's cache
    (conftest.py's ``grading_cache``) and its key, under which they verify; not its kept grades. An entry is
    keyed by the solution's bytes, the assignment, the seed and the grader: a course that grades with the same
    ones takes it instead of computing the reference again, any other computes its own."""
    shared = Path(os.environ.get("AUTOGRADER_CACHE", ""))
    if not (shared / "key").is_file():
        return cache  # no run cache (turned off): the course computes its references itself
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    for entry in [shared / "key", *shared.glob("reference-*.json")]:
        shutil.copy2(entry, cache / entry.name)
    return cache


def run_nbgrader(course: Path, *args: str, seed: int = 20261129, timeout: float = 1800) -> subprocess.CompletedProcess:
    """An nbgrader command for real, in the course's folder, with the course's seed and its own cache."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                          env=quiet_env(AUTOGRADER_SEED=str(seed), AUTOGRADER_CACHE=str(course / "autograder-cache")),
                          timeout=timeout)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def with_cell(notebook: Path, target: Path, code: str, after: str = "setup") -> Path:
    """A copy of ``notebook`` at ``target`` with a code cell of its own (no nbgrader metadata, as a student adds
    one) right after the cell whose grade id is ``after``."""
    data = json.loads(notebook.read_text(encoding="utf-8"))
    where = next(i for i, c in enumerate(data["cells"]) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                 == after)
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": code}
    if data.get("nbformat_minor", 0) >= 5:
        cell["id"] = f"added-by-student-{len(data['cells'])}"
    data["cells"].insert(where + 1, cell)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return target


# --------------------------------------------------------------------------- the checkout stays as cloned

# What Python, pytest and the venv's install leave in a checkout by themselves: not the tests' doing.
EXPECTED_LITTER = {".pytest_cache", "__pycache__", ".venv"}


def checkout_entries(root: Path) -> set[str] | None:
    """What git sees in ``root`` beside its tracked files (untracked and ignored entries, as `git status --ignored`
    lists them) but Python's, pytest's and the install's own; None where ``root`` is not a git work tree."""
    try:
        done = subprocess.run(["git", "status", "--porcelain=v1", "--ignored", "--untracked-files=normal", "-z"],
                              cwd=root, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    entries = {entry[3:] for entry in done.stdout.decode(errors="replace").split("\0") if entry[:2] in ("??", "!!")}
    return {entry for entry in entries
            if not any(part in EXPECTED_LITTER or part.endswith(".egg-info") for part in Path(entry).parts)}


WHEEL_SOURCES = ("pyproject.toml", "setup.py", "README.md", "autograder")


def build_wheel(folder: Path) -> Path:
    """The kit's wheel (the students' wheel), built from a copy of what the build reads: building in the checkout
    itself would leave build/ and an egg-info there (setuptools builds in the source tree)."""
    source = folder / "source"
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "--disable-pip-version-check", "-w", str(folder), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = folder.glob("*.whl")
    return wheel


# --------------------------------------------------------------------------- formgrader, as a browser uses it

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Formgrader:
    """`jupyter server` in the course folder (nbgrader's formgrader in it), and a browser's cookies: what
    formgrader's pages send. ``options``: more of the server's command line."""

    def __init__(self, course: Path, env: dict[str, str], log: Path, token: str, *options: str):
        self.base = f"http://127.0.0.1:{free_port()}"
        self._log = log
        self.server = subprocess.Popen(
            [str(BIN / "jupyter"), "server", "--no-browser", "--ip=127.0.0.1", f"--port={self.base.rsplit(':', 1)[1]}",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={course}", "--allow-root", *options],
            cwd=course, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        deadline = time.monotonic() + 300
        while True:  # the first page, with the token in its URL as `jupyter server` prints it: the login cookie
            assert self.server.poll() is None, f"jupyter server stopped:\n{log.read_text()[-3000:]}"
            try:
                self.first_page = self.opener.open(f"{self.base}/formgrader?token={token}", timeout=120)
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, f"formgrader did not answer:\n{log.read_text()[-3000:]}"
                time.sleep(0.5)

    def get(self, path: str):
        return json.load(self.opener.open(f"{self.base}{path}", timeout=120))

    def page(self, path: str) -> str:
        return self.opener.open(f"{self.base}{path}", timeout=120).read().decode("utf-8")

    def click(self, path: str) -> dict:
        """A button: `$.post(url)` with the X-CSRFToken header formgrader's backbone_xsrf.js adds."""
        xsrf = next(c.value for c in self.cookies if c.name == "_xsrf")
        request = urllib.request.Request(f"{self.base}{path}", data=b"", method="POST", headers={"X-CSRFToken": xsrf})
        return json.load(self.opener.open(request, timeout=1800))

    def stop(self) -> None:
        self.server.terminate()
        try:
            self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.server.pid, 9)
            self.server.wait()
# --------------------------------------------------------------------------- every writer, found by what it takes

@functools.lru_cache(maxsize=None)
def _writer_functions() -> tuple:
    """Every public function of the kit that renders a result: it takes a ``SubmissionResult`` (or a list of
    them), an ``ExerciseResult`` or a ``NotebookGrade``. Found by walking the package and reading signatures,
    however the modules are named or split (round four: a writer added or moved is held to the same tests)."""
    import importlib
    import inspect
    import pkgutil

    import autograder

    found = []
    for info in pkgutil.walk_packages(autograder.__path__, "autograder."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for name, function in sorted(vars(module).items()):
            if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != module.__name__:
                continue
            annotations = " ".join(str(p.annotation) for p in inspect.signature(function).parameters.values())
            if re.search(r"\b(SubmissionResult|ExerciseResult|NotebookGrade)\b", annotations):
                found.append(function)
    return tuple(found)


def _argument(annotation: str, result: SubmissionResult, folder: Path):
    """A value for a writer's parameter, from its annotation's text; raises LookupError when there is none."""
    import datetime

    from nbformat.v4 import new_code_cell, new_notebook

    if re.search(r"(list|Iterable|Sequence)\[SubmissionResult\]", annotation):
        return [result]
    if "SubmissionResult" in annotation:
        return result
    if "NotebookGrade" in annotation:
        from autograder.frontends.nbgrader_outputs import NotebookGrade
        return NotebookGrade(folder / "graded.ipynb", result)
    if "NotebookNode" in annotation:
        cells = [new_code_cell(f'grade_exercise("{result.assignment}", "{e.id}")', id=f"cell-{n}",
                               metadata={"nbgrader": {"grade": True, "grade_id": f"test_{e.id}", "points": 2}})
                 for n, e in enumerate(result.exercises)]
        return new_notebook(cells=cells)
    if "Path" in annotation:
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    if "datetime" in annotation:
        return datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)
    if "RunnerContext" in annotation:
        from autograder.report.classroom50 import RunnerContext
        return RunnerContext.from_environ({})
    if annotation in ("int", "int | None"):
        return 1
    if annotation in ("float", "float | None"):
        return 1.0
    raise LookupError(annotation)


def _shown(value) -> str:
    """A writer's return value as its user reads it: text as it is, data as JSON (a notebook too)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, default=repr)
    return repr(value)


def _made_by_its_module(function, annotation: str, result: SubmissionResult, folder: Path):
    """A parameter that takes what another writer of the same module makes of the result (Classroom 50's release
    body takes its result.json's data): that writer's output, or LookupError."""
    import inspect
    import sys

    for other in _writer_functions() if annotation == "dict" else ():
        if other.__module__ == function.__module__ and other is not function \
                and str(inspect.signature(other).return_annotation) == annotation:
            parameters = list(inspect.signature(other).parameters.values())
            return other(*[_argument(str(p.annotation), result, folder) for p in parameters
                           if p.default is inspect.Parameter.empty])
    raise LookupError(f"{annotation} for {function.__name__} ({sys.modules[function.__module__].__name__})")


def every_rendering(result: SubmissionResult, folder: Path) -> dict[str, list[str]]:
    """What every writer of the kit makes of ``result``, by writer: each thing it returned (text, or data as
    JSON), each notebook it filled in, each file it wrote below ``folder`` (emptied first). A writer that takes
    an ``ExerciseResult`` renders each exercise."""
    import inspect

    renderings = {}
    for function in _writer_functions():
        parameters = [p for p in inspect.signature(function).parameters.values()
                      if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        label = f"{function.__module__}.{function.__name__}"
        place = folder / function.__name__
        shutil.rmtree(place, ignore_errors=True)
        first = str(parameters[0].annotation)
        calls = [[e] for e in result.exercises] if "ExerciseResult" in first else [[]]
        outputs = []
        try:
            for call in calls:
                arguments = list(call)
                for parameter in parameters[len(call):]:
                    if parameter.default is not inspect.Parameter.empty:
                        break
                    try:
                        if parameter.name in ("output", "path", "target") and "str" in str(parameter.annotation):
                            place.mkdir(parents=True, exist_ok=True)  # a file it writes: below ``folder``
                            arguments.append(str(place / "written"))
                            continue
                        arguments.append(_argument(str(parameter.annotation), result, place))
                    except LookupError:
                        arguments.append(_made_by_its_module(function, str(parameter.annotation), result, place))
                outputs.append(_shown(function(*arguments)))
                # a notebook it was handed is filled in place: what it holds then is shown too
                outputs += [_shown(a) for a in arguments if type(a).__name__ == "NotebookNode"]
        except LookupError:
            continue
        written = sorted(p for p in place.rglob("*") if p.is_file()) if place.exists() else []
        renderings[label] = [*outputs, *(f"{p.relative_to(place)}:\n{p.read_bytes().decode('utf-8', 'replace')}"
                                         for p in written)]
    return renderings
