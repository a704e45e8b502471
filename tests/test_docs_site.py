"""The documentation site holds together without building it (cheap: no Sphinx needed).

- Nothing in the repository points users at files outside it (the contract, the design notes and
  the case-study brief live in docs/ now, as docs/contract.md).
- Every page under docs/ is reachable from the toctrees of docs/index.md, and every toctree entry
  is a page.
- The README's one documentation command is the build that the docs extra supports.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: files outside the repository that must never be referred to
_OUTSIDE = re.compile(r"\b(?:API|DESIGN|CASESTUDIES)\.md\b|\.\./shared\b|/work/shared\b")
_SKIP_DIRS = {".git", ".venv", "venv", "_build", "build", "dist", "tests", "__pycache__", ".hypothesis",
              ".pytest_cache", "report", "jupyter_execute"}


def _tracked_files() -> list:
    """The repository's .py, .md and .toml files outside tests/ (git's list when there is one)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
        names = [n for n in out.stdout.decode().split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = []
    if names:
        # untracked new files count too: they are about to be committed
        untracked = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"], cwd=ROOT,
                                   capture_output=True, timeout=60).stdout.decode().split("\0")
        paths = [ROOT / n for n in names + [u for u in untracked if u]]
    else:
        paths = [p for p in ROOT.rglob("*") if not _SKIP_DIRS & set(p.relative_to(ROOT).parts)]
    return sorted({p for p in paths if p.suffix in (".py", ".md", ".toml") and p.is_file()
                   and p.relative_to(ROOT).parts[0] != "tests"})


def test_nothing_points_outside_the_repository():
    files = _tracked_files()
    assert any(p.name == "conf.py" for p in files) and any(p.name == "README.md" for p in files)
    offenders = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if _OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, ("refer to docs/contract.md (the public contract) instead of files outside the"
                           " repository:\n" + "\n".join(offenders))


# --------------------------------------------------------------------------- toctrees

_TOCTREE = re.compile(r"^(`{3,}|:{3,})\{toctree\}[^\n]*\n(.*?)^\1[ \t]*$", flags=re.S | re.M)


def toctree_entries(text: str) -> list:
    """The documents named by the ``{toctree}`` directives of a MyST page (options and captions skipped)."""
    entries = []
    for _, body in _TOCTREE.findall(text):
        lines = body.splitlines()
        if lines and lines[0].strip() == "---":      # a YAML options block
            end = lines.index("---", 1) if "---" in lines[1:] else 0
            lines = lines[end + 1:]
        for line in lines:
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            m = re.fullmatch(r".*<(.+)>", line)        # "Title <target>"
            entries.append(m.group(1) if m else line)
    return entries


def _pages() -> set:
    return {p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md")
            if not {"_build", "jupyter_execute", ".ipynb_checkpoints"} & set(p.relative_to(DOCS).parts)}


def test_toctree_parser():
    text = ("# x\n\n```{toctree}\n:numbered:\n:maxdepth: 2\n\nintro\nTutorials <tutorials/index>\n```\n\n"
            ":::{toctree}\n---\nmaxdepth: 1\n---\napi/index\n:::\n")
    assert toctree_entries(text) == ["intro", "tutorials/index", "api/index"]


def test_every_page_is_reachable_from_the_index():
    pages = _pages()
    assert "index" in pages
    seen, todo, dangling = set(), ["index"], []
    while todo:
        doc = todo.pop()
        if doc in seen:
            continue
        seen.add(doc)
        base = Path(doc).parent
        for entry in toctree_entries((DOCS / f"{doc}.md").read_text(encoding="utf-8")):
            target = entry.lstrip("/") if entry.startswith("/") else (base / entry).as_posix()
            target = re.sub(r"\.md$", "", Path(target).as_posix())
            if target not in pages:
                dangling.append(f"{doc}.md names {entry!r}")
            else:
                todo.append(target)
    assert not dangling, dangling
    assert pages == seen, f"pages in no toctree reachable from index.md: {sorted(pages - seen)}"


def test_index_toctree_is_numbered():
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    body = _TOCTREE.search(text).group(2)
    assert ":numbered:" in body


# --------------------------------------------------------------------------- building it

BUILD = "sphinx-build -W --keep-going -b html docs docs/_build/html"


def test_readme_documents_the_build_and_the_extra_supports_it():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines() if BUILD in line]
    assert len(commands) == 1 and 'pip install ".[docs]"' in commands[0], commands
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    docs_extra = re.search(r"^docs = \[(.*?)\]", pyproject, flags=re.M | re.S)
    assert docs_extra, "pyproject.toml has no docs extra"
    for package in ("sphinx", "myst-nb", "furo", "ipykernel"):
        assert f'"{package}' in docs_extra.group(1), package
    assert "docs/_build/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    for setting in ('nb_execution_mode = "force"', "nb_execution_raise_on_error = True", '"_build"'):
        assert setting in conf, setting
