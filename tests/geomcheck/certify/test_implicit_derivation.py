"""The derivation of a certificate about an implicit map, in the user's notation (issue
"Certificates for the user's own paper"): the implicit function theorem over one
denominator, det(dF/du), and every typeset statement backed by the computation.

The implicit midpoint rule on a generic H used to typeset as a nested quotient three screens
wide that divided by H_qq (the pivot sparse elimination chose), a quantity whose zeros are no
singularity of the rule.  These tests hold each line of the new derivation to what was
computed.
"""

import re

import pytest
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.certify.implicit_tex import ImplicitTypesetting
from geomcheck.errors import ImplicitMapError
from geomcheck.latex import compile_pdf, document, math_width
from geomcheck.linalg import SingularSystem, solve_by_determinant
from geomcheck.zero import canonical_jets

h = sympy.Symbol("h")
H = sympy.Function("H")


def _midpoint():
    """The implicit midpoint rule on a generic H(q, p), written by hand with Q, P."""
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P = sympy.symbols("Q P")
    z = {q: (q + Q) / 2, p: (p + P) / 2}
    phi = gc.ImplicitMap(M, M, [Q - q - h * gc.substitute(H(q, p).diff(p), z),
                                P - p + h * gc.substitute(H(q, p).diff(q), z)], new=[Q, P])
    return M, phi


@pytest.fixture(scope="module")
def catalog_midpoint():
    system = ig.example_system("generic-nonseparable")
    scheme = ig.scheme("implicit-midpoint")
    phi = scheme.step_map(system)
    return system, phi, scheme.certify(system, ["symplectic"])["symplectic"]


# ------------------------------------------------------------------ one denominator: det(dF/du)


def test_the_derivatives_of_the_midpoint_rule_divide_by_det_A_only():
    M, phi = _midpoint()
    Q, P = phi.new
    F = sympy.Matrix([canonical_jets(e) for e in phi.canonical_equations])
    A = F.jacobian([Q, P])
    C = -F.jacobian(list(M.coords))
    cramer = phi.implicit_function_data.cramer
    delta = cramer.determinant
    assert sympy.expand(delta - A.det()) == 0                          # Delta = det A
    reference = A.LUsolve(C)                                           # du/dx by plain sympy
    hqq = next(j for j in delta.atoms(gc.zero.Jet) if j.jet_index == (2, 0))
    for k, u in enumerate((Q, P)):
        for j in range(2):
            v = canonical_jets(phi.dependence.derivatives[u][j])
            assert sympy.cancel(v - reference[k, j]) == 0
            # a numerator over Delta: no other denominator, in particular not H_qq
            assert sympy.expand(v * delta - cramer.numerators[j][k]) == 0
            assert sympy.cancel(sympy.fraction(sympy.together(v))[1] / delta).is_number
            assert not v.xreplace({hqq: 0}).has(sympy.zoo, sympy.nan)


def test_solve_by_determinant_eliminates_constant_pivots_and_refuses_singular_systems():
    x, y = sympy.symbols("x y")
    rows = [{0: 1, 1: x}, {0: y, 1: 1, 2: x}, {2: 2}]
    s = solve_by_determinant(rows, [[1, 0, 1]], 3)
    A = sympy.Matrix([[1, x, 0], [y, 1, x], [0, 0, 2]])
    assert sympy.expand(s.determinant - A.det()) == 0
    assert s.eliminated == (0, 2) and s.block == (1,)
    sol = A.LUsolve(sympy.Matrix([1, 0, 1]))
    assert all(sympy.cancel(a - b) == 0 for a, b in zip(s.solutions()[0], sol))
    with pytest.raises(SingularSystem):
        solve_by_determinant([{0: x, 1: x}, {0: 1, 1: 1}], [[1, 0]], 2)
    assert solve_by_determinant([{0: x, 1: 1}, {0: 1, 1: x}], [[1, 0]], 2, max_block=0) is None
    M = gc.Chart("q")
    (q,) = M.coords
    X, v = sympy.symbols("X v")
    with pytest.raises(ImplicitMapError, match="do not determine"):
        gc.ImplicitMap(M, M, [X + q * v - q, 2 * X + 2 * q * v - 2 * q], new=[X], auxiliary=[v])


# --------------------------------------------------------------------------------- the derivation


