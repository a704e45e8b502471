"""Domains: where the symbols of a claim range, so that a verdict says where it holds.

A :class:`Domain` gives every symbol a *kind* (real, integer, imaginary or complex) and,
for real and integer symbols, an open interval ``(lo, hi)`` (``lo`` may be ``-oo`` and
``hi`` may be ``oo``).  Symbols it does not name get their domain from their sympy
assumptions: ``positive`` gives ``(0, oo)``, ``negative`` gives ``(-oo, 0)``,
``integer`` gives the integers, ``imaginary`` the imaginary axis, ``complex`` (and not
real) the complex plane, and a plain ``Symbol("x")`` the whole real line (geomcheck's
symbols are coordinates and parameters of real manifolds).

The zero test draws its points inside the domain and every certificate states it.

>>> import sympy
>>> r, theta, n = sympy.Symbol("r"), sympy.Symbol("theta"), sympy.Symbol("n", integer=True)
>>> D = Domain({r: (0, sympy.oo)})
>>> D.interval(r), D.interval(theta), D.kind(n)
((0, oo), (-oo, oo), 'integer')
>>> D.describe([r, theta, n])
'r in (0, oo), theta in (-oo, oo), n an integer'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy

from .errors import DomainError

__all__ = ["Domain", "describe_pairs", "shown_name"]

_KINDS = ("real", "integer", "imaginary", "complex")


def _endpoint(v, symbol, which):
    try:
        x = sympy.sympify(v, strict=True)
    except (sympy.SympifyError, TypeError, ValueError):
        raise DomainError(f"the {which} end {v!r} of the domain of {symbol} is not a number") from None
    if x in (sympy.oo, -sympy.oo):
        return x
    if not isinstance(x, sympy.Expr) or not x.is_number or x.is_real is not True or not x.is_finite:
        raise DomainError(f"the {which} end {x!r} of the domain of {symbol} is not a real number or +-oo")
    if isinstance(x, sympy.Float):
        x = sympy.Rational(x)  # the exact binary value
    return x


def _interval_of(spec, symbol):
    """``(lo, hi)`` from a pair or a sympy Interval (closed ends are taken as open: we sample the interior)."""
    if isinstance(spec, sympy.Interval):
        lo, hi = spec.start, spec.end
    elif isinstance(spec, (tuple, list)) and len(spec) == 2:
        lo, hi = spec
    else:
        raise DomainError(
            f"the domain of {symbol} must be a pair (lo, hi) or a sympy Interval, got {spec!r}"
        )
    lo, hi = _endpoint(lo, symbol, "lower"), _endpoint(hi, symbol, "upper")
    if lo == sympy.oo or hi == -sympy.oo or not bool(sympy.Lt(lo, hi)):
        raise DomainError(f"the domain ({lo}, {hi}) of {symbol} is empty; expected lo < hi")
    return lo, hi


def _assumed(symbol):
    """``(kind, (lo, hi))`` from the sympy assumptions of ``symbol``."""
    if symbol.is_integer:
        kind = "integer"
    elif symbol.is_real:
        kind = "real"
    elif symbol.is_imaginary:
        return "imaginary", None
    elif symbol.is_complex and symbol.is_real is not True:
        return "complex", None
    else:
        kind = "real"
    lo, hi = -sympy.oo, sympy.oo
    if symbol.is_positive or symbol.is_nonnegative:
        lo = sympy.S.Zero
    if symbol.is_negative or symbol.is_nonpositive:
        hi = sympy.S.Zero
    return kind, (lo, hi)


def describe_pairs(pairs, most: int = 6) -> str:
    """``[(name, phrase)]`` as one phrase, names sharing a phrase grouped (the first ``most`` shown)."""
    groups = {}
    for name, what in pairs:
        names = groups.setdefault(what, [])
        if name not in names:
            names.append(name)
    parts = []
    for what, names in groups.items():
        shown = ", ".join(names[:most]) + (f", ... ({len(names)} symbols)" if len(names) > most else "")
        if what.startswith("an integer") and len(names) > 1:
            what = "integers" + what[len("an integer"):]
        parts.append(f"{shown} {what}")
    return ", ".join(parts)


def shown_name(symbol) -> str:
    """A symbol's name as a reader should see it: a Dummy (a scheme's unknown, printed ``_q'``)
    by its name, without sympy's underscore."""
    return symbol.name if isinstance(symbol, sympy.Dummy) else str(symbol)


