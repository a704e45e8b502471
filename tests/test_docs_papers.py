"""The executed pages of the documentation run: the per-paper pages in docs/papers, the
tutorials in docs/tutorials (and every other page with code: the index, getting started, the
contract) are MyST notebooks, and every ``{code-cell}`` of a page runs, in order, in one
namespace, as the docs build's kernel runs them."""

import pathlib
import re

import mpmath
import pytest

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
#: the pages that must be notebooks: one per paper, and the tutorials
REQUIRED = sorted(DOCS.glob("papers/*.md")) + sorted(DOCS.glob("tutorials/*.md"))


def _is_notebook(page: pathlib.Path) -> bool:
    text = page.read_text(encoding="utf-8")
    return text.startswith("---\n") and "kernelspec:" in text.split("\n---\n", 1)[0]


#: every executed page (the required ones first)
PAGES = REQUIRED + sorted(p for p in DOCS.rglob("*.md") if p not in REQUIRED and "_build" not in p.parts
                          and _is_notebook(p))

#: a MyST code cell: the fence line, then its source up to the closing fence
_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", flags=re.S | re.M)
#: cell options: a ``---`` YAML block or ``:key: value`` lines at the top of a cell
_OPTIONS = re.compile(r"\A(?:---\n.*?\n---\n|(?::[\w-]+:[^\n]*\n)+)", flags=re.S)


def code_cells(text: str) -> list:
    """The source of every ``{code-cell}`` of a MyST notebook, in order, without its options."""
    return [_OPTIONS.sub("", cell, count=1) for cell in _CELL.findall(text)]


def test_code_cells_parser():
    text = ("# t\n\n```{code-cell} ipython3\nx = 1\n```\n\ntext\n\n```{code-cell} ipython3\n"
            ":tags: [hide-input]\ny = x + 1\ny\n```\n\n```python\nnot = a cell\n```\n")
    assert code_cells(text) == ["x = 1\n", "y = x + 1\ny\n"]


def test_every_page_is_a_notebook():
    assert len(REQUIRED) >= 8, [p.name for p in REQUIRED]
    for page in PAGES:
        assert _is_notebook(page), (
            f"{page.name} lacks the jupytext/kernelspec front matter: the docs build would not execute it")
        assert "```python" not in page.read_text(encoding="utf-8"), (
            f"{page.name}: a ```python block would be shown but never run")


def _share_quick_case_study_runs(monkeypatch, case_study_run):
    """A page's ``casestudies.run(name, "quick", out=...)`` takes the session's one run of it (the
    case-study tests run the same), its figures copied to ``out``."""
    import shutil

    import casestudies

    real = casestudies.run

    def run(name, profile="quick", out=None, **kwargs):
        if profile != "quick" or kwargs:
            return real(name, profile, out=out, **kwargs)
        result = case_study_run(name)
        if out is not None:
            pathlib.Path(out).mkdir(parents=True, exist_ok=True)
            for figure in result.figures:
                shutil.copy(figure, out)
        return result

    monkeypatch.setattr(casestudies, "run", run)


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(DOCS).with_suffix("").as_posix() for p in PAGES])
def test_page_cells_run(page, tmp_path, monkeypatch, case_study_run):
    monkeypatch.chdir(tmp_path)  # figures and files written by the cells land here
    _share_quick_case_study_runs(monkeypatch, case_study_run)
    cells = code_cells(page.read_text(encoding="utf-8"))
    assert cells, f"{page.name} has no code cell"
    namespace = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    # a page may set mpmath's working precision, as a notebook does (mpmath.mp.dps = 50): the
    # pages share this process with the other tests, so it is put back afterwards
    with mpmath.workprec(mpmath.mp.prec):
        for k, cell in enumerate(cells):
            exec(compile(cell, f"{page.name}[cell {k}]", "exec"), namespace)