def test_the_midpoint_derivation_is_the_one_a_paper_shows(catalog_midpoint):
    cert = catalog_midpoint[2]
    tex = cert.latex()
    assert cert.holds is True
    assert len(tex) < 4000                                     # was a nested quotient three screens wide
    for shown in (r"\emph{Claim:} for every smooth $H$",
                  r"q' &= q + h k_{1,q}", r"k_{1,q} &= H_{p}", r"k_{1,p} &= - H_{q}",
                  r"z &= \left(q + \frac{h}{2} k_{1,q}, p + \frac{h}{2} k_{1,p}\right)",
                  r"S &= I - \frac{h}{2}\, M \\ C_S &= M",
                  r"M &= \begin{pmatrix}H_{qp} & H_{pp} \\ - H_{qq} & - H_{qp}\end{pmatrix}",
                  r"\Delta = \det A = \det S &= 1 + \frac{h^{2}}{4} \left(H_{qq} H_{pp} - H_{qp}^{2}\right)",
                  r"$\Delta = 1$ at $h = 0$",
                  r"N &= \Delta^{2}", r"R &= 0", r"\emph{Soundness:} a proof (exact arithmetic)"):
        assert shown in tex, shown
    # no internal names: jets, dummies, slot numbers
    assert not re.search(r"\\partial_\{|_\{(1|2|11|12|22)\}\(|Dummy|_k_|h~", tex)


def test_every_statement_of_the_midpoint_derivation_is_what_was_computed(catalog_midpoint):
    system, phi, _ = catalog_midpoint
    T = ImplicitTypesetting.of(phi)
    N, cramer = T.notation, T.cramer
    # the equations as shown (u = rest) are the map's equations
    for u, rest in N.solved.items():
        i = [k for k, e in enumerate(phi.canonical_equations) if u in N.symbolize(e).free_symbols and
             sympy.expand(N.symbolize(e) - (u - rest)) == 0]
        assert i, u
    # z is where the equations evaluate H, and H_{qp} is its mixed second derivative there
    jets = {j for e in phi.canonical_equations for j in e.atoms(gc.zero.Jet)}
    ((name, z),) = N.points
    assert name == "z" and all(j.args == z for j in jets)
    q, p = system.chart.coords
    k_q, k_p = phi.auxiliary
    assert [sympy.expand(a - b) for a, b in zip(z, (q + h / 2 * k_q, p + h / 2 * k_p))] == [0, 0]
    mixed = gc.zero.jet_function("H", (1, 1))(*z)
    assert N.names[N.symbolize(mixed)] == "H_{qp}"
    # eliminating q', p' leaves S dw/dx = C_S for w = (k_q, k_p): the derivatives computed satisfy it
    assert [phi.unknowns[i] for i in cramer.eliminated] == list(phi.new)
    assert [phi.unknowns[i] for i in cramer.block] == [k_q, k_p]
    Dw = sympy.Matrix([[canonical_jets(phi.dependence.derivatives[u].get(j, 0)) for j in range(2)] for u in (k_q, k_p)])
    assert (cramer.schur * Dw - cramer.schur_rhs).applyfunc(sympy.cancel) == sympy.zeros(2)
    # S = I - h/2 M and C_S = M
    S, C = cramer.schur, cramer.schur_rhs
    I2 = sympy.eye(2)
    assert all(sympy.expand(N.symbolize(S[i, j] - I2[i, j] + h / 2 * C[i, j])) == 0 for i in range(2) for j in range(2))
    # Delta = det A = det S, and Delta = 1 at h = 0
    A = sympy.Matrix([[phi.implicit_function_data.rows[i].get(k, 0) for k in range(4)] for i in range(4)])
    assert sympy.expand(A.det() - T.delta) == 0 and sympy.expand(S.det() - T.delta) == 0
    assert T.delta_at_zero() == 1
    # Delta times each derivative of the map is the numerator shown
    for k, u in enumerate(phi.unknowns):
        for j, v in phi.dependence.derivatives[u].items():
            assert sympy.expand(canonical_jets(v) * T.delta - cramer.numerators[j][k]) == 0
    # the pullback is N / Delta^2 with N = Delta^2 (expanded), and the residual's numerator is 0
    pulled = gc.pullback(system.omega, phi)
    (num, k), = [T.over_delta(c) for c in pulled.terms.values()]
    assert k == 2 and sympy.expand(num - T._delta_s ** 2) == 0
    (res, k), = [T.over_delta(c) for c in (pulled - system.omega).terms.values()]
    assert res == 0


def test_the_hand_written_midpoint_map_names_its_midpoint_and_the_cayley_form():
    M, phi = _midpoint()
    cert = gc.certify_symplectic(phi, M.d(M.coords[0]) ^ M.d(M.coords[1]))
    tex = cert.latex()
    assert cert.holds is True
    assert r"Q &= q + h H_{p}" in tex and r"P &= p - h H_{q}" in tex
    assert r"z &= \left(\frac{Q + q}{2}, \frac{P + p}{2}\right)" in tex
    assert r"A &= I - \frac{h}{2}\, M \\ C &= I + \frac{h}{2}\, M" in tex
    assert (r"D\varphi = \frac{\partial u}{\partial x} &= \left(I - \frac{h}{2}\, M\right)^{-1} "
            r"\left(I + \frac{h}{2}\, M\right)") in tex
    T = ImplicitTypesetting.of(phi)
    A = sympy.Matrix([[T.data.rows[i].get(k, 0) for k in range(2)] for i in range(2)])
    C = sympy.Matrix([[T.data.rhs[j][i] for j in range(2)] for i in range(2)])
    assert (A + C - 2 * sympy.eye(2)).applyfunc(sympy.expand) == sympy.zeros(2)   # A = I - cM, C = I + cM


