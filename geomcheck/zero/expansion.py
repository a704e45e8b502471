"""The exact stage: a sparse rational-function normal form in the atoms of the expression."""

from __future__ import annotations

import math

from .budget import charge, check_deadline
from .program import ADD, MUL, NUM, POWI, POWR, mpf_tuple_ratio

#: an intermediate polynomial of the exact stage with more terms than this aborts it.
EXACT_MAX_TERMS = 100_000
#: the largest integer exponent the exact stage expands.
EXACT_MAX_EXPONENT = 512


class TooBig(Exception):
    """The exact stage met a polynomial too large to expand within reason."""


# polynomials {monomial: int}, c a positive int and D None for 1.  A monomial is a
# sorted tuple of generator indices with repetition (x0**2*x3 is (0, 0, 3)), so
# multiplying monomials is concatenating and sorting short tuples.  No gcds of
# polynomials are taken: N == 0 decides zero whatever the denominator.


def _pmul(a, b, deadline):
    if len(a) < len(b):
        a, b = b, a
    if len(a) * len(b) > 50 * EXACT_MAX_TERMS:
        raise TooBig(f"a product of polynomials with {len(a)} and {len(b)} terms")
    charge(len(a) * len(b))   # work units: one per product of two terms, up front
    out = {}
    get = out.get
    bitems = list(b.items())
    n = 0
    for m1, c1 in a.items():
        n += 1
        if n % 256 == 0:
            check_deadline(deadline, 0)
        for m2, c2 in bitems:
            if not m1:
                m = m2
            elif not m2:
                m = m1
            else:
                m = tuple(sorted(m1 + m2))
            out[m] = get(m, 0) + c1 * c2
    out = {m: c for m, c in out.items() if c}
    if len(out) > EXACT_MAX_TERMS:
        raise TooBig(f"a polynomial with {len(out)} terms")
    return out


def _padd(a, ka, b, kb):
    """ka*a + kb*b for int scalars."""
    if len(a) < len(b):
        a, ka, b, kb = b, kb, a, ka
    out = {m: c * ka for m, c in a.items()} if ka != 1 else dict(a)
    for m, c in b.items():
        s = out.get(m, 0) + c * kb
        if s:
            out[m] = s
        else:
            out.pop(m, None)
    return out


