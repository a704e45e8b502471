"""Trees and series in LaTeX: the drawings' structure for every tree up to order 6, HLW's notation
for elementary differentials, series as sums and tables, and one pdflatex compile."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import sympy
from sympy import Rational as R

import geomcheck as gc
import geomcheck.bseries as bs
from geomcheck.bseries.drawing import (
    elementary_differential_latex,
    series_latex,
    tree_layout,
    tree_picture,
    tree_tikz,
)
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import BSeriesError, InvalidArgumentError
from geomcheck.latex import compile_pdf

NUMBER = r"(-?\d+(?:\.\d+)?)"


def colours_of(t):
    out = [t.colour]
    for u in t.children:
        out += colours_of(u)
    return out


def depth_profile(t, depth=0, out=None):
    """How many vertices the tree has at each depth (computed from the tree, not the layout)."""
    out = {} if out is None else out
    out[depth] = out.get(depth, 0) + 1
    for u in t.children:
        depth_profile(u, depth + 1, out)
    return out


@pytest.mark.parametrize("colours", [1, 2])
def test_tikz_has_one_dot_per_vertex_and_one_line_per_edge(colours):
    for t in trees_up_to(6, colours):
        tex = tree_tikz(t)
        assert tex.startswith("\\begin{tikzpicture}") and tex.endswith("\\end{tikzpicture}")
        dots = re.findall(r"\\(fill|filldraw\[fill=white\]) \(" + NUMBER + "," + NUMBER + r"\) circle", tex)
        lines = re.findall(r"\\draw \(" + NUMBER + "," + NUMBER + r"\) -- \(" + NUMBER + "," + NUMBER + r"\);", tex)
        assert len(dots) == t.order and len(lines) == t.order - 1, t
        assert tex.count("circle") == t.order and tex.count("--") == t.order - 1
        # filled dots are colour 0, open circles colour 1
        cs = colours_of(t)
        assert sum(1 for kind, _, _ in dots if kind == "fill") == cs.count(0)
        assert sum(1 for kind, _, _ in dots if kind != "fill") == cs.count(1)
        # root at the bottom (0, 0), levels as in the tree, no two vertices on one spot
        points = [(float(x), int(y)) for _, x, y in dots]
        assert points[0] == (0.0, 0)
        assert len(set(points)) == t.order
        levels = {}
        for _, y in points:
            levels[y] = levels.get(y, 0) + 1
        assert levels == depth_profile(t)
        # every edge joins two dots, one level apart, the lower one first
        spots = set(points)
        for x0, y0, x1, y1 in lines:
            assert (float(x0), int(y0)) in spots and (float(x1), int(y1)) in spots
            assert int(y1) == int(y0) + 1


def test_layout_edges_do_not_cross():
    for t in trees_up_to(6):
        vertices, edges = tree_layout(t)
        by_level = {}
        for a, b in edges:
            by_level.setdefault(vertices[a][1], []).append((vertices[a][0], vertices[b][0]))
        for segments in by_level.values():
            for (p0, c0) in segments:
                for (p1, c1) in segments:
                    assert not (p0 < p1 and c0 > c1), t      # two edges between the same levels cross


@pytest.mark.parametrize("colours", [1, 2])
def test_picture_has_one_dot_per_vertex_and_one_line_per_edge(colours):
    for t in trees_up_to(5, colours):
        tex = tree_picture(t)
        assert tex.count("\\put(") == t.order and tex.count("\\qbezier(") == t.order - 1, t
        assert tex.count("\\circle*") == colours_of(t).count(0)


def test_elementary_differentials_in_hlw_notation():
    # HLW III.1, Table 1.1 (the arguments of a symmetric derivative in our children's order)
    expected = ["f", "f'f", "f''(f, f)", "f'f'f", "f'''(f, f, f)", "f''(f, f'f)", "f'f''(f, f)", "f'f'f'f"]
    assert [elementary_differential_latex(t) for t in trees_up_to(4)] == expected
    bush7 = trees_of_order(7)[0]
    assert elementary_differential_latex(bush7) == "f^{(6)}(" + ", ".join(["f"] * 6) + ")"
    assert elementary_differential_latex(trees_of_order(2)[0], names=["g"]) == "g'g"
    mixed = next(t for t in trees_of_order(3, colours=2) if t.ascii() == "[*o]o")
    assert elementary_differential_latex(mixed) == "\\partial_{q}\\partial_{p} f_{1}(f_{0}, f_{1})"
    assert elementary_differential_latex(mixed, names=["F", "G"], variables=["x", "v"]) == \
        "\\partial_{x}\\partial_{v} G(F, G)"


def test_series_as_a_sum():
    midpoint = bs.runge_kutta([[0, 0], [R(1, 2), 0]], [0, 1], order=3)
    text = series_latex(bs.modified_equation(midpoint, 3), style="differential")
    # h f~ = h f + h^3 (-1/24 f''(f, f) - 1/6 f'f'f) + O(h^4) (HLW IX.1)
    assert text == "h f - \\frac{h^{3}}{24} f''(f, f) - \\frac{h^{3}}{6} f'f'f + \\mathcal{O}(h^{4})"
    assert series_latex(bs.exact_flow(2)) == "y + h F(\\tau) + \\frac{h^{2}}{2} F([\\tau]) + \\mathcal{O}(h^{3})"
    tikz = series_latex(bs.exact_flow(3), style="tikz")
    assert tikz.count("\\begin{tikzpicture}") == 4
    alpha, k = sympy.symbols("alpha k")
    fam = bs.runge_kutta([[0, 0], [alpha, 0]], [1 - 1 / (2 * alpha), 1 / (2 * alpha)], order=3)
    assert "\\frac{\\alpha h^{3}}{4} F([\\tau^{2}])" in series_latex(fam)
    assert series_latex(bs.exact_flow(1), h=k) == "y + k F(\\tau) + \\mathcal{O}(k^{2})"
    # the series prints itself through series_latex
    assert gc.latex(fam) == series_latex(fam)
    assert fam._repr_latex_() == "$\\displaystyle " + series_latex(fam) + "$"


def test_series_as_a_table():
    e = bs.exact_flow(4)
    table = series_latex(e, layout="table", style="picture")
    assert table.startswith("\\begin{array}") and table.endswith("\\end{array}")
    assert table.count("\\\\") == len(trees_up_to(4)) + 1      # rows: header, the empty tree, the trees
    assert table.count("\\begin{picture}") == len(trees_up_to(4))
    assert "\\frac{1}{24}" in table and "\\emptyset &  & 1" in table
    short = series_latex(e, max_order=2, layout="table")
    assert short.count("\\\\") == 3


def test_bad_arguments():
    e = bs.exact_flow(3)
    with pytest.raises(BSeriesError, match="max_order"):
        series_latex(e, max_order=4)
    with pytest.raises(BSeriesError):
        series_latex({}, 2)
    with pytest.raises(InvalidArgumentError, match="style"):
        series_latex(e, style="ascii")
    with pytest.raises(InvalidArgumentError, match="layout"):
        series_latex(e, layout="list")
    with pytest.raises(InvalidArgumentError, match="tree"):
        tree_tikz("[t]")
    with pytest.raises(InvalidArgumentError, match="names"):
        elementary_differential_latex(trees_of_order(2, colours=2)[0], names=["f"])
    with pytest.raises(InvalidArgumentError, match="variables"):
        elementary_differential_latex(trees_of_order(2, colours=2)[0], variables=["q"])


def _tikz_installed() -> bool:
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    run = subprocess.run([kpsewhich, "tikz.sty"], check=False, capture_output=True, text=True, timeout=30)
    return bool(run.stdout.strip())


@pytest.mark.needs_pdflatex
def test_trees_and_a_series_table_compile(tmp_path):
    """One document: every tree of order <= 4 (both drawings, rooted and bicoloured up to 3) and tables.

    The ``picture`` drawings need no package; the TikZ ones are added where TikZ is installed
    (Debian: texlive-pictures), which the project's TeX requirement does not include."""
    tikz = _tikz_installed()
    rows = []
    for t in trees_up_to(4) + trees_up_to(3, colours=2):
        cells = [tree_picture(t), "$" + elementary_differential_latex(t) + "$"]
        if tikz:
            cells.insert(0, tree_tikz(t))
        rows.append(" & ".join(cells) + " \\\\")
    midpoint = bs.runge_kutta([[0, 0], [R(1, 2), 0]], [0, 1], order=4, name="explicit midpoint")
    body = ("\\begin{tabular}{" + "c" * (3 if tikz else 2) + "}\n" + "\n".join(rows) + "\n\\end{tabular}\n\n"
            + "\\[" + series_latex(midpoint, layout="table", style="picture") + "\\]\n"
            + "\\[" + series_latex(bs.modified_equation(midpoint, 3), style="differential") + "\\]\n")
    if tikz:
        body += "\\[" + series_latex(midpoint, layout="table", style="tikz") + "\\]\n"
    source = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n"
              + ("\\usepackage{tikz}\n" if tikz else "")
              + "\\begin{document}\n" + body + "\\end{document}\n")
    pdf = compile_pdf(source, tmp_path / "trees.pdf", passes=1, log=tmp_path / "trees.log")
    assert pdf.stat().st_size > 1000
    log = (tmp_path / "trees.log").read_text(errors="replace")
    assert "Overfull" not in log
