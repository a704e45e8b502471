"""Q o Q assembled sparsely: the engine of ``VectorField.square`` and ``is_homological``.

Only the directions that occur are differentiated, and when every coefficient of Q is a
polynomial with rational coefficients the whole product runs in Python integer
arithmetic (sparse polynomials), so a homological field costs no sympy arithmetic.
"""

from __future__ import annotations

from .algebra import Accumulator, merge_sign, mul_terms, odd_left_derivative
from .calculus import diff, free_coordinates
from .errors import NotHomogeneousError
from .polynomials import NotPolynomial, mono_mul, poly_diff, poly_to_expr, to_poly


# --------------------------------------------------------------------------- Q o Q, sparse
#
# ``VectorField.square`` (fields.py) differentiates every coefficient of every component by
# every coordinate along which Q has a component, and multiplies sympy objects; for the
# Lie-Poisson field of so(12)* that is ~10^5 sympy calls, about 1 s with a cold cache.  The
# report computes the same Q o Q = sum_i Q^i d_i Q^j sparsely instead:
#
# * only the directions that occur: the odd indices in the keys of Q^j and the coordinates
#   free in its coefficients;
# * when every coefficient of Q is a polynomial with rational coefficients (in the
#   coordinates and any parameters) -- Chevalley-Eilenberg, Lie-Poisson, linear actions,
#   polynomial Poisson structures -- in plain Python: sparse polynomials
#   ``{monomial: Fraction}``, monomials as sorted ``((variable, exponent), ...)``.  Only
#   nonzero results become sympy expressions (expanded polynomials), so a homological
#   field costs no sympy arithmetic at all.
#
# The signs are those of ``VectorField.apply_terms``: (Q o Q)^j = sum_i Q^i * dQ^j/dy^i with
# the left derivative for odd y^i and the supercommutative product of the kernel.


def _polynomial_square(Q):
    """``{j: terms}`` of Q o Q in Python arithmetic, or None when a coefficient is not polynomial."""
    chart = Q.chart
    comps = Q.component_terms()
    variables: dict = {c: k for k, c in enumerate(chart.coords)}  # coordinates first
    try:
        pcomps = {i: {key: to_poly(v, variables) for key, v in t.items()} for i, t in comps.items()}
    except NotPolynomial:
        return None
    odd_pos = [chart.index(c) for c in chart.odd]
    even_dirs = {i for i in pcomps if not chart.degrees[i] & 1}   # variable index = coordinate index
    signs: dict = {}   # merge_sign memo: few distinct key pairs, met many times
    out = {}
    for j in sorted(pcomps):
        target = pcomps[j]
        acc: dict = {}

        def add_products(comp, deriv):
            for ka, pa in comp.items():
                for kb, (pb, sb) in deriv.items():
                    hit = signs.get((ka, kb))
                    if hit is None:
                        hit = signs[(ka, kb)] = merge_sign(ka, kb)
                    sign, key = hit
                    if sign:
                        into = acc.setdefault(key, {})
                        for ma, ca in pa.items():
                            if sign * sb < 0:
                                ca = -ca
                            for mb, cb in pb.items():
                                m = mono_mul(ma, mb)
                                into[m] = into.get(m, 0) + ca * cb

        for o in sorted({o for key in target for o in key}):
            comp = pcomps.get(odd_pos[o])
            if comp:
                deriv = {}
                for key, p in target.items():
                    if o in key:
                        pos = key.index(o)
                        deriv[key[:pos] + key[pos + 1:]] = (p, -1 if pos & 1 else 1)
                add_products(comp, deriv)
        by_var: dict = {}
        for key, p in target.items():
            for v in {v for m in p for v, _ in m}:
                if v in even_dirs:
                    dp = poly_diff(p, v)
                    if dp:
                        by_var.setdefault(v, {})[key] = (dp, 1)
        for v in sorted(by_var):
            add_products(pcomps[v], by_var[v])
        res = {}
        for key, p in acc.items():
            p = {m: c for m, c in p.items() if c}
            if p:
                res[key] = p
        if res:
            out[j] = res
    symbols = sorted(variables, key=variables.get)
    return {j: {key: poly_to_expr(p, symbols) for key, p in t.items()} for j, t in out.items()}


def _symbolic_square(Q) -> dict:
    """``{j: terms}`` of Q o Q, differentiating only along the directions that occur."""
    chart = Q.chart
    comps = Q.component_terms()
    coords = chart.coords
    odd_pos = [chart.index(c) for c in chart.odd]
    even_comp = {coords[i]: t for i, t in comps.items() if not chart.degrees[i] & 1}
    even_set = frozenset(even_comp)
    out = {}
    for j in sorted(comps):
        target = comps[j]
        acc = Accumulator()
        for o in sorted({o for key in target for o in key}):
            comp = comps.get(odd_pos[o])
            if comp:
                acc.add_terms(mul_terms(comp, odd_left_derivative(target, o)))
        by_x: dict = {}
        for key, value in target.items():
            for x in free_coordinates(value, even_set):
                dv = diff(value, x)
                if dv != 0:
                    by_x.setdefault(x, {})[key] = dv
        for x in sorted(by_x, key=chart.index):
            acc.add_terms(mul_terms(even_comp[x], by_x[x]))
        res = acc.result()
        if res:
            out[j] = res
    return out


def square_terms(Q) -> tuple:
    """(``{j: terms}`` of Q o Q, "polynomial" or "symbolic")."""
    # the zero field is odd as well as even (VectorField.parity calls it even)
    if Q.component_terms() and Q.parity != 1:
        raise NotHomogeneousError(f"Q o Q is a vector field only for odd Q; {Q!r} is even")
    terms = _polynomial_square(Q)
    how = "polynomial"
    if terms is None:
        terms, how = _symbolic_square(Q), "symbolic"
    return terms, how


