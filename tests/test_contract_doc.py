"""docs/contract.md, the course contract in the kit's own words, is what the kit says, and its ids and signatures
are the shared contract's (../shared/CURRICULUM.md).

The page is made by scripts/contract_doc.py from the course description and the pitfall catalogue. The shared
contract lives beside the project's checkout (CI clones the repository with a copy of shared/ beside it; a git
worktree finds it beside its main checkout); where it is absent, the comparison is skipped and says why.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import all_assignments
from autograder.model.pitfalls import CATALOGUE
from autograder.model.results import STATUSES
from helpers import ROOT

SPEC = importlib.util.spec_from_file_location("contract_doc", ROOT / "scripts" / "contract_doc.py")
contract_doc = sys.modules.setdefault("contract_doc", importlib.util.module_from_spec(SPEC))
SPEC.loader.exec_module(contract_doc)
CURRICULUM_VARIABLE = "AUTOGRADER_CURRICULUM"  # a path to CURRICULUM.md, where it lives elsewhere


def shared_contract() -> Path | None:
    """../shared/CURRICULUM.md beside this checkout, or beside the main checkout of this git worktree."""
    candidates = [Path(os.environ[CURRICULUM_VARIABLE])] if os.environ.get(CURRICULUM_VARIABLE) else []
    candidates.append(ROOT.parent / "shared" / "CURRICULUM.md")
    common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    if common.returncode == 0 and common.stdout.strip():
        candidates.append(Path(common.stdout.strip()).parent.parent / "shared" / "CURRICULUM.md")
    return next((path for path in candidates if path.is_file()), None)


def parse_contract(text: str) -> dict:
    """Assignments with their exercises' parameters, pitfall ids and statuses, as CURRICULUM.md writes them."""
    assignments: dict[str, dict[str, list[str]]] = {}
    sections = re.split(r"^## ", text, flags=re.MULTILINE)
    for section in sections:
        heading = re.match(r"Assignment `(\w+)`", section)
        if heading:
            rows = re.findall(r"^\| `(\w+)` \| `(\w+)\(([^)]*)\)` \|", section, re.MULTILINE)
            assignments[heading.group(1)] = {exercise: [p.strip() for p in params.split(",") if p.strip()]
                                             for exercise, name, params in rows if exercise == name}
    pitfall_section = next(s for s in sections if s.startswith("Pitfall ids"))
    pitfalls = [pid for row in re.findall(r"^\| (`[^|]*`) \|", pitfall_section, re.MULTILINE)
                for pid in re.findall(r"`([\w-]+)`", row)]
    statuses = re.findall(r"`([\w-]+)`", re.search(r"`status` is one of (.*?)\.", text, re.DOTALL).group(1))
    return {"assignments": assignments, "pitfalls": pitfalls, "statuses": statuses}


def the_kits() -> dict:
    return {"assignments": {a.id: {e.id: list(e.params) for e in a.exercises} for a in all_assignments()},
            "pitfalls": list(CATALOGUE), "statuses": list(STATUSES)}


def differences(shared: dict, kit: dict) -> list[str]:
    """Each id or signature that differs, named."""
    said = []
    for assignment in [*shared["assignments"], *(a for a in kit["assignments"] if a not in shared["assignments"])]:
        theirs, ours = shared["assignments"].get(assignment), kit["assignments"].get(assignment)
        if ours is None:
            said.append(f"assignment {assignment} ({', '.join(theirs)}) is in CURRICULUM.md, not in the kit")
        elif theirs is None:
            said.append(f"assignment {assignment} is in the kit, not in CURRICULUM.md")
        else:
            if list(theirs) != list(ours):
                said.append(f"{assignment}: exercises {list(theirs)} in CURRICULUM.md, {list(ours)} in the kit")
            for exercise in set(theirs) & set(ours):
                if theirs[exercise] != ours[exercise]:
                    said.append(f"{assignment}.{exercise}: ({', '.join(theirs[exercise])}) in CURRICULUM.md, "
                                f"({', '.join(ours[exercise])}) in the kit")
    said += [f"pitfall {p} is in CURRICULUM.md, not in the kit" for p in shared["pitfalls"] if p not in kit["pitfalls"]]
    said += [f"pitfall {p} is in the kit, not in CURRICULUM.md" for p in kit["pitfalls"] if p not in shared["pitfalls"]]
    if shared["statuses"] != kit["statuses"]:
        said.append(f"statuses {shared['statuses']} in CURRICULUM.md, {kit['statuses']} in the kit")
    return said


def test_the_contract_page_is_what_the_kit_says_now():
    assert (ROOT / "docs" / "contract.md").read_text(encoding="utf-8") == contract_doc.page(), (
        "docs/contract.md is stale: run `python scripts/contract_doc.py` and commit it")


def test_the_contract_page_shows_every_id_and_signature_of_the_kit():
    page = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    kit = the_kits()
    shown = parse_contract(page)  # read as CURRICULUM.md is read
    assert shown["assignments"] == kit["assignments"]
    assert shown["pitfalls"] == kit["pitfalls"] and shown["statuses"] == kit["statuses"]


def test_the_kits_ids_and_signatures_are_the_shared_contracts():
    path = shared_contract()
    if path is None:
        pytest.skip(f"../shared/CURRICULUM.md is not beside this checkout (nor beside its main checkout, nor in "
                    f"${CURRICULUM_VARIABLE}): nothing to compare docs/contract.md with")
    said = differences(parse_contract(path.read_text(encoding="utf-8")), the_kits())
    assert not said, f"the kit and {path} differ:\n" + "\n".join(said)


def test_a_difference_is_named_precisely():
    shared = {"assignments": {"custom_gradients": {"log1pexp": ["x"], "td_loss": ["q", "reward", "next_q", "gamma"]},
                              "implicit": {"root_solve": ["F", "theta", "x0", "iters"]}},
              "pitfalls": ["tape-outside-context", "watched-keras-variable"], "statuses": ["passed"]}
    kit = {"assignments": {"custom_gradients": {"log1pexp": ["x"], "td_loss": ["q", "reward", "next_q"]}},
           "pitfalls": ["tape-outside-context"], "statuses": ["passed"]}
    assert differences(shared, kit) == [
        "custom_gradients.td_loss: (q, reward, next_q, gamma) in CURRICULUM.md, (q, reward, next_q) in the kit",
        "assignment implicit (root_solve) is in CURRICULUM.md, not in the kit",
        "pitfall watched-keras-variable is in CURRICULUM.md, not in the kit"]
