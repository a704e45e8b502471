"""The modular stage: exact evaluation of rational expressions modulo random primes.

An expression built from rational numbers, symbols, jets of undefined functions, sums,
products, integer powers and square roots of rational numbers is, at a point with
rational coordinates, a number of the field ``Q(sqrt(p1), ..., sqrt(pk), i)``.  We map
that field into the integers modulo a random 61-bit prime ``P`` for which every
``p_j`` (and ``-1``, when ``i`` occurs) has a square root mod ``P``: the map is a ring
homomorphism, so

- a **nonzero residue is a proof** that the value at that rational point is not 0
  (every nonzero element of the field maps to a nonzero residue or P divides it; the
  residue is nonzero, so the value is): the point is a genuine counterexample;
- residues that vanish at ``k`` independent random points are a **probabilistic
  proof** of zero: a nonzero numerator of total degree ``D`` in the symbols and jet
  values vanishes at a point drawn from sets of at least ``s`` values per variable with
  probability at most ``D / s`` (Schwartz-Zippel), and a fresh prime per point makes
  the chance that ``P`` divides a nonzero value negligible (at most ``B / 2**54`` for a
  value of ``B`` bits).  The decision reports the bound ``(D/s + B/2**54)**k``.

Jets are keyed by the residues of their arguments: equal arguments get equal values,
and two different arguments that happen to share a residue get equal values too, which
some smooth function has, so a counterexample stays genuine.

No rounding happens anywhere, so a value of ``x / 10**200`` or a perturbation
``10**-160`` is seen exactly.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from .budget import CHECK_EVERY, check_deadline
from .program import ADD, CONST, JET, MUL, NUM, POWI, POWR, SYM, mpf_tuple_ratio
from .sampling import draw_int

__all__ = ["ModularPlan", "plan", "random_prime", "NotModular", "BadResidue", "exact_value"]

#: bits of the random primes (a prime of this size is drawn per point)
PRIME_BITS = 61
#: integers above this are not factored to find square roots of constants
FACTOR_LIMIT = 10**40
#: at most this many distinct primes under square roots
MAX_RADICAL_PRIMES = 6

_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


class NotModular(Exception):
    """The expression has a node the modular stage cannot evaluate."""


class BadResidue(Exception):
    """A division by a residue 0 (a pole at the point, or the prime divides a denominator)."""


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3 * 10**24 (the bases above suffice)."""
    if n < 2:
        return False
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _MR_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _sqrt_mod(a: int, p: int):
    """A square root of ``a`` modulo the prime ``p`` (Tonelli-Shanks), or None."""
    a %= p
    if a == 0:
        return 0
    if pow(a, (p - 1) // 2, p) != 1:
        return None
    if p % 4 == 3:
        return pow(a, (p + 1) // 4, p)
    q, s = p - 1, 0
    while q % 2 == 0:
        q //= 2
        s += 1
    z = 2
    while pow(z, (p - 1) // 2, p) != p - 1:
        z += 1
    m, c, t, r = s, pow(z, q, p), pow(a, q, p), pow(a, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2 = t2 * t2 % p
            i += 1
        b = pow(c, 1 << (m - i - 1), p)
        m, c, t, r = i, b * b % p, t * b * b % p, r * b % p
    return r


def random_prime(seed, radicands=(), need_i=False):
    """A random prime of PRIME_BITS bits in which every radicand (and -1 if ``need_i``) is a square.

    Returns ``(P, roots)`` with ``roots[p]`` a square root of ``p`` mod P (``roots[-1]`` for ``i``).
    """
    for attempt in range(10_000):
        r = draw_int(seed, "prime", attempt)
        n = (1 << (PRIME_BITS - 1)) | (r % (1 << (PRIME_BITS - 1))) | 1
        while not _is_prime(n):
            n += 2
        roots = {}
        for q in list(radicands) + ([-1] if need_i else []):
            root = _sqrt_mod(q, n)
            if root is None:
                break
            roots[q] = root
        else:
            return n, roots
    raise NotModular("no prime with the needed square roots was found")


def _squarefree_primes(n: int):
    """``(m, primes)`` with n = m**2 * prod(primes), primes distinct; None if n is too large to factor."""
    if n > FACTOR_LIMIT:
        return None
    m, primes = 1, []
    for p, e in sympy.factorint(n).items():
        m *= p ** (e // 2)
        if e % 2:
            primes.append(p)
    return m, primes


class ModularPlan:
    """What the modular stage needs to evaluate a set of roots: the nodes, radicals and degrees.

    Attributes
    ----------
    order : list of int
        The nodes to evaluate, children first.
    radicals : dict
        ``{node: (sign, m, denominator, primes)}``: ``sqrt(c) = m * sqrt(prod(primes)) / denominator``
        (times ``i`` when ``sign`` is -1) for a constant ``c`` under a square root.
    radicands, need_i
        The primes whose square roots must exist mod P, and whether ``i`` does.
    degree : dict
        ``{root: D}``: a bound on the total degree of the root's numerator in the symbols and jets.
    """

    def __init__(self, order, radicals, radicands, need_i, degree):
        self.order = order
        self.radicals = radicals
        self.radicands = radicands
        self.need_i = need_i
        self.degree = degree


def plan(prog, roots, deadline=None) -> ModularPlan:
    """The plan for ``roots``, or :class:`NotModular` when a node is outside the stage's reach."""
    order = prog.reachable(roots)
    nodes = prog.nodes
    radicals, radicands, need_i = {}, set(), False
    deg = {}
    for count, i in enumerate(order):
        if count % CHECK_EVERY == CHECK_EVERY - 1:
            check_deadline(deadline, CHECK_EVERY)
        op, data, args = nodes[i]
        if op == NUM:
            deg[i] = (0, 0)
        elif op == SYM:
            s = prog.exprs[i]
            if s.is_imaginary or (s.is_complex and s.is_real is not True):
                need_i = True  # an imaginary or complex symbol is drawn as a + b i
            deg[i] = (1, 0)
        elif op == JET:
            deg[i] = (1, 0)  # a jet value is a fresh variable whatever its arguments
        elif op == CONST:
            if prog.exprs[i] is not sympy.I:
                raise NotModular(f"the constant {prog.exprs[i]} is transcendental")
            need_i = True
            deg[i] = (0, 0)
        elif op == ADD:
            dd = sum(deg[a][1] for a in args)
            dn = max(deg[a][0] + dd - deg[a][1] for a in args)
            deg[i] = (dn, dd)
        elif op == MUL:
            deg[i] = (sum(deg[a][0] for a in args), sum(deg[a][1] for a in args))
        elif op == POWI:
            n, (bn, bd) = data, deg[args[0]]
            deg[i] = (n * bn, n * bd) if n >= 0 else (-n * bd, -n * bn)
        elif op == POWR and data[1] == 2 and nodes[args[0]][0] == NUM:
            p, q = _ratio(nodes[args[0]][1])
            sign = -1 if p < 0 else 1
            split = _squarefree_primes(abs(p) * q)
            if split is None:
                raise NotModular(f"the constant under sqrt in {prog.exprs[i]} is too large to factor")
            m, primes = split
            radicals[i] = (sign, m, q, tuple(primes))
            radicands.update(primes)
            need_i = need_i or sign < 0
            deg[i] = (0, 0)
        else:
            raise NotModular(f"{prog.exprs[i]} is not a rational operation")
    if len(radicands) > MAX_RADICAL_PRIMES:
        raise NotModular(f"square roots of {len(radicands)} distinct primes")
    return ModularPlan(order, radicals, tuple(sorted(radicands)), need_i, {r: deg[r][0] for r in roots})


def _ratio(data):
    return data if isinstance(data[0], int) and len(data) == 2 else mpf_tuple_ratio(data)


def _residue(fr: Fraction, P: int) -> int:
    d = fr.denominator % P
    if d == 0:
        raise BadResidue("a denominator divisible by the prime")
    return fr.numerator * pow(d, -1, P) % P


class ModularEvaluator:
    """Evaluates a plan modulo one prime at one point."""

    def __init__(self, prog, plan_: ModularPlan, P: int, roots_of: dict, jet_value, deadline=None):
        self.prog = prog
        self.plan = plan_
        self.P = P
        self.roots_of = roots_of
        self.jet_value = jet_value  # (name, index, residue args) -> Fraction
        self.deadline = deadline

    def run(self, symvals: dict) -> dict:
        """``symvals``: {symbol node: (re, im) Fractions}; returns {node: residue}."""
        P = self.P
        nodes = self.prog.nodes
        vals = {}
        i_res = self.roots_of.get(-1)
        for count, i in enumerate(self.plan.order):
            if count % CHECK_EVERY == CHECK_EVERY - 1:
                check_deadline(self.deadline, CHECK_EVERY)
            op, data, args = nodes[i]
            if op == ADD:
                v = 0
                for a in args:
                    v += vals[a]
                v %= P
            elif op == MUL:
                v = 1
                for a in args:
                    v = v * vals[a] % P
            elif op == POWI:
                b = vals[args[0]]
                if b == 0 and data < 0:
                    raise BadResidue("a division by zero")
                v = pow(b, data, P)
            elif op == NUM:
                p, q = _ratio(data)
                v = _residue(Fraction(p, q), P)
            elif op == SYM:
                re, im = symvals[i]
                v = _residue(re, P)
                if im:
                    v = (v + _residue(im, P) * i_res) % P
            elif op == JET:
                name, index, _ = data
                v = _residue(self.jet_value((name, index, tuple(vals[a] for a in args))), P)
            elif op == CONST:
                v = i_res
            else:  # POWR: sqrt of a constant
                sign, m, q, primes = self.plan.radicals[i]
                r = m * pow(q, -1, P) % P
                for p_ in primes:
                    r = r * self.roots_of[p_] % P
                if sign < 0:
                    r = r * i_res % P
                v = pow(r, data[0], P)
            vals[i] = v
        return vals


def exact_value(prog, order, root, symvals, jet_value_of_args, max_bits=20_000):
    """The exact rational value of ``root`` at a rational point, or None when it grows too large.

    Only for rational plans without radicals or ``i``; ``jet_value_of_args(name, index,
    args)`` receives the exact Fraction arguments.
    """
    nodes = prog.nodes
    vals = {}
    for i in order:
        op, data, args = nodes[i]
        if op == ADD:
            v = sum((vals[a] for a in args), Fraction(0))
        elif op == MUL:
            v = Fraction(1)
            for a in args:
                v *= vals[a]
        elif op == POWI:
            b = vals[args[0]]
            if b == 0 and data < 0:
                return None
            v = b ** data
        elif op == NUM:
            v = Fraction(*_ratio(data))
        elif op == SYM:
            re, im = symvals[i]
            if im:
                return None
            v = re
        elif op == JET:
            name, index, _ = data
            v = jet_value_of_args(name, index, tuple(vals[a] for a in args))
        else:
            return None
        if v.numerator.bit_length() + v.denominator.bit_length() > max_bits:
            return None
        vals[i] = v
    return vals[root]
