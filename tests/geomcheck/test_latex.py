"""LaTeX printing of every geomcheck object (geomcheck.latex)."""

import sympy as sp

import geomcheck as gc

M = gc.Chart("q1 q2 p1 p2")
q1, q2, p1, p2 = M.coords
N = gc.Chart("q p")
q, p = N.coords


def test_canonical_symplectic_form():
    w = (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2))
    assert gc.latex(w) == r"\mathrm{d}q_{1} \wedge \mathrm{d}p_{1} + \mathrm{d}q_{2} \wedge \mathrm{d}p_{2}"


def test_differentials_follow_chart_order_and_sign():
    # dp ^ dq is stored as -dq ^ dp
    assert gc.latex(N.d(p) ^ N.d(q)) == r"- \mathrm{d}q \wedge \mathrm{d}p"
    assert gc.latex(-N.d(q)) == r"- \mathrm{d}q"
    assert gc.latex(N.d(q) - N.d(p)) == r"\mathrm{d}q - \mathrm{d}p"


def test_coefficients_signs_and_parentheses():
    assert gc.latex(2 * q * N.d(p)) == r"2 q \, \mathrm{d}p"
    assert gc.latex(-2 * q * (N.d(q) ^ N.d(p))) == r"- 2 q \, \mathrm{d}q \wedge \mathrm{d}p"
    # a sum as a coefficient is parenthesised
    assert gc.latex((q + p) * N.d(q)) == r"\left(p + q\right) \, \mathrm{d}q"
    assert gc.latex(-(q + p) * N.d(q)) == r"- \left(p + q\right) \, \mathrm{d}q"
    assert gc.latex(sp.Rational(-1, 2) * (N.d(q) ^ N.d(p))) == r"- \frac{1}{2} \, \mathrm{d}q \wedge \mathrm{d}p"
    # mixed degrees: lowest degree first, function part without a differential
    assert gc.latex(3 + q * N.d(p)) == r"3 + q \, \mathrm{d}p"
    assert gc.latex(gc.Form(N, {})) == "0"


def test_greek_and_subscripted_coordinates():
    S = gc.Chart("x_1 theta")
    x1, th = S.coords
    assert gc.latex(S.d(x1) ^ S.d(th)) == r"\mathrm{d}x_{1} \wedge \mathrm{d}\theta"


def test_vector_fields():
    X = gc.VectorField(N, {q: p, p: -sp.sin(q)})
    assert gc.latex(X) == (
        r"p \, \frac{\partial}{\partial q} - \sin{\left(q \right)} \, \frac{\partial}{\partial p}"
    )
    Y = gc.VectorField(N, {q: -1, p: q + p})
    assert gc.latex(Y) == r"- \frac{\partial}{\partial q} + \left(p + q\right) \, \frac{\partial}{\partial p}"
    assert gc.latex(gc.VectorField(M, {p2: 1})) == r"\frac{\partial}{\partial p_{2}}"
    assert gc.latex(gc.VectorField(N, {})) == "0"


def test_graded_vector_fields_and_superfunctions():
    G = gc.Chart("x xi eta", degrees=[0, 1, 1])
    x, xi, eta = G.coords
    Q = gc.VectorField(G, {x: xi})
    out = gc.latex(Q)
    assert r"\xi" in out and r"\frac{\partial}{\partial x}" in out
    assert gc.latex(G.function(x * eta * xi)) == r"- x \, \xi \eta"


def test_maps_and_implicit_maps():
    h = sp.Symbol("h")
    phi = gc.Map(N, N, [q + h * p, p], parameters=[h])
    out = gc.latex(phi)
    assert out.startswith(r"\begin{aligned}") and out.endswith(r"\end{aligned}")
    assert r"q &\mapsto h p + q" in out
    assert r"p &\mapsto p" in out
    Qn, Pn = sp.symbols("Q P")
    psi = gc.ImplicitMap(N, N, [Qn - q - h * Pn, Pn - p + h * sp.sin(Qn)], new=[Qn, Pn], parameters=[h])
    out = gc.latex(psi)
    assert out.count("&= 0") == 2
    assert r"\sin{\left(Q \right)}" in out


