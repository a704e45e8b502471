"""Trees and B-series typeset in LaTeX: tree pictures, elementary differentials, series.

* :func:`tree_tikz` -- a TikZ picture of a tree (needs ``\\usepackage{tikz}``), root at the
  bottom as in Butcher's and Hairer-Lubich-Wanner's drawings, small filled dots; in P-trees a
  filled dot is a vertex of colour 0 (``q``) and an open circle one of colour 1 (``p``);
* :func:`tree_picture` -- the same drawing in LaTeX's own ``picture`` environment, which needs
  no package (the report's documents load none for it);
* :func:`elementary_differential_latex` -- ``F(t)`` in HLW's notation, ``f''(f, f'f)``;
* :func:`series_latex` -- a series as the sum ``a(∅) y + sum h^|t| a(t) / sigma(t) F(t)`` or
  as a table of trees and coefficients (:meth:`BSeries._latex` uses it).

Both pictures are small enough (about 1.2 ex between neighbouring vertices) to sit inline in
a formula or a table cell, and the root lies on the baseline.

>>> from geomcheck.certify.trees import trees_of_order
>>> print(tree_tikz(trees_of_order(3)[1]))          # [[τ]]: a chain of three vertices
\\begin{tikzpicture}[x=1.2ex,y=1.6ex,baseline=-0.25ex]\\draw (0,0) -- (0,1);\\draw (0,1) -- (0,2);\\fill (0,0) circle (0.25ex);\\fill (0,1) circle (0.25ex);\\fill (0,2) circle (0.25ex);\\end{tikzpicture}
>>> elementary_differential_latex(trees_of_order(4)[1])
"f''(f, f'f)"
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy

from ..certify.trees import RootedTree
from ..errors import BSeriesError, InvalidArgumentError
from .series import BSeries

__all__ = ["tree_layout", "tree_tikz", "tree_picture", "elementary_differential_latex", "series_latex"]

#: horizontal and vertical distance between vertices, and the dots' radius (in ex)
_DX, _DY, _RADIUS = Fraction(6, 5), Fraction(8, 5), Fraction(1, 4)


def _check_tree(tree) -> RootedTree:
    if not isinstance(tree, RootedTree):
        raise InvalidArgumentError(f"expected a tree (geomcheck.certify.trees.RootedTree), not {tree!r}")
    return tree


def tree_layout(tree: RootedTree) -> tuple[list, list]:
    """Positions of the vertices: ``(vertices, edges)`` with the root at ``(0, 0)``, children above.

    ``vertices`` is a list of ``(x, y, colour)`` (``x`` a Fraction, ``y`` the depth), the root
    first; ``edges`` a list of ``(parent index, child index)`` into it.  The leaves of each
    subtree take consecutive unit slots and a vertex sits midway between its first and last
    child, so no two edges cross.

    >>> from geomcheck.certify.trees import trees_of_order
    >>> vertices, edges = tree_layout(trees_of_order(3)[0])      # [τ²]: the cherry
    >>> [(str(x), y) for x, y, _ in vertices], edges
    ([('0', 0), ('-1/2', 1), ('1/2', 1)], [(0, 1), (0, 2)])
    """
    _check_tree(tree)
    vertices: list = []
    edges: list = []

    def place(t, left, depth, parent):
        """Place ``t`` with its leaves from slot ``left`` on; returns (x, slots used)."""
        me = len(vertices)
        vertices.append(None)
        if parent is not None:
            edges.append((parent, me))
        if not t.children:
            vertices[me] = (Fraction(left), depth, t.colour)
            return Fraction(left), 1
        xs, used = [], 0
        for u in t.children:
            x, w = place(u, left + used, depth + 1, me)
            xs.append(x)
            used += w
        x = (xs[0] + xs[-1]) / 2
        vertices[me] = (x, depth, t.colour)
        return x, used

    root_x, _ = place(tree, 0, 0, None)
    vertices = [(x - root_x, y, c) for x, y, c in vertices]
    return vertices, edges


def _num(x) -> str:
    """A coordinate for TeX: an integer, or a decimal with at most 3 digits."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    text = f"{float(x):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def tree_tikz(tree: RootedTree) -> str:
    """A TikZ picture of the tree, root at the bottom (``\\usepackage{tikz}`` in the preamble).

    One ``\\draw ... -- ...;`` per edge, then one ``circle`` per vertex (filled for colour 0,
    open for colour 1 of a P-tree), so that an open circle hides the ends of its edges.

    >>> from geomcheck.certify.trees import trees_of_order
    >>> print(tree_tikz(trees_of_order(2, colours=2)[1]))        # [●]○: root p, child q
    \\begin{tikzpicture}[x=1.2ex,y=1.6ex,baseline=-0.25ex]\\draw (0,0) -- (0,1);\\filldraw[fill=white] (0,0) circle (0.25ex);\\fill (0,1) circle (0.25ex);\\end{tikzpicture}
    """
    vertices, edges = tree_layout(tree)
    out = [f"\\begin{{tikzpicture}}[x={_num(_DX)}ex,y={_num(_DY)}ex,baseline=-{_num(_RADIUS)}ex]"]
    for a, b in edges:
        (xa, ya, _), (xb, yb, _) = vertices[a], vertices[b]
        out.append(f"\\draw ({_num(xa)},{ya}) -- ({_num(xb)},{yb});")
    for x, y, colour in vertices:
        dot = "\\fill" if colour == 0 else "\\filldraw[fill=white]"
        out.append(f"{dot} ({_num(x)},{y}) circle ({_num(_RADIUS)}ex);")
    out.append("\\end{tikzpicture}")
    return "".join(out)


def tree_picture(tree: RootedTree) -> str:
    """The drawing of :func:`tree_tikz` in LaTeX's ``picture`` environment (no package needed).

    Edges are straight ``\\qbezier`` curves (control point at the middle: the one way to draw a
    line of any slope without pict2e), shortened at open circles so they do not cross them;
    vertices are ``\\circle*`` (colour 0) or ``\\circle`` (colour 1).

    >>> from geomcheck.certify.trees import trees_of_order
    >>> print(tree_picture(trees_of_order(2)[0]))
    {\\setlength{\\unitlength}{1ex}\\begin{picture}(0.5,2.1)(-0.25,-0.25)\\qbezier(0,0)(0,0.8)(0,1.6)\\put(0,0){\\circle*{0.5}}\\put(0,1.6){\\circle*{0.5}}\\end{picture}}
    """
    vertices, edges = tree_layout(tree)
    pos = [(x * _DX, y * _DY, c) for x, y, c in vertices]
    r = _RADIUS
    xs = [x for x, _, _ in pos]
    height = max(y for _, y, _ in pos)
    left = min(xs) - r
    width = max(xs) + r - left
    out = [(f"{{\\setlength{{\\unitlength}}{{1ex}}\\begin{{picture}}({_num(width)},{_num(height + 2 * r)})"
            f"({_num(left)},{_num(-r)})")]
    for a, b in edges:
        (xa, ya, ca), (xb, yb, cb) = pos[a], pos[b]
        dx, dy = float(xb - xa), float(yb - ya)
        length = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / length * float(r), dy / length * float(r)
        x0, y0 = (float(xa) + ux, float(ya) + uy) if ca == 1 else (float(xa), float(ya))
        x1, y1 = (float(xb) - ux, float(yb) - uy) if cb == 1 else (float(xb), float(yb))
        mid = ((x0 + x1) / 2, (y0 + y1) / 2)
        points = "".join(f"({_num(_round(x))},{_num(_round(y))})" for x, y in ((x0, y0), mid, (x1, y1)))
        out.append("\\qbezier" + points)
    for x, y, colour in pos:
        circle = "\\circle*" if colour == 0 else "\\circle"
        out.append(f"\\put({_num(x)},{_num(y)}){{{circle}{{{_num(2 * r)}}}}}")
    out.append("\\end{picture}}")
    return "".join(out)


def _round(x: float) -> Fraction:
    return Fraction(round(x * 1000), 1000)


_PRIMES = {1: "'", 2: "''", 3: "'''"}


def elementary_differential_latex(tree: RootedTree, names: Sequence[str] | None = None,
                                  variables: Sequence[str] = ("q", "p")) -> str:
    """``F(t)`` in the notation of HLW III.1: ``f``, ``f'f``, ``f''(f, f)``, ``f'f'f``, ...

    A vertex with one child is written by juxtaposition (``f'f``), one with ``m >= 2`` children
    as ``f^{(m)}(F(t_1), ..., F(t_m))`` (primes up to three).  For a P-tree a vertex of colour
    ``k`` is ``names[k]`` (default ``f_{0}``, ``f_{1}``) and its derivatives are partial
    derivatives along the parts of its children, ``\\partial_{q}\\partial_{p} f_{1}(f_{0}, f_{1})``
    (colour 0 is ``q``, as in :class:`~geomcheck.certify.tableaux.PartitionedTableau`).

    Parameters
    ----------
    tree : RootedTree
    names : sequence of str, optional
        The LaTeX name of the field of each colour (default ``("f",)``, or ``("f_{0}", "f_{1}")``).
    variables : pair of str
        The LaTeX names of the two parts of a partitioned system.

    Examples
    --------
    >>> from geomcheck.certify.trees import trees_of_order
    >>> [elementary_differential_latex(t) for t in trees_of_order(4)]
    ["f'''(f, f, f)", "f''(f, f'f)", "f'f''(f, f)", "f'f'f'f"]
    >>> [elementary_differential_latex(t) for t in trees_of_order(2, colours=2)]
    ['\\\\partial_{q} f_{0}\\\\,f_{0}', '\\\\partial_{q} f_{1}\\\\,f_{0}', '\\\\partial_{p} f_{0}\\\\,f_{1}', '\\\\partial_{p} f_{1}\\\\,f_{1}']
    """
    _check_tree(tree)
    if names is None:
        names = ("f",) if tree.colours == 1 else ("f_{0}", "f_{1}")
    names = tuple(names)
    if len(names) < tree.colours or not all(isinstance(n, str) for n in names):
        raise InvalidArgumentError(f"names must give one LaTeX string per colour ({tree.colours}), not {names!r}")
    variables = tuple(variables)
    if len(variables) != 2 or not all(isinstance(v, str) for v in variables):
        raise InvalidArgumentError(f"variables must be two LaTeX strings (the q and p parts), not {variables!r}")

    def tex(t):
        name = names[t.colour]
        kids = sorted(t.children, key=lambda u: u.colour)      # stable: grouped by the part derived along
        m = len(kids)
        if m == 0:
            return name
        if tree.colours == 1:
            head = name + _PRIMES[m] if m in _PRIMES else f"{name}^{{({m})}}"
            sep = ""
        else:
            head = ""
            for colour in (0, 1):
                k = sum(1 for u in kids if u.colour == colour)
                if k:
                    head += f"\\partial_{{{variables[colour]}}}" + (f"^{{{k}}}" if k > 1 else "")
            head += " " + name
            sep = "\\,"
        args = [tex(u) for u in kids]
        if m == 1:
            return head + sep + args[0]
        return head + "(" + ", ".join(args) + ")"

    return tex(tree)


_STYLES = ("bracket", "differential", "tikz", "picture")


def _tree_tex(t: RootedTree, style: str) -> str:
    if style == "bracket":
        return t._latex()
    if style == "tikz":
        return tree_tikz(t)
    if style == "picture":
        return tree_picture(t)
    return elementary_differential_latex(t)


def _differential_tex(t: RootedTree, style: str) -> str:
    if style == "differential":
        return elementary_differential_latex(t)
    return "F(" + _tree_tex(t, style) + ")"


def series_latex(series: BSeries, max_order: int | None = None, style: str = "bracket", layout: str = "sum",
                 h: sympy.Symbol | None = None) -> str:
    """A B-series in LaTeX (math mode): the sum of its terms, or a table of trees and coefficients.

    Parameters
    ----------
    series : BSeries
    max_order : int, optional
        Show the trees up to this order (default: the truncation order).
    style : {"bracket", "differential", "tikz", "picture"}
        How a tree is shown: Butcher's bracket ``[\\tau[\\tau]]`` in ``F(...)`` (the default: it
        renders everywhere, MathJax included), the elementary differential ``f''(f, f'f)``, or a
        drawing (:func:`tree_tikz`, needs ``\\usepackage{tikz}``; :func:`tree_picture`, needs nothing).
    layout : {"sum", "table"}
        ``"sum"``: ``a(∅) y + sum_t h^|t| a(t) / sigma(t) F(t) + O(h^{p+1})``, the zero terms left
        out.  ``"table"``: an ``array`` with one row per tree (zeros included): the tree, ``sigma(t)``
        and ``a(t)``.
    h : Symbol, optional
        The step size's symbol (default ``h``).

    Examples
    --------
    >>> from geomcheck.bseries import runge_kutta, modified_equation
    >>> euler = runge_kutta([[0]], [1], order=3)
    >>> series_latex(modified_equation(euler, 3), style="differential")
    "h f - \\\\frac{h^{2}}{2} f'f + \\\\frac{h^{3}}{12} f''(f, f) + \\\\frac{h^{3}}{3} f'f'f + \\\\mathcal{O}(h^{4})"
    >>> series_latex(euler, max_order=2)
    'y + h F(\\\\tau) + \\\\mathcal{O}(h^{3})'
    >>> print(series_latex(euler, max_order=2, layout="table"))
    \\begin{array}{c|c|c}t & \\sigma(t) & a(t) \\\\ \\hline \\emptyset &  & 1 \\\\ \\tau & 1 & 1 \\\\ [\\tau] & 1 & 0\\end{array}
    """
    if not isinstance(series, BSeries):
        raise BSeriesError(f"series_latex needs a BSeries, not {type(series).__name__}")
    if max_order is None:
        max_order = series.order
    if isinstance(max_order, bool) or not isinstance(max_order, int) or not 0 <= max_order <= series.order:
        raise BSeriesError(f"max_order must be an integer from 0 to the truncation order {series.order}, "
                           f"not {max_order!r}")
    if style not in _STYLES:
        raise InvalidArgumentError(f"style must be one of {', '.join(_STYLES)}, not {style!r}")
    if layout not in ("sum", "table"):
        raise InvalidArgumentError(f"layout must be 'sum' or 'table', not {layout!r}")
    if h is None:
        h = sympy.Symbol("h")
    elif not isinstance(h, sympy.Symbol):
        raise InvalidArgumentError(f"h must be a sympy Symbol, not {h!r}")
    items = [(t, a) for t, a in series.items() if t.order <= max_order]
    if layout == "table":
        rows = ["t & \\sigma(t) & a(t)", f"\\emptyset &  & {sympy.latex(series.empty)}"]
        rows += [f"{_tree_tex(t, style)} & {t.sigma} & {sympy.latex(a)}" for t, a in items]
        return "\\begin{array}{c|c|c}" + rows[0] + " \\\\ \\hline " + " \\\\ ".join(rows[1:]) + "\\end{array}"
    terms = []
    empty = series.empty
    if empty != 0:
        y = sympy.Symbol("y")
        terms.append(sympy.latex(empty * y))
    for t, a in items:
        if a == 0:
            continue
        coefficient = sympy.latex(a / t.sigma * h ** t.order)
        terms.append(coefficient + " " + _differential_tex(t, style))
    terms.append(f"\\mathcal{{O}}({sympy.latex(h ** (max_order + 1))})")
    text = terms[0]
    for term in terms[1:]:
        text += " - " + term[1:].lstrip() if term.startswith("-") else " + " + term
    return text
