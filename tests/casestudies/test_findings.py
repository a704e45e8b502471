"""What we say about the papers: every finding classified and shown by a real test, every cited
equation number anchored in the text of our copy.

The paper texts themselves are not part of the project; when ``GEOMCHECK_PAPERS_DIR`` names the
directory that holds them, every anchor is also looked up in the text.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
from pathlib import Path

import pytest

import casestudies
from casestudies._core import FINDING_KINDS, Finding

ROOT = Path(__file__).resolve().parents[2]

#: case study -> (the paper's text file in GEOMCHECK_PAPERS_DIR, further files whose citations it owns)
PAPERS = {
    "terakawa-beam-two-mass": ("terakawa-yaguchi-2022-symplecticity-coupled.txt",
                               ["geomcheck/structures/coupled.py", "docs/papers/terakawa2022_beam.md"]),
    "komatsu-wave-beam": ("komatsu-terakawa-yaguchi-2020-coupled-natural.txt",
                          ["geomcheck/structures/natural.py", "geomcheck/structures/natural_discrete.py",
                           "docs/papers/komatsu2020.md"]),
    "komatsu-mass-spring-beam": ("komatsu-terakawa-yaguchi-2020-coupled-natural.txt", []),
    "vermeeren-damped-oscillator": ("vermeeren-bravetti-seri-2019-contact-integrators.txt",
                                    ["geomcheck/structures/contact.py", "geomcheck/structures/herglotz.py",
                                     "docs/papers/vermeeren2019.md"]),
    "vermeeren-spin-orbit": ("vermeeren-bravetti-seri-2019-contact-integrators.txt", []),
    "salnikov-constrained": ("salnikov-hamdouni-2019-computer-algebra.txt",
                             ["geomcheck/structures/dirac.py", "docs/papers/salnikov2019.md"]),
    "salnikov-van-der-pol": ("salnikov-hamdouni-2019-computer-algebra.txt",
                             ["geomcheck/structures/port_hamiltonian.py"]),
    "guo-del-schemes": ("guo-li-wu-2001-del-symplectic-lagrangian.txt",
                        ["geomcheck/structures/del_forms.py", "geomcheck/structures/lagrangian.py",
                         "docs/papers/guo2001.md"]),
}

# "eq. (27)", "Eqs. (26)-(27)", "eqs. 93 and 94", "Equation (91)", "(87)-(89)"
_CITATION = re.compile(r"\b(?:[Ee]q(?:uation)?s?\.?)\s*\(?\d+\)?(?:\s*(?:-|–|,|and|to)\s*\(?\d+\)?)*")
_RANGE = re.compile(r"\(\d+\)\s*[-–]\s*\(\d+\)")


def _module(name):
    return importlib.import_module(f"casestudies.{casestudies._MODULES[name]}")


def _cited_numbers(text: str) -> set:
    found = set()
    for m in list(_CITATION.finditer(text)) + list(_RANGE.finditer(text)):
        found.update(int(n) for n in re.findall(r"\d+", m.group(0)))
    return found


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _test_functions(path: Path) -> set:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


CASES = sorted(PAPERS)


def test_every_case_study_is_covered():
    assert set(CASES) == set(casestudies.names())


@pytest.mark.parametrize("name", CASES)
def test_findings_are_classified_and_shown_by_a_real_test(name):
    module = _module(name)
    findings = module.FINDINGS
    assert isinstance(findings, tuple) and all(isinstance(f, Finding) for f in findings)
    for f in findings:
        path, _, function = f.test.partition("::")
        assert (ROOT / path).is_file(), f"{f.where}: no test file {path}"
        assert function in _test_functions(ROOT / path), f"{f.where}: no test {function} in {path}"
        if not f.is_misprint:
            # only the authors' own error may be called one
            assert "misprint" not in f.statement.lower(), f"{f.where} ({f.kind}) is called a misprint"
        if f.kind == "damage":
            assert "our copy" in f.statement, f"{f.where}: damage must say 'as read in our copy'"


@pytest.mark.parametrize("name", CASES)
def test_findings_are_listed_in_the_module_docstring(name):
    module = _module(name)
    doc = _normalized(module.__doc__)
    for f in module.FINDINGS:
        assert _normalized(f"[{f.kind}] {f.where}") in doc, f"docstring lacks '[{f.kind}] {f.where}'"


@pytest.mark.parametrize("name", CASES)
def test_no_finding_is_counted_twice(name):
    module = _module(name)
    assert all(f.kind in FINDING_KINDS for f in module.FINDINGS)
    assert len({(f.kind, f.where, f.statement) for f in module.FINDINGS}) == len(module.FINDINGS), "a duplicate"


@pytest.mark.parametrize("name", CASES)
def test_cited_equation_numbers_are_anchored(name):
    module = _module(name)
    anchors = module.EQUATIONS
    assert isinstance(anchors, dict) and all(isinstance(k, int) and isinstance(v, str) and v.strip()
                                             for k, v in anchors.items())
    own = Path(module.__file__).read_text(encoding="utf-8")
    cited = _cited_numbers(own)
    missing = sorted(cited - set(anchors))
    assert not missing, f"{name} cites equations {missing} with no anchor in EQUATIONS"


@pytest.mark.parametrize("paper", sorted({p for p, _ in PAPERS.values()}))
def test_shared_files_cite_only_anchored_equations(paper):
    names = [n for n, (p, _) in PAPERS.items() if p == paper]
    anchors = set().union(*(_module(n).EQUATIONS for n in names))
    for n in names:
        for rel in PAPERS[n][1]:
            cited = _cited_numbers((ROOT / rel).read_text(encoding="utf-8"))
            missing = sorted(cited - anchors)
            assert not missing, f"{rel} cites equations {missing} of {paper} with no anchor"


@pytest.mark.parametrize("name", CASES)
def test_anchors_are_in_our_copy_of_the_paper(name):
    directory = os.environ.get("GEOMCHECK_PAPERS_DIR")
    if not directory:
        pytest.skip("GEOMCHECK_PAPERS_DIR is not set (the paper texts are not part of the project)")
    text = _normalized((Path(directory) / PAPERS[name][0]).read_text(encoding="utf-8"))
    for number, excerpt in _module(name).EQUATIONS.items():
        assert _normalized(excerpt) in text, f"({number}): the anchor text is not in our copy"
