r"""Herglotz's variational principle and contact variational integrators.

Vermeeren, Bravetti & Seri 2019 (slides 18-25, numbered as the frames of our copy of the deck:
see ``casestudies.vermeeren2019_damped_oscillator``).  Continuous (slides 18-20 "Herglotz'
variational principle"): for ``L(x, x', z)`` with ``z' = L``, the generalized Euler-Lagrange
equations are (the slides' sign)::

    dL/dx - d/dt dL/dx' + dL/dz dL/dx' = 0

(equivalently ``d/dt L_{x'} - L_x - L_{x'} L_z = 0``), where ``d/dt`` is the total
derivative along ``(x, x', z)`` with ``z' = L``.

Discrete: from ``L(x_j, x_{j+1}, z_j, z_{j+1}; h)`` with ``z_{j+1} - z_j = h L(...)``
(a three-argument ``L(x_j, x_{j+1}, z_j)``, which slide 25 "All contact maps are variational"
shows to be always possible, is accepted too), the principle ``dz_{j+1}/dx_j = 0`` (slide 22
"Discrete Herglotz variational principle") gives the discrete generalized Euler-Lagrange equations
(slide 23, the same title; ``L_{j-1} = L(x_{j-1}, x_j, z_{j-1}, z_j)``)::

    0 = D2 L_{j-1} + D1 L_j + h D2 L_{j-1} / (1 - h D4 L_{j-1}) (D3 L_j + D4 L_{j-1})

and with ``p_j^- = h D2 L_{j-1} / (1 - h D4 L_{j-1})``, ``p_j^+ = -h D1 L_j / (1 + h D3 L_j)``
(slide 24 "Contact structure") they read ``p_j^- = p_j^+``.  The position-momentum map
``(x_j, p_j, z_j) -> (x_{j+1}, p_{j+1}, z_{j+1})`` is a contact map of ``dz - p dx``
with factor ``(1 + h D3 L_j) / (1 - h D4 L_j)``.  All of these are checked, for vectors
of any length n, generic (undefined) Lagrangians and concrete ones.

What the slides print and what we found (the findings are listed, with their kinds and tests,
in ``casestudies.vermeeren2019_damped_oscillator.FINDINGS``):

* the discrete equations, their momentum form and ``p_j^\pm`` are correct as printed
  (``DiscreteHerglotz.certify_variational_principle``, ``certify_momentum_form``);
* two example Lagrangians are wrong as our copy reads them.  Slide 6 "Lagrangian mechanics"
  prints ``|x'|^2 - U(x)`` for ``H = |p|^2/2 + U(x)``, whose Euler-Lagrange equation is
  ``2 x'' = -U'``, not the printed ``-U'(x) - x'' = 0`` (``L = p x' - H = |x'|^2/2 - U``): kind
  "damage", a lost fraction printed once, which our copy cannot tell from the authors' slip.
  Slides 29-30 "Numerical example: harmonic oscillator" print ``x'^2/2 - x^2/2 - alpha x``, whose
  generalized Euler-Lagrange equation is ``x'' = -x - alpha``, not the printed
  ``x'' = -x - alpha x'`` (that needs ``- alpha z``): kind "error", the same letter on two
  separately converted frames.  (The rule: a defect a conversion can make is damage unless our
  copy rules the conversion out.)  See ``test_printed_mechanical_lagrangian_fails`` and
  ``test_printed_damped_lagrangian_fails`` in ``tests/geomcheck/structures/test_herglotz.py``.

Three discretizations of ``L(x, x', z)``, with ``v_j = (x_{j+1} - x_j)/h``::

    left point (ours)    : L(x_j, v_j, z_j)
    averaged (1st order) : 1/2 L(x_j, v_j, z_j) + 1/2 L(x_{j+1}, v_j, z_j)
    second order         : 1/2 L(x_j, v_j, z_j) + 1/2 L(x_{j+1}, v_j, z_{j+1})

(:func:`first_order_discrete_lagrangian`, :func:`first_order_averaged_discrete_lagrangian`,
:func:`second_order_discrete_lagrangian`).  The slides (our copy) print neither the first- nor
the second-order discrete Lagrangian.  The integrators labelled "Contact (1st)" and "Contact
(2nd)" in the damped-oscillator figures of the J. Phys. A paper (52 (2019) 445206) are, as the
authors' public code (github.com/mseri/contact-variational-integrator, ``integrators/contact.py``)
computes them, the Herglotz maps of the *averaged* and the *second-order* Lagrangians (for
``L = x'^2/2 - V(x) - alpha z``: ``v^2/2 - (V(x_j) + V(x_{j+1}))/2 - alpha z_j`` and the same with
``- alpha (z_j + z_{j+1})/2``; shown step by step in
``tests/casestudies/test_vermeeren2019_damped_oscillator.py``).  The left-point rule is the
simplest first-order choice and our own; on ``x'^2/2 - V(x) - alpha z`` its map is symplectic
Euler with the damping force in the kick, which the averaged map is not.  The second-order
Lagrangian is symmetric in ``z_j, z_{j+1}``, as slide 25 recommends.

>>> import sympy
>>> from geomcheck.structures import herglotz_equations
>>> x, v, z, a = sympy.symbols("x v z alpha")
>>> V = sympy.Function("V")
>>> herglotz_equations(v**2/2 - V(x) - a*z, x, v, z).accelerations()
(-alpha*v - Derivative(V(x), x),)
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import sympy
from sympy.core.function import UndefinedFunction

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import ArityError, ExpressionError, ImplicitMapError, SubsystemShapeError
from ..forms import Form, d
from ..latex import Derivation, latex
from ..linalg import SingularSystem, solve_sparse
from ..maps import ImplicitMap, substitute
from ..zero import decide_all_zero
from ..latex import summarize
from .contact import ContactCoordinates, certify_contact_factor, darboux_coordinates

__all__ = [
    "HerglotzEquations",
    "herglotz_equations",
    "DiscreteHerglotz",
    "DiscreteHerglotzEquations",
    "discrete_herglotz",
    "generic_discrete_lagrangian",
    "first_order_discrete_lagrangian",
    "first_order_averaged_discrete_lagrangian",
    "second_order_discrete_lagrangian",
]


def _show(e) -> str:
    text = summarize(e)
    if text.startswith(r"\text{("):
        return text
    # display only: pull out numeric content ((2x - 2y)/(2h^2) -> (x - y)/h^2); cheap and safe
    return latex(sympy.factor_terms(sympy.sympify(e)))


def _symbols(v, what) -> tuple:
    if isinstance(v, sympy.Symbol):
        return (v,)
    try:
        out = tuple(v)
    except TypeError:
        raise ExpressionError(f"{what} must be a Symbol or a sequence of Symbols, got {v!r}") from None
    if not all(isinstance(s, sympy.Symbol) for s in out):
        raise ExpressionError(f"{what} must consist of Symbols, got {out!r}")
    return out


def _decided(claim, residuals, D, factor=None, relations=()) -> Certificate:
    decision = decide_all_zero(residuals, relations=relations)
    return Certificate.from_decision(claim, decision, residual=residuals, factor=factor, derivation=D)


# --------------------------------------------------------------------------- continuous


@dataclass(frozen=True)
class HerglotzEquations:
    """The generalized Euler-Lagrange equations of ``L(x, x', z)`` with ``z' = L``.

    Attributes
    ----------
    lagrangian : sympy.Expr
    x, v, a : tuple of Symbol
        Positions, velocities ``x'`` and accelerations ``x''``.
    z : Symbol
    equations : tuple of sympy.Expr
        ``L_x - d/dt L_v + L_z L_v`` (slides' form), one per degree of freedom, in x, v, a, z.
    zdot : sympy.Expr
        ``z' = L``.
    derivation : Derivation
    """

    lagrangian: sympy.Expr
    x: tuple
    v: tuple
    z: sympy.Symbol
    a: tuple
    equations: tuple
    zdot: sympy.Expr
    derivation: Derivation

    def accelerations(self) -> tuple:
        """Solve the (linear in x'') equations for the accelerations.

        Raises
        ------
        ExpressionError
            When ``L_{x' x'}`` is singular (a degenerate Lagrangian).
        """
        n = len(self.x)
        rows, rhs = [], []
        at_zero = {ai: 0 for ai in self.a}
        for e in self.equations:
            rows.append({k: c for k, ai in enumerate(self.a) if (c := diff(e, ai)) != 0})
            rhs.append(-e.xreplace(at_zero))
        try:
            (sol,) = solve_sparse(rows, [rhs], n)
        except SingularSystem:
            raise ExpressionError(
                f"the Lagrangian {self.lagrangian} is degenerate: its generalized Euler-Lagrange equations"
                f" do not determine the accelerations {list(self.a)}"
            ) from None
        return tuple(sympy.expand(s) if not s.has(sympy.Derivative) else s for s in sol)

    def latex(self) -> str:
        return self.derivation.latex()


def herglotz_equations(L: sympy.Expr, x: sympy.Symbol | Sequence[sympy.Symbol],
                       v: sympy.Symbol | Sequence[sympy.Symbol], z: sympy.Symbol,
                       a: Sequence[sympy.Symbol] | None = None) -> HerglotzEquations:
    r"""The generalized Euler-Lagrange equations of Herglotz's principle for ``L(x, x', z)``.

    Parameters
    ----------
    L : sympy expression in x, v, z (undefined functions allowed: ``Function("L")(x, v, z)``)
    x, v : Symbol or sequence of Symbols (same length n)
        Positions and velocities.
    z : Symbol
        The action variable, ``z' = L``.
    a : sequence of Symbols, optional
        Names for the accelerations (default ``xddot`` style names).

    Examples
    --------
    >>> import sympy
    >>> x, v, z = sympy.symbols("x v z")
    >>> L = sympy.Function("L")(x, v, z)
    >>> E = herglotz_equations(L, x, v, z)
    >>> len(E.equations), E.zdot == L
    (1, True)
    """
    xs, vs = _symbols(x, "x"), _symbols(v, "v")
    if len(xs) != len(vs) or not xs:
        raise SubsystemShapeError(f"herglotz_equations: {len(xs)} positions {list(xs)} but {len(vs)} velocities {list(vs)}")
    if not isinstance(z, sympy.Symbol):
        raise ExpressionError(f"herglotz_equations: z must be a Symbol, got {z!r}")
    if a is None:
        a = tuple(sympy.Symbol(f"{xi.name}ddot") for xi in xs)
    as_ = _symbols(a, "a")
    if len(as_) != len(xs):
        raise SubsystemShapeError(f"herglotz_equations: {len(as_)} acceleration names for {len(xs)} positions")
    if len(set(xs + vs + as_ + (z,))) != 3 * len(xs) + 1:
        raise ExpressionError("herglotz_equations: positions, velocities, accelerations and z must be distinct symbols")
    Lx = sympy.sympify(L)
    if not isinstance(Lx, sympy.Expr):
        raise ExpressionError(f"herglotz_equations: the Lagrangian must be a scalar expression, got {L!r}")
    Lz = diff(Lx, z)
    eqs = []
    rows = []
    for i, (xi, vi) in enumerate(zip(xs, vs)):
        Lv = diff(Lx, vi)
        # total time derivative along x' = v, v' = a, z' = L
        ddt = sympy.Add(*[diff(Lv, xj) * vj + diff(Lv, vj) * aj for xj, vj, aj in zip(xs, vs, as_)]) + diff(Lv, z) * Lx
        e = diff(Lx, xi) - ddt + Lz * Lv
        eqs.append(e)
        rows.append(_show(e) + r" &= 0")
    xl = [sympy.latex(xi) for xi in xs]
    D = Derivation(r"Herglotz's principle: generalized Euler-Lagrange equations")
    D = D.add(r"For the Lagrangian, with $\dot z = \mathcal{L}$,",
              r"\mathcal{L} &= " + _show(Lx))
    D = D.add(r"variations with fixed endpoints leave $z(T)$ invariant iff, for each degree of freedom,",
              r"\frac{\partial \mathcal{L}}{\partial x} - \frac{\mathrm{d}}{\mathrm{d}t}"
              r"\frac{\partial \mathcal{L}}{\partial \dot{x}} + \frac{\partial \mathcal{L}}{\partial z}"
              r"\frac{\partial \mathcal{L}}{\partial \dot{x}} &= 0")
    names = [f"{sympy.latex(vi)} = \\dot{{{l}}}" for vi, l in zip(vs, xl)]
    names += [f"{sympy.latex(ai)} = \\ddot{{{l}}}" for ai, l in zip(as_, xl) if sympy.latex(ai) != f"\\ddot{{{l}}}"]
    D = D.add(r"Here ($" + "$, $".join(names) + "$)", r" \\ ".join(rows))
    return HerglotzEquations(Lx, xs, vs, z, as_, tuple(eqs), Lx, D)


# --------------------------------------------------------------------------- discrete Lagrangians


def _stencil_symbol(coordinate, suffix):
    m = re.fullmatch(r"(.*?)(\d+)", coordinate.name)
    if m:
        return sympy.Symbol(f"{m.group(1)}_{{{m.group(2)},{suffix}}}")
    return sympy.Symbol(f"{coordinate.name}_{{{suffix}}}")


def _arity(Ld) -> int:
    """3 or 4 positional parameters of a discrete Lagrangian; ArityError otherwise."""
    if isinstance(Ld, UndefinedFunction):
        return 4
    if not callable(Ld):
        raise ExpressionError(
            f"a discrete Lagrangian must be a callable L(x_j, x_j1, z_j[, z_j1]) returning a sympy expression,"
            f" got {type(Ld).__name__} {Ld!r}"
        )
    if isinstance(Ld, sympy.Lambda):
        k = len(Ld.variables)
    else:
        try:
            sig = inspect.signature(Ld)
        except (TypeError, ValueError):
            raise ArityError(f"cannot read the arguments of the discrete Lagrangian {Ld!r}") from None
        params = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
        if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
            raise ArityError(
                f"the discrete Lagrangian {Ld!r} takes *args; give it exactly the arguments"
                " (x_j, x_j1, z_j, z_j1) or (x_j, x_j1, z_j)"
            )
        k = len(params)
    if k not in (3, 4):
        raise ArityError(
            f"a discrete Lagrangian takes (x_j, x_j1, z_j, z_j1) or (x_j, x_j1, z_j) (4 or 3 arguments,"
            f" the step h being a symbol inside it); {getattr(Ld, '__qualname__', Ld)} takes {k}"
        )
    return k


def generic_discrete_lagrangian(name: str = "L", n: int = 1, next_z: bool = True) -> Callable:
    """An undefined discrete Lagrangian ``L(x_j, x_{j+1}, z_j[, z_{j+1}])`` on n degrees of freedom.

    Examples
    --------
    >>> import sympy
    >>> L = generic_discrete_lagrangian("L", 2)
    >>> a, b, c, d, z0, z1 = sympy.symbols("a b c d z0 z1")
    >>> L((a, b), (c, d), z0, z1)
    L(a, b, c, d, z0, z1)
    """
    f = sympy.Function(name)

    def flat(v):
        return (v,) if isinstance(v, sympy.Basic) else tuple(v)

    if next_z:
        def Ld(xj, xj1, zj, zj1):
            return f(*flat(xj), *flat(xj1), zj, zj1)
    else:
        def Ld(xj, xj1, zj):
            return f(*flat(xj), *flat(xj1), zj)
    Ld.__name__ = name
    return Ld


def _continuous_parts(L, x, v, z):
    xs, vs = _symbols(x, "x"), _symbols(v, "v")
    if len(xs) != len(vs) or not xs:
        raise SubsystemShapeError(f"{len(xs)} positions {list(xs)} but {len(vs)} velocities {list(vs)}")
    return sympy.sympify(L), xs, vs


def _at(L, xs, vs, z, xv, vv, zv):
    n = len(xs)
    xv = (xv,) if n == 1 and isinstance(xv, sympy.Basic) else tuple(xv)
    vv = (vv,) if n == 1 and isinstance(vv, sympy.Basic) else tuple(vv)
    mapping = dict(zip(xs, xv))
    mapping.update(zip(vs, vv))
    mapping[z] = zv
    return substitute(L, mapping)


def _velocity(xj, xj1, h, n):
    if n == 1 and isinstance(xj, sympy.Basic):
        return (xj1 - xj) / h
    return tuple((b - a) / h for a, b in zip(xj, xj1))


def first_order_discrete_lagrangian(L: sympy.Expr, x: sympy.Symbol | Sequence[sympy.Symbol],
                                    v: sympy.Symbol | Sequence[sympy.Symbol], z: sympy.Symbol,
                                    h: sympy.Expr) -> Callable[..., sympy.Expr]:
    """``L(x_j, (x_{j+1} - x_j)/h, z_j)``: a first-order contact variational integrator (left point).

    Our own simplest choice, not the paper's "Contact (1st)" (that is
    :func:`first_order_averaged_discrete_lagrangian`).

    Examples
    --------
    >>> import sympy
    >>> x, v, z, h = sympy.symbols("x v z h")
    >>> Ld = first_order_discrete_lagrangian(v**2/2 - x**2/2, x, v, z, h)
    >>> x0, x1, z0 = sympy.symbols("x0 x1 z0")
    >>> Ld(x0, x1, z0)
    -x0**2/2 + (-x0 + x1)**2/(2*h**2)
    """
    Lx, xs, vs = _continuous_parts(L, x, v, z)

    def Ld(xj, xj1, zj):
        return _at(Lx, xs, vs, z, xj, _velocity(xj, xj1, h, len(xs)), zj)
    return Ld


def first_order_averaged_discrete_lagrangian(L: sympy.Expr, x: sympy.Symbol | Sequence[sympy.Symbol],
                                             v: sympy.Symbol | Sequence[sympy.Symbol], z: sympy.Symbol,
                                             h: sympy.Expr) -> Callable[..., sympy.Expr]:
    """``(L(x_j, v_j, z_j) + L(x_{j+1}, v_j, z_j))/2``, ``v_j = (x_{j+1} - x_j)/h``: first order.

    The positions are averaged over both ends, z is taken at the left end (three arguments,
    ``L(x_j, x_{j+1}, z_j)``).  For ``L = v^2/2 - V(x) - alpha z`` it is
    ``v_j^2/2 - (V(x_j) + V(x_{j+1}))/2 - alpha z_j``: the discrete Lagrangian of the
    "Contact (1st)" integrator of the J. Phys. A paper's damped-oscillator figures.

    Examples
    --------
    >>> import sympy
    >>> x, v, z, h, a = sympy.symbols("x v z h alpha")
    >>> Ld = first_order_averaged_discrete_lagrangian(v**2/2 - x**2/2 - a*z, x, v, z, h)
    >>> x0, x1, z0 = sympy.symbols("x0 x1 z0")
    >>> sympy.expand(Ld(x0, x1, z0) - (x1 - x0)**2/(2*h**2))
    -alpha*z0 - x0**2/4 - x1**2/4
    """
    Lx, xs, vs = _continuous_parts(L, x, v, z)

    def Ld(xj, xj1, zj):
        vel = _velocity(xj, xj1, h, len(xs))
        return (_at(Lx, xs, vs, z, xj, vel, zj) + _at(Lx, xs, vs, z, xj1, vel, zj)) / 2
    return Ld


def second_order_discrete_lagrangian(L: sympy.Expr, x: sympy.Symbol | Sequence[sympy.Symbol],
                                     v: sympy.Symbol | Sequence[sympy.Symbol], z: sympy.Symbol,
                                     h: sympy.Expr) -> Callable[..., sympy.Expr]:
    """``(L(x_j, v_j, z_j) + L(x_{j+1}, v_j, z_{j+1}))/2``, ``v_j = (x_{j+1} - x_j)/h``: second order.

    Examples
    --------
    >>> import sympy
    >>> x, v, z, h, a = sympy.symbols("x v z h alpha")
    >>> Ld = second_order_discrete_lagrangian(v**2/2 - a*z, x, v, z, h)
    >>> x0, x1, z0, z1 = sympy.symbols("x0 x1 z0 z1")
    >>> sympy.expand(Ld(x0, x1, z0, z1) - (x1 - x0)**2/(2*h**2))
    -alpha*z0/2 - alpha*z1/2
    """
    Lx, xs, vs = _continuous_parts(L, x, v, z)

    def Ld(xj, xj1, zj, zj1):
        vel = _velocity(xj, xj1, h, len(xs))
        return (_at(Lx, xs, vs, z, xj, vel, zj) + _at(Lx, xs, vs, z, xj1, vel, zj1)) / 2
    return Ld


# --------------------------------------------------------------------------- discrete Herglotz


@dataclass(frozen=True)
class DiscreteHerglotzEquations:
    """The discrete generalized Euler-Lagrange equations on the stencil j-1, j, j+1.

    Attributes
    ----------
    x_prev, x_mid, x_next : tuple of Symbol
        ``x_{j-1}, x_j, x_{j+1}`` (one symbol per degree of freedom).
    z_prev, z_mid, z_next : Symbol
    equations : tuple of sympy.Expr
        The slides' form ``D2 L_{j-1} + D1 L_j + h D2 L_{j-1}/(1 - h D4 L_{j-1}) (D3 L_j + D4 L_{j-1})``.
    z_updates : tuple of sympy.Expr
        ``z_j - z_{j-1} - h L_{j-1}`` and ``z_{j+1} - z_j - h L_j``.
    p_minus, p_plus : tuple of sympy.Expr
        ``p_j^-`` and ``p_j^+``.
    derivation : Derivation
    """

    x_prev: tuple
    x_mid: tuple
    x_next: tuple
    z_prev: sympy.Symbol
    z_mid: sympy.Symbol
    z_next: sympy.Symbol
    equations: tuple
    z_updates: tuple
    p_minus: tuple
    p_plus: tuple
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


class DiscreteHerglotz:
    """A discrete Lagrangian ``L(x_j, x_{j+1}, z_j[, z_{j+1}]; h)`` of the discrete Herglotz principle.

    Build with :func:`discrete_herglotz`.  Immutable.

    Attributes
    ----------
    lagrangian : callable
    arity : int
        3 (``L(x_j, x_{j+1}, z_j)``) or 4.
    h : Symbol
    coordinates : ContactCoordinates
        The phase space ``(x, p, z)`` of the position-momentum map, ``eta = dz - p dx``.
    """

    __slots__ = ("lagrangian", "arity", "h", "coordinates", "_cache")

    def __init__(self, lagrangian: Callable[..., sympy.Expr], arity: int, h: sympy.Symbol,
                 coordinates: ContactCoordinates):
        object.__setattr__(self, "lagrangian", lagrangian)
        object.__setattr__(self, "arity", arity)
        object.__setattr__(self, "h", h)
        object.__setattr__(self, "coordinates", coordinates)
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, name, value):
        raise AttributeError("DiscreteHerglotz is immutable")

    @property
    def n(self) -> int:
        return self.coordinates.n

    def __repr__(self):
        return f"DiscreteHerglotz({self._name()}, n={self.n}, h={self.h})"

    # -- evaluation
    def _name(self) -> str:
        return str(getattr(self.lagrangian, "__qualname__", self.lagrangian))

    def _pack(self, xs):
        return xs[0] if self.n == 1 else tuple(xs)

    def evaluate(
            self, xj: Sequence[sympy.Symbol], xj1: Sequence[sympy.Symbol], zj: sympy.Symbol, zj1: sympy.Symbol,
    ) -> tuple[sympy.Expr, tuple[sympy.Expr, ...], tuple[sympy.Expr, ...], sympy.Expr, sympy.Expr]:
        """``(L, D1 L, D2 L, D3 L, D4 L)`` at distinct symbols (D1, D2 tuples over the degrees of freedom)."""
        args = (self._pack(xj), self._pack(xj1), zj) + ((zj1,) if self.arity == 4 else ())
        L = self.lagrangian(*args)
        try:
            L = sympy.sympify(L)
        except (sympy.SympifyError, TypeError):
            L = None
        if not isinstance(L, sympy.Expr) or not L.is_commutative:
            raise ExpressionError(f"the discrete Lagrangian {self._name()} returned {L!r}; a scalar sympy expression was expected")
        D1 = tuple(diff(L, s) for s in xj)
        D2 = tuple(diff(L, s) for s in xj1)
        return L, D1, D2, diff(L, zj), diff(L, zj1)

    def _stencil(self):
        if "stencil" not in self._cache:
            c = self.coordinates
            xm = tuple(_stencil_symbol(xi, "j-1") for xi in c.x)
            x0 = tuple(_stencil_symbol(xi, "j") for xi in c.x)
            xp = tuple(_stencil_symbol(xi, "j+1") for xi in c.x)
            zm, z0, zp = (_stencil_symbol(c.z, s) for s in ("j-1", "j", "j+1"))
            self._cache["stencil"] = (xm, x0, xp, zm, z0, zp)
        return self._cache["stencil"]

    # -- equations
    def equations(self) -> DiscreteHerglotzEquations:
        """The discrete generalized Euler-Lagrange equations and ``p_j^-, p_j^+`` (slides 23-24)."""
        if "equations" in self._cache:
            return self._cache["equations"]
        h = self.h
        xm, x0, xp, zm, z0, zp = self._stencil()
        Lm, D1m, D2m, D3m, D4m = self.evaluate(xm, x0, zm, z0)
        Lp, D1p, D2p, D3p, D4p = self.evaluate(x0, xp, z0, zp)
        eqs = tuple(a + b + h * a / (1 - h * D4m) * (D3p + D4m) for a, b in zip(D2m, D1p))
        p_minus = tuple(h * a / (1 - h * D4m) for a in D2m)
        p_plus = tuple(-h * b / (1 + h * D3p) for b in D1p)
        updates = (z0 - zm - h * Lm, zp - z0 - h * Lp)
        D = Derivation(r"Discrete Herglotz principle: discrete generalized Euler-Lagrange equations")
        D = D.add(r"With $z_{j+1} - z_j = h L(x_j, x_{j+1}, z_j, z_{j+1})$, $L_{j-1} = L(x_{j-1}, x_j, z_{j-1}, z_j)$"
                  r" and $L_j = L(x_j, x_{j+1}, z_j, z_{j+1})$, the condition $\frac{\partial z_{j+1}}{\partial x_j} = 0$ reads",
                  r"0 &= D_2 L_{j-1} + D_1 L_j + \frac{h D_2 L_{j-1}}{1 - h D_4 L_{j-1}}\left(D_3 L_j + D_4 L_{j-1}\right)")
        D = D.add("For this Lagrangian", r"L_j &= " + _show(Lp))
        D = D.add("the equations are", r" \\ ".join("0 &= " + _show(e) for e in eqs))
        D = D.add(r"In position-momentum form $p_j^- = p_j^+$ with",
                  r" \\ ".join(r"p_{j}^{-} &= \frac{h D_2 L_{j-1}}{1 - h D_4 L_{j-1}} = " + _show(m)
                               + r" \\ p_{j}^{+} &= -\frac{h D_1 L_j}{1 + h D_3 L_j} = " + _show(p)
                               for m, p in zip(p_minus, p_plus)))
        out = DiscreteHerglotzEquations(xm, x0, xp, zm, z0, zp, eqs, updates, p_minus, p_plus, D)
        self._cache["equations"] = out
        return out

    def certify_variational_principle(self) -> Certificate:
        """Certify that ``dz_{j+1}/dx_j = 0`` (slide 22) is the discrete equation of slide 23.

        Implicit differentiation of ``z_j - z_{j-1} = h L_{j-1}`` and ``z_{j+1} - z_j = h L_j``
        gives ``dz_{j+1}/dx_j``; the claim is ``(1 - h D4 L_j) dz_{j+1}/dx_j = h E`` with E the
        printed left-hand side.
        """
        E = self.equations()
        h = self.h
        F1, F2 = E.z_updates          # F1 fixes z_j (given z_{j-1}), F2 fixes z_{j+1}
        _, _, _, _, D4p = self.evaluate(E.x_mid, E.x_next, E.z_mid, E.z_next)
        residuals = {}
        rows = []
        for i, xi in enumerate(E.x_mid):
            dzj = -diff(F1, xi) / diff(F1, E.z_mid)
            dzj1 = -(diff(F2, xi) + diff(F2, E.z_mid) * dzj) / diff(F2, E.z_next)
            residuals[f"component {i + 1}"] = (1 - h * D4p) * dzj1 - h * E.equations[i]
            rows.append(r"\frac{\partial z_{j+1}}{\partial %s} &= %s" % (sympy.latex(xi), _show(dzj1)))
        D = Derivation(r"The discrete equations are $\partial z_{j+1}/\partial x_j = 0$")
        D = D.add(r"Differentiating $z_j - z_{j-1} = h L_{j-1}$ and $z_{j+1} - z_j = h L_j$ by $x_j$"
                  r" ($z_{j-1}$ does not depend on $x_j$):",
                  r"\frac{\partial z_j}{\partial x_j} &= \frac{h D_2 L_{j-1}}{1 - h D_4 L_{j-1}} \\"
                  r" \left(1 - h D_4 L_j\right)\frac{\partial z_{j+1}}{\partial x_j} &= "
                  r"\left(1 + h D_3 L_j\right)\frac{\partial z_j}{\partial x_j} + h D_1 L_j")
        D = D.add("For this Lagrangian", r" \\ ".join(rows))
        D = D.add(r"and $(1 - h D_4 L_j)\,\partial z_{j+1}/\partial x_j$ must equal $h$ times the printed equation.")
        return _decided("(1 - h D4 L_j) dz_{j+1}/dx_j == h * (discrete generalized EL)", residuals, D)

    def certify_momentum_form(self) -> Certificate:
        """Certify ``h E = (p_j^- - p_j^+)(1 + h D3 L_j)``: the equation is ``p_j^- = p_j^+`` (slide 24)."""
        E = self.equations()
        _, _, _, D3p, _ = self.evaluate(E.x_mid, E.x_next, E.z_mid, E.z_next)
        h = self.h
        residuals = {f"component {i + 1}": h * e - (m - p) * (1 + h * D3p)
                     for i, (e, m, p) in enumerate(zip(E.equations, E.p_minus, E.p_plus))}
        D = Derivation(r"Position-momentum form: the discrete equation is $p_j^- = p_j^+$")
        D = D.add(r"Multiplying out,",
                  r"h\left[D_2 L_{j-1} + D_1 L_j + \frac{h D_2 L_{j-1}}{1 - h D_4 L_{j-1}}(D_3 L_j + D_4 L_{j-1})\right]"
                  r" &= \left(1 + h D_3 L_j\right)\left(\frac{h D_2 L_{j-1}}{1 - h D_4 L_{j-1}}"
                  r" + \frac{h D_1 L_j}{1 + h D_3 L_j}\right)")
        return _decided("h * (discrete generalized EL) == (p_j^- - p_j^+)(1 + h D3 L_j)", residuals, D)

    # -- the position-momentum map
    def _new_symbols(self):
        c = self.coordinates
        return tuple(_stencil_symbol(s, "j+1") for s in c.x + c.p + (c.z,))

    def position_momentum_map(self) -> ImplicitMap:
        """The map ``(x_j, p_j, z_j) -> (x_{j+1}, p_{j+1}, z_{j+1})`` as an ImplicitMap.

        Equations (denominators cleared): ``p_j (1 + h D3 L_j) + h D1 L_j = 0``,
        ``z_{j+1} - z_j - h L_j = 0``, ``p_{j+1} (1 - h D4 L_j) - h D2 L_j = 0`` with
        ``L_j = L(x_j, x_{j+1}, z_j, z_{j+1})``; h is the map's small parameter.
        """
        if "map" in self._cache:
            return self._cache["map"]
        c = self.coordinates
        n, h = self.n, self.h
        new = self._new_symbols()
        X, P, Z = new[:n], new[n: 2 * n], new[2 * n]
        L, D1, D2, D3, D4 = self.evaluate(c.x, X, c.z, Z)
        eqs = [pi * (1 + h * D3) + h * a for pi, a in zip(c.p, D1)]
        eqs.append(Z - c.z - h * L)
        eqs += [Pi * (1 - h * D4) - h * b for Pi, b in zip(P, D2)]
        params = set().union(*(e.free_symbols for e in eqs)) - c.chart.coordinate_set - set(new)
        try:
            phi = ImplicitMap(c.chart, c.chart, eqs, new=new, parameters=sorted(params, key=str), step=h)
        except ImplicitMapError as exc:
            raise ImplicitMapError(
                f"the discrete Lagrangian {self._name()} does not define a position-momentum map"
                f" (x_{{j+1}} must be determined by p_j (1 + h D3 L) + h D1 L = 0): {exc}"
            ) from None
        self._cache["map"] = phi
        self._cache["factor"] = (1 + h * D3) / (1 - h * D4)
        return phi

    def contact_factor(self) -> sympy.Expr:
        """``(1 + h D3 L_j) / (1 - h D4 L_j)`` in the map's unknowns."""
        self.position_momentum_map()
        return self._cache["factor"]

    def certify_contact(self) -> Certificate:
        """``gc.certify_contact`` of the position-momentum map, with the factor ``(1 + h D3 L_j)/(1 - h D4 L_j)``.

        Decided on the map's solution manifold (Newton's method at random points with small h);
        see :meth:`certify_contact_generating` for an exact proof valid for any L.
        """
        phi = self.position_momentum_map()
        cert = certify_contact_factor(phi, self.coordinates.eta, self.contact_factor(), small_step=phi.step)
        D = cert.derivation.add(r"The factor is $\frac{1 + h D_3 L_j}{1 - h D_4 L_j}$ with "
                                r"$L_j = L(x_j, x_{j+1}, z_j, z_{j+1})$ at the new point.")
        return replace(cert, derivation=D)

    def certify_contact_generating(self) -> Certificate:
        """Exact proof that the map is contact, on the space of ``(x_j, x_{j+1}, z_j, z_{j+1})``.

        With ``p_j = p_j^+`` and ``p_{j+1} = p_{j+1}^-`` (both from ``L_j``) and
        ``F = z_{j+1} - z_j - h L_j``, the identity of 1-forms
        ``(1 - h D4 L_j)(dz_{j+1} - p_{j+1} dx_{j+1}) - (1 + h D3 L_j)(dz_j - p_j dx_j) = dF``
        holds, and dF vanishes on the surface ``F = 0`` that the step lives on: so
        ``phi^*(dz - p dx) = (1 + h D3 L_j)/(1 - h D4 L_j) (dz - p dx)``.  L acts as the
        generating function of the contact map.
        """
        E = self.equations()
        h = self.h
        # Dummies: a chart registers its coordinates globally, and the stencil names must
        # stay free for the unknowns of the position-momentum map
        xj, xj1 = tuple(sympy.Dummy(s.name) for s in E.x_mid), tuple(sympy.Dummy(s.name) for s in E.x_next)
        zj, zj1 = sympy.Dummy(E.z_mid.name), sympy.Dummy(E.z_next.name)
        chart = Chart(list(xj) + list(xj1) + [zj, zj1])
        L, D1, D2, D3, D4 = self.evaluate(xj, xj1, zj, zj1)
        p_j = [-h * a / (1 + h * D3) for a in D1]
        p_j1 = [h * b / (1 - h * D4) for b in D2]
        alpha_j = Form(chart, {(zj,): 1, **{(xi,): -pi for xi, pi in zip(xj, p_j)}})
        alpha_j1 = Form(chart, {(zj1,): 1, **{(xi,): -pi for xi, pi in zip(xj1, p_j1)}})
        dF = d(Form.function(chart, zj1 - zj - h * L))
        residual = (1 - h * D4) * alpha_j1 - (1 + h * D3) * alpha_j - dF
        decision = residual.zero_decision()
        factor = (1 + h * D3) / (1 - h * D4)
        D = Derivation(r"The position-momentum map is contact: $\varphi^*(\mathrm{d}z - p\,\mathrm{d}x) = "
                       r"\frac{1 + h D_3 L_j}{1 - h D_4 L_j}(\mathrm{d}z - p\,\mathrm{d}x)$")
        D = D.add(r"On the space of $(x_j, x_{j+1}, z_j, z_{j+1})$ put $p_j = p_j^+$, $p_{j+1} = p_{j+1}^-$:",
                  r"p_j &= -\frac{h D_1 L_j}{1 + h D_3 L_j}, \quad p_{j+1} = \frac{h D_2 L_j}{1 - h D_4 L_j}")
        D = D.add(r"Then, with $F = z_{j+1} - z_j - h L_j$,",
                  r"\left(1 - h D_4 L_j\right)\left(\mathrm{d}z_{j+1} - p_{j+1}\mathrm{d}x_{j+1}\right)"
                  r" - \left(1 + h D_3 L_j\right)\left(\mathrm{d}z_j - p_j\mathrm{d}x_j\right) &= \mathrm{d}F")
        D = D.add(r"and $\mathrm{d}F = 0$ on the surface $F = 0$ where the step lives. For this Lagrangian",
                  r"L_j &= " + _show(L) + r" \\ \frac{1 + h D_3 L_j}{1 - h D_4 L_j} &= " + _show(factor))
        D = D.add("The residual, which must vanish identically, is", r"R &= " + (latex(residual) if residual.terms else "0"))
        return Certificate.from_decision(
            "(1 - h D4 L)(dz' - p' dx') - (1 + h D3 L)(dz - p dx) == d(z' - z - h L)", decision,
            residual=residual, factor=factor, derivation=D)


