"""Energy preservation of B-series methods for every Hamiltonian system, exactly.

``H(y1) - H(y0) = O(h^(p+1))`` for every Hamiltonian system exactly when the modified field
satisfies one linear condition per free tree with at most ``p + 1`` vertices (Faou, Hairer,
Pham 2004; Celledoni, McLachlan, Owren, Quispel 2010): :func:`energy_classes` lists them and
:func:`is_energy_preserving` decides them in the series' exact arithmetic.

>>> import sympy
>>> from geomcheck.bseries.methods import runge_kutta
>>> midpoint = runge_kutta([[sympy.Rational(1, 2)]], [1], order=3, name="implicit midpoint")
>>> c = is_energy_preserving(midpoint, 3)
>>> c.holds, str(c.counterexample["trees"][0])
(False, '[τ²]')
"""


from __future__ import annotations



from ..caches import register
from ..certify.certificate import Certificate
from ..certify.trees import MAX_ORDER, RootedTree, trees_up_to
from ..errors import BSeriesError, InvalidArgumentError
from ..latex import tex_text
from .laws import logarithm

from .certificates import REF_ENERGY, add_tables, certificate, check_truncation, element_tex, intro, require_method, series_at, series_label

__all__ = ["energy_classes", "is_energy_preserving"]


def _adjacency(t: RootedTree, extra_leaf: bool) -> tuple:
    """``(neighbours, leaf)``: the vertices of ``t`` (root 0) as adjacency lists; with
    ``extra_leaf`` a new vertex joined to the root, whose number is ``leaf``."""
    nbrs: list = [[]]

    def grow(u, at):
        for child in u.children:
            k = len(nbrs)
            nbrs.append([at])
            nbrs[at].append(k)
            grow(child, k)

    grow(t, 0)
    leaf = None
    if extra_leaf:
        leaf = len(nbrs)
        nbrs.append([0])
        nbrs[0].append(leaf)
    return nbrs, leaf


def _encode(nbrs, v, parent):
    return tuple(sorted(_encode(nbrs, w, v) for w in nbrs[v] if w != parent))


def _free_tree(nbrs):
    """``(key, centre)`` of a free tree: a canonical key, and the canonical centre vertex
    (None for a superfluous tree: two centres whose halves are isomorphic)."""
    n = len(nbrs)
    degree = [len(x) for x in nbrs]
    layer = [v for v in range(n) if degree[v] <= 1]
    left = n
    removed = [False] * n
    while left > 2:
        nxt = []
        for v in layer:
            removed[v] = True
            left -= 1
            for w in nbrs[v]:
                if not removed[w]:
                    degree[w] -= 1
                    if degree[w] == 1:
                        nxt.append(w)
        layer = nxt
    centres = [v for v in range(n) if not removed[v]]
    if len(centres) == 1:
        c = centres[0]
        return ("vertex", _encode(nbrs, c, None)), c
    c1, c2 = centres
    e1, e2 = _encode(nbrs, c1, c2), _encode(nbrs, c2, c1)
    if e1 == e2:
        return ("superfluous", e1), None
    return (("edge", e1, e2), c1) if e1 < e2 else (("edge", e2, e1), c2)


def _distance(nbrs, a, b) -> int:
    seen = {a: 0}
    frontier = [a]
    while frontier:
        nxt = []
        for v in frontier:
            for w in nbrs[v]:
                if w not in seen:
                    seen[w] = seen[v] + 1
                    nxt.append(w)
        frontier = nxt
    return seen[b]


_ENERGY_CLASSES: dict = {}     # order -> its energy classes (bounded by MAX_ORDER)
register("geomcheck.bseries.energy.classes", _ENERGY_CLASSES.clear, lambda: len(_ENERGY_CLASSES))


def energy_classes(p: int) -> list:
    """The free trees with at most ``p + 1`` vertices that carry a condition, as lists of ``(t, sign)``.

    ``H'(y) F(t)(y)`` (``f = J^-1 grad H``) is the elementary Hamiltonian of the free tree of
    ``[t]`` (``t`` with a new vertex joined to its root), oriented from that vertex; the
    orientations from two vertices differ by ``(-1)^distance``.  ``sign`` is relative to the
    canonical centre.  Superfluous free trees (an automorphism reversing the central edge)
    have a vanishing elementary Hamiltonian and are left out.

    >>> [[(str(t), s) for t, s in cls] for cls in energy_classes(4)]   # doctest: +NORMALIZE_WHITESPACE
    [[('[τ]', 1)], [('[τ²]', 1)], [('[τ³]', 1)], [('[τ[τ]]', 1), ('[[τ²]]', -1)], [('[[[τ]]]', 1)]]
    """
    check_truncation(p, "energy_classes")
    if p > MAX_ORDER[1]:
        raise InvalidArgumentError(f"energy_classes: order {p} is beyond the largest generated tree order")
    got = _ENERGY_CLASSES.get(p)
    if got is None:
        classes: dict = {}
        for t in trees_up_to(p):
            nbrs, leaf = _adjacency(t, True)
            key, centre = _free_tree(nbrs)
            if centre is None:
                continue
            sign = -1 if _distance(nbrs, leaf, centre) % 2 else 1
            classes.setdefault(key, []).append((t, sign))
        got = sorted(classes.values(), key=lambda cls: (cls[0][0].order, cls[0][0].index))
        # the first tree of a class decides its sign convention: make it +1 (an overall sign)
        got = [[(t, s * cls[0][1]) for t, s in cls] for cls in got]
        _ENERGY_CLASSES[p] = got
    return got


