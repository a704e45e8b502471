"""The import structure of the three packages, read from the source (no import is executed).

- No import cycle between modules, counting imports inside functions too (a lazy import
  hides a cycle from the interpreter, not from the design); imports under
  ``if TYPE_CHECKING:`` are annotations only and do not count.
- No upward import: a module never imports the namespace of a package it lies in (the
  ``__init__`` re-exports what its modules define, not the other way round).
- Layers, bottom up: the geomcheck engine; integrators; casestudies; the application
  (the ``geomcheck`` command and the report, which run all three).  A module imports
  only from its own layer or below.
- No private name (one leading underscore) imported from another module; a private
  module (``_core``) may be imported by the modules of its own package only.
- Errors and warnings are defined in the packages' ``errors`` modules only (one hierarchy, one
  place to read it).  A module may define its own internal signal (deriving from ``Exception``
  or ``BaseException`` directly), raised and caught inside the engine, never shown to a user.
"""

from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("geomcheck", "integrators", "casestudies")
LAYER = {"geomcheck": 0, "integrators": 1, "casestudies": 2}
#: the application: the command line and the report, on top of the three packages
APPLICATION = ("geomcheck.cli", "geomcheck.cli_certify", "geomcheck.report", "geomcheck.report_html",
               "geomcheck.report_jobs", "geomcheck.report_model", "geomcheck.report_tex", "geomcheck.__main__")


def _layer(module: str) -> int:
    if module in APPLICATION:
        return 3
    return LAYER.get(module.split(".")[0], -1)


def _modules(root=ROOT, packages=PACKAGES) -> dict:
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str, modules=MODULES) -> bool:
    return modules[name].name == "__init__.py"


def _drop_type_checking(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            node.body = []


@functools.lru_cache(maxsize=None)
def _tree(path: pathlib.Path) -> ast.AST:
    """The module's syntax tree without its ``if TYPE_CHECKING:`` blocks (parsed once for all the checks)."""
    tree = ast.parse(path.read_text())
    _drop_type_checking(tree)
    return tree


@functools.lru_cache(maxsize=None)
def _imports_of(name: str, path: pathlib.Path, is_package: bool) -> tuple:
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((node.lineno, alias.name, None))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                found.append((node.lineno, target, alias.name))
    return tuple(found)


def _imports(name: str, modules=MODULES):
    """``(line, target module, imported name or None)`` for every import in module ``name``."""
    return _imports_of(name, modules[name], _is_package(name, modules))


def _edges(modules=MODULES) -> dict:
    edges = {name: set() for name in modules}
    for name in modules:
        for _, target, imported in _imports(name, modules):
            module = f"{target}.{imported}" if imported and f"{target}.{imported}" in modules else target
            if module in modules and module != name:
                edges[name].add(module)
    return edges


def _cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle():
    edges = _edges()
    cycles = _cycles(edges)
    shown = ["{" + ", ".join(c) + "}: " + "; ".join(f"{v} -> {sorted(set(edges[v]) & set(c))}" for v in c)
             for c in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


def test_no_upward_import():
    bad = []
    for name in MODULES:
        ancestors = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)}
        if _is_package(name):
            ancestors.discard(name)
        for line, target, imported in _imports(name):
            module = f"{target}.{imported}" if imported and f"{target}.{imported}" in MODULES else target
            if module in ancestors:
                bad.append(f"{name}:{line} imports {imported or module} from the package {module} it lies in")
    assert not bad, "\n".join(bad)


def test_layers():
    bad = []
    for name in MODULES:
        own = _layer(name)
        for line, target, imported in _imports(name):
            module = f"{target}.{imported}" if imported and f"{target}.{imported}" in MODULES else target
            if _layer(module) > own:
                bad.append(f"{name}:{line} imports {target} (a higher layer)")
    assert not bad, "\n".join(bad)


def _private_imports(modules=MODULES) -> list:
    bad = []
    for name in modules:
        package = name if _is_package(name, modules) else name.rsplit(".", 1)[0]
        for line, target, imported in _imports(name, modules):
            if imported is not None and f"{target}.{imported}" in modules:
                module, what = f"{target}.{imported}", None
            else:
                module, what = target, imported
            parts = module.split(".")
            private_module = [p for p in parts if p.startswith("_") and not p.startswith("__")]
            if private_module and module.rsplit(".", 1)[0] != package:
                bad.append(f"{name}:{line} imports the private module {module} of another package")
            if what is not None and what.startswith("_") and not what.startswith("__"):
                bad.append(f"{name}:{line} imports the private name {what} from {module}")
    return bad


def test_no_private_name_across_modules():
    bad = _private_imports()
    assert not bad, f"{len(bad)} private imports:\n" + "\n".join(bad)


def _exception_classes_outside_errors(modules=MODULES) -> list:
    """``module:line class`` for every class deriving from an error or a warning outside the
    ``errors`` modules (a base whose name ends in Error or Warning)."""
    found = []
    for name, path in modules.items():
        if name.split(".")[-1] == "errors":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                if any(b.endswith(("Error", "Warning")) for b in bases):
                    found.append(f"{name}:{node.lineno} {node.name}")
    return found


def test_exceptions_and_warnings_live_in_the_errors_modules():
    bad = _exception_classes_outside_errors()
    assert not bad, "defined outside the errors modules:\n" + "\n".join(bad)


def test_the_checks_see_planted_faults(tmp_path):
    """The checks above are not vacuous: run on a small package with a lazy cycle, a private name imported
    from a sibling and a private module of another package, they find each, and nothing else."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "other").mkdir()
    files = {
        "pkg/__init__.py": "from .a import f\n",
        "pkg/a.py": "def f():\n    from .b import _hidden\n    return _hidden\n",
        "pkg/b.py": "def _hidden():\n    from . import c\n    return c\n",
        "pkg/c.py": "def g():\n    from .a import f\n    return f\n",
        "pkg/_core.py": "X = 1\n",
        "pkg/d.py": "from ._core import X\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "other/__init__.py": "",
        "other/e.py": "from pkg._core import X\n",
        "other/f.py": ("import warnings\nclass Odd(ValueError):\n    pass\nclass Late(warnings.UserWarning):\n"
                       "    pass\nclass Signal(Exception):\n    pass\n"),
        "other/errors.py": "class Fine(ValueError):\n    pass\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    modules = _modules(tmp_path, ("pkg", "other"))
    assert _cycles(_edges(modules)) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert sorted(_private_imports(modules)) == [
        "other.e:1 imports the private module pkg._core of another package",
        "pkg.a:2 imports the private name _hidden from pkg.b",
    ]
    assert _exception_classes_outside_errors(modules) == ["other.f:2 Odd", "other.f:4 Late"]
