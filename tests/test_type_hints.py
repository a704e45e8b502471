"""The public API carries complete, resolvable type hints (the packages ship ``py.typed``).

Public: every name in ``__all__`` of the modules below (of the errors modules their classes);
for a class, ``__init__`` and every public method, property, classmethod and staticmethod,
including those it inherits from the project's own (possibly private) base classes.

(a) every parameter (but ``self``/``cls``, ``*args``, ``**kwargs``) and every return but
``__init__``'s is annotated; (b) ``typing.get_type_hints`` resolves every annotation (names
imported only under ``if TYPE_CHECKING:`` are resolved by running those imports of the
defining module, which also checks that they import); (c) each package ships ``py.typed``
and pyproject's package-data includes it.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import pathlib
import sys
import typing

try:
    import tomllib
except ImportError:  # Python 3.10: pytest depends on tomli there
    import tomli as tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("geomcheck", "integrators", "casestudies")
# the public modules of docs/contract.md
PUBLIC_MODULES = (
    "geomcheck",
    "geomcheck.zero",
    "geomcheck.certify",
    "geomcheck.bseries",
    "geomcheck.testing",
    "geomcheck.strategies",
    "geomcheck.structures",
    "geomcheck.errors",
    "integrators",
    "integrators.distributed",
    "integrators.errors",
    "casestudies",
)
CLASSES_ONLY = {"geomcheck.errors", "integrators.errors"}


def _ours(obj) -> bool:
    return getattr(obj, "__module__", "").split(".")[0] in PACKAGES


def _function(member):
    """The function behind a class attribute (None for data and nested classes)."""
    if isinstance(member, property):
        return member.fget
    if isinstance(member, (classmethod, staticmethod)):
        return member.__func__
    if isinstance(member, functools.cached_property):
        return member.func
    return member if inspect.isfunction(member) else None


def public_functions(module_name: str) -> list:
    """``[(qualified name, function)]`` of the public API of one module."""
    module = importlib.import_module(module_name)
    out = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj) and module_name not in CLASSES_ONLY:
            out.append((name, obj))
        elif inspect.isclass(obj) and _ours(obj):
            seen = set()
            for klass in obj.__mro__:
                if not _ours(klass):
                    continue
                for attr, member in vars(klass).items():
                    if attr in seen or (attr.startswith("_") and attr != "__init__"):
                        continue
                    seen.add(attr)
                    f = _function(member)
                    if f is not None:
                        out.append((f"{name}.{attr}", f))
    return out


def missing_annotations(qualname: str, f) -> list:
    """The parameters without an annotation, and ``"return"`` when the return is not annotated."""
    sig = inspect.signature(f)
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    out = [p.name for p in sig.parameters.values()
           if p.name not in ("self", "cls") and p.kind not in skip and p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty and not qualname.endswith(".__init__"):
        out.append("return")
    return out


def _is_type_checking(test) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@functools.lru_cache(maxsize=None)
def annotation_namespace(module_name: str) -> dict:
    """The module's globals plus the names it imports under ``if TYPE_CHECKING:`` (those imports are run)."""
    module = sys.modules[module_name]
    namespace = dict(vars(module))
    tree = ast.parse(inspect.getsource(module))
    blocks = [node.body for node in tree.body if isinstance(node, ast.If) and _is_type_checking(node.test)]
    if blocks:
        scope = {"__name__": module_name, "__package__": module.__package__, "__builtins__": builtins}
        for body in blocks:
            exec(compile(ast.Module(body=body, type_ignores=[]), module.__file__, "exec"), scope)
        namespace.update({k: v for k, v in scope.items() if not k.startswith("__")})
    return namespace


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_api_is_annotated(module_name):
    functions = public_functions(module_name)
    assert functions, f"{module_name} exports no function"
    missing = {q: m for q, f in functions if (m := missing_annotations(q, f))}
    assert not missing, f"{len(missing)} public functions of {module_name} lack annotations:\n" + "\n".join(
        f"  {q}: {', '.join(m)}" for q, m in sorted(missing.items()))


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_annotations_resolve(module_name):
    failed = {}
    for qualname, f in public_functions(module_name):
        try:
            typing.get_type_hints(f, localns=annotation_namespace(f.__module__))
        except Exception as exc:  # noqa: BLE001 -- every failure is reported with its function
            failed[qualname] = f"{type(exc).__name__}: {exc}"
    assert not failed, f"annotations that do not resolve in {module_name}:\n" + "\n".join(
        f"  {q}: {e}" for q, e in sorted(failed.items()))


@pytest.mark.parametrize("package", PACKAGES)
def test_package_ships_py_typed(package):
    assert (ROOT / package / "py.typed").is_file(), f"{package}/py.typed is missing"
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    assert any(package == pattern or package.startswith(pattern.rstrip("*"))
               for pattern in setuptools["packages"]["find"]["include"]), f"{package} is not a packaged package"
    data = setuptools["package-data"]
    assert "py.typed" in data.get("*", []) + data.get(package, []), f"package-data does not include {package}/py.typed"
