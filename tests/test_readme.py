"""The README's example runs and prints what its comment claims."""

import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_examples_prove_what_their_comments_say():
    blocks = python_blocks()
    assert len(blocks) >= 2, "README.md lost its examples"
    out, spaces = io.StringIO(), []
    with contextlib.redirect_stdout(out):
        for block in blocks:
            namespace = {}  # each block is copied on its own: it imports what it uses
            exec(compile(block, str(README), "exec"), namespace)
            spaces.append(namespace)
    lines = out.getvalue().splitlines()
    # each print's comment starts with the verdicts it prints ("# True: ...", "# False True")
    expected = [_verdicts(line.split("#", 1)[1]) for block in blocks for line in block.splitlines()
                if line.startswith("print(") and "#" in line]
    assert len(lines) == len(expected), out.getvalue()
    for line, words in zip(lines, expected):
        assert words and line.split()[: len(words)] == words, (line, words)
    tex = next(ns["tex"] for ns in spaces if "tex" in ns)
    assert r"\varphi^*\omega" in tex and "The claim holds" in tex


def _verdicts(comment):
    words = []
    for w in comment.replace(":", " ").replace(",", " ").split():
        if w not in ("True", "False", "None"):
            break
        words.append(w)
    return words


def test_readme_has_exactly_two_setup_commands():
    commands = re.findall(r"```\n(python3 -m venv[^\n]*)\n```", README.read_text())
    assert len(commands) == 2
    assert commands[0].endswith("pip install . && geomcheck report --out report")
    assert "python -m pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci, ".ci/run must run the README's test command verbatim"
