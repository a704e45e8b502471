"""Jets: undefined functions and their derivatives as applications of named jet functions.

See the package docstring (the jet model) for why this is sound.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Mapping

import sympy
from sympy.core.function import AppliedUndef, Derivative, Function, Subs

from ..caches import Memo
from .budget import check_deadline

if TYPE_CHECKING:
    from sympy.core.function import UndefinedFunction

__all__ = ["Jet", "jet_function", "jet_label", "canonical_jets", "from_jets", "to_jets", "clear_jet_cache", "short_text"]


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


def to_jets(expr, memo, deadline=None):
    """Convert ``expr`` (recursively, sharing ``memo``) to jet form."""
    # Subs compares and hashes through a dummy-renaming xreplace of its whole body,
    # which made equality lookups the dominant cost; Subs nodes are memoized by
    # identity instead (the input, which holds them, outlives the memo).
    key = ("subs", id(expr)) if isinstance(expr, Subs) else expr
    hit = memo.get(key)
    if hit is not None:
        return hit
    if len(memo) % 512 == 0:
        check_deadline(deadline, 512)
    if not expr.args:
        res = expr
    elif isinstance(expr, AppliedUndef):
        args = [to_jets(a, memo, deadline) for a in expr.args]
        _remember_function(expr.func)
        res = jet_function(expr.func.__name__, (0,) * len(args))(*args)
    elif isinstance(expr, Derivative):
        res = _direct_jet(expr, memo, deadline)
        if res is None:
            res = _derivative_jet(expr, memo, deadline)
    elif isinstance(expr, Subs):
        inner = to_jets(expr.expr, memo, deadline)
        pts = [to_jets(p, memo, deadline) for p in expr.point]
        rule = dict(zip(expr.variables, pts))
        if inner.has(Derivative, Subs, sympy.Integral):
            # something stayed unevaluated: let sympy substitute into it properly
            res = inner.subs(rule, simultaneous=True)
        else:
            # after conversion no derivative refers to the bound variables any more,
            # so plain replacement is substitution
            res = inner.xreplace(rule)
    else:
        args = expr.args
        new = [to_jets(a, memo, deadline) for a in args]
        if all(a is b for a, b in zip(args, new)):
            res = expr
        else:
            res = expr.func(*new)
    memo[key] = res
    return res


def _direct_jet(deriv, memo, deadline):
    """The jet of ``Derivative(V(a1..ak), vars)`` when every variable is one argument slot.

    That is the common case (``Derivative(V(q1, q2), q1, q2)``, the body of sympy's
    ``Subs`` chain-rule output, and sympy's ``Derivative(V(W(q)), W(q))`` for a nested
    function), and building the jet directly avoids sympy's slow ``Derivative``
    constructor.  None when the chain rule is needed.
    """
    f = deriv.expr
    if not isinstance(f, AppliedUndef):
        return None
    args = f.args
    index = [0] * len(args)
    for v, n in deriv.variable_count:
        if not isinstance(n, (int, sympy.Integer)):
            return None
        slots = [i for i, a in enumerate(args) if a == v]
        if len(slots) != 1:
            return None
        i = slots[0]
        # a symbol is a variable wherever it occurs freely; a function variable such as
        # W(q) wherever it occurs as a subtree (sympy's rule for differentiating by it)
        if isinstance(v, sympy.Symbol):
            elsewhere = any(v in a.free_symbols for k, a in enumerate(args) if k != i)
        else:
            elsewhere = any(a.has(v) for k, a in enumerate(args) if k != i)
        if elsewhere:
            return None
        index[i] += int(n)
    new = [to_jets(a, memo, deadline) for a in args]
    return jet_function(f.func.__name__, tuple(index))(*new)


def _derivative_jet(deriv, memo, deadline):
    """The jet form of any ``Derivative``: its body in jet form, differentiated in order.

    A variable that is not a symbol (``W(q)``, or ``Derivative(x(t), t)`` in a Lagrangian)
    is, by sympy's definition, an independent variable standing for that subtree, with
    every other quantity (``q``, ``Derivative(W(q), q)``) held fixed.  In jet form that
    subtree is one jet application (``W(q)``, ``x_{t}(t)``), and the jets of other orders
    are distinct objects, so replacing it by a dummy symbol, differentiating, and putting
    it back is exactly that definition.  Variables are taken in the written order, since
    differentiation by ``Derivative(x(t), t)`` does not commute with differentiation by
    ``t``.  The derivative stays as it is (opaque) when a count is symbolic or a variable
    has no jet form.
    """
    # the engine's differentiation: memoized on the DAG, and the chain rule through jets
    from ..calculus import diff

    res = to_jets(deriv.expr, memo, deadline)
    for v, n in deriv.variable_count:
        if not isinstance(n, (int, sympy.Integer)) or n < 0:
            return deriv
        if isinstance(v, sympy.Symbol):
            x, back = v, None
        else:
            var = to_jets(v, memo, deadline)
            if not isinstance(var, Jet):
                return deriv
            x, back = sympy.Dummy("x"), var
            res = res.xreplace({var: x})
        for _ in range(int(n)):
            res = diff(res, x)
        if back is not None:
            res = res.xreplace({x: back})
    return res


_JETS_CACHE = Memo("geomcheck.zero.jets", 4096)


def canonical_jets(expr: sympy.Basic) -> sympy.Basic:
    """Rewrite undefined functions, their derivatives and ``Subs`` of them as jets.

    Parameters
    ----------
    expr : sympy.Basic
        Any sympy expression.

    Returns
    -------
    sympy.Basic
        The same function, with every ``V(a1..ak)``, ``Derivative(V(...), ...)`` and
        ``Subs(Derivative(V(...), ...), ..., ...)`` replaced by an application of a
        :class:`Jet` class.  Derivatives taken in different orders give equal jets.

    Examples
    --------
    >>> import sympy
    >>> p, q = sympy.symbols("p q")
    >>> V = sympy.Function("V")
    >>> canonical_jets(sympy.Derivative(V(p, q), p, q) - sympy.Derivative(V(p, q), q, p))
    0
    >>> canonical_jets(V(q + p, q).diff(q))
    V_{1}(p + q, q) + V_{2}(p + q, q)
    """
    if not isinstance(expr, sympy.Basic):
        return expr
    hit = _JETS_CACHE.get(expr)
    if hit is not None:
        return hit
    if not expr.has(AppliedUndef, Derivative, Subs):
        res = expr
    else:
        res = to_jets(expr, {})
    _JETS_CACHE.put(expr, res)
    return res


# The plain undefined function met under each name.  Converting back uses that very
# class: sympy makes a new (equal) class for Function("V") once its cache is cleared, and
# comparing applications of two such classes goes through their slow __eq__ on every
# node instead of stopping at identity.  A function with assumptions is never taken: jets
# are keyed by name only, so converting back gives the plain function, as it always has.
_UNDEFINED: dict = {}


def _remember_function(func):
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




def clear_jet_cache():
    """Forget the memo of :func:`canonical_jets`."""
    _JETS_CACHE.clear()


def short_text(e, n=60) -> str:
    """``e`` in the user's notation (jets turned back into derivatives), cut to ``n`` characters:
    for naming a subexpression in a message (never fails: a description must not fail a decision)."""
    try:
        s = str(from_jets(e))
    except Exception:  # noqa: BLE001
        s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."
