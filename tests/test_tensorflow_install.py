"""The student's TensorFlow stays theirs (README, "Students"; autograder/supported.py).

pip's own resolver, asked for a dry run (`pip install --dry-run --report -`), installs the kit (its wheel, and
the checkout as `pip install git+...` builds it) beside `tensorflow` 2.20, `tensorflow-cpu` 2.21 and the oldest
supported release without adding a second TensorFlow distribution; where none is installed, the `tf` extra
brings one, and the nbgrader and test extras (the README's two commands) bring the `tf` extra. Metadata only:
the venv's site-packages holds the installed TensorFlow's dist-info, as pip records an install, not its files.
The real installs are in tests/test_student_install.py and scripts/tf_matrix.py.
"""
from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from autograder import supported
from helpers import ROOT

FAMILY = re.compile(r"^(tensorflow(-cpu|-gpu|-intel|-macos|-aarch64|-cpu-aws)?|tf-nightly(-cpu|-gpu)?|intel-tensorflow)$")


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def wheel(kit_wheel) -> Path:
    return kit_wheel  # built once per test run (conftest.py)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    return folder


def site_packages(venv: Path) -> Path:
    relative = Path(sysconfig.get_path("purelib")).relative_to(sysconfig.get_path("data"))
    return venv / relative


def pretend_installed(venv: Path, name: str | None, version: str | None) -> None:
    """The dist-info pip writes for an installed distribution (its METADATA, INSTALLER, RECORD), alone."""
    for old in site_packages(venv).glob("*.dist-info"):
        if FAMILY.match(normal(old.name.split("-")[0])):
            shutil.rmtree(old)
    if name is None:
        return
    info = site_packages(venv) / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "top_level.txt").write_text("tensorflow\n", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


def planned(venv: Path, *requirements: str) -> dict[str, str]:
    """What pip would install: {normalised name: version}, from its own JSON report."""
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--dry-run", "--quiet",
                           "--disable-pip-version-check", "--report", "-", *requirements],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    return {normal(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]}


def tensorflows(plan: dict[str, str]) -> dict[str, str]:
    return {name: version for name, version in plan.items() if FAMILY.match(name)}


@pytest.mark.slow
def test_installing_the_kit_adds_no_second_tensorflow_and_its_tf_extra_brings_one(venv, wheel):
    oldest = f"{supported.OLDEST[0]}.{supported.OLDEST[1]}.0"
    present = [("tensorflow", "2.20.0"), ("tensorflow-cpu", "2.21.0"), ("tensorflow-cpu", oldest)]
    for name, version in present:
        pretend_installed(venv, name, version)
        plan = planned(venv, str(wheel))  # the students' line with the instructor's wheel
        assert "tf-autodiff-autograder" in plan, plan
        assert tensorflows(plan) == {}, f"with {name} {version} installed, the kit would add {tensorflows(plan)}"
    pretend_installed(venv, "tensorflow", "2.20.0")
    plan = planned(venv, str(ROOT))  # from the checkout: what `pip install git+<course repository>` builds
    assert "tf-autodiff-autograder" in plan and tensorflows(plan) == {}, plan

    pretend_installed(venv, None, None)  # a fresh machine: the tf extra brings one TensorFlow, in the range
    plan = tensorflows(planned(venv, f"{wheel}[tf]"))
    expected = "tensorflow-cpu" if platform.machine() == "x86_64" else "tensorflow"
    assert list(plan) == [expected], plan
    assert supported.OLDEST <= supported.release(plan[expected]) <= supported.NEWEST, plan


def test_the_readmes_commands_bring_tensorflow_through_the_nbgrader_and_test_extras_and_the_range_is_one(tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [r for r in project["dependencies"] if FAMILY.match(normal(re.split(r"[ <>=!~;\[]", r)[0]))], \
        "TensorFlow is the student's: the kit names it only in its tf extra"
    extras = project["optional-dependencies"]
    for extra in ("nbgrader", "test"):  # `pip install -e '.[nbgrader]'` and `'.[nbgrader,test]'` on a fresh venv
        assert "tf-autodiff-autograder[tf]" in extras[extra], extra
    assert not [r for r in extras["student"] if "tf" in r], "the student extra adds no TensorFlow (README: add tf)"
    for requirement in extras["tf"]:
        assert f"{supported.SPECIFIER};" in requirement.replace(" ", ""), requirement
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"TensorFlow {supported.TESTED}" in readme and f'"tensorflow{supported.SPECIFIER}"' in readme


def test_the_range_and_its_messages():
    found = supported.InstalledTensorFlow
    assert supported.problem(found((("tensorflow", "2.20.0"),), True)) is None
    assert supported.problem(found((("tensorflow-cpu", "2.21.0"),), True)) is None
    assert supported.note(found((("tensorflow", "2.20.0"),), True)) is None
    missing = supported.problem(found((), False))
    assert missing.startswith("TensorFlow is not installed") and f'pip install "tensorflow{supported.SPECIFIER}"' in missing
    old = supported.problem(found((("tensorflow-cpu", "2.15.1"),), True))
    assert f'pip install --upgrade "tensorflow-cpu{supported.SPECIFIER}"' in old, old  # the student's own distribution
    two = supported.problem(found((("tensorflow", "2.20.0"), ("tensorflow-cpu", "2.21.0")), True), notebook=True)
    assert "%pip uninstall -y tensorflow tensorflow-cpu" in two and "(then restart the kernel)" in two, two
    newer = supported.note(found((("tf-nightly", "2.23.0.dev20261026"),), True))
    assert newer.startswith("note: TensorFlow 2.23.0.dev20261026 is newer") and supported.problem(
        found((("tf-nightly", "2.23.0.dev20261026"),), True)) is None
    for message in (missing, old, two, newer):
        assert "\n" not in message
    assert supported.release("2.16.0rc1") == (2, 16) and supported.release("2.23.0.dev20261026") == (2, 23)


@pytest.mark.slow  # builds the wheel
def test_the_wheel_names_tensorflow_only_in_its_tf_extra(wheel):
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    unconditional = [r for r in requires if "extra ==" not in r]
    assert unconditional and not [r for r in unconditional if FAMILY.match(normal(re.split(r"[ <>=!~;\[(]", r)[0]))]
    assert [r for r in requires if r.startswith("tensorflow") and 'extra == "tf"' in r], requires