def test_charts():
    assert gc.latex(M) == r"\left(q_{1}, q_{2}, p_{1}, p_{2}\right)"
    G = gc.Chart("x b xi", degrees=[0, 2, 1])
    assert gc.latex(G) == r"\left(x^{[0]}, b^{[2]}, \xi^{[1]}\right)"


def test_repr_latex_has_math_delimiters():
    w = N.d(q) ^ N.d(p)
    X = gc.VectorField(N, {q: 1})
    phi = gc.Map(N, N, [p, -q])
    G = gc.Chart("x xi", degrees=[0, 1])
    for obj in (w, X, phi, N, G.function(G.coords[1])):
        out = obj._repr_latex_()
        assert out.startswith("$") and out.endswith("$"), out
        assert out[1:-1] == gc.latex(obj)
        assert not out[1:-1].startswith("$")


def test_sympy_latex_uses_the_hooks():
    w = (N.d(q) ^ N.d(p))
    assert sp.latex(w) == gc.latex(w) == r"\mathrm{d}q \wedge \mathrm{d}p"
    X = gc.VectorField(N, {q: p})
    assert sp.latex(X) == gc.latex(X)
    assert sp.latex(N) == gc.latex(N)
    phi = gc.Map(N, N, [p, -q])
    assert sp.latex(phi) == gc.latex(phi)


def test_latex_of_plain_sympy_expressions():
    assert gc.latex(q**2) == "q^{2}"


def test_derivation_document():
    D = gc.Derivation("A title").add("A step", r"x &= 1").concluding("Done.")
    frag = D.latex()
    assert r"\paragraph{A title}" in frag
    assert r"\begin{align*}x &= 1\end{align*}" in frag
    assert frag.index("A step") < frag.index("Done.")
    doc = D.document()
    assert doc.startswith(r"\documentclass")
    assert r"\begin{document}" in doc and doc.rstrip().endswith(r"\end{document}")
    assert frag in doc


# --------------------------------------------------------------------------- compile_pdf

import pytest

from geomcheck.errors import LatexCompileError
from geomcheck.latex import compile_pdf


@pytest.mark.needs_pdflatex
def test_compile_pdf_writes_a_pdf_of_a_certificate(tmp_path):
    import sympy

    M = gc.Chart("q p")
    q, p = M.coords
    h = sympy.Symbol("h")
    c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p]), M.d(q) ^ M.d(p))
    out = compile_pdf(c.document(), tmp_path / "sub" / "c.pdf")
    assert out.read_bytes().startswith(b"%PDF")
    assert sorted(x.name for x in out.parent.iterdir()) == ["c.pdf"]


@pytest.mark.needs_pdflatex
def test_compile_pdf_failure_quotes_the_error_and_writes_nothing(tmp_path):
    source = "\\documentclass{article}\n\\begin{document}\n$\\frac{1}$ \\undefinedmacro\n\\end{document}\n"
    with pytest.raises(LatexCompileError, match="Undefined control sequence|Missing|!"):
        compile_pdf(source, tmp_path / "bad.pdf")
    assert list(tmp_path.iterdir()) == []


def _count_pdflatex_passes(monkeypatch):
    import subprocess

    calls = []
    real = subprocess.run

    def counting(cmd, *args, **kwargs):
        if cmd and str(cmd[0]).endswith("pdflatex"):
            calls.append(cmd)
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting)
    return calls


REFERENCES = (r"\documentclass{article}\begin{document}\section{A}\label{a}See section \ref{a} and page"
              r" \pageref{b}.\newpage\section{B}\label{b}x\end{document}")
