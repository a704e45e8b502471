"""The README's example runs and prints what its comment claims."""

import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_example_proves_the_flow_symplectic():
    blocks = python_blocks()
    assert blocks, "README.md lost its example"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(README), "exec"), {})
    first = out.getvalue().split()[0]
    assert first == "True", out.getvalue()


def test_readme_has_exactly_two_setup_commands():
    commands = re.findall(r"```\n(python3 -m venv[^\n]*)\n```", README.read_text())
    assert len(commands) == 2
    assert "geomcheck demo" in commands[0]
    assert "python -m pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert commands[1] in ci, ".ci/run must run the README's test command verbatim"
