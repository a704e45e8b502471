"""Jets in the zero test: the conversion to jets under the budget of a decision.

The jet functions live in :mod:`geomcheck.jets` and the conversion to them in
:mod:`geomcheck.calculus` (it differentiates), below the zero test; their names are
importable from here as well.  See the package docstring (the jet model) for why
deciding with jets is sound.
"""

from __future__ import annotations

from functools import partial

from ..calculus import canonical_jets, clear_jet_cache
from ..calculus import to_jets as convert_to_jets
from ..jets import Jet, from_jets, jet_function, jet_label, short_text
from .budget import check_deadline

__all__ = ["Jet", "jet_function", "jet_label", "canonical_jets", "from_jets", "to_jets", "clear_jet_cache", "short_text"]


def to_jets(expr, memo, deadline=None):
    """Convert ``expr`` (recursively, sharing ``memo``) to jet form, within a decision's budget.

    Parameters
    ----------
    expr : sympy.Basic
    memo : dict
        Conversions already made (see :func:`geomcheck.calculus.to_jets`).
    deadline : float, optional
        ``time.monotonic()`` past which the conversion stops; every 512 conversions are
        charged to the work budget of the decision running (:mod:`geomcheck.zero.budget`).

    Returns
    -------
    sympy.Basic

    Raises
    ------
    Interrupted
        The deadline passed or the work budget ran out.
    """
    return convert_to_jets(expr, memo, partial(check_deadline, deadline))