def is_energy_preserving(method: object, p: int) -> Certificate:
    """Whether ``H(Phi_h(y)) - H(y) = O(h^(p+1))`` for every Hamiltonian system ``y' = J^-1 grad H(y)``.

    With ``h f~ = B(b)`` the modified field (``b = log a``, HLW IX.9; a vector-field series is
    taken as it is), ``H(Phi_h(y)) - H(y) = exp(L_f~) H - H`` has the leading term
    ``H' f~ = sum_t h^|t| b(t)/sigma(t) H'F(t)``, and ``H'F(t)`` is ``+-`` the elementary
    Hamiltonian of the free tree of ``[t]``.  Elementary Hamiltonians of distinct
    non-superfluous free trees are independent (HLW IX.9), so the energy error is
    ``O(h^(p+1))`` iff for every such free tree ``theta`` with at most ``p + 1`` vertices

        sum over the trees t with [t] = theta of  sign(t) b(t) / sigma(t)  = 0

    (Faou, Hairer, Pham 2004; Celledoni, McLachlan, Owren, Quispel 2010).  Only trees with at
    most ``p`` vertices enter.  Every method of order ``r`` satisfies this for ``p = r``.

    >>> from geomcheck.bseries.methods import average_vector_field
    >>> is_energy_preserving(average_vector_field(8), 8).holds
    True
    """
    check_truncation(p, "is_energy_preserving")
    s = series_at(method, p, "is_energy_preserving")
    if s.colours != 1:
        raise BSeriesError(
            "is_energy_preserving is implemented for B-series (rooted trees), not P-series: the B-series test "
            "rests on the independence of the elementary Hamiltonians of free trees (Faou, Hairer, Pham 2004; "
            "HLW IX.9), and no published characterisation of energy-preserving P-series is known to us -- the "
            "missing theory is which bicoloured free trees give independent (and which vanishing) elementary "
            "Hamiltonians for H(q, p), with the signs of p' = -H_q (only sufficient conditions for continuous-stage "
            "partitioned methods are published, Tang 2018). Check a B-series method, or the energy of a concrete "
            "system with geomcheck.certify.maps.certify_conserves")
    if s.is_vector_field:
        b = s
        what = f"the vector field {series_label(s)}"
    else:
        require_method(s, "is_energy_preserving")
        b = logarithm(s)
        what = series_label(s)
    dom = s.domain
    classes = energy_classes(p)
    items = []
    for cls in classes:
        acc = dom.zero
        for t, sign in cls:
            x = b.element(t)
            if x:
                acc = acc + dom.const(sign, t.sigma) * x
        items.append((tuple(t for t, _s in cls), acc))
    d = intro(s, f"Energy preservation of {what} up to order {p}")
    d = d.add(r"With $h \tilde f = B(b)$ the modified field (" + ("the series itself" if s.is_vector_field else
              r"$b = \log a$") + r"), $H(\Phi_h(y)) - H(y)$ starts with $H'(y) \tilde f(y) = \sum_t "
              r"\frac{h^{|t|} b(t)}{\sigma(t)} H'F(t)$, and $H'F(t)$ is $\pm$ the elementary Hamiltonian of the free "
              r"tree of $[t]$ (signs $(-1)^{\text{distance}}$ between orientations). The elementary Hamiltonians of "
              r"non-superfluous free trees are independent, so the energy error is $O(h^{p+1})$ for every "
              r"Hamiltonian iff for each such free tree $\theta$ with at most $p + 1$ vertices (" + tex_text(REF_ENERGY)
              + "):", r"\sum_{[t] = \theta} \pm \frac{b(t)}{\sigma(t)} = 0")
    rows = []
    for (cls, (_key, r)) in zip(classes, items):
        terms = " ".join(("+" if sg > 0 else "-") + f" b({t._latex()})/{t.sigma}" for t, sg in cls)
        rows.append([str(cls[0][0].order + 1), f"${terms}$", f"${element_tex(dom, r)}$"])
    d = add_tables(d, rows, r"vertices of $\theta$ & condition & value", f"The {len(items)} free trees:")
    residual = {", ".join(t.ascii() for t in key): dom.to_sympy(r) for key, r in items}
    return certificate(
        b, items, f"{what} preserves the Hamiltonian of every Hamiltonian system up to order {p} (energy error "
                  f"O(h^{p + 1}); trees with at most {p} vertices)", d,
        lambda key: "the free tree of " + ", ".join("[" + t.ascii() + "]" for t in key), residual=residual,
        success=f"All {len(items)} conditions hold: the energy error is $O(h^{{{p + 1}}})$.",
        failure=lambda key, r: (f"The condition of the free tree of $[{key[0]._latex()}]$ ({key[0].order + 1} "
                                f"vertices) is ${dom.tex(r)} \\neq 0$: the energy error has a nonzero term of order "
                                f"$h^{{{key[0].order}}}$."),
        counterexample=lambda key, r: {"trees": key, "residual": r})