class Domain:
    """An immutable box domain for the symbols of a claim.

    Parameters
    ----------
    intervals : mapping, optional
        ``{symbol or name: (lo, hi)}`` (or a sympy ``Interval``); open intervals of the
        real line, ``lo < hi``, ends may be ``-oo`` / ``oo``.  A name matches every
        symbol of that name.  Symbols not named take the domain of their assumptions.

    Raises
    ------
    DomainError
        An empty interval, an end that is not a real number, a key that is not a symbol
        or a name, or an interval that contradicts the symbol's assumptions (a
        ``positive`` symbol on ``(-1, 0)``, an ``imaginary`` symbol on any interval).

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x", positive=True)
    >>> Domain({x: (1, 2)}).interval(x)
    (1, 2)
    >>> Domain({x: (-1, 0)})
    Traceback (most recent call last):
    ...
    geomcheck.errors.DomainError: the domain (-1, 0) of x contradicts its assumptions, which put it in (0, oo)
    """

    __slots__ = ("_by_symbol", "_by_name", "_hash")

    def __init__(self, intervals: Mapping[Any, tuple[Any, Any] | sympy.Interval] | Domain | None = None):
        by_symbol, by_name = {}, {}
        if intervals is None:
            intervals = {}
        if isinstance(intervals, Domain):
            by_symbol, by_name = dict(intervals._by_symbol), dict(intervals._by_name)
        elif not isinstance(intervals, Mapping):
            raise DomainError(f"a domain is a mapping {{symbol: (lo, hi)}}, got {type(intervals).__name__} {intervals!r}")
        else:
            for key, spec in intervals.items():
                if isinstance(key, str):
                    by_name[key] = _interval_of(spec, key)
                elif isinstance(key, sympy.Symbol):
                    lo, hi = _interval_of(spec, key)
                    kind, assumed = _assumed(key)
                    if assumed is None:
                        raise DomainError(f"{key} is {kind} by its assumptions; a real interval cannot be its domain")
                    alo, ahi = assumed
                    if bool(sympy.Lt(lo, alo)) or bool(sympy.Gt(hi, ahi)):
                        raise DomainError(
                            f"the domain ({lo}, {hi}) of {key} contradicts its assumptions, which put it in ({alo}, {ahi})"
                        )
                    by_symbol[key] = (lo, hi)
                else:
                    raise DomainError(f"a domain key must be a sympy Symbol or a name, got {type(key).__name__} {key!r}")
        self._by_symbol = by_symbol
        self._by_name = by_name
        self._hash = hash((frozenset(by_symbol.items()), frozenset(by_name.items())))

    # -- queries
    def kind(self, symbol: sympy.Symbol) -> str:
        """``"real"``, ``"integer"``, ``"imaginary"`` or ``"complex"``."""
        return _assumed(symbol)[0]

    def interval(self, symbol: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr] | None:
        """The open interval ``(lo, hi)`` of a real or integer symbol (None for imaginary/complex ones)."""
        hit = self._by_symbol.get(symbol)
        if hit is not None:
            return hit
        kind, assumed = _assumed(symbol)
        if assumed is None:
            return None
        named = self._by_name.get(symbol.name)
        if named is not None:
            lo, hi = max(named[0], assumed[0]), min(named[1], assumed[1])
            if not bool(sympy.Lt(lo, hi)):
                raise DomainError(
                    f"the domain {named} given for the name {symbol.name!r} does not meet the assumptions of {symbol}"
                )
            return lo, hi
        return assumed

    def is_default(self, symbol: sympy.Symbol) -> bool:
        """True when ``symbol`` is not named by this domain (its assumptions decide)."""
        return symbol not in self._by_symbol and symbol.name not in self._by_name

    @property
    def explicit(self) -> dict:
        """The intervals given explicitly, by symbol and by name."""
        out = dict(self._by_symbol)
        out.update(self._by_name)
        return out

    def describe_each(self, symbols: Iterable[sympy.Symbol]) -> list[tuple[str, str]]:
        """``[(name, phrase)]``: the domain of each symbol in words (``"in (0, oo)"``, ``"an integer"``)."""
        out = []
        for s in symbols:
            kind = self.kind(s)
            if kind in ("imaginary", "complex"):
                what = kind
            else:
                lo, hi = self.interval(s)
                if kind == "integer":
                    what = "an integer" + ("" if (lo, hi) == (-sympy.oo, sympy.oo) else f" in ({lo}, {hi})")
                else:
                    what = f"in ({lo}, {hi})"
            out.append((shown_name(s), what))
        return out

    def describe(self, symbols: Iterable[sympy.Symbol], most: int = 6) -> str:
        """One phrase naming the domain of each of ``symbols`` (symbols sharing one are grouped)."""
        return describe_pairs(self.describe_each(symbols), most)

    def merged(self, other: Domain | Mapping[Any, tuple[Any, Any] | sympy.Interval]) -> "Domain":
        """This domain with the intervals of ``other`` (a Domain or mapping) taking precedence."""
        other = other if isinstance(other, Domain) else Domain(other)
        out = Domain()
        out._by_symbol = {**self._by_symbol, **other._by_symbol}
        out._by_name = {**self._by_name, **other._by_name}
        out._hash = hash((frozenset(out._by_symbol.items()), frozenset(out._by_name.items())))
        return out

    def renamed(self, rename: Mapping) -> "Domain":
        """The same intervals for the renamed symbols ``{old: new}`` (names are kept)."""
        out = Domain()
        out._by_symbol = {rename.get(s, s): v for s, v in self._by_symbol.items()}
        out._by_name = dict(self._by_name)
        out._hash = hash((frozenset(out._by_symbol.items()), frozenset(out._by_name.items())))
        return out

    # -- value semantics
    def __bool__(self):
        return bool(self._by_symbol or self._by_name)

    def __eq__(self, other):
        return isinstance(other, Domain) and self._by_symbol == other._by_symbol and self._by_name == other._by_name

    def __hash__(self):
        return self._hash

    def __repr__(self):
        items = [f"{k}: ({lo}, {hi})" for k, (lo, hi) in self.explicit.items()]
        return "Domain({" + ", ".join(items) + "})"
