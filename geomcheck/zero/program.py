"""The expression DAG as a flat program: every distinct subexpression once, children first."""

from __future__ import annotations

import hashlib

import sympy
from sympy.core.function import AppliedUndef, Derivative, Function, Subs

from ..errors import ExpressionError
from ..jets import Jet, jet_label
from .budget import CHECK_EVERY, check_deadline
from .jets import to_jets

NEG = -(10**9)  # the "magnitude" of an exact zero

NUM, SYM, ADD, MUL, POWI, POWR, POWG, FN, JET, CONST, FALLBACK, OPAQUE, PIECEWISE = range(13)

RELATIONS = {
    sympy.StrictLessThan: lambda a, b: a < b,
    sympy.LessThan: lambda a, b: a <= b,
    sympy.StrictGreaterThan: lambda a, b: a > b,
    sympy.GreaterThan: lambda a, b: a >= b,
    sympy.Equality: lambda a, b: a == b,
    sympy.Unequality: lambda a, b: a != b,
}


def piecewise_parts(e):
    """``[(expr, cond_kind, lhs, rhs)]`` of a Piecewise whose conditions are simple
    comparisons of expressions (or True), else None."""
    parts = []
    for expr, cond in e.args:
        if cond is sympy.true:
            parts.append((expr, None, None, None))
        elif type(cond) in RELATIONS and all(isinstance(a, sympy.Expr) for a in cond.args):
            parts.append((expr, type(cond), cond.lhs, cond.rhs))
        else:
            return None
    return parts


def symbol_key(s):
    """A sortable, process-independent identity of a symbol (name, dummy index, assumptions)."""
    name = getattr(s, "name", None)
    key = (type(s).__name__, name if isinstance(name, str) else str(s))
    if isinstance(s, sympy.Dummy):
        key += (s.dummy_index,)
    assumptions = getattr(s, "assumptions0", {})
    return key + (tuple(sorted((k, v) for k, v in assumptions.items() if v is not None)),)


def _py_max(ctx, *a):
    return max(a)


def _py_min(ctx, *a):
    return min(a)


def _mp(name):
    return lambda ctx, *a: getattr(ctx, name)(*a)


FUNCTIONS = {
    sympy.exp: _mp("exp"), sympy.log: _mp("log"),
    sympy.sin: _mp("sin"), sympy.cos: _mp("cos"), sympy.tan: _mp("tan"), sympy.cot: _mp("cot"),
    sympy.sec: _mp("sec"), sympy.csc: _mp("csc"),
    sympy.asin: _mp("asin"), sympy.acos: _mp("acos"), sympy.atan: _mp("atan"), sympy.acot: _mp("acot"),
    sympy.asec: _mp("asec"), sympy.acsc: _mp("acsc"),
    sympy.sinh: _mp("sinh"), sympy.cosh: _mp("cosh"), sympy.tanh: _mp("tanh"), sympy.coth: _mp("coth"),
    sympy.sech: _mp("sech"), sympy.csch: _mp("csch"),
    sympy.asinh: _mp("asinh"), sympy.acosh: _mp("acosh"), sympy.atanh: _mp("atanh"), sympy.acoth: _mp("acoth"),
    sympy.atan2: _mp("atan2"), sympy.sinc: _mp("sinc"),
    sympy.Abs: lambda ctx, x: abs(x), sympy.sign: _mp("sign"),
    sympy.re: _mp("re"), sympy.im: _mp("im"), sympy.conjugate: _mp("conj"),
    sympy.erf: _mp("erf"), sympy.erfc: _mp("erfc"), sympy.gamma: _mp("gamma"),
    sympy.loggamma: _mp("loggamma"), sympy.factorial: _mp("factorial"),
    sympy.floor: _mp("floor"), sympy.ceiling: _mp("ceil"),
    sympy.Max: _py_max, sympy.Min: _py_min,
}

CONSTANTS = {
    sympy.pi: lambda ctx: +ctx.pi,
    sympy.E: lambda ctx: +ctx.e,
    sympy.I: lambda ctx: ctx.mpc(0, 1),
    sympy.EulerGamma: lambda ctx: +ctx.euler,
    sympy.Catalan: lambda ctx: +ctx.catalan,
    sympy.GoldenRatio: lambda ctx: +ctx.phi,
}

