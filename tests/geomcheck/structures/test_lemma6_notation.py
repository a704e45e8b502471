"""The Lemma 6 showcase (Terakawa and Yaguchi 2022, generic subsystems) in the user's notation:
H_1, f_1, q_1, p_1 and derivatives written as a paper writes them, never the engine's generic names
(f1_1, p1_1), jets (\\partial_{1} f), argument slots (dx2) or derivatives with every argument
repeated (d/dp_1 f_1(q_1, p_1, q_2, p_2))."""

import re

import sympy

from geomcheck.structures import coupled_lie_derivative, generic_coupled_system
from geomcheck.structures.showcase import showcase

#: the engine's names: generic coordinates and functions, jets, argument slots, dummies
INTERNAL = re.compile(r"[fqpH]\d+_\d+|[qpf]_\{\d+ \d+\}|\\partial_\{|/dx\d|d\\\^\{\}\d|Dummy|h~"
                      r"|\\frac\{\\partial(\^\{\d+\})?\}\{")   # the last: d/dx f(q_1, ...) with its arguments


def test_the_lemma6_showcase_is_typeset_in_the_users_notation():
    (build,) = [b for title, b in showcase() if title.startswith("Terakawa and Yaguchi 2022, Lemma 6")]
    tex = build().latex()
    assert not INTERNAL.search(tex), INTERNAL.search(tex)
    assert r"$H_{1} = H_{1}(q_{1}, p_{1})$" in tex and r"$f_{1} = f_{1}(q_{1}, p_{1}, q_{2}, p_{2})$" in tex
    assert r"\frac{\partial f_{1}}{\partial p_{1}} \, \mathrm{d}q_{1} \wedge \mathrm{d}p_{1}" in tex
    assert r"i_X\omega &= \frac{\partial H_{1}}{\partial p_{1}}" in tex
    # the counterexample to the printed lemma names the derivatives it drew as the user would
    assert re.search(r"\\frac\{\\partial f_\{[12]\}\}\{\\partial [qp]_\{[12]\}\}\\left\(", tex)


def test_the_generic_subsystems_carry_the_papers_names():
    S = generic_coupled_system((1, 1))
    assert [str(c) for c in S.chart.coords] == ["q_1", "p_1", "q_2", "p_2"]
    assert [s.hamiltonian for s in S.subsystems] == [sympy.Function("H_1")(*sympy.symbols("q_1 p_1")),
                                                     sympy.Function("H_2")(*sympy.symbols("q_2 p_2"))]
    r = coupled_lie_derivative(generic_coupled_system((2, 1)))
    assert not INTERNAL.search(r.latex() + r.printed_check.latex())
    assert r"q_{1,2}" in r.latex() and r"f_{1,2}" in r.latex()
