"""What every structure check of a series shares: input checks, labels, tables and the certificate.

The checks (:mod:`geomcheck.bseries.properties`, :mod:`geomcheck.bseries.conjugate`,
:mod:`geomcheck.bseries.energy`) take a series (or anything
:func:`~geomcheck.bseries.methods.series_of` accepts) and an order, state their claim for the
trees with at most that many vertices, list their conditions in typeset tables and decide them
together in the series' exact arithmetic.
"""


from __future__ import annotations



from ..certify.certificate import Certificate
from ..certify.trees import MAX_ORDER
from ..errors import BSeriesError, InvalidArgumentError
from ..latex import Derivation, tex_text
from .methods import series_of
from .series import BSeries

__all__ = ["REF_SYMPLECTIC", "REF_P_SYMPLECTIC", "REF_HAMILTONIAN", "REF_ENERGY", "ROWS_PER_TABLE",
           "check_truncation", "series_at", "series_label", "require_method", "require_field", "tree_label",
           "pair_label", "element_tex", "add_tables", "intro", "certificate"]

REF_SYMPLECTIC = ("Hairer, Lubich, Wanner, Geometric Numerical Integration, Thm VI.7.6 (Calvo, Sanz-Serna "
                   "1994)")
REF_P_SYMPLECTIC = "Hairer, Lubich, Wanner, Geometric Numerical Integration, VI.7 (symplectic P-series)"
REF_HAMILTONIAN = "Hairer, Lubich, Wanner, Geometric Numerical Integration, IX.9 (Hamiltonian B-series fields)"
REF_ENERGY = ("Faou, Hairer, Pham, BIT 44 (2004); Celledoni, McLachlan, Owren, Quispel, Found. Comput. Math. "
               "10 (2010); elementary Hamiltonians of free trees: Hairer, Lubich, Wanner IX.9")

#: rows per typeset table (a table does not break across pages)
ROWS_PER_TABLE = 36


# ============================================================================ inputs


def check_truncation(p, what: str, lowest: int = 1) -> int:
    """``p`` when it is an integer ``>= lowest``, else an InvalidArgumentError naming ``what``."""
    if isinstance(p, bool) or not isinstance(p, int) or p < lowest:
        raise InvalidArgumentError(f"{what}: the order p must be an integer >= {lowest}, not {p!r}")
    return p


def series_at(method, p: int, what: str) -> BSeries:
    """The series of ``method`` up to order ``p`` (a BSeries known to a lower order is refused)."""
    if isinstance(method, BSeries) and p > method.order:
        raise BSeriesError(f"{what}: {method.name or 'the series'} is known only up to order {method.order} (its "
                           f"truncation); a statement up to order {p} needs the coefficients of every tree with "
                           f"at most {p} vertices")
    if p > MAX_ORDER[method.colours if isinstance(method, BSeries) else 1]:
        raise InvalidArgumentError(f"{what}: order {p} is beyond the largest generated tree order")
    return series_of(method, p)


def series_label(s: BSeries) -> str:
    """The series' name for messages (``"the series"`` when it has none)."""
    return s.name or "the series"


def require_method(s: BSeries, what: str):
    """Refuse a series that is not a method (``a(∅) != 1``): the check ``what`` is about methods."""
    if s.domain.is_zero(s.empty_element - s.domain.one) is not True:
        raise BSeriesError(f"{what} needs a method or flow (coefficient 1 of the empty tree); "
                           f"{series_label(s)} has a(∅) = {s.empty}"
                           + (" -- a vector field: use is_hamiltonian" if s.is_vector_field else ""))


def require_field(s: BSeries, what: str):
    """Refuse a series that is not a vector field (``a(∅) != 0``)."""
    if not s.is_vector_field:
        raise BSeriesError(f"{what} needs a vector-field series (coefficient 0 of the empty tree); "
                           f"{series_label(s)} has a(∅) = {s.empty} -- a method: use modified_equation_is_hamiltonian")


def tree_label(t) -> str:
    """A tree in ASCII, for plain-text messages."""
    return "the tree " + t.ascii()


def pair_label(key) -> str:
    """A pair of trees ``(u, v)`` (or a single tree) in ASCII, for plain-text messages."""
    if isinstance(key, tuple) and len(key) == 3:
        kind, u, v = key
        if kind == "root colour":
            return f"the root-colour condition of {u.ascii()} and {v.ascii()}"
        return f"the pair u = {u.ascii()}, v = {v.ascii()}"
    return str(key)


def element_tex(dom, x) -> str:
    """An element of the arithmetic ``dom`` in LaTeX."""
    return dom.tex(x) if x else "0"


def add_tables(d: Derivation, rows: list, head: str, heading: str) -> Derivation:
    """Tables of already typeset rows (``rows`` are lists of LaTeX cells)."""
    cols = len(head.split("&"))
    start = r"\begin{tabular}{" + "l" * cols + "} " + head + r" \\ \hline "
    for k in range(0, len(rows), ROWS_PER_TABLE):
        body = "\n".join(" & ".join(r) + r" \\" for r in rows[k:k + ROWS_PER_TABLE])
        d = d.add((heading if k == 0 else "(continued)") + "\n\n" + start + body + r"\end{tabular}")
    return d


def intro(s: BSeries, title: str) -> Derivation:
    """The derivation's opening: the title and the series it is about."""
    kind = "B-series (rooted trees)" if s.colours == 1 else "P-series (bicoloured trees)"
    d = Derivation(tex_text(title))
    d = d.add(f"The {kind} of {tex_text(series_label(s))}, " + r"$B(a, y) = a(\emptyset) y + \sum_t "
              r"\frac{h^{|t|}}{\sigma(t)} a(t) F(t)(y)$, truncated at order " + str(s.order) + ".")
    return d.add("Arithmetic: " + tex_text(s.domain.describe()) + ".")


def certificate(s, items, claim, d, label, *, residual, success, failure, counterexample):
    """Decide ``items`` [(key, residual element)] in the series' arithmetic."""
    dom = s.domain
    holds, stage, method, key = dom.decide(items, label)
    cx = None
    if holds is False:
        r = dict(items)[key]
        cx = counterexample(key, dom.to_sympy(r))
        d = d.concluding(failure(key, r))
    elif holds:
        d = d.concluding(success)
    else:
        d = d.concluding("Undecided: " + tex_text(method) + ".")
    return Certificate(claim=claim, holds=holds, method=method, stage=stage, residual=residual,
                       counterexample=cx, derivation=d)


# ============================================================================ order
