r"""The derivation of a certificate about an implicit map, as a numerical analyst writes it.

An :class:`~geomcheck.maps.ImplicitMap` is typeset in the user's notation: its equations
solved for the unknowns where they can be (``Q = q + h H_{p}``), the points at which the
undefined functions are evaluated named once (``z = ((q + Q)/2, (p + P)/2)``), and the
derivatives of the functions written ``H_{qp}``, ``V''`` (slots named after the coordinates
they reduce to at ``h = 0``), never as internal jets.

When the implicit function theorem was applied symbolically
(:class:`geomcheck.linalg.CramerSolution`), the derivation shows what was computed, in the
order it was computed: the matrices ``A = dF/du`` and ``C = -dF/dx`` (and the block left
once the unknowns with constant pivots are eliminated, as ``I - c M`` when it has that
form), their determinant ``Delta = det A`` -- the one denominator of every derivative, with
its value at ``h = 0`` (the condition under which the derivation holds) -- the derivative
of the map as numerators over ``Delta``, and every form (the pullback, the residual) as
numerators over a power of ``Delta``, expanded, collected in ``h`` and, where it helps,
written through ``Delta``.  No quotient other than ``Delta`` occurs, and every line is
computed from the objects the certificate was decided on.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h"); Q, P = sympy.symbols("Q P")
>>> H = sympy.Function("H")
>>> z = {q: (q + Q) / 2, p: (p + P) / 2}
>>> mid = gc.ImplicitMap(M, M, [Q - q - h * gc.substitute(H(q, p).diff(p), z),
...                             P - p + h * gc.substitute(H(q, p).diff(q), z)], new=[Q, P])
>>> T = ImplicitTypesetting.of(mid)
>>> T.notation.latex(mid.canonical_equations[0])
'Q - h H_{p} - q'
>>> T.delta_latex()
'1 + \\frac{h^{2}}{4} \\left(H_{qq} H_{pp} - H_{qp}^{2}\\right)'
"""

from __future__ import annotations

import math
import re

import sympy
from sympy.polys.polyerrors import PolynomialError

from ..latex import (LINE_CHARS, differential, distinct_nodes, expression_size, math_width, summarize,
                     top_level_breaks)
from ..zero import Jet, canonical_jets

__all__ = ["ImplicitTypesetting", "Notation"]

#: expressions up to this many nodes are expanded, collected and factored for display
_ALGEBRA_NODES = 3000
#: displayed expressions up to this many nodes are printed; larger ones are named by their size
_PRINT_NODES = 600
#: a displayed matrix (or a row that cannot break) must be narrower than this, in characters
_UNBREAKABLE = LINE_CHARS - 16
#: a displayed row wider than this is broken at its top-level signs (the default article's line)
_ROW_WIDTH = LINE_CHARS - 16


#: a coefficient without denominator up to this wide (in characters) is written in its form's line
_INLINE_WIDTH = 24
#: a displayed quantity that needs more lines than this is named by its size instead
_MOST_LINES = 8


def display_row(lhs: str, rhs: str, width: float = _ROW_WIDTH) -> str:
    r"""``lhs &= rhs``, broken at the top-level signs of ``rhs`` into lines of at most ``width``
    characters (continued with ``\\ &\quad``); a right-hand side that would need more than
    :data:`_MOST_LINES` lines is named by its number of terms instead."""
    head = math_width(lhs) + 3
    if head + math_width(rhs) <= width:
        return lhs + " &= " + rhs
    cuts = top_level_breaks(rhs)
    pieces, start = [], 0
    for k in cuts:
        pieces.append(rhs[start:k])
        start = k
    pieces.append(rhs[start:])
    lines, current = [], ""
    for piece in pieces:
        if current.strip() and math_width(current + piece) > max(width - head - 3, 20):
            lines.append(current)
            current = piece
        else:
            current += piece
    lines.append(current)
    if len(lines) > _MOST_LINES:
        return lhs + r" &= \text{(%d terms, not displayed)}" % len(pieces)
    return lhs + " &= " + r" \\ &\quad ".join(line.strip() for line in lines)


#: an expansion expected to give more terms than this is not attempted (a power of a sum of
#: quotients, as the constrained schemes' parametrizations give, expands to millions of terms)
_EXPAND_TERMS = 1500


class _TooLarge(Exception):
    """An expansion the typesetting declines (the derivation then shows the objects as they are)."""


