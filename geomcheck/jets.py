"""Jets: undefined functions and their derivatives as applications of named jet functions.

An undefined function ``V`` of k arguments and its derivatives, wherever they are applied,
are written ``V_alpha(a1, ..., ak)``: one *jet function* per name and multi-index ``alpha``
of derivative counts per argument slot.  Mixed partials taken in different orders are the
same object, and sympy's chain rule applied to a jet gives jets again.  This module holds
the jet functions and the way back to sympy's notation (:func:`from_jets`); the way in
(:func:`geomcheck.calculus.canonical_jets`) differentiates, so it lies with the engine's
differentiation in :mod:`geomcheck.calculus`, and the zero test (:mod:`geomcheck.zero`, see
its docstring for why the jet model is sound) builds on both.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Mapping

import sympy
from sympy.core.function import Derivative, Function, Subs

if TYPE_CHECKING:
    from sympy.core.function import UndefinedFunction

__all__ = ["Jet", "jet_function", "jet_label", "from_jets", "remember_function", "short_text"]


class Jet(Function):
    """Base class of jet functions: ``V_alpha(a1, ..., ak)`` = the derivative of an
    undefined function ``V`` with multi-index ``alpha`` (counts per argument slot),
    evaluated at ``(a1, ..., ak)``.

    Subclasses are made (once per name and multi-index) by :func:`jet_function`;
    ``jet_name`` and ``jet_index`` identify them.  Differentiating by an argument slot
    increments its count, so sympy's chain rule maps jets to jets.
    """

    jet_name = ""
    jet_index: tuple = ()

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        index = list(self.jet_index)
        index[argindex - 1] += 1
        return jet_function(self.jet_name, tuple(index))(*self.args)

    def _eval_evalf(self, prec):
        # An undefined function has no numeric value; never look it up in mpmath by name.
        return None

    @property
    def order(self) -> int:
        """The total derivative order ``|alpha|``."""
        return sum(self.jet_index)

    def _sympystr(self, printer):
        argstr = ", ".join(printer._print(a) for a in self.args)
        return f"{jet_label(self)}({argstr})"

    def _latex(self, printer, exp=None):
        argstr = ", ".join(printer._print(a) for a in self.args)
        name = printer._print(sympy.Symbol(self.jet_name))
        parts = []
        for i, n in enumerate(self.jet_index):
            if n:
                sub = printer._print(self.args[i]) if isinstance(self.args[i], sympy.Symbol) and \
                    self.args.count(self.args[i]) == 1 and all(isinstance(a, sympy.Symbol) for a in self.args) \
                    else str(i + 1)
                parts.append(rf"\partial_{{{sub}}}" + (f"^{{{n}}}" if n > 1 else ""))
        body = "".join(parts) + (" " if parts else "") + name + rf"\left({argstr}\right)"
        if exp is not None:
            body = rf"\left({body}\right)^{{{exp}}}"
        return body

    def __reduce_ex__(self, protocol):
        # The classes are made at run time; pickle the recipe, not the class.
        return (_apply_jet, (self.jet_name, self.jet_index, self.args))


_JET_CLASSES: dict = {}
_JET_LOCK = threading.Lock()


def jet_function(name: str, index: tuple) -> type[Jet]:
    """The jet function class of the undefined function ``name`` with multi-index ``index``.

    Parameters
    ----------
    name : str
        The name of the undefined function.
    index : tuple of int
        Derivative counts per argument slot; its length is the arity.

    Returns
    -------
    type
        A :class:`Jet` subclass, the same object for equal arguments.

    Examples
    --------
    >>> import sympy
    >>> q1, q2 = sympy.symbols("q1 q2")
    >>> Vq = jet_function("V", (0, 0))(q1, q2)
    >>> Vq.diff(q2).diff(q1) == Vq.diff(q1).diff(q2)
    True
    >>> Vq.diff(q1, 2)
    V_{q1q1}(q1, q2)
    """
    key = (str(name), tuple(int(n) for n in index))
    cls = _JET_CLASSES.get(key)
    if cls is None:
        with _JET_LOCK:
            cls = _JET_CLASSES.get(key)
            if cls is None:
                # named by the differentiated slots and the arity ("V__d112.2" for
                # d1 d1 d2 V(x, y)), so that sympy's printing order lists jets by slot
                slots = [str(i + 1) for i, n in enumerate(key[1]) for _ in range(n)]
                clsname = f"{key[0]}__d" + ("" if len(key[1]) < 10 else ",").join(slots) + f".{len(key[1])}"
                cls = type(clsname, (Jet,), {
                    "jet_name": key[0],
                    "jet_index": key[1],
                    "nargs": len(key[1]),
                    "__module__": __name__,
                })
                _JET_CLASSES[key] = cls
    return cls


def jet_label(j):
    """``V`` / ``V_{q1q2}`` (distinct symbol arguments) / ``V_{12}`` (argument slots)."""
    index, args = j.jet_index, j.args
    if not any(index):
        return j.jet_name
    if all(isinstance(a, sympy.Symbol) for a in args) and len(set(args)) == len(args):
        labels = [str(args[i]) for i, n in enumerate(index) for _ in range(n)]
        sep = ""
    else:
        labels = [str(i + 1) for i, n in enumerate(index) for _ in range(n)]
        sep = "" if len(index) < 10 else ","
    return f"{j.jet_name}_{{{sep.join(labels)}}}"


def _apply_jet(name, index, args):
    return jet_function(name, index)(*args)


# The plain undefined function met under each name.  Converting back uses that very
# class: sympy makes a new (equal) class for Function("V") once its cache is cleared, and
# comparing applications of two such classes goes through their slow __eq__ on every
# node instead of stopping at identity.  A function with assumptions is never taken: jets
# are keyed by name only, so converting back gives the plain function, as it always has.
_UNDEFINED: dict = {}


def remember_function(func) -> None:
    """Convert jets named like ``func`` back to ``func`` itself (the first plain undefined
    function met under its name; see :func:`from_jets`)."""
    name = func.__name__
    if name not in _UNDEFINED and func == sympy.Function(name):
        _UNDEFINED.setdefault(name, func)


def _from_jet(j, args, subs=True, functions=None):
    V = functions.get(j.jet_name) if functions else None
    if V is None:
        V = _UNDEFINED.get(j.jet_name)
    if V is None:
        V = _UNDEFINED.setdefault(j.jet_name, sympy.Function(j.jet_name))
    index = j.jet_index
    if not any(index):
        return V(*args)
    base, dummies, points = [], [], []
    for i, a in enumerate(args):
        direct = (
            isinstance(a, sympy.Symbol)
            and all(a not in b.free_symbols for k, b in enumerate(args) if k != i)
        )
        if index[i] and not direct:
            d = sympy.Dummy(f"xi_{i + 1}")
            base.append(d)
            dummies.append(d)
            points.append(a)
        else:
            base.append(a)
    # evaluate=False: evaluating would differentiate every argument by the variables
    # (walking the large points of a Subs) only to find the derivative we are building
    if dummies and not subs:
        return jet_function(j.jet_name, index)(*args)
    deriv = Derivative(V(*base), *[(base[i], n) for i, n in enumerate(index) if n], evaluate=False)
    if not dummies:
        return deriv
    return Subs(deriv, tuple(dummies), tuple(points))


def from_jets(expr: sympy.Basic, subs: bool = True, memo: dict | None = None,
              functions: Mapping[str, UndefinedFunction] | None = None) -> sympy.Basic:
    """Convert jets back to sympy-native ``Derivative`` / ``Subs`` form.

    ``V_alpha(q1, q2)`` with distinct symbol arguments becomes
    ``Derivative(V(q1, q2), ...)``; otherwise the differentiated slots are replaced by
    dummies and substituted: ``Subs(Derivative(V(_xi_1, q2), _xi_1), _xi_1, q1 + h*p1)``.

    Parameters
    ----------
    expr : sympy.Basic
    subs : bool, default True
        When False, a jet that needs a ``Subs`` stays a jet (its arguments converted).
        sympy's ``Subs`` constructor prints its point to name a placeholder, which costs
        time exponential in the nesting of composed maps; the engine's internal normal
        form (:func:`geomcheck.calculus.canonical_form`) is built this way.
    memo : dict, optional
        Shared by several calls (with the same ``subs`` and ``functions``), so that a
        subexpression common to several expressions is converted once and comes out as
        one object.
    functions : dict, optional
        ``{name: undefined function}`` to convert back to, e.g. the user's own
        ``Function("V", real=True)`` (jets are keyed by name only; by default the plain
        ``Function(name)``).

    Returns
    -------
    sympy.Basic

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.calculus import canonical_jets
    >>> q1, q2 = sympy.symbols("q1 q2")
    >>> V = sympy.Function("V")
    >>> e = sympy.Derivative(V(q1, q2), q2, q1)
    >>> from_jets(canonical_jets(e))
    Derivative(V(q1, q2), q1, q2)
    >>> canonical_jets(from_jets(canonical_jets(V(2*q1, q2).diff(q1)))) == canonical_jets(V(2*q1, q2).diff(q1))
    True
    >>> from_jets(canonical_jets(V(2*q1, q2).diff(q1) + V(q1, q2).diff(q1)), subs=False)
    2*V_{1}(2*q1, q2) + Derivative(V(q1, q2), q1)
    """
    if not isinstance(expr, sympy.Basic):
        return expr
    if memo is None:
        memo = {}
    # no expr.has(Jet) shortcut: it walks the tree, exponentially larger than the DAG for
    # composed maps, while conv below is memoized and returns expr itself when no jet is found

    def conv(e):
        hit = memo.get(e)
        if hit is not None:
            return hit
        if not e.args:
            res = e
        else:
            new = [conv(a) for a in e.args]
            if isinstance(e, Jet):
                res = _from_jet(e, new, subs, functions)
            elif all(a is b for a, b in zip(e.args, new)):
                res = e
            else:
                res = e.func(*new)
        memo[e] = res
        return res

    return conv(expr)


def short_text(e, n=60) -> str:
    """``e`` in the user's notation (jets turned back into derivatives), cut to ``n`` characters:
    for naming a subexpression in a message (never fails: a description must not fail a decision).

    An expression of more than ``20 n`` nodes (counted in O(``n``) steps by
    :func:`geomcheck.latex.expression_size`) is described by its size instead: printing it
    whole only to keep ``n`` characters could take minutes.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> short_text(x + 1)
    'x + 1'
    >>> short_text(sympy.Add(*[x**k for k in range(1000)]), 20)
    '(more than 400 no...'
    """
    from .latex import expression_size

    limit = 20 * max(int(n), 1)
    if isinstance(e, sympy.Basic) and expression_size(e, limit) > limit:
        s = f"(more than {limit} nodes)"
        return s if len(s) <= n else s[: n - 3] + "..."
    try:
        s = str(from_jets(e))
    except Exception:  # noqa: BLE001
        s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."