CONTENTS = r"\documentclass{article}\begin{document}\tableofcontents\section{A}x\newpage\section{B}y\end{document}"


@pytest.mark.needs_pdflatex
@pytest.mark.parametrize("source, passes, expected", [
    # a certificate's derivation: nothing a second pass would read
    (None, 2, 1),
    # references resolved by the second pass; the third would read what the second read
    (REFERENCES, 3, 2),
    (CONTENTS, 3, 2),
    # the most passes asked for is never exceeded
    (REFERENCES, 1, 1),
])
def test_compile_pdf_runs_pdflatex_until_the_document_is_stable(tmp_path, monkeypatch, source, passes, expected):
    if source is None:
        M = gc.Chart("q p")
        q, p = M.coords
        source = gc.certify_symplectic(gc.Map(M, M, [q + p, p]), M.d(q) ^ M.d(p)).document()
    calls = _count_pdflatex_passes(monkeypatch)
    log = tmp_path / "doc.log"
    compile_pdf(source, tmp_path / "doc.pdf", passes=passes, log=log)
    assert len(calls) == expected
    text = log.read_text(encoding="latin-1")
    if passes >= 2:     # stable: no reference left undefined, nothing asks for a rerun
        assert "undefined" not in text and "Rerun" not in text


def test_compile_pdf_refuses_a_fragment(tmp_path):
    with pytest.raises(LatexCompileError, match="whole LaTeX document"):
        compile_pdf(r"\paragraph{x}", tmp_path / "x.pdf")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- expression_size

from geomcheck.errors import InvalidArgumentError
from geomcheck.latex import expression_size

_x, _y, _z = sp.symbols("x y z")
_F = sp.Function("F")


def _shared_tower(levels):
    """A tree of about 2**(levels+1) nodes whose DAG has 3 nodes per level."""
    e = _x
    for _ in range(levels):
        e = sp.sin(e) + sp.cos(e)
    return e


@pytest.mark.parametrize("e", [
    _x, sp.Integer(3), _x + 2 * _y, sp.sin(_x * _y) ** 2 + sp.cos(_x * _y) ** 2,
    _F(_x, _y).diff(_x) + sp.Subs(_F(_z, _y).diff(_z), _z, _x + _y),
    (_x + _y) ** 3 * (_x + _y) ** 2 * sp.exp(_x + _y), _shared_tower(6),
])
def test_expression_size_is_the_tree_size_sympy_traverses(e):
    n = len(list(sp.preorder_traversal(e)))
    assert expression_size(e) == n
    for limit in (0, 1, n - 1, n, n + 5):
        assert expression_size(e, limit) == min(n, limit + 1)
    distinct = len({id(node) for node in sp.preorder_traversal(e)})
    assert expression_size(e, distinct=True) == distinct


def test_expression_size_adds_up_collections_and_matrices():
    exprs = [_x + _y, _x * _z, sp.Integer(2)]
    total = sum(len(list(sp.preorder_traversal(e))) for e in exprs)
    assert expression_size(exprs) == total
    assert expression_size({"a": exprs[0], "b": exprs[1], "c": exprs[2]}) == total
    assert expression_size(sp.Matrix([[_x + _y, _x * _z], [2, 0]])) == total + 1
    assert expression_size(7) == 1


def test_expression_size_stops_past_the_limit():
    # a tree of about 2**61 nodes on a DAG of 181: counted through the DAG, stopped at the limit
    tower = _shared_tower(60)
    # the DAG's nodes by identity, walked here (sympy's cache decides how much of the tower is shared:
    # 181 nodes when every level reuses the one below, more when an evicted entry was rebuilt)
    nodes, stack = {}, [tower]
    while stack:
        node = stack.pop()
        if id(node) not in nodes:
            nodes[id(node)] = node
            stack.extend(node.args)
    # sizes compared as plain ints: a failing assert must not print the 2**61-node tree
    capped, distinct = expression_size(tower, 10**6), expression_size(tower, distinct=True)
    assert capped == 10**6 + 1
    assert distinct == len(nodes) and 181 <= distinct <= 3 * 181
    # a sum of 5000 leaves: the leaves looked at are about as many as the limit, not 5000
    seen = []

    class Leaf(sp.Symbol):
        @property
        def args(self):
            seen.append(self)
            return ()

    wide = sp.Add(*[Leaf(f"w{i}") for i in range(5000)])
    seen.clear()
    assert expression_size(wide, 10) == 11
    assert 0 < len(seen) <= 11