def _expansion_terms(e, limit: int) -> int:
    """An upper bound on the number of terms of ``sympy.expand(e)`` (``limit + 1`` once past ``limit``);
    each function's arguments, which ``expand`` expands too, must stay within ``limit``."""
    memo = {}

    def terms(x):
        key = id(x)
        if key in memo:
            return memo[key]
        if x.is_Atom:
            n = 1
        elif x.is_Add:
            n = min(sum(terms(a) for a in x.args), limit + 1)
        elif x.is_Mul:
            n = 1
            for a in x.args:
                n = min(n * terms(a), limit + 1)
        elif x.is_Pow and x.exp.is_Integer:
            b, k = terms(x.base), abs(int(x.exp))
            n = min(math.comb(b + k - 1, k), limit + 1) if b > 1 else 1
        else:
            for a in x.args:
                if terms(a) > limit:
                    return limit + 1
            n = 1
        memo[key] = n
        return n

    return terms(sympy.sympify(e))


def _expand(e):
    """``sympy.expand(e)``, or :class:`_TooLarge` when it would be too large to show."""
    if _expansion_terms(e, _EXPAND_TERMS) > _EXPAND_TERMS:
        raise _TooLarge(f"an expansion of more than {_EXPAND_TERMS} terms")
    return sympy.expand(e)


# ------------------------------------------------------------------------------------ notation


def _key(args) -> tuple:
    """An argument tuple in one form (expanded), to recognise a point however it was written."""
    try:
        return tuple(_expand(a) for a in args)
    except _TooLarge:
        return tuple(args)