def discrete_herglotz(Ld: Callable[..., sympy.Expr], n: int = 1, h: sympy.Symbol | None = None,
                      coordinates: ContactCoordinates | None = None) -> DiscreteHerglotz:
    """The discrete Herglotz principle of a discrete Lagrangian.

    Parameters
    ----------
    Ld : callable ``Ld(x_j, x_j1, z_j, z_j1)`` or ``Ld(x_j, x_j1, z_j)``
        Returns a sympy expression.  The positions are Symbols when n = 1 and tuples of n
        Symbols otherwise.  A bare undefined function (``sympy.Function("L")``) is read
        as ``L(x_j..., x_j1..., z_j, z_j1)``.
    n : int
        Degrees of freedom.
    h : Symbol
        The step size used inside Ld (default ``Symbol("h")``).
    coordinates : ContactCoordinates, optional
        Phase space of the position-momentum map (default ``darboux_coordinates(n)``).

    Raises
    ------
    ArityError
        Ld does not take 3 or 4 arguments.

    Examples
    --------
    >>> import sympy
    >>> h, a = sympy.symbols("h alpha")
    >>> V = sympy.Function("V")
    >>> Ld = lambda x0, x1, z0: ((x1 - x0) / h)**2 / 2 - V(x0) - a * z0
    >>> H = discrete_herglotz(Ld)
    >>> H.certify_contact_generating().holds, H.contact_factor()
    (True, -alpha*h + 1)
    >>> discrete_herglotz(lambda x0, x1: x1 - x0)
    Traceback (most recent call last):
    ...
    geomcheck.errors.ArityError: a discrete Lagrangian takes (x_j, x_j1, z_j, z_j1) or (x_j, x_j1, z_j) (4 or 3 arguments, the step h being a symbol inside it); <lambda> takes 2
    """
    arity = _arity(Ld)
    if isinstance(Ld, UndefinedFunction):
        Ld = generic_discrete_lagrangian(Ld.__name__, n)
    h = sympy.Symbol("h") if h is None else h
    if not isinstance(h, sympy.Symbol):
        raise ExpressionError(f"discrete_herglotz: the step h must be a Symbol, got {h!r}")
    if coordinates is None:
        coordinates = darboux_coordinates(n)
    elif not isinstance(coordinates, ContactCoordinates) or coordinates.n != n:
        raise SubsystemShapeError(f"discrete_herglotz: coordinates {coordinates!r} do not have n = {n} degrees of freedom")
    return DiscreteHerglotz(Ld, arity, h, coordinates)