def test_expression_size_of_a_deep_expression_needs_no_recursion():
    e = _x
    for _ in range(3000):
        e = _F(e)
    assert expression_size(e) == 3001


@pytest.mark.parametrize("bad", [-1, 2.5, "10", True])
def test_expression_size_refuses_a_bad_limit(bad):
    with pytest.raises(InvalidArgumentError, match="limit"):
        expression_size(_x, bad)


def test_typesetting_and_size_decisions_never_call_count_ops(monkeypatch):
    # count_ops walks the whole tree: on a composition of steps it took 95% of a certificate
    def forbidden(*args, **kwargs):
        raise AssertionError("sympy.count_ops called")

    monkeypatch.setattr(sp, "count_ops", forbidden)
    M = gc.Chart("q p")
    q, p = M.coords
    h = sp.Symbol("h")
    V = sp.Function("V")
    ph = p - h / 2 * V(q).diff(q)
    Q = q + h * ph
    verlet = gc.Map(M, M, [Q, ph - h / 2 * gc.substitute(V(q).diff(q), {q: Q})])
    X = gc.VectorField(M, {q: p, p: -V(q).diff(q)})
    assert gc.certify_order(verlet, X, h, 2).holds is True
    assert gc.certify_symplectic(verlet, M.d(q) ^ M.d(p)).holds is True
    from geomcheck.linalg import solve_sparse

    (sol,) = solve_sparse([{0: q + p, 1: sp.Integer(1)}, {0: sp.sin(q), 1: p}], [[1, 0]], 2)
    assert sp.simplify((q + p) * sol[0] + sol[1] - 1) == 0
    from geomcheck.latex import summarize

    assert "nodes" in summarize(_shared_tower(30))


def test_geomcheck_latex_is_the_module_and_callable():
    import sympy

    import geomcheck as gc
    import geomcheck.latex as L

    x = sympy.Symbol("x")
    assert L is gc.latex and hasattr(L, "fit_to_width") and hasattr(L, "Derivation")
    assert gc.latex(x**2) == L(x**2) == L.latex(x**2) == "x^{2}"


def test_fit_to_width_breaks_sums_names_wide_terms_and_keeps_narrow_lines():
    import sympy

    from geomcheck.latex import LINE_CHARS, fit_to_width, latex, math_width

    x, y = sympy.symbols("x y")
    narrow = r"\begin{align*}R &= x + 1\end{align*}"
    assert fit_to_width(narrow) == narrow
    wide_sum = r"\begin{align*}R &= " + latex(sum(x**k * y for k in range(80))) + r"\end{align*}"
    fitted = fit_to_width(wide_sum)
    rows = fitted[len(r"\begin{align*}"):-len(r"\end{align*}")].split(r"\\")
    assert len(rows) > 3 and rows[0].startswith("R &=") and all(math_width(r) <= LINE_CHARS for r in rows)
    assert "too wide" not in fitted       # a sum of short terms is broken, nothing is dropped
    nested = x
    for k in range(40):
        nested = 1 / (1 + nested * (k + y))
    one_term = r"\begin{align*}R &= " + latex(nested) + r"\end{align*}"
    assert math_width(one_term) > LINE_CHARS
    assert "too wide: " in fit_to_width(one_term)
    inline = "where $" + latex(sum(x**k for k in range(90))) + "$ holds"
    assert "too wide: " in fit_to_width(inline) and fit_to_width("where $x$ holds") == \
        "where $x$ holds"
    medium = "where $" + latex(sum(x**k for k in range(9))) + "$ holds"
    assert fit_to_width(medium).startswith(r"where \[") and "too wide" not in fit_to_width(medium)
    heading = r"\paragraph{The map $" + latex(sum(x**k for k in range(9))) + "$}"
    assert fit_to_width(heading) == heading