class Notation:
    """The user's names for what the equations of an implicit map evaluate.

    Each undefined function's derivatives are named by the coordinates its argument
    slots reduce to at ``h = 0`` with the unknowns at their starting guesses
    (``H_{qp}``, ``V''``); the points where a function is evaluated at the unknowns are
    named ``z`` (one point) or ``z_1, z_2, ...``, and a function at the only point is
    written without it.  :meth:`symbolize` replaces jets by placeholder symbols, so that
    expanding, collecting and factoring treat them as the atoms they are.
    """

    def __init__(self, phi):
        self.phi = phi
        self.h = phi.step
        self.unknowns = tuple(phi.unknowns)
        self._unknown_set = set(phi.unknowns)
        limit = {u: canonical_jets(g) for u, g in phi.guess.items()}
        if self.h is not None:
            limit[self.h] = sympy.S.Zero
        self._limit = limit
        self._placeholder = {}   # jet -> placeholder Symbol
        self._label = {}         # jet -> its name without the point
        self._by_key = {}        # (jet class, expanded arguments) -> placeholder
        self.solved = {}         # unknown -> what its equation gives it (placeholders for jets)
        self.names = {}          # placeholder or unknown -> LaTeX
        self.points = []         # (LaTeX name, argument tuple) of the named points
        self._point_name = {}    # argument tuple -> LaTeX name ("" for the only point)
        self.functions = []      # names of the undefined functions, in order of appearance
        self._slots = {}         # function name -> tuple of slot names (LaTeX) or None
        jets = []
        for e in phi.canonical_equations:
            for node in distinct_nodes(e):
                if isinstance(node, Jet) and node not in jets:
                    jets.append(node)
        self._name_slots(jets)
        tuples = []
        for j in jets:
            if _key(j.args) not in [_key(t) for t in tuples] and self._is_point(j.args):
                tuples.append(j.args)
        self._name_unknowns()
        for k, args in enumerate(tuples):
            name = "z" if len(tuples) == 1 else "z_{%d}" % (k + 1)
            self.points.append((name, args))
            self._point_name[_key(args)] = "" if len(tuples) == 1 else name
        for j in jets:
            self._symbol(j)
        self.equations = self.equation_rows()

    def _name_unknowns(self):
        """``q_{1}'`` for the new value of ``q1`` and ``k_{1,q_{1}}`` for its stage slope (the names
        :mod:`integrators` gives them, ``q1'`` and ``k_{1,q1}``, printed like the coordinates)."""
        coords = {c.name: sympy.latex(c) for c in self.phi.source.coords}
        for u in self.unknowns:
            name = u.name
            m = re.fullmatch(r"(.+)'", name)
            if m and m.group(1) in coords:
                self.names[u] = coords[m.group(1)] + "'"
                continue
            m = re.fullmatch(r"k_\{(\d+),(.+)\}", name)
            if m and m.group(2) in coords:
                self.names[u] = "k_{%s,%s}" % (m.group(1), coords[m.group(2)])

    # -- naming
    def _is_point(self, args) -> bool:
        """An argument tuple worth a name: it contains an unknown and is not just symbols."""
        has_unknown = any(a.free_symbols & self._unknown_set for a in args)
        return has_unknown and not all(isinstance(a, sympy.Symbol) for a in args)

    def limit(self, e):
        """``e`` at ``h = 0`` with the unknowns at their guesses."""
        try:
            return _expand(canonical_jets(e).xreplace(self._limit)) if self._limit else e
        except _TooLarge:
            return None

    def _name_slots(self, jets):
        coords = set(self.phi.source.coords)
        seen = {}
        for j in jets:
            if j.jet_name not in self.functions:
                self.functions.append(j.jet_name)
            limits = [self.limit(a) for a in j.args]
            seen.setdefault(j.jet_name, []).append(limits)
        for name, rows in seen.items():
            slots = []
            for i in range(len(rows[0])):
                values = {row[i] for row in rows if len(row) > i}
                value = values.pop() if len(values) == 1 else None
                slots.append(sympy.latex(value) if value in coords else None)
            distinct = len(set(slots)) == len(slots)
            self._slots[name] = tuple(slots) if None not in slots and distinct else None

    def _symbol(self, j):
        hit = self._placeholder.get(j)
        if hit is not None:
            return hit
        same = (type(j), _key(j.args))      # the same jet at the same point, however written
        hit = self._by_key.get(same)
        if hit is not None:
            self._placeholder[j] = hit
            return hit
        base = sympy.latex(sympy.Symbol(j.jet_name))
        index = j.jet_index
        order = sum(index)
        slots = self._slots.get(j.jet_name)
        if slots is None or len(slots) != len(index):
            slots = tuple("x_{%d}" % (i + 1) for i in range(len(index)))
        if order == 0:
            tex = base
        elif len(index) == 1 and order <= 3:
            tex = base + "'" * order
        elif len(index) == 1:
            tex = base + "^{(%d)}" % order
        elif "_" not in base and "^" not in base:
            sep = "" if all(len(s) == 1 for s in slots) else r"\,"
            tex = base + "_{" + sep.join(s for s, n in zip(slots, index) for _ in range(n)) + "}"
        else:
            below = r" ".join(r"\partial " + s + ("^{%d}" % n if n > 1 else "") for s, n in zip(slots, index) if n)
            tex = r"\frac{\partial" + ("^{%d}" % order if order > 1 else "") + " " + base + "}{" + below + "}"
        self._label[j] = tex
        args = j.args
        if _key(args) in self._point_name:
            where = self._point_name[_key(args)]
            tex = tex + (r"(" + where + ")" if where else "")
        else:
            tex = tex + r"\left(" + ", ".join(sympy.latex(a, symbol_names=self.names) for a in args) + r"\right)"
        if "'" in tex or "(" in tex:
            tex = "{" + tex + "}"   # V''^{2} would be a double superscript
        # the placeholder's name orders printed terms (after the step size h in a product; by
        # function, then derivative order); its characters make it no name a user would write
        d = sympy.Symbol("h~%s~%d~%s~%s" % (j.jet_name, order, "".join(str(9 - min(n, 9)) for n in index),
                                            len(self._placeholder)))
        self._placeholder[j] = d
        self._by_key[same] = d
        self.names[d] = tex
        return d

    # -- printing
    def unsymbolize(self, e):
        """``e`` with its placeholders turned back into the jets they stand for."""
        back = {d: j for j, d in self._placeholder.items() if d in e.free_symbols}
        return e.xreplace(back) if back else e

    def symbol_latex(self, u) -> str:
        return self.names.get(u) or sympy.latex(u)

    def symbolize(self, e):
        """``e`` with every jet replaced by its placeholder symbol."""
        e = canonical_jets(sympy.sympify(e))
        # in a fixed order: a placeholder's name carries its creation index, and names order
        # the printed terms (a set's order would depend on the process's hash seed)
        jets = sorted(e.atoms(Jet), key=sympy.default_sort_key)
        if not jets:
            return e
        return e.xreplace({j: self._symbol(j) for j in jets})

    def latex(self, e, symbolized=False) -> str:
        s = e if symbolized else self.symbolize(e)
        if expression_size(s, _PRINT_NODES) > _PRINT_NODES:
            return summarize(s, _PRINT_NODES)
        return sympy.latex(s, symbol_names=self.names)

    def functions_phrase(self) -> str:
        """``$H$`` or ``$V$ and $W$``: the undefined functions the claim is for."""
        names = ["$" + sympy.latex(sympy.Symbol(n)) + "$" for n in self.functions]
        if len(names) <= 1:
            return "".join(names)
        return ", ".join(names[:-1]) + " and " + names[-1]

    def jets_phrase(self) -> str:
        """What the derivative names mean, in words, with an example."""
        where = ""
        if len(self.points) == 1:
            where = " at $z$"
        elif self.points:
            where = " at the points shown"
        example, best = None, None
        for j in self._placeholder:
            slots = self._slots.get(j.jet_name)
            base = sympy.latex(sympy.Symbol(j.jet_name))
            if not sum(j.jet_index) or len(j.jet_index) < 2 or not slots or "_" in base or "^" in base:
                continue
            rank = (sum(1 for n in j.jet_index if n) > 1, sum(j.jet_index) > 1)
            if best is not None and rank <= best:
                continue
            order = sum(j.jet_index)
            below = r"\,".join(r"\partial " + s_ + ("^{%d}" % n if n > 1 else "") for s_, n in zip(slots, j.jet_index) if n)
            example = "$%s = \\partial%s %s/%s$" % (self._label[j], "^{%d}" % order if order > 1 else "", base, below)
            best = rank
        primes = any("'" in t for d, t in self.names.items() if d in self._placeholder.values())
        evaluated = ", evaluated" + where if where else ""
        if example:
            return "Subscripts denote partial derivatives (e.g.\\ " + example + ")" + evaluated + "."
        if primes:
            return "Primes denote derivatives" + evaluated + "."
        if self.points:
            return "Derivatives are evaluated" + where + "."
        return ""

    def points_rows(self) -> list:
        """``z &= (...)`` rows defining the named points."""
        rows = []
        for name, args in self.points:
            parts = [polynomial_latex(self.symbolize(a), self.h, self.names) if self.h is not None and a.has(self.h)
                     else sympy.latex(sympy.factor_terms(self.symbolize(a)), symbol_names=self.names) for a in args]
            body = parts[0] if len(parts) == 1 else r"\left(" + ", ".join(parts) + r"\right)"
            rows.append(display_row(name, body))
        return rows

    def equation_rows(self) -> list:
        """The equations, each solved for an unknown it contains linearly with coefficient 1 (and
        nowhere else), the new coordinates first; the others as ``... = 0``."""
        rows, used = [], set()
        order = list(self.phi.new) + [u for u in self.unknowns if u not in self.phi.new]
        for i, e in enumerate(self.phi.canonical_equations):
            s = self.symbolize(e)
            small = expression_size(s, _ALGEBRA_NODES) <= _ALGEBRA_NODES \
                and _expansion_terms(s, _EXPAND_TERMS) <= _EXPAND_TERMS
            solved = None
            if small:
                x = _expand(s)
                own = self.unknowns[i] if i < len(self.unknowns) else None
                for u in sorted(order, key=lambda v: (v is not own, order.index(v))):
                    if u in used or u not in x.free_symbols:
                        continue
                    coeff = x.coeff(u)
                    if coeff in (1, -1):
                        rest = _expand(u - x) if coeff == 1 else _expand(u + x)
                        if u not in rest.free_symbols:
                            solved = (u, rest)
                            break
            if solved is not None:
                u, rest = solved
                used.add(u)
                self.solved[u] = rest
                shown = (polynomial_latex(rest, self.h, self.names)
                         if expression_size(rest, _PRINT_NODES) <= _PRINT_NODES else self.latex(rest, True))
                rows.append(display_row(self.symbol_latex(u), shown))
            elif small and expression_size(s, _PRINT_NODES) <= _PRINT_NODES:
                rows.append(display_row("0", polynomial_latex(s, self.h, self.names)))
            else:
                rows.append(display_row("0", self.latex(s, symbolized=True)))
        return rows


