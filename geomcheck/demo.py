"""The demo the README runs: a Hamiltonian flow is symplectic, proved two ways.

For ``H = p^2/2 + V(q)`` with V an arbitrary smooth function (an undefined
sympy function) and for the Henon-Heiles Hamiltonian, the demo shows that the
Lie derivative of ``w = sum dq_i ^ dp_i`` along the Hamiltonian vector field
vanishes, once through Cartan's formula and once by the component formula, and
typesets the derivation.
"""

from __future__ import annotations

import sympy

from .files import write_text_atomically
from .algebra import Chart
from .forms import d, interior, lie
from .hamiltonian import hamiltonian_vector_field
from .latex import Derivation, document, latex


def hamiltonian_flow_derivation(H, M: Chart, title: str):
    """(holds, Derivation) for ``L_X w == 0`` with X the Hamiltonian field of H on M."""
    n = M.dim // 2
    q, p = M.coords[:n], M.coords[n:]
    w = M.d(q[0]) ^ M.d(p[0])
    for i in range(1, n):
        w = w + (M.d(q[i]) ^ M.d(p[i]))
    X = hamiltonian_vector_field(H, w)
    iXw = interior(X, w)
    dH = M.d(H)
    first = (iXw - dH).zero_decision()
    dw = d(w)
    closed = dw.zero_decision()
    ddH = d(dH)
    exact = ddH.zero_decision()
    L = lie(X, w)
    direct = L.zero_decision()
    D = Derivation(title)
    D = D.add(r"Hamiltonian $H = " + sympy.latex(H) + r"$ and symplectic form:", r"\omega &= " + latex(w))
    D = D.add("The Hamiltonian vector field solves $i_X\\omega = \\mathrm{d}H$:", "X &= " + latex(X))
    D = D.add(
        "Cartan's formula $L_X\\omega = \\mathrm{d}\\, i_X\\omega + i_X \\mathrm{d}\\omega$, with",
        r"i_X\omega &= " + latex(iXw) + r" = \mathrm{d}H \quad\text{(" + first.method + r")}\\"
        + r"\mathrm{d}\omega &= " + latex(dw) + r"\quad\text{(" + closed.method + r")}",
    )
    D = D.add(
        "so $L_X\\omega = \\mathrm{d}\\mathrm{d}H$, and",
        r"\mathrm{d}\mathrm{d}H &= " + latex(ddH) + r"\quad\text{(" + exact.method + r")}",
    )
    D = D.add(
        "Independently, the component formula "
        r"$L_X(\omega_I \mathrm{d}x^I) = X(\omega_I)\mathrm{d}x^I + \omega_I \sum_r \cdots \wedge \mathrm{d}X^{i_r} \wedge \cdots$ gives",
        r"L_X\omega &= " + latex(L) + r"\quad\text{(" + direct.method + r")}",
    )
    holds = all(dec.is_zero is True for dec in (first, closed, exact, direct))
    D = D.concluding(
        "Hence the flow of $X$ preserves $\\omega$: it is symplectic." if holds
        else "The computation did not establish $L_X\\omega = 0$."
    )
    return holds, D


def run(latex_file=None, stream=None) -> int:
    import sys

    out = stream or sys.stdout
    M1 = Chart("q p")
    q, p = M1.coords
    V = sympy.Function("V")
    M2 = Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M2.coords
    cases = [
        (p**2 / 2 + V(q), M1, "A Hamiltonian flow with an arbitrary potential $V$ is symplectic"),
        ((p1**2 + p2**2) / 2 + (q1**2 + q2**2) / 2 + q1**2 * q2 - q2**3 / 3, M2,
         "The Henon-Heiles flow is symplectic"),
    ]
    ok = True
    docs = []
    for H, M, title in cases:
        holds, D = hamiltonian_flow_derivation(H, M, title)
        ok = ok and holds
        print(str(D), file=out)
        print(file=out)
        docs.append(D.latex())
    body = "\n".join(docs)
    print("LaTeX derivation:\n", file=out)
    print(body, file=out)
    if latex_file:
        write_text_atomically(latex_file, document(body))
        print(f"wrote {latex_file}", file=out)
    print("RESULT: " + ("every claim holds" if ok else "a claim did not hold"), file=out)
    return 0 if ok else 1
