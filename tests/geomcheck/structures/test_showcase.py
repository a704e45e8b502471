"""The papers' results, typeset together, compile with pdflatex (issue 3, item 6)."""

import pytest

from geomcheck.latex import compile_pdf, document, pdflatex_available, tex_text
from geomcheck.structures.showcase import showcase


def test_every_showcase_item_comes_out_as_the_papers_theorems_say(tmp_path):
    items = [(title, build()) for title, build in showcase()]
    bad = [(title, item.holds) for title, item in items if item.holds is not True]
    assert not bad
    body = "\n".join(r"\section*{" + tex_text(title) + "}\n" + item.latex() for title, item in items)
    # several derivations from every paper in one document
    assert body.count(r"\paragraph{") >= 20
    if pdflatex_available():
        pdf = compile_pdf(document(body), tmp_path / "papers.pdf")
        assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.needs_pdflatex
def test_a_broken_derivation_is_reported_not_hidden(tmp_path):
    from geomcheck.errors import LatexCompileError
    from geomcheck.latex import Derivation

    broken = Derivation("broken").add("an unbalanced formula", r"x &= \frac{1}{")
    with pytest.raises(LatexCompileError):
        compile_pdf(document(broken.latex()), tmp_path / "b.pdf")
    assert not (tmp_path / "b.pdf").exists()