SPECIAL = (AppliedUndef, Derivative, Subs)

NONFINITE = (sympy.S.NaN, sympy.S.ComplexInfinity, sympy.S.Infinity, sympy.S.NegativeInfinity)


def mpf_tuple_ratio(mpf_tuple):
    sign, man, exp, bc = mpf_tuple
    if not man:
        return 0, 1
    p = -man if sign else man
    if exp >= 0:
        return p << exp, 1
    return p, 1 << (-exp)


class Program:
    """A DAG of sympy nodes flattened in post-order (children before parents).

    ``nodes[i] = (op, data, args)`` with ``args`` indices of earlier nodes.  One program
    holds all entries of a :func:`decide_all_zero` call, so common subexpressions are
    compiled, expanded and evaluated once.
    """

    def __init__(self):
        self.nodes = []
        self.exprs = []
        self.index = {}
        self.symbols = {}  # Symbol -> node index
        self.complex_constant = False
        self.has_float = False
        self.digests = []  # per node: a hash of its structure (seeds the random points)
        self._consts = {}
        self.jet_memo = {}  # shared by every conversion to jets of this program
        self.deadline = None  # checked by long walks over the program
        self._keep = []  # nodes keyed by identity stay alive as long as the program

    def __len__(self):
        return len(self.nodes)

    @staticmethod
    def _key(e):
        # Undefined functions, Derivative and Subs are compiled through their jet form
        # and keyed by identity: Subs compares through an xreplace of its whole body.
        return ("id", id(e)) if isinstance(e, SPECIAL) else e

    def add(self, expr, deadline=None):
        """Compile ``expr`` (rewriting undefined functions as jets); its node index."""
        index = self.index
        key = self._key
        k0 = key(expr)
        hit = index.get(k0)
        if hit is not None:
            return hit
        stack = [(expr, 0, None)]
        count = 0
        while stack:
            e, state, conv = stack.pop()
            k = key(e)
            if k in index:
                continue
            count += 1
            if count % CHECK_EVERY == 0:
                check_deadline(deadline, CHECK_EVERY)
            if state == 0:
                if isinstance(e, SPECIAL):
                    conv = to_jets(e, self.jet_memo, deadline)
                    if conv is not e:
                        self._keep.append(e)
                        stack.append((e, 2, conv))
                        if key(conv) not in index:
                            stack.append((conv, 0, None))
                        continue
                stack.append((e, 1, None))
                for c in reversed(self._children(e)):
                    if key(c) not in index:
                        stack.append((c, 0, None))
            elif state == 1:
                index[k] = self._emit(e)
            else:
                index[k] = index[key(conv)]
        return index[k0]

    @staticmethod
    def _children(e):
        if isinstance(e, (sympy.Add, sympy.Mul)):
            return e.args
        if isinstance(e, sympy.Pow):
            if isinstance(e.exp, sympy.Rational):
                return (e.base,)
            return e.args
        if isinstance(e, Jet):
            return e.args
        if isinstance(e, sympy.Piecewise):
            parts = piecewise_parts(e)
            if parts is None:
                return ()
            return tuple(a for expr, kind, lhs, rhs in parts for a in ((expr,) if kind is None else (expr, lhs, rhs)))
        if isinstance(e, (Function, sympy.Max, sympy.Min)) and all(isinstance(a, sympy.Expr) for a in e.args):
            return e.args
        return ()

    def _emit(self, e):
        i = len(self.nodes)
        index = self.index
        key = self._key

        if isinstance(e, sympy.Rational):
            node = (NUM, (int(e.p), int(e.q)), ())
        elif isinstance(e, sympy.Float):
            node = (NUM, e._mpf_, ())
            self.has_float = True
        elif isinstance(e, sympy.Symbol) or (
            isinstance(e, sympy.Indexed) and all(isinstance(k, sympy.Integer) for k in e.indices)
        ):
            # u[3] of a semi-discretized PDE is a coordinate like any symbol
            if e.is_commutative is False:
                raise ExpressionError(f"the symbol {e} is noncommutative; zero testing takes commutative expressions")
            node = (SYM, e, ())
            self.symbols[e] = i
        elif e in CONSTANTS:
            node = (CONST, e, ())
            if e is sympy.I:
                self.complex_constant = True
        elif isinstance(e, sympy.Add):
            node = (ADD, None, tuple(index[key(a)] for a in e.args))
        elif isinstance(e, sympy.Mul):
            node = (MUL, None, tuple(index[key(a)] for a in e.args))
        elif isinstance(e, sympy.Pow):
            b, x = e.args
            if isinstance(x, sympy.Integer):
                node = (POWI, int(x), (index[key(b)],))
            elif isinstance(x, sympy.Rational):
                node = (POWR, (int(x.p), int(x.q)), (index[key(b)],))
            else:
                node = (POWG, None, (index[key(b)], index[key(x)]))
        elif isinstance(e, Jet):
            node = (JET, (e.jet_name, e.jet_index, jet_label(e)), tuple(index[key(a)] for a in e.args))
        elif any(e is c or e == c for c in NONFINITE):
            raise ExpressionError(f"the expression contains {e}, so it is not a finite function")
        elif isinstance(e, sympy.Piecewise) and piecewise_parts(e) is not None:
            # the branch whose condition holds first at the point; non-analytic
            pieces = tuple(
                (index[key(expr)], kind, None if kind is None else index[key(lhs)],
                 None if kind is None else index[key(rhs)])
                for expr, kind, lhs, rhs in piecewise_parts(e)
            )
            args = tuple(sorted({a for piece in pieces for a in (piece[0], piece[2], piece[3]) if a is not None}))
            node = (PIECEWISE, pieces, args)
        elif type(e) in FUNCTIONS and all(key(a) in index for a in e.args):
            node = (FN, type(e), tuple(index[key(a)] for a in e.args))
        elif isinstance(e, Function) and e.args and all(key(a) in index for a in e.args):
            node = (FALLBACK, e.func, tuple(index[key(a)] for a in e.args))
        elif isinstance(e, sympy.NumberSymbol):
            node = (FALLBACK, e, ())
        else:
            node = (OPAQUE, e, ())
        self.nodes.append(node)
        self.exprs.append(e)
        self.digests.append(self._digest(node, e))
        return i

    def _digest(self, node, e):
        """A hash of the node's structure that is the same in every run (sympy's own hashes
        are salted per process): the seed of the random points is derived from it."""
        op, data, args = node
        if op == SYM:
            label = symbol_key(e)[:2] + symbol_key(e)[-1:]  # not the dummy index: it depends on the process
        elif op == FN or op == FALLBACK:
            label = getattr(data, "__name__", str(data))
        elif op == PIECEWISE:
            label = tuple((k.__name__ if k is not None else None) for _, k, _, _ in data)
        elif op == OPAQUE:
            label = sympy.srepr(e)[:200]
        else:
            label = data
        h = hashlib.blake2b(repr((op, label)).encode(), digest_size=16)
        for a in args:
            h.update(self.digests[a])
        return h.digest()

    def digest(self, roots, *extra) -> int:
        """A reproducible integer hash of the DAG below ``roots`` (and of ``extra``)."""
        h = hashlib.blake2b(repr(extra).encode(), digest_size=16)
        for r in roots:
            h.update(self.digests[r])
        return int.from_bytes(h.digest(), "big")

    def reachable(self, roots, skip=None):
        """Sorted indices of the nodes the ``roots`` depend on (a valid evaluation order)."""
        seen = set() if skip is None else set(skip)
        stack = [r for r in roots if r not in seen]
        nodes = self.nodes
        out = []
        while stack:
            if len(out) % 4096 == 4095:
                check_deadline(self.deadline, 4096)
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            out.append(i)
            stack.extend(a for a in nodes[i][2] if a not in seen)
        out.sort()
        return out

    def constants(self, ctx):
        key = ctx.dps
        table = self._consts.get(key)
        if table is None:
            table = self._consts[key] = {}
        return table