# ----------------------------------------------------------------------------- polynomials in h


#: a parenthesized coefficient wider than this (in characters) is written out term by term, so
#: that the line can break between its terms
_GROUP_WIDTH = 28


def polynomial_latex(e, h, names) -> str:
    """See :func:`_polynomial_latex`; an expression too large to expand is printed as it is."""
    try:
        return _polynomial_latex(e, h, names)
    except _TooLarge:
        return summarize(e, _PRINT_NODES) if expression_size(e, _PRINT_NODES) > _PRINT_NODES \
            else sympy.latex(e, symbol_names=names)


def _polynomial_latex(e, h, names) -> str:
    r"""``e`` (a polynomial in ``h`` and placeholders) as ``c_0 + c_1 h + ...`` in ascending powers
    of ``h``, each coefficient factored (``\frac{h^{2}}{4} (H_{pp} H_{qq} - H_{qp}^{2})``) unless it
    is too wide for one line, then term by term."""
    e = _expand(e)
    if e == 0:
        return "0"
    if h is None or not e.has(h):
        if math_width(sympy.latex(e, symbol_names=names)) <= _GROUP_WIDTH:
            return _factored_latex(e, names)
        return sympy.latex(e, symbol_names=names)
    groups = []
    for k, c in sympy.collect(e, h, evaluate=False).items():
        n = sympy.sympify(k.as_powers_dict().get(h, 0))
        if not n.is_Integer or k != h ** n:
            return sympy.latex(e, symbol_names=names)    # not a Laurent polynomial in h
        groups.append((n, c))
    pieces = []
    for n, c in sorted(groups, key=lambda t: t[0]):
        content, rest = sympy.factor_terms(c).as_coeff_Mul()
        if isinstance(rest, sympy.Add) and expression_size(rest, 400) <= 400:
            f = sympy.factor(rest)
            if expression_size(f, 400) < expression_size(rest, 400):
                content2, rest = f.as_coeff_Mul()
                content *= content2
        if isinstance(rest, sympy.Add) and rest.could_extract_minus_sign():
            content, rest = -content, -rest
        r = sympy.latex(rest, symbol_names=names) if rest != 1 else ""
        if isinstance(rest, sympy.Add) and math_width(r) > _GROUP_WIDTH:
            terms = sympy.Add.make_args(_expand(rest))
        else:
            terms = (rest,)
        for t in terms:
            coeff, monomial = t.as_coeff_Mul()
            coeff = coeff * content * h ** n
            neg = coeff.could_extract_minus_sign()
            if neg:
                coeff = -coeff
            body = sympy.latex(coeff) if coeff != 1 or monomial == 1 else ""
            if monomial != 1:
                m = sympy.latex(monomial, symbol_names=names)
                if isinstance(monomial, sympy.Add):
                    m = r"\left(" + m + r"\right)"
                body = (body + " " + m).strip() if body else m
            pieces.append((neg, body))
    out = []
    for neg, body in pieces:
        out.append((("- " if neg else "") if not out else (" - " if neg else " + ")) + body)
    return "".join(out)


