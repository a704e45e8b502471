"""The published experiments of five papers, reproduced and checked.

>>> import casestudies
>>> isinstance(casestudies.names(), list)
True

Each case study is one module (see ``casestudies._core``); ``run(name, profile)`` runs it
with the quick profile (seconds) or the paper's own lengths.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Literal

from ._core import FINDING_KINDS, PROFILES, CaseResult, Check, Finding

if TYPE_CHECKING:
    import os

__all__ = ["names", "run", "describe", "CaseResult", "Check", "Finding", "FINDING_KINDS", "UnknownCaseError"]

from geomcheck.errors import InvalidArgumentError, UnknownCaseError

#: registry name -> module (in report order); a name is listed once its module exists
_PLANNED = {
    "terakawa-beam-two-mass": "terakawa2022_beam",
    "komatsu-wave-beam": "komatsu2020_wave_beam",
    "komatsu-mass-spring-beam": "komatsu2020_mass_spring_beam",
    "vermeeren-damped-oscillator": "vermeeren2019_damped_oscillator",
    "vermeeren-spin-orbit": "vermeeren2019_spin_orbit",
    "salnikov-constrained": "salnikov2019_constrained",
    "salnikov-van-der-pol": "salnikov2019_van_der_pol",
    "guo-del-schemes": "guo2001_del_schemes",
}


def _existing():
    import importlib.util

    return {name: mod for name, mod in _PLANNED.items()
            if importlib.util.find_spec(f"{__name__}.{mod}") is not None}


_MODULES: dict = _existing()


def names() -> list:
    """Every reproduced case study, in report order."""
    return list(_MODULES)


def _module(name):
    if name not in _MODULES:
        known = ", ".join(_MODULES) or "(none yet)"
        raise UnknownCaseError(f"unknown case study {name!r}; known case studies: {known}")
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


def describe(name: str) -> str:
    """One line: the title and the paper."""
    m = _module(name)
    return f"{m.TITLE} ({m.SOURCE})"


def run(name: str, profile: Literal["quick", "paper"] = "quick", out: str | os.PathLike[str] | None = None) -> CaseResult:
    """Run one case study.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    profile : {"quick", "paper"}
        Seconds, or the paper's own lengths.
    out : str or path, optional
        Directory for the figures (default: a new temporary directory).

    Raises
    ------
    UnknownCaseError, InvalidArgumentError
    """
    if profile not in PROFILES:
        raise InvalidArgumentError(f"unknown profile {profile!r}; expected one of: {', '.join(PROFILES)}")
    if out is not None:
        from geomcheck.files import directory_problem

        problem = directory_problem(out)
        if problem:   # before any work: a run takes seconds to minutes
            raise InvalidArgumentError(f"cannot write the figures to {out!r}: {problem}")
    m = _module(name)
    if out is None:
        import tempfile

        out = tempfile.mkdtemp(prefix=f"geomcheck-{name}-")
    return m.run(profile, out=out)
