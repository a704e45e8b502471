r"""LaTeX of the long expressions that the derivations of semi-discretized systems show.

A wave or beam on a grid of a hundred nodes has gradients and residuals of hundreds of
terms: :func:`typeset` summarizes what is too large to be read, and :func:`typeset_sum`
breaks a sum into the rows of an ``align*`` body (a long sum does not break by itself).

>>> import sympy
>>> u = sympy.symbols("u1:4")
>>> print(typeset_sum(sum(u), width=4))
u_{1} \\ &\quad + u_{2} \\ &\quad + u_{3}
"""

from __future__ import annotations

import sympy

from ..latex import latex, summarize

__all__ = ["TYPESET_NODES", "typeset", "typeset_sum"]

#: expressions with more nodes than this are summarized, not typeset
TYPESET_NODES = 400


def typeset(e) -> str:
    """LaTeX of ``e``, or a one-line summary when it has more than :data:`TYPESET_NODES` nodes.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> typeset(x**2), typeset(sum(x**k for k in range(300)))
    ('x^{2}', '\\\\text{(an expression of more than 400 nodes)}')
    """
    return summarize(e, TYPESET_NODES)


def _small(e, limit=TYPESET_NODES) -> bool:
    for k, _ in enumerate(sympy.preorder_traversal(e)):
        if k > limit:
            return False
    return True


def typeset_sum(e, width: int = 90, expand: bool = False) -> str:
    r"""LaTeX of a sum for an ``align*`` body, broken into rows of about ``width`` characters.

    Parameters
    ----------
    e : sympy.Expr
        The sum (any expression: one that is not a sum is typeset as :func:`typeset` does).
    width : int
        The characters of LaTeX after which a row is broken (at a term).
    expand : bool
        Expand a small expression first, so that a vanishing one shows as ``0``.

    Examples
    --------
    >>> import sympy
    >>> a, b = sympy.symbols("a b")
    >>> typeset_sum((a + b)**2 - a**2 - 2*a*b - b**2, expand=True)
    '0'
    """
    e = sympy.sympify(e)
    if expand and _small(e):
        e = sympy.expand(e)
        if e != 0 and any(p.exp.is_negative for p in e.atoms(sympy.Pow)) and sympy.cancel(e) == 0:
            e = sympy.S.Zero
    shown = typeset(e)
    if not isinstance(e, sympy.Add) or shown.startswith(r"\text"):
        return shown
    out, row = [], 0
    for k, t in enumerate(e.as_ordered_terms()):
        neg = t.could_extract_minus_sign()
        body = latex(-t if neg else t)
        if k and row + len(body) > width:
            out.append(r" \\ &\quad")
            row = 0
        sep = ("- " if neg else "") if k == 0 else (" - " if neg else " + ")
        out.append(sep + body)
        row += len(body)
    return "".join(out)