def _factored_latex(e, names) -> str:
    if expression_size(e, 400) <= 400:
        f = sympy.factor(e)
        if expression_size(f, 400) < expression_size(e, 400):
            e = f
    return sympy.latex(e, symbol_names=names)


def _content(entries, h):
    """The largest ``r h^k`` (r a positive rational) dividing every entry, or None."""
    k, r = None, None
    for e in entries:
        for t in sympy.Add.make_args(_expand(e)):
            if t == 0:
                continue
            c = abs(t.as_coeff_Mul()[0])
            low = sympy.sympify(t.as_powers_dict().get(h, 0) if h is not None else 0)
            if not low.is_Integer:
                return None
            k = low if k is None else min(k, low)
            r = c if r is None else sympy.gcd(r, c)
    if k is None:
        return None
    return r * (h ** k if h is not None else 1)


# -------------------------------------------------------------------------------- the typesetting


class ImplicitTypesetting:
    """The steps of a derivation about one implicit map (see the module docstring).

    Built by :meth:`of` (None when the map has no symbolic implicit-function-theorem data:
    implicit derivatives, or sparse elimination); the certificates of
    :mod:`geomcheck.certify.maps` call :meth:`map_steps` and :meth:`form_rows`.
    """

    def __init__(self, phi, notation, data):
        self.phi = phi
        self.notation = notation
        self.data = data
        self.cramer = data.cramer
        self.h = phi.step
        self.delta = self.cramer.determinant
        self.delta_symbol = sympy.Symbol("h~~Delta")
        notation.names[self.delta_symbol] = r"\Delta"
        self._delta_s = notation.symbolize(self.delta)
        #: every pivot was a number: no denominator at all
        self.constant_delta = self.delta.is_number

    @classmethod
    def of(cls, phi):
        from ..maps import ImplicitMap

        if not isinstance(phi, ImplicitMap):
            return None
        data = getattr(phi, "implicit_function_data", None)
        if data is None or data.cramer is None:
            return None
        if expression_size(data.cramer.determinant, _ALGEBRA_NODES) > _ALGEBRA_NODES \
                or expression_size(list(phi.canonical_equations), 2 * _ALGEBRA_NODES) > 2 * _ALGEBRA_NODES:
            return None      # a map too large to be read: the derivation summarizes it as before
        return cls(phi, Notation(phi), data)

    # -- pieces
    def delta_latex(self) -> str:
        return polynomial_latex(self._delta_s, self.h, self.notation.names)

    def delta_at_zero(self):
        """``Delta`` at ``h = 0``: a number when it can be read off, else None."""
        if self.h is None:
            return None
        try:
            v = _expand(self._delta_s.xreplace({self.h: 0}))
        except _TooLarge:
            return None
        return v if v.is_number and v.is_finite else None

    def _entry(self, v) -> str:
        s = self.notation.symbolize(v)
        if expression_size(s, _PRINT_NODES) > _PRINT_NODES:
            return summarize(s, _PRINT_NODES)
        return polynomial_latex(s, self.h, self.notation.names)

    def _matrix(self, rows) -> str:
        body = r" \\ ".join(" & ".join(self._entry(v) for v in row) for row in rows)
        return r"\begin{pmatrix}" + body + r"\end{pmatrix}"

    def _fits(self, tex) -> bool:
        return math_width(tex) <= _UNBREAKABLE

    def _unknowns_latex(self, idx) -> str:
        return ", ".join(self.notation.symbol_latex(self.phi.unknowns[k]) for k in idx)

    # -- steps
    def map_steps(self, D, claim_tex):
        """The claim, the equations with their named points, the implicit function theorem and Delta."""
        phi = self.phi
        D = self.claim_step(D, claim_tex)
        D = self.equation_steps(D)
        n_u, n_x = len(phi.unknowns), phi.source.dim
        A = [[self.data.rows[i].get(k, sympy.S.Zero) for k in range(n_u)] for i in range(n_u)]
        C = [[self.data.rhs[j][i] for j in range(n_x)] for i in range(n_u)]
        u_tex = r"u = \left(" + self._unknowns_latex(range(n_u)) + r"\right)"
        x_tex = r"x = \left(" + ", ".join(sympy.latex(c) for c in phi.source.coords) + r"\right)"
        lead = (r"With $F(x, u) = 0$ these equations, $" + x_tex + r"$ and $" + u_tex + r"$, the implicit function"
                r" theorem gives $\partial u/\partial x = A^{-1} C$ with $A = \partial F/\partial u$ and"
                r" $C = -\partial F/\partial x$")
        a_tex, c_tex = "A &= " + self._matrix(A), "C &= " + self._matrix(C)
        block, eliminated = self.cramer.block, self.cramer.eliminated
        side = a_tex + r", \qquad " + c_tex.replace("&", "", 1)
        if self._fits(side):
            D = D.add(lead + ":", side)
        elif self._fits(a_tex) and self._fits(c_tex):
            D = D.add(lead + ":", a_tex + r" \\ " + c_tex)
        else:
            D = D.add(lead + r" (a $%d \times %d$ and a $%d \times %d$ matrix)." % (n_u, n_u, n_u, n_x))
        via_s = False
        if block and eliminated:
            rows = self._block_rows(self.cramer.schur.tolist(), self.cramer.schur_rhs.tolist())
            if rows is not None:
                D = D.add(r"Eliminating $" + self._unknowns_latex(eliminated) + r"$, whose equations have constant"
                          r" pivots, leaves the system $S\,\partial w/\partial x = C_S$ for $w = \left("
                          + self._unknowns_latex(block) + r"\right)$, with", rows)
                via_s = True
        elif block:
            own = tuple(phi.unknowns) == tuple(phi.new)
            rows = self._pattern_rows(A, C, "A", "C", r"D\varphi = \frac{\partial u}{\partial x}" if own else
                                      r"\frac{\partial u}{\partial x}")
            if rows is not None:
                D = D.add(r"That is,", rows)
        scale = self.cramer.scale
        if via_s:
            how = r"\det S" if scale == 1 else (r"-\det S" if scale == -1 else sympy.latex(scale) + r"\,\det S")
            lhs = r"\Delta = \det A = " + how
        else:
            lhs = r"\Delta = \det A"
        if self.constant_delta:
            D = D.add(r"All pivots are constants: $\det A = %s$, so every derivative of the unknowns is a polynomial"
                      r" in these entries, and the implicit function theorem applies for every $%s$."
                      % (sympy.latex(self.delta), sympy.latex(self.h) if self.h is not None else "h"))
            return self.jacobian_step(D)
        D = D.add(r"Every derivative of the unknowns is a polynomial in these entries divided by the one determinant",
                  display_row(lhs, self.delta_latex()))
        at0 = self.delta_at_zero()
        condition = r"The derivation holds wherever $\Delta \neq 0$, where the implicit function theorem applies"
        if at0 is not None and at0 != 0:
            condition += (r"; $\Delta = %s$ at $%s = 0$, so $\Delta \neq 0$ for all sufficiently small $%s$."
                          % (sympy.latex(at0), sympy.latex(self.h), sympy.latex(self.h)))
        else:
            condition += "."
        D = D.add(condition)
        return self.jacobian_step(D)

    def claim_step(self, D, claim_tex):
        funcs = self.notation.functions_phrase()
        every = (r"for every smooth " + funcs + ", ") if funcs else ""
        where = "." if self.constant_delta else \
            r" wherever it is defined by the implicit function theorem ($\Delta \neq 0$ below)."
        return D.add(r"\emph{Claim:} " + every + r"the map $\varphi$ below satisfies $" + claim_tex + "$" + where)

    def equation_steps(self, D):
        N = self.notation
        src = ", ".join(sympy.latex(c) for c in self.phi.source.coords)
        new = ", ".join(self.notation.symbol_latex(u) for u in self.phi.new)
        head = r"The map $\varphi\colon (" + src + r") \mapsto (" + new + r")$ is defined implicitly by"
        D = D.add(head, r" \\ ".join(N.equations))
        if N.points:
            D = D.add("where", r" \\ ".join(N.points_rows()))
        phrase = N.jets_phrase()
        if phrase:
            D = D.add(phrase)
        return D

    def _block_rows(self, S, R):
        """``S = ...``, ``C_S = ...`` (as ``I - c M`` when S has that form), or None when too wide."""
        pattern = self._pattern_rows(S, R, "S", "C_S", r"\frac{\partial w}{\partial x}")
        if pattern is not None:
            return pattern
        s_tex, r_tex = "S &= " + self._matrix(S), "C_S &= " + self._matrix(R)
        if self._fits(s_tex) and self._fits(r_tex):
            return s_tex + r" \\ " + r_tex
        return None

    def _pattern_rows(self, S, R, s_name, r_name, solution=None):
        """``S = I - c M`` with ``C = M`` or ``C = I + c M`` (the stage and Cayley forms), when they hold."""
        try:
            return self._pattern(S, R, s_name, r_name, solution)
        except _TooLarge:
            return None

    def _pattern(self, S, R, s_name, r_name, solution):
        m = len(S)
        if m == 0 or any(len(r) != m for r in R) or len(R) != m:
            return None
        N = self.notation
        K = [[_expand(N.symbolize((1 if i == j else 0) - S[i][j])) for j in range(m)] for i in range(m)]
        Rs = [[_expand(N.symbolize(R[i][j])) for j in range(m)] for i in range(m)]
        c = _content([e for row in K for e in row if e != 0], self.h)
        if c is None or c == 0:
            return None
        M = [[_expand(e / c) for e in row] for row in K]
        cl = sympy.latex(c)
        if all(_expand(Rs[i][j] - M[i][j]) == 0 for i in range(m) for j in range(m)):
            form, right = r_name + " &= M", "M"
        elif all(_expand(Rs[i][j] - (1 if i == j else 0) - c * M[i][j]) == 0 for i in range(m) for j in range(m)):
            form, right = r_name + r" &= I + " + cl + r"\, M", r"\left(I + " + cl + r"\, M\right)"
        else:
            return None
        m_tex = "M &= " + self._matrix(M)
        if not self._fits(m_tex):
            return None
        out = s_name + r" &= I - " + cl + r"\, M \\ " + form + r" \\ " + m_tex
        if solution:        # the implicit function theorem, written through M
            out += r" \\ " + solution + r" &= \left(I - " + cl + r"\, M\right)^{-1} " + right
        return out

    def jacobian_step(self, D):
        """``D phi = (1/Delta) (numerators)``: the derivatives the pullbacks are made of."""
        phi = self.phi
        n = phi.source.dim
        index = {u: k for k, u in enumerate(phi.unknowns)}
        rows = [[self.cramer.numerators[j][index[u]] for j in range(n)] for u in phi.new]
        if n > 2:
            return D.add(r"The derivative $D\varphi$ of $\varphi$ is %sa $%d \times %d$ matrix of polynomials in the"
                         r" entries of $A$ and $C$ (not displayed)." % ("" if self.constant_delta else r"$1/\Delta$ times ",
                                                                      n, n))
        if self.constant_delta:
            rows = [[v / self.delta for v in row] for row in rows]
        entries = [[self._entry(v) for v in row] for row in rows]
        mat = r"\begin{pmatrix}" + r" \\ ".join(" & ".join(row) for row in entries) + r"\end{pmatrix}"
        tex = r"D\varphi &= " + ("" if self.constant_delta else r"\frac{1}{\Delta}") + mat
        if self._fits(tex):
            return D.add(r"The derivative of $\varphi$ is", tex)
        lines = []
        times = "" if self.constant_delta else r"\Delta\,"
        for u, row in zip(phi.new, entries):
            for x, e in zip(phi.source.coords, row):
                lines.append(display_row(times + r"\frac{\partial " + self.notation.symbol_latex(u) + r"}{\partial "
                                         + sympy.latex(x) + "}", e))
        return D.add(r"The derivatives of $\varphi$" + ("" if self.constant_delta else r", times $\Delta$,") + " are",
                     r" \\ ".join(lines))

    # -- forms
    def over_delta(self, c):
        """``(numerator, k)`` with ``c = numerator / Delta**k`` and the numerator free of Delta, or None."""
        try:
            return self._over_delta(c)
        except _TooLarge:
            return None

    def _over_delta(self, c):
        s = self.notation.symbolize(c)
        if not self.constant_delta:
            base, dsym = self._delta_s, self.delta_symbol
            # Delta where it divides (only there: a numerator keeps its own terms)
            s = s.replace(lambda e: e.is_Pow and e.base == base and e.exp.is_negative,
                          lambda e: dsym ** e.exp)
        if expression_size(s, _ALGEBRA_NODES) > _ALGEBRA_NODES:
            return None
        s = _expand(s)
        k = 0
        for t in sympy.Add.make_args(s):
            e = t.as_powers_dict().get(self.delta_symbol, 0)
            if e < 0:
                k = max(k, -e)
        num = _expand(s * self.delta_symbol ** k)
        if any(t.as_powers_dict().get(self.delta_symbol, 0) < 0 for t in sympy.Add.make_args(num)):
            return None
        num = _expand(num.xreplace({self.delta_symbol: self._delta_s}))
        names = self.notation.names
        # a quotient other than Delta (by anything but a constant parameter such as h) is not shown so
        if any(isinstance(a, sympy.Pow) and a.exp.is_negative and a.base.free_symbols
               and not (a.base.is_Symbol and a.base not in names and a.base not in self.notation.unknowns)
               for a in sympy.preorder_traversal(num)):
            return None
        return num, k

    def on_solutions(self, num):
        """``num`` with the unknowns replaced, where they occur explicitly, by what their equations
        give them (repeatedly), expanded: equal to ``num`` wherever the equations hold.  The
        unknowns substituted are returned too; None when the expansion would be too large."""
        try:
            return self._on_solutions(num)
        except _TooLarge:
            return None

    def _on_solutions(self, num):
        N = self.notation
        solved = N.solved
        used = []
        # an unknown the equations give without any function of it (Q' = q) may be replaced inside
        # the functions' arguments too: H(Q', P) is H(q, P) on the solutions
        plain = {u: r for u, r in solved.items() if not (r.free_symbols & set(N.names))}
        if plain:
            raw = N.unsymbolize(num)
            inside = {u for j in raw.atoms(Jet) for u in plain if u in j.free_symbols}
            if inside:
                num = N.symbolize(raw.xreplace(plain))
                used += sorted(inside, key=str)
        for _ in range(len(solved) + 1):
            hit = [u for u in solved if u in num.free_symbols]
            if not hit:
                break
            num = num.xreplace({u: solved[u] for u in hit})
            used += [u for u in hit if u not in used]
            if expression_size(num, _ALGEBRA_NODES) > _ALGEBRA_NODES:
                return None
        return _expand(num), used

    def numerator_latex(self, num, k) -> str:
        """The numerator, written ``Delta^j (rest)`` when Delta divides it."""
        if num == 0:
            return "0"
        names = self.notation.names
        j, rest = 0, num
        gens = sorted(num.free_symbols | self._delta_s.free_symbols, key=str)
        if not gens:        # two numbers: nothing to divide out (sympy.Poly needs a generator)
            return polynomial_latex(num, self.h, names)
        try:
            d = sympy.Poly(self._delta_s, *gens)
            quotient = sympy.Poly(num, *gens)
            while not d.is_ground and j < k + 2:
                q, r = sympy.div(quotient, d)
                if not r.is_zero:
                    break
                quotient, j = q, j + 1
            rest = quotient.as_expr()
        except PolynomialError:
            j, rest = 0, num
        if j == 0:
            return polynomial_latex(num, self.h, names)
        power = r"\Delta" + ("^{%d}" % j if j > 1 else "")
        if rest == 1:
            return power
        r = polynomial_latex(rest, self.h, names)
        return power + r"\left(" + r + r"\right)" if isinstance(_expand(rest), sympy.Add) else power + " " + r

    def form_rows(self, lhs, form, name):
        """``(head, numerators, vanished, nonzero, k)`` for ``lhs = form`` over powers of Delta, or None.

        ``head`` is the display row ``lhs &= N_1/Delta^k dx ^ dy + ...`` (short coefficients without
        denominator written in it); ``numerators`` the ``(label, numerator, k)`` of the named ones;
        ``vanished`` the number of components whose numerator expands to 0 (left out);
        ``nonzero`` the ``(None, numerator, k)`` of every component shown; ``k`` the highest power of
        Delta dividing a component.
        """
        coords = form.chart.coords
        keys = sorted(form.terms, key=lambda t: (len(t), t))
        split = []
        for key in keys:
            s = self.over_delta(form.terms[key])
            if s is None:
                return None
            split.append((key, s[0], s[1]))
        shown = [(key, num, k) for key, num, k in split if num != 0]
        parts, numerators = [], []
        named = [t for t in shown if t[2] or math_width(self.numerator_latex(t[1], 0)) > _INLINE_WIDTH]
        for key, num, k in shown:
            tail = r" \wedge ".join(differential(coords[j]) for j in key)
            if (key, num, k) not in named:      # a short coefficient with no denominator: in the line
                body = self.numerator_latex(num, 0)
                if isinstance(num, sympy.Add):
                    body = r"\left(" + body + r"\right)"
                parts.append(body + (r" \, " + tail if tail else ""))
                continue
            label = name if len(named) == 1 else name + "_{%d}" % (len(numerators) + 1)
            numerators.append((label, num, k))
            den = r"\Delta" + ("^{%d}" % k if k > 1 else "") if k else ""
            frac = (r"\frac{" + label + "}{" + den + "}") if den else label
            parts.append(frac + r"\, " + tail if tail else frac)
        head = display_row(lhs, " + ".join(parts) if parts else "0")
        return (head, numerators, len(split) - len(shown), [(None, num, k) for _, num, k in shown],
                max((k for _, _, k in split), default=0))


def numerators_rows(T, numerators) -> str:
    """``N &= ...`` rows for the numerators of :meth:`ImplicitTypesetting.form_rows`."""
    return r" \\ ".join(display_row(label, T.numerator_latex(num, k)) for label, num, k in numerators)