def test_a_failing_implicit_map_shows_its_residual_factored():
    """The trapezoidal rule is not symplectic: phi^* omega = (1 + h^2 V''(q)/4) / Delta, and the
    residual's numerator Delta (-h^2/4) (V''(q') - V''(q)) is shown, factored through Delta."""
    from geomcheck.structures.del_forms import trapezoidal_map

    q, p = sympy.symbols("q p")
    phi = trapezoidal_map(p**2 / 2 + sympy.Function("V")(q), [q], [p], h)
    w = phi.source.d(q) ^ phi.source.d(p)
    cert = gc.certify_symplectic(phi, w)
    tex = cert.latex()
    assert cert.holds is False
    assert r"\Delta = \det A = \det S &= 1 + \frac{h^{2}}{4} {V''\left(q^{(n+1)}\right)}" in tex
    assert r"N &= \Delta\left(1 + \frac{h^{2}}{4} {V''\left(q\right)}\right)" in tex
    assert (r"N^{R} &= \Delta\left(- \frac{h^{2}}{4} \left({V''\left(q^{(n+1)}\right)} - {V''\left(q\right)}\right)"
            r"\right)") in tex
    T = ImplicitTypesetting.of(phi)
    (num, k), = [T.over_delta(c) for c in gc.pullback(w, phi).terms.values()]
    (res, k2), = [T.over_delta(c) for c in (gc.pullback(w, phi) - w).terms.values()]
    V2 = {T.notation.latex(j): T.notation.symbolize(j) for j in T.notation._placeholder}
    new, old = V2[r"{V''\left(q^{(n+1)}\right)}"], V2[r"{V''\left(q\right)}"]
    assert k == 2 and sympy.expand(num - T._delta_s * (1 + h**2 / 4 * old)) == 0
    assert k2 == 2 and sympy.expand(res + T._delta_s * h**2 / 4 * (new - old)) == 0


def test_numerators_that_vanish_only_on_the_solutions_are_reduced_by_the_equations():
    scheme = ig.scheme("contact-herglotz-1")
    system = ig.example_system("generic-contact-quadratic")
    cert = scheme.certify(system, ["contact"])["contact"]
    tex = cert.latex()
    assert cert.holds is True
    assert r"with $p_{j+1}$, $w_{x}$ replaced by what the equations give them, each expands to 0" in tex \
        or r"with $w_{x}$, $p_{j+1}$ replaced by what the equations give them, each expands to 0" in tex
    T = ImplicitTypesetting.of(scheme.step_map(system))
    assert T.constant_delta and r"\det A = -1" in tex
    for c in cert.residual.terms.values():
        num, k = T.over_delta(c)
        assert num != 0 and k == 0 and T.on_solutions(num)[0] == 0


@pytest.mark.needs_pdflatex
def test_the_midpoint_derivation_compiles_within_the_margins(catalog_midpoint, tmp_path):
    from geomcheck.report import overfull_widths

    cert = catalog_midpoint[2]
    _, mine = _midpoint()
    own = gc.certify_symplectic(mine, mine.source.d(mine.source.coords[0]) ^ mine.source.d(mine.source.coords[1]))
    log = tmp_path / "doc.log"
    compile_pdf(document(cert.latex() + own.latex()), tmp_path / "doc.pdf", log=log)
    assert max(overfull_widths(log.read_text(encoding="latin-1")), default=0.0) <= 20


# ----------------------------------------------------------------------------------- layout help


def test_a_matrix_is_as_wide_as_its_columns_and_sums_of_fractions_break():
    from geomcheck.latex import top_level_breaks as _top_level_breaks

    m = r"\begin{pmatrix}abcdef & x \\ y & abcdefgh\end{pmatrix}"
    assert math_width(m) == pytest.approx(6 + 8 + 2 + 2)
    line = r"1 + \frac{h^{2}}{4} V'' - \frac{h^{4}}{16} x^{2} + y"
    assert len(_top_level_breaks(line)) == 3
    assert _top_level_breaks(r"= - x") == [] and _top_level_breaks(r"e^{-x} + 1") == [7]


def test_a_numerator_and_determinant_without_symbols_are_typeset():
    # the trapezoidal variational map of the pendulum with explicit derivatives: some entries
    # of the derivation have a constant numerator over a constant determinant (sympy.Poly of
    # two numbers raised GeneratorsNeeded, a foreign exception, before)
    from geomcheck.structures.variational import variational_integrator

    q, v = sympy.symbols("q v")
    phi = variational_integrator(v**2 / 2 + sympy.cos(q), q, v, quadrature="trapezoidal", derivatives="auto").step_map
    M = phi.source
    c = gc.certify_symplectic(phi, M.d(M.coords[0]) ^ M.d(M.coords[1]))
    assert c.holds is True
    assert r"\varphi^*\omega = \omega" in c.derivation.latex()
