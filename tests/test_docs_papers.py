"""The per-paper pages in docs/papers run: every ```python block, in order, in one namespace."""

import pathlib
import re

import pytest

PAGES = sorted((pathlib.Path(__file__).resolve().parents[1] / "docs" / "papers").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_paper_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # figures written by the examples land here
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    assert blocks, f"{page.name} has no runnable example"
    namespace = {"__name__": f"docs_{page.stem}"}
    for k, block in enumerate(blocks):
        exec(compile(block, f"{page.name}[block {k}]", "exec"), namespace)
