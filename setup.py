"""Build hook (everything else is in pyproject.toml): the kit's wheel is the students' wheel.

Students install the kit from a wheel (``pip install tf-autodiff-autograder-*.whl``, or straight from the
course repository): it must carry no correct implementation of any exercise. The mistake models, and the
correct helpers some of them use (a correct gradient penalty, a correct critic loss, Newton parts, a
double-backprop Hessian-vector product), live in each assignment's ``mistakes`` module
(``autograder/course/<assignment>/mistakes.py``) or package (``.../mistakes/``): no wheel or sdist built from
this project holds them. The students' self-check needs only their answers on the public
cases, which the wheel carries (``autograder/public_cases/*.json``).

Grading needs them: the grader runs from a checkout (``pip install -e .``: an editable install reads the
package from the checkout itself) or from the Gradescope bundle (its source folder comes first on the path).
A grader without them says so before grading (``config.require_mistake_models``).
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TRUSTED = "mistakes"  # the module (or package) name of every assignment's trusted mistake models


def _students(package: str, module: str) -> bool:
    """False for an assignment's mistake models: its ``mistakes`` module, or any module of its ``mistakes`` package."""
    return not (package.startswith("autograder.course.") and TRUSTED in (module, *package.split(".")[3:]))


class StudentsBuildPy(build_py):
    """build_py without the trusted mistake models (and so without their compiled copies)."""

    def find_package_modules(self, package, package_dir):
        return [entry for entry in super().find_package_modules(package, package_dir) if _students(entry[0], entry[1])]

    def run(self):
        # A build folder left by an older build may hold them, or modules since removed: the wheel is made
        # from that folder, so the package is copied afresh.
        shutil.rmtree(Path(self.build_lib) / "autograder", ignore_errors=True)
        super().run()
        leftovers = [*Path(self.build_lib).glob(f"autograder/course/*/{TRUSTED}.py"),
                     *Path(self.build_lib).glob(f"autograder/course/*/{TRUSTED}/**/*.py")]
        if leftovers:
            raise SystemExit(f"the students' wheel would hold {leftovers}: refusing to build it")


setup(cmdclass={"build_py": StudentsBuildPy})