def _content_reduce(N, c):
    if c == 1 or not N:
        return N, (1 if not N else c)
    g = math.gcd(c, *N.values())
    if g > 1:
        return {m: v // g for m, v in N.items()}, c // g
    return N, c


def _rf_add(x, y, deadline):
    N1, c1, D1 = x
    N2, c2, D2 = y
    if D1 == D2:
        L = c1 * c2 // math.gcd(c1, c2)
        N = _padd(N1, L // c1, N2, L // c2)
        N, c = _content_reduce(N, L)
        return N, c, D1
    A = N1 if D2 is None else _pmul(N1, D2, deadline)
    B = N2 if D1 is None else _pmul(N2, D1, deadline)
    D = D1 if D2 is None else (D2 if D1 is None else _pmul(D1, D2, deadline))
    L = c1 * c2 // math.gcd(c1, c2)
    N = _padd(A, L // c1, B, L // c2)
    N, c = _content_reduce(N, L)
    return N, c, D


def _rf_sum(terms, deadline):
    """The sum of many values: polynomial terms accumulate in place (pairwise addition
    would copy the growing sum once per term)."""
    L = 1
    for N, c, D in terms:
        if D is None and c != 1:
            L = L * c // math.gcd(L, c)
    charge(sum(len(N) for N, _c, D in terms if D is None))   # work units: one per summand's term
    acc = {}
    rest = []
    for n, (N, c, D) in enumerate(terms):
        if D is not None:
            rest.append((N, c, D))
            continue
        if n % 256 == 255:
            check_deadline(deadline, 0)
        k = L // c
        for m, v in N.items():
            s = acc.get(m, 0) + v * k
            if s:
                acc[m] = s
            else:
                del acc[m]
    N, c = _content_reduce(acc, L)
    out = (N, c, None)
    for x in rest:
        out = _rf_add(out, x, deadline)
    if len(out[0]) > EXACT_MAX_TERMS:
        raise TooBig(f"a polynomial with {len(out[0])} terms")
    return out


def _rf_mul(x, y, deadline):
    N1, c1, D1 = x
    N2, c2, D2 = y
    if not N1 or not N2:
        return {}, 1, None
    N = _pmul(N1, N2, deadline)
    D = D1 if D2 is None else (D2 if D1 is None else _pmul(D1, D2, deadline))
    N, c = _content_reduce(N, c1 * c2)
    return N, c, D


def _rf_inv(x):
    N, c, D = x
    if not N:
        raise TooBig("a division by an expression that expands to 0")
    if len(N) == 1 and () in N:
        k = N[()]
        num = {m: v * c * (1 if k > 0 else -1) for m, v in (D or {(): 1}).items()}
        return num, abs(k), None
    num = {m: v * c for m, v in (D or {(): 1}).items()}
    return num, 1, N


def _poly_power_size(t, n):
    # number of monomials of degree n in t variables: a bound on the terms of p**n
    return math.comb(n + t - 1, n) if t > 1 else 1


def _rf_pow(x, n, deadline):
    if n == 0:
        return {(): 1}, 1, None
    if n < 0:
        x = _rf_inv(x)
        n = -n
    if n > EXACT_MAX_EXPONENT:
        raise TooBig(f"an exponent {n}")
    N, c, D = x
    for P in (N, D):
        if P is not None and _poly_power_size(len(P), n) > EXACT_MAX_TERMS:
            raise TooBig(f"a {len(P)}-term polynomial raised to the power {n}")
    result = ({(): 1}, 1, None)
    base = x
    while True:
        if n & 1:
            result = _rf_mul(result, base, deadline)
        n >>= 1
        if not n:
            return result
        base = _rf_mul(base, base, deadline)


def exact_stage(prog, roots, deadline):
    """Prove roots zero by the sparse normal form.

    Returns ``(proven, reason)``: the set of root node indices proven zero and, when
    the stage stopped early, why.
    """
    nodes = prog.nodes
    vals = {}
    gens = {}
    proven = set()
    reason = None

    def gen(key):
        g = gens.get(key)
        if g is None:
            g = gens[key] = len(gens)
        return ({(g,): 1}, 1, None)

    done = set()
    for r in roots:
        order = prog.reachable([r], skip=done)
        try:
            count = 0
            for i in order:
                count += 1
                if count % 256 == 0:
                    check_deadline(deadline, 256)
                op, data, args = nodes[i]
                if any(vals.get(a) is None for a in args):
                    vals[i] = None  # depends on something too big
                elif op == NUM:
                    if isinstance(data[0], int) and len(data) == 2:
                        p, q = data
                    else:
                        p, q = mpf_tuple_ratio(data)
                    vals[i] = ({(): p}, q, None) if p else ({}, 1, None)
                elif op == ADD:
                    vals[i] = _rf_sum([vals[a] for a in args], deadline)
                elif op == MUL:
                    acc = vals[args[0]]
                    for a in args[1:]:
                        acc = _rf_mul(acc, vals[a], deadline)
                    vals[i] = acc
                elif op == POWI:
                    try:
                        vals[i] = _rf_pow(vals[args[0]], data, deadline)
                    except TooBig as exc:
                        vals[i] = None
                        reason = reason or f"met {exc}"
                elif op == POWR:
                    p, q = data
                    try:
                        vals[i] = _rf_pow(gen(("root", args[0], q)), p, deadline)
                    except TooBig as exc:
                        vals[i] = None
                        reason = reason or f"met {exc}"
                else:
                    vals[i] = gen(("atom", i))
            done.update(order)
        except TooBig as exc:
            done.update(order)
            for i in order:
                vals.setdefault(i, None)
            reason = reason or f"met {exc}"
            continue
        v = vals.get(r)
        if v is not None and not v[0]:
            proven.add(r)
    return proven, reason