@pytest.mark.needs_pdflatex
def test_fit_to_width_keeps_nested_alignments_balanced_and_within_the_margins(tmp_path):
    import sympy

    from geomcheck.latex import compile_pdf, fit_to_width, latex
    from geomcheck.report import overfull_widths
    from geomcheck.report_tex import PREAMBLE

    q, p, h = sympy.symbols("q p h")
    V = sympy.Function("V")
    wide = q
    for _ in range(6):
        wide = h * (p - h / 2 * sympy.Subs(V(q).diff(q), q, wide) * sympy.exp(-h * wide / 2)) + q
    # a map's components (aligned inside align*), one of them far too wide; rows ending in "&= 0"
    maps = r"\begin{align*}\begin{aligned}q &\mapsto " + latex(wide) + r" \\ t &\mapsto t + h\end{aligned}\end{align*}"
    eqs = r"\begin{align*}\begin{aligned}" + latex(sympy.expand(wide**2)) + r" &= 0 \\ p - q &= 0\end{aligned}\end{align*}"
    fitted = fit_to_width(maps + "\n" + eqs)
    assert fitted.count(r"\begin{aligned}") == fitted.count(r"\end{aligned}") == 2
    log = tmp_path / "doc.log"
    compile_pdf(PREAMBLE + "\\begin{document}\n" + fitted + "\n\\end{document}\n", tmp_path / "doc.pdf", log=log)
    assert max(overfull_widths(log.read_text(encoding="latin-1")), default=0.0) <= 20


def test_summarize_and_in_lines_read_forms_and_fields_through_their_hooks():
    from geomcheck.latex import in_lines, summarize

    big = sum(q**k for k in range(200))
    w = big * N.d(q) + N.d(p)
    assert summarize(w) == r"\text{(a form with 2 components, more than 300 nodes)}"
    assert summarize(q * N.d(p)) == gc.latex(q * N.d(p))
    X = gc.VectorField(N, {q: big, p: 1})
    assert summarize(X) == r"\text{(a vector field with 2 components, more than 300 nodes)}"
    Y = gc.VectorField(N, {q: p, p: -q})
    assert in_lines(Y, per_line=1) == r"p \, \frac{\partial}{\partial q} \\ &\quad - q \, \frac{\partial}{\partial p}"
    # a graded component is no scalar coefficient: the field is printed whole
    G = gc.Chart("x xi", degrees=[0, 1])
    x, xi = G.coords
    Q = gc.VectorField(G, {x: xi, xi: x * xi})
    assert in_lines(Q, per_line=1) == gc.latex(Q)


def test_latex_prints_any_object_with_the_printing_hooks():
    """latex.py imports no class it prints: an object of a class it has never seen prints
    through the same hooks as a Form."""
    from geomcheck.latex import in_lines, summarize

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def _latex(self, printer=None):
            return "pair"

        def _latex_coefficients(self):
            return "pair", [self.a, self.b]

        def _latex_terms(self):
            return [(self.a, "e_1"), (self.b, "e_2")]

    assert gc.latex(Pair(q, p)) == "pair"
    assert in_lines(Pair(q, -p)) == r"q \, e_1 - p \, e_2"
    assert summarize(Pair(q, p)) == "pair"
    assert summarize(Pair(q, sum(q**k for k in range(200)))) == (
        r"\text{(a pair with 2 components, more than 300 nodes)}")
