"""How a certificate shows itself: in a notebook (``_repr_latex_``, ``_repr_html_``) and at the
end of its derivation (the verdict, how it was decided and what it rests on)."""

from html.parser import HTMLParser

import pytest
import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate, claim_latex
from geomcheck.latex import compile_pdf, document, pdflatex_available

M = gc.Chart("q p")
q, p = M.coords
h = sympy.Symbol("h")
w = M.d(q) ^ M.d(p)


@pytest.fixture(scope="module")
def three():
    """A proof, a counterexample and an undecided claim."""
    holds = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p]), w)
    fails = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p - h * q]), w)
    undecided = Certificate(claim="phi^* eta == g eta, g nowhere zero for small h", holds=None,
                            method="the factor g could not be shown nonzero < & >", stage="unknown")
    return holds, fails, undecided


@pytest.mark.parametrize("claim, tex", [
    ("phi^* omega == omega", r"\varphi^* \omega = \omega"),
    ("phi_h o phi_{-h} == id", r"\varphi_h \circ \varphi_{-h} = \mathrm{id}"),
    ("L_X omega == sum_i c_i dq_i ^ df_i", r"\mathcal{L}_X \omega = \sum_i c_i dq_i \wedge df_i"),
    ("order >= 2", r"\text{order }\geq 2"),
    ("X(g) == 0 on {g == 0}", r"X(g) = 0\text{ on }\{g = 0\}"),
    ("phi^* omega == k omega, k a nonzero constant", r"\varphi^* \omega = k \omega, k\text{ a nonzero constant}"),
    ("50% & $ ~", r"50\% \& \$ \sim"),
])
def test_claims_are_set_as_mathematics(claim, tex):
    assert claim_latex(claim) == tex


def test_repr_latex_is_one_formula_with_the_claim_the_verdict_and_the_evidence(three, tmp_path):
    holds = three[0]
    a, b, c = (x._repr_latex_() for x in three)
    assert a == r"$\checkmark\; \varphi^* \omega = \omega \quad \text{holds: a proof (" + \
        {"structural": "structurally", "exact": "exact arithmetic"}[holds.stage] + ")}$"
    assert b == r"$\times\; \varphi^* \omega = \omega \quad \text{fails: a counterexample}$"
    assert c.startswith(r"$\text{?}\; \varphi^* \eta = g \eta, g\text{ nowhere zero for small }h \quad \text{undecided")
    for out in (a, b, c):
        assert out.count("$") == 2 and out.startswith("$") and out.endswith("$")
    if pdflatex_available():       # valid LaTeX (MathJax reads the same)
        compile_pdf(document(f"{a}\n\n{b}\n\n{c}"), tmp_path / "repr.pdf")


def test_repr_html_shows_the_verdict_and_escapes_the_text(three):
    holds, fails, undecided = three

    class Parser(HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack, self.text, self.tags = [], [], []

        def handle_starttag(self, tag, attrs):
            if tag != "br":
                self.stack.append(tag)
            self.tags.append(tag)

        def handle_endtag(self, tag):
            assert self.stack.pop() == tag

        def handle_data(self, data):
            self.text.append(data)

    for cert, word in ((holds, "holds"), (fails, "fails"), (undecided, "undecided")):
        parser = Parser()
        out = cert._repr_html_()
        parser.feed(out)
        assert parser.stack == []                                # balanced
        text = "".join(parser.text)
        assert word in text and claim_latex(cert.claim) in text and cert.evidence() in text
        assert "details" in parser.tags and "pre" in parser.tags and cert.latex().strip() in text
    assert "&lt; &amp; &gt;" in undecided._repr_html_()


def test_the_verdict_says_what_it_rests_on(three):
    holds, fails, undecided = three
    assert holds.latex().rstrip().endswith(r"\emph{Soundness:} " + holds.evidence().replace("_", r"\_") + ".")
    assert holds.evidence().startswith("a proof (") and fails.evidence().startswith("a counterexample")
    assert undecided.evidence() == "undecided"
    assert "numerical evidence, not a proof (randomized high-precision evaluation; 3 points; 50 digits)" == \
        Certificate("x == 0", True, "m", "randomized",
                    soundness=gc.zero.Soundness("randomized", "numerical evidence", points=3, digits=50)).evidence()


def test_an_implicit_schemes_unknowns_appear_by_their_names_not_as_dummies():
    """A scheme's unknowns are Dummies (sympy prints them ``_k_{1,q1}``); the reader gets ``k_{1,q1}``."""
    import re

    import sympy

    import integrators as ig

    q1, p1 = sympy.symbols("q1 p1")
    system = ig.HamiltonianSystem(p1**2 / 2 + sympy.Function("V")(q1), [q1], [p1])
    cert = ig.scheme("gauss-legendre-6").certify(system, properties=["symplectic"])["symplectic"]
    assert cert.holds is True and "k_{1,q1}" in cert.method
    for text in (cert.method, str(cert.soundness), cert.to_json()):
        assert not re.search(r"(?<![\w\\])_(k_\{|q1'|p1')", text), text
