"""identity_conditions: the one coefficient-equation solver of the pH ansatz and the structure search.

The truth of each case is established here by hand (coefficients read off the residual, or an
identity checked by sympy) or by a second, specialised input whose answer is known.
"""

import pytest
import sympy

from geomcheck.errors import PortHamiltonianError
from geomcheck.structures.port_hamiltonian_ansatz import identity_conditions, port_hamiltonian_forms
from geomcheck.structures.port_hamiltonian_search import find_dirac_structure
from geomcheck.zero import canonical_jets

q, p, a, b, c = sympy.symbols("q p a b c")
V, W = sympy.Function("V"), sympy.Function("W")


def test_coefficients_of_a_polynomial_residual_in_the_state():
    # (a - 1) q^2 + b q p + c - 2: the coefficients of q^2, q p, 1 (sympy's lex order of the monomials)
    conds, exact = identity_conditions([(a - 1) * q**2 + b * q * p + c - 2], [q, p])
    assert conds == [a - 1, b, c - 2] and exact is True
    # the coefficients are left as sympy gives them (not expanded: the ansatz reports them as they come)
    conds, _ = identity_conditions([(a + 1) * (a - 1) * q], [q])
    assert [sympy.expand(e) for e in conds] == [a**2 - 1]
    # zero residuals give no equation; residuals are taken one after the other
    assert identity_conditions([sympy.S.Zero, q * b, a], [q]) == ([b, a], True)


def test_jets_are_independent_variables_exactly_when_asked():
    # V'(q) and V(q) are independent of q: b V' + a V + (c - 1) q = 0 for every V iff a = b = 0, c = 1
    residual = b * V(q).diff(q) + a * V(q) + (c - 1) * q
    conds, exact = identity_conditions([residual], [q])
    assert set(conds) == {a, b, c - 1} and exact is True
    conds2, exact2 = identity_conditions([residual], [q], jets_independent=False)
    assert set(conds2) == {a, b, c - 1} and exact2 is False
    # a function of the constants only is a coefficient, not a variable
    conds, exact = identity_conditions([V(a) * q + b], [q])
    assert conds == [canonical_jets(V(a)), b] and exact is True


def test_one_variable_per_function_across_residuals():
    # the same V(q) in two residuals is one unknown value: a V(q) = 0 and b V(q) + c q = 0
    conds, exact = identity_conditions([a * V(q), b * V(q) + c * q], [q])
    assert conds == [a, c, b] and exact is True


def test_functions_of_the_state_other_than_jets_make_the_equations_only_sufficient():
    # sin^2 + cos^2 - 1 vanishes identically (checked by sympy), yet its "coefficients" 1, 1, -1 do not
    residual = sympy.sin(q)**2 + sympy.cos(q)**2 - 1
    assert sympy.simplify(residual) == 0
    conds, exact = identity_conditions([residual], [q])
    assert sorted(conds) == [-1, 1, 1] and exact is False
    conds, exact = identity_conditions([a * sympy.exp(q) + b * q], [q])
    assert set(conds) == {a, b} and exact is False


@pytest.mark.parametrize("residual", [a / q, sympy.sqrt(q) * a, 2**q * b])
def test_a_residual_not_polynomial_in_the_state_is_refused_naming_what(residual):
    with pytest.raises(PortHamiltonianError, match="the stage conditions are not polynomial in the state"):
        identity_conditions([residual], [q], what="the stage conditions")


def test_the_ansatz_treats_an_undefined_potential_exactly():
    # q' = p, p' = -V'(q) - c p, H = p^2/2 + V(q): J12 = 1, R22 = c, the only form of degree 0; the
    # conditions are necessary (no "sufficient conditions" caveat in the derivation)
    f = port_hamiltonian_forms([p, -V(q).diff(q) - c * p], [q, p], p**2 / 2 + V(q))
    assert f.consistent and f.parameters == ()
    assert f.J == sympy.Matrix([[0, 1], [-1, 0]]) and f.R == sympy.Matrix([[0, 0], [0, c]])
    assert "sufficient conditions" not in f.derivation.latex()
    g = port_hamiltonian_forms([p, -sympy.sin(q) - c * p], [q, p], p**2 / 2 - sympy.cos(q))
    assert g.consistent and "sufficient conditions" in g.derivation.latex()


J0 = sympy.Symbol("J12_0")
H2 = (q**2 + p**2) / 2


def test_the_search_never_proves_infeasibility_for_every_function():
    # By hand: for x' = F(q, p) with a port e and J12 = J12_0 + J12_1 q + J12_2 p, the Dirac matrix on
    # (q, p, e) is integrable iff F . grad J12 = J12 div F.  For F = (p, -q + w p):
    #   w = 3 (a number): J12_1 = J12_2 = J12_0 = 0, so no member with J12_0 != 0 (proved: False);
    #   w = 0: J12 = J12_0 works (True);
    #   w = W(q), an undefined function: W = 0 is one instance, where a member exists, so "no member"
    #   must not be claimed (None), although the equations with the jets as independent variables
    #   (J12_0 W = 0 among them) have no solution with J12_0 != 0.
    proved = find_dirac_structure([p, -q + 3 * p], [q, p], H2, port="e", degree=1, nonzero=[J0])
    assert proved.holds is False
    instance = find_dirac_structure([p, -q], [q, p], H2, port="e", degree=1, nonzero=[J0])
    assert instance.holds is True and instance.best.values[J0] != 0
    generic = find_dirac_structure([p, -q + W(q) * p], [q, p], H2, port="e", degree=1, nonzero=[J0])
    assert generic.holds is None and generic.members == ()
    (_S, eqs, cert, _sols) = generic.integrability[0]
    assert cert.holds is None and "only sufficient" in cert.method
    # the equations themselves: J12_0 (times the value of W) is among them, so they do force J12_0 = 0
    assert any(sympy.expand(e / J0).is_Number for e in eqs)
