"""Every certificate of every catalog scheme typesets to LaTeX that pdflatex compiles."""

import pytest

import integrators as ig
from geomcheck.latex import compile_pdf, document
from integrators.examples import default_example_for

@pytest.mark.needs_pdflatex
def test_all_catalog_certificates_compile_in_one_document(tmp_path):
    parts = []
    for name in ig.list_schemes():
        s = ig.scheme(name)
        system = ig.example_system(default_example_for(s))
        for prop, cert in s.certify(system).items():
            assert cert.holds is True, (name, prop, cert)
            parts.append(r"\section*{" + name + ": " + prop + "}\n" + cert.latex())
    assert len(parts) >= 30
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "catalog.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    # the report's page: every derivation fitted to the line, balanced, and within the margins
    from geomcheck.latex import fit_to_width
    from geomcheck.report import overfull_widths
    from geomcheck.report_tex import PREAMBLE

    log = tmp_path / "fitted.log"
    source = PREAMBLE + "\\begin{document}\n" + "\n".join(fit_to_width(p) for p in parts) + "\n\\end{document}\n"
    compile_pdf(source, tmp_path / "fitted.pdf", log=log)
    widths = overfull_widths(log.read_text(encoding="latin-1"))
    assert max(widths, default=0.0) <= 20, sorted(widths)[-5:]
