"""Differentiation of sympy expressions, with canonical mixed partials.

This module is the one place where the engine differentiates a sympy expression by a
symbol.  Everything else calls :func:`diff`, so that two facts hold everywhere:

* mixed partial derivatives of undefined functions are written in one canonical
  order, so that ``Derivative(V(p, q), p, q) - Derivative(V(p, q), q, p)`` cancels
  structurally (sympy 1.14 keeps the variables in the order of differentiation and does
  not identify the two);
* derivatives of ``Subs`` objects (sympy's chain-rule output for ``V(q + h*p)``) are
  computed through jets (:func:`canonical_jets`, :mod:`geomcheck.jets`), because sympy 1.14's own
  ``Subs._eval_derivative`` can leak the internal placeholder symbol of a ``Subs`` (a
  ``Symbol`` named ``"_a + b"``) into the result, which silently changes the function;
* repeated differentiation of the same small expression (the common case when a
  vector field is applied to every coefficient of a form) is answered from a
  size-bounded memo.

The conversion to jets (:func:`canonical_jets`, :func:`to_jets`) is here too: it
differentiates (a derivative by a function is taken through jets) and differentiation
converts, so the two recurse into each other.  The jet functions and the way back to
sympy's notation are in :mod:`geomcheck.jets`; the zero test builds on both.

Examples
--------
>>> import sympy
>>> from geomcheck.calculus import diff
>>> p, q = sympy.symbols("p q")
>>> V = sympy.Function("V")
>>> diff(diff(V(p, q), p), q) - diff(diff(V(p, q), q), p)
0
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy.core.function import AppliedUndef, Derivative, Subs
from sympy.core.sorting import default_sort_key

from .caches import Memo, register
from .jets import Jet, from_jets, jet_function, remember_function

__all__ = ["diff", "canonical_derivatives", "canonical_form", "canonical_forms", "free_coordinates", "symbols_of",
           "canonical_jets", "to_jets", "clear_jet_cache"]

# The memo is keyed on (expression, symbol).  Entries are small sympy trees shared with
# the caller, so 2**16 of them stay well below a hundred megabytes even for large charts.
_DIFF_CACHE_SIZE = 1 << 16


def diff(expr, x):
    """Differentiate ``expr`` by the symbol ``x``, with canonical mixed partials.

    Parameters
    ----------
    expr : sympy.Expr or number
        The function to differentiate.  Python numbers are accepted and give ``0``.
    x : sympy.Symbol
        The variable.

    Returns
    -------
    sympy.Expr
        ``sympy.diff(expr, x)`` in which every derivative of an undefined function lists
        its variables in the canonical order of :func:`canonical_derivatives`.  Where
        sympy would produce or differentiate ``Subs`` (an undefined function of
        non-symbol arguments), the derivative is taken through jets and stays in jet
        form (:class:`geomcheck.jets.Jet`; :func:`geomcheck.jets.from_jets` converts
        back), because sympy 1.14's own result can be wrong there.

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> f = sympy.Function("f")
    >>> diff(diff(f(x, y), y), x)
    Derivative(f(x, y), x, y)
    >>> diff(x**3 * y, x)
    3*x**2*y
    """
    if not isinstance(expr, sympy.Basic):
        expr = sympy.sympify(expr)
    return _diff_cached(expr, x)


@lru_cache(maxsize=1 << 18)
def symbols_of(expr) -> frozenset:
    """``expr.free_symbols``, memoized per subexpression.

    sympy recomputes free symbols by walking the whole tree on every call; expressions
    produced by the chain rule share subtrees heavily (a tree of millions of nodes can be
    a DAG of thousands), so a per-node memo makes repeated queries linear in the DAG.
    """
    if expr.is_Symbol:
        return frozenset((expr,))
    args = expr.args
    if not args:
        return frozenset()
    if isinstance(expr, Subs):
        # sympy's Subs.free_symbols walks the body and points as trees, again for every
        # nested Subs: exponential in the nesting of composed steps
        return (symbols_of(expr.expr) - frozenset(expr.variables)) | symbols_of(expr.point)
    if getattr(expr, "bound_symbols", None):
        # Integral, Lambda ... bind variables: let sympy apply its rules
        return frozenset(expr.free_symbols)
    if len(args) == 1:
        return symbols_of(args[0])
    return frozenset().union(*[symbols_of(a) for a in args])


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _diff_cached(expr, x):
    # sympy.diff is already fast on an expression free of x, but the free-symbol test
    # is cheaper still and is the most frequent case for sparse charts.
    if x not in symbols_of(expr):
        return sympy.S.Zero
    result = _structural_diff(expr, x)
    if result is not None:
        return result
    if _needs_jets(expr):
        return _jet_diff(expr, x)
    result = sympy.diff(expr, x)
    if result.has(Derivative):
        result = canonical_derivatives(result)
    return result


def _jet_diff(expr, x):
    """Differentiate through canonical jets; the result stays in jet form.

    sympy 1.14 differentiates Subs wrongly (``Subs(Derivative(f(x, a*b), x), x, a + b)
    .diff(a)`` contains Subs' internal placeholder ``_a + b`` as a free symbol) and slowly;
    jets (:func:`canonical_jets`) differentiate by the plain chain rule and
    are canonical, so equal derivatives compare equal.  Converting back to Subs would cost
    more than the differentiation itself, so the engine keeps jets (they print as
    ``V_{1}(q + h*p)`` and typeset as a partial derivative).
    """
    converted = canonical_jets(expr)
    if converted is expr or converted == expr:
        # nothing has a jet form (a derivative of symbolic order): sympy is all there is,
        # and asking the jets again would never end
        result = sympy.diff(expr, x)
        return canonical_derivatives(result) if result.has(Derivative) else result
    return diff(converted, x)


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _needs_jets(expr) -> bool:
    """Whether sympy's own ``diff`` could get ``expr`` wrong, so jets must be used.

    sympy differentiates an undefined function of symbols (``V(q1, q2)``) and derivatives
    of it by symbols correctly.  Anything else -- ``Subs``, a function of expressions or of
    another function, a derivative by a function -- goes through ``Function.fdiff``, which
    for an argument such as ``W(q)`` returns the derivative by *that subtree* wherever it
    occurs: sympy 1.14 gives ``V(W(q), W(q)).diff(q) == 2*Derivative(V(W(q), W(q)),
    W(q))*Derivative(W(q), q)``, twice the true value.  Memoized per node, like
    :func:`symbols_of`.
    """
    if isinstance(expr, Subs):
        return True
    if isinstance(expr, AppliedUndef):
        return not _distinct_symbol_args(expr)
    if isinstance(expr, Derivative):
        if not all(isinstance(v, sympy.Symbol) for v, _ in expr.variable_count):
            return True
        return _needs_jets(expr.expr)
    return any(_needs_jets(a) for a in expr.args)


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _argument_slots(f) -> tuple:
    """``(slots, distinct)`` of an undefined function: ``slots`` maps each symbol argument to
    the first slot it fills; ``distinct`` says whether the arguments are distinct symbols.

    Memoized per function: a Hessian of ``H(x_1, ..., x_n)`` builds n**2 derivatives of the
    same function, and reading its n arguments again for each would make that O(n**3).
    The dict is shared: callers read it, never change it.
    """
    args = f.args
    slots = {}
    for i, a in enumerate(args):
        if isinstance(a, sympy.Symbol) and a not in slots:
            slots[a] = i
    return slots, len(slots) == len(args)


def _distinct_symbol_args(f):
    return _argument_slots(f)[1]


def _function_derivative(f, variable_count):
    """``Derivative(f, *variable_count)`` built without sympy's checks, which are O(arguments).

    Only for what ``Derivative.__new__`` (unevaluated) would build unchanged from these
    arguments: ``f`` an undefined function of distinct symbols, ``variable_count`` a
    nonempty tuple of ``(symbol, count)`` with distinct symbols among its arguments and
    positive integer counts (merged, so no two neighbours share a symbol).  Its result is
    then ``Expr.__new__(Derivative, f, Tuple(v, c), ...)``, built here directly.
    """
    return sympy.Expr.__new__(Derivative, f, *[_variable_count_pair(v, c) for v, c in variable_count])


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _variable_count_pair(v, c):
    """``Tuple(v, c)``, one object per pair (a Tuple is immutable; building it sympifies both)."""
    return sympy.Tuple(v, c)


#: what a rational number times a derivative leaves as it is in a product (no powers to merge, no sum to distribute)
_PLAIN_FACTORS = (Derivative, AppliedUndef, Jet)


def _structural_diff(expr, x):
    """Sum, product and power rules by hand; derivatives of undefined functions built directly.

    sympy's own ``diff`` re-walks whole sums for every variable, builds derivatives of
    undefined functions through ``Derivative.__new__`` (about a millisecond for a function
    of 30 arguments, against microseconds here) and differentiates ``Subs`` through
    ``doit``/``factor_terms``.  Here each piece is differentiated (and memoized) on its own
    and chain-rule output goes through jets.  Returns None for what is left to sympy.
    """
    if isinstance(expr, sympy.Add):
        return sympy.Add(*[diff(a, x) for a in expr.args if x in symbols_of(a)])
    if isinstance(expr, sympy.Mul) and expr.is_commutative:
        args = expr.args
        parts = []
        for i, a in enumerate(args):
            if x in symbols_of(a):
                da = diff(a, x)
                if da != 0:
                    if len(args) == 2 and i == 1 and args[0].is_Rational and isinstance(da, _PLAIN_FACTORS):
                        # c * f' with c a rational number (not 0 or 1: expr is a Mul) and f' a
                        # derivative or function application: what Mul's flatten would build, built
                        # directly (it is most of the cost of a Hessian of H(x_1, ..., x_n))
                        parts.append(sympy.Mul._from_args((args[0], da)))
                    else:
                        parts.append(sympy.Mul(*args[:i], da, *args[i + 1:]))
        return sympy.Add(*parts)
    if isinstance(expr, sympy.Pow):
        base, exp = expr.args
        if x in symbols_of(exp):
            return None
        return exp * base ** (exp - 1) * diff(base, x)
    if isinstance(expr, AppliedUndef):
        if _distinct_symbol_args(expr):
            # x is one of its arguments (the caller checked that expr contains x)
            return _function_derivative(expr, ((x, 1),))
        return _jet_diff(expr, x)
    if isinstance(expr, Derivative) and isinstance(expr.expr, AppliedUndef):
        f = expr.expr
        slots, distinct = _argument_slots(f)
        if distinct and all(isinstance(v, sympy.Symbol) and v in slots for v, _ in expr.variable_count):
            if x not in slots:
                return sympy.S.Zero
            counts = {v: n for v, n in expr.variable_count}
            counts[x] = counts.get(x, 0) + 1
            # every variable fills a slot: the canonical order is the order of the slots
            return _function_derivative(f, sorted(counts.items(), key=lambda vc: slots[vc[0]]))
        return _jet_diff(expr, x)
    if isinstance(expr, Subs):
        return _jet_diff(expr, x)
    if isinstance(expr, Jet):
        # a jet: the chain rule through its argument slots, each slot's jet built directly
        parts = []
        for k, a in enumerate(expr.args):
            if x in symbols_of(a):
                da = diff(a, x)
                if da != 0:
                    parts.append(expr.fdiff(k + 1) * da)
        return sympy.Add(*parts)
    return None


def _canonical_variable_count(deriv):
    """The variable counts of ``deriv`` merged and sorted, or None to leave it alone."""
    func = deriv.expr
    if not isinstance(func, AppliedUndef):
        return None
    counts = {}
    for v, n in deriv.variable_count:
        # Differentiation by a function (variational calculus) does not commute with
        # differentiation by a symbol, so such derivatives keep the order they have.
        if not isinstance(v, sympy.Symbol):
            return None
        counts[v] = counts.get(v, 0) + n
    slot = _argument_slots(func)[0]
    nslots = len(func.args)
    # slots are distinct, so the sort key's second part is compared only between variables that
    # fill no slot: only those need sympy's (costly) default_sort_key
    ordered = sorted(
        counts.items(),
        key=lambda vc: (slot[vc[0]], ()) if vc[0] in slot else (nslots, default_sort_key(vc[0])),
    )
    return tuple(ordered)


def _rebuild(deriv):
    """``deriv`` with merged, canonically ordered variables (``deriv`` when already so)."""
    vc = _canonical_variable_count(deriv)
    if vc is None or vc == tuple(deriv.variable_count):
        return deriv
    return Derivative(deriv.expr, *vc)


def canonical_derivatives(expr):
    """Rewrite every derivative of an undefined function with canonically ordered variables.

    The variables of ``Derivative(f(a1, ..., ak), ...)`` are merged (``(p, 1), (q, 1),
    (p, 1)`` becomes ``(p, 2), (q, 1)``) and sorted by the argument slot in which they
    occur, then by sympy's ``default_sort_key`` for variables that are not an argument.
    Mixed partials of a smooth function commute, so the rewrite does not change the
    function; it only lets equal derivatives compare equal.  Derivatives inside ``Subs``
    (sympy's chain-rule output) are rewritten as well.

    Parameters
    ----------
    expr : sympy.Basic

    Returns
    -------
    sympy.Basic

    Examples
    --------
    >>> import sympy
    >>> p, q = sympy.symbols("p q")
    >>> V = sympy.Function("V")
    >>> canonical_derivatives(sympy.Derivative(V(p, q), q, p))
    Derivative(V(p, q), p, q)
    """
    if not isinstance(expr, sympy.Basic) or not expr.has(Derivative):
        return expr
    # A derivative nested inside the arguments of another one is replaced in a later
    # round: xreplace swaps the outermost match wholesale.  Nesting depth is tiny.
    for _ in range(64):
        rule = {}
        for d in expr.atoms(Derivative):
            new = _rebuild(d)
            if new is not d and new != d:
                rule[d] = new
        if not rule:
            return expr
        expr = expr.xreplace(rule)
    return expr


def canonical_form(expr):
    """One notation for every way of writing the same function of undefined functions.

    A derivative of ``V`` at a point can be written ``Subs(Derivative(V(y), y), y, Q)``,
    ``Derivative(V(y), y).subs(y, Q)``, ``diff(V(y), y).subs({y: Q}, simultaneous=True)``,
    through sympy's chain rule (``V(Q + t).diff(t).subs(t, 0)``), with
    :func:`geomcheck.substitute`, or as ``Derivative(V(W(q)), W(q))`` for a nested
    function.  All of them become the same expression here: every derivative of an
    undefined function is rewritten as a jet (:func:`canonical_jets`), and
    the jets sympy can write without ``Subs`` -- ``V(...)`` itself and derivatives by
    distinct symbol arguments, ``Derivative(V(q1, q2), q1)`` -- go back to sympy's own
    notation (:func:`geomcheck.jets.from_jets` with ``subs=False``).  What is left as a jet
    (``V_{1}(q + h*p)``) is a derivative at a point that sympy could only write with
    ``Subs``, whose derivatives sympy 1.14 gets wrong (see :func:`diff`).

    Parameters
    ----------
    expr : sympy.Basic or number

    Returns
    -------
    sympy.Basic
        ``expr`` itself when it contains no undefined function that needs rewriting.

    See Also
    --------
    canonical_forms : several expressions at once, sharing their common parts.

    Examples
    --------
    >>> import sympy
    >>> q, p, h, y = sympy.symbols("q p h y")
    >>> V = sympy.Function("V")
    >>> a = sympy.Subs(sympy.Derivative(V(y), y), y, q + h*p)
    >>> b = V(q + h*p + y).diff(y).subs(y, 0)
    >>> canonical_form(a) == canonical_form(b)
    True
    >>> canonical_form(a + V(q).diff(q))
    V_{1}(h*p + q) + Derivative(V(q), q)
    """
    return canonical_forms([expr])[0]


def canonical_forms(exprs) -> tuple:
    """:func:`canonical_form` of each expression, converting shared parts once.

    A subexpression common to several expressions (the new position ``Q`` in both the
    map's ``Q`` and its ``grad V(Q)``) comes out as one object, so that later arithmetic
    and comparisons meet identical objects rather than walking equal copies.

    Parameters
    ----------
    exprs : iterable of sympy.Basic or numbers

    Returns
    -------
    tuple

    Examples
    --------
    >>> import sympy
    >>> q, p, h, y = sympy.symbols("q p h y")
    >>> V = sympy.Function("V")
    >>> Q = q + h * (p - h * V(q).diff(q) / 2)
    >>> a, b = canonical_forms([Q, sympy.Subs(sympy.Derivative(V(y), y), y, Q)])
    >>> b.args[0] == a      # V'(Q): a jet at the point Q (shared with ``a`` when built together)
    True
    """
    exprs = [e if isinstance(e, sympy.Basic) else sympy.sympify(e) for e in exprs]
    if not any(_needs_jets(e) or _has_jets(e) for e in exprs):
        return tuple(exprs)

    # The conversion rebuilds every node above a rewritten one, so a part shared with the
    # input (Q in Q and in grad V(Q)) would come out as an equal copy, and every memo
    # lookup that meets copy and original would compare them node by node.  Each node of
    # the result is replaced by the input's own node where they are equal.  The undefined
    # functions come back as the input's own classes (with their assumptions, if any).
    table, functions, seen = {}, {}, {}
    for e in exprs:
        _seed(e, table, functions, seen)
    jet_memo, back_memo = {}, {}
    converted = [from_jets(to_jets(e, jet_memo), subs=False, memo=back_memo, functions=functions)
                 for e in exprs]
    done = {}
    return tuple(_intern(e, table, done) for e in converted)


def _seed(e, table, functions, seen):
    if id(e) in seen:
        return
    seen[id(e)] = e
    for a in e.args:
        _seed(a, table, functions, seen)
    if isinstance(e, AppliedUndef):
        functions.setdefault(e.func.__name__, e.func)
    table.setdefault(e, e)


def _intern(e, table, done):
    """``e`` with every node replaced by its representative in ``table`` (bottom up)."""
    hit = done.get(id(e))
    if hit is not None:
        return hit
    node, args = e, e.args
    if args:
        new = [_intern(a, table, done) for a in args]
        if any(a is not b for a, b in zip(args, new)):
            node = e.func(*new)
    rep = table.setdefault(node, node)
    done[id(e)] = rep
    return rep


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _has_jets(expr) -> bool:
    """Whether ``expr`` contains a jet; memoized per node (``expr.has`` walks the tree,
    which for composed maps is exponentially larger than the DAG)."""
    if isinstance(expr, Jet):
        return True
    return any(_has_jets(a) for a in expr.args)


# ----------------------------------------------------------------------------- jets
#
# Converting to jets differentiates (a derivative by a function is taken by the chain rule
# through jets), and differentiating converts (sympy's own derivative of Subs can be wrong):
# the two recurse into each other, so they live together here.


def to_jets(expr, memo, check=None):
    """Convert ``expr`` (recursively, sharing ``memo``) to jet form.

    Parameters
    ----------
    expr : sympy.Basic
    memo : dict
        Conversions already made, shared by several calls so that a shared subexpression
        is converted once.
    check : callable, optional
        Called as ``check(512)`` on a fresh memo and whenever it has grown by 512 more
        conversions, and may raise to stop the work; the zero test passes the check of its budget this way
        (:func:`geomcheck.zero.jets.to_jets`), so that this module needs no zero test.

    Returns
    -------
    sympy.Basic
    """
    # Subs compares and hashes through a dummy-renaming xreplace of its whole body,
    # which made equality lookups the dominant cost; Subs nodes are memoized by
    # identity instead (the input, which holds them, outlives the memo).
    key = ("subs", id(expr)) if isinstance(expr, Subs) else expr
    hit = memo.get(key)
    if hit is not None:
        return hit
    if check is not None and len(memo) % 512 == 0:
        check(512)
    if not expr.args:
        res = expr
    elif isinstance(expr, AppliedUndef):
        args = [to_jets(a, memo, check) for a in expr.args]
        remember_function(expr.func)
        res = jet_function(expr.func.__name__, (0,) * len(args))(*args)
    elif isinstance(expr, Derivative):
        res = _direct_jet(expr, memo, check)
        if res is None:
            res = _derivative_jet(expr, memo, check)
    elif isinstance(expr, Subs):
        inner = to_jets(expr.expr, memo, check)
        pts = [to_jets(p, memo, check) for p in expr.point]
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
        new = [to_jets(a, memo, check) for a in args]
        if all(a is b for a, b in zip(args, new)):
            res = expr
        else:
            res = expr.func(*new)
    memo[key] = res
    return res


def _direct_jet(deriv, memo, check):
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
    new = [to_jets(a, memo, check) for a in args]
    return jet_function(f.func.__name__, tuple(index))(*new)


def _derivative_jet(deriv, memo, check):
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
    # diff is the engine's differentiation: memoized on the DAG, and the chain rule through jets
    res = to_jets(deriv.expr, memo, check)
    for v, n in deriv.variable_count:
        if not isinstance(n, (int, sympy.Integer)) or n < 0:
            return deriv
        if isinstance(v, sympy.Symbol):
            x, back = v, None
        else:
            var = to_jets(v, memo, check)
            if not isinstance(var, Jet):
                return deriv
            x, back = sympy.Dummy("x"), var
            res = res.xreplace({var: x})
        for _ in range(int(n)):
            res = diff(res, x)
        if back is not None:
            res = res.xreplace({x: back})
    return res


_JETS_CACHE = Memo("geomcheck.calculus.jets", 4096)


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


def clear_jet_cache():
    """Forget the memo of :func:`canonical_jets`."""
    _JETS_CACHE.clear()


def free_coordinates(expr, coords):
    """The free symbols of ``expr`` that are among ``coords``.

    Parameters
    ----------
    expr : sympy.Basic
    coords : iterable of sympy.Symbol
        A set, frozenset, tuple or list of coordinates.

    Returns
    -------
    frozenset of sympy.Symbol

    Examples
    --------
    >>> import sympy
    >>> x, y, h = sympy.symbols("x y h")
    >>> sorted(free_coordinates(h * x**2, {x, y}), key=str)
    [x]
    """
    if not isinstance(coords, frozenset):
        coords = frozenset(coords)
    if not isinstance(expr, sympy.Basic):
        return frozenset()
    return _free_coordinates_cached(expr, coords)


@lru_cache(maxsize=_DIFF_CACHE_SIZE)
def _free_coordinates_cached(expr, coords):
    return symbols_of(expr) & coords


_MEMOS = (symbols_of, _diff_cached, _free_coordinates_cached, _needs_jets, _has_jets, _argument_slots,
          _variable_count_pair)


def clear_caches():
    """Forget the differentiation and free-symbol memos."""
    for memo in _MEMOS:
        memo.cache_clear()


for _memo in _MEMOS:
    register(f"geomcheck.calculus.{_memo.__name__}", _memo.cache_clear, lambda m=_memo: m.cache_info().currsize)
