"""Sphinx configuration of the geomcheck documentation.

Build (warnings are errors; every notebook page is executed afresh)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The pages are Markdown (MyST).  Pages with a ``kernelspec`` in their front matter are MyST
notebooks: myst-nb executes their ``{code-cell}`` cells in a fresh kernel, in a temporary
directory, and the build fails on the first cell that raises.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Document (and execute against) this checkout, not some other installed copy: autodoc imports
# from sys.path, and the notebook kernels inherit PYTHONPATH from this process.
sys.path.insert(0, str(ROOT))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)

import geomcheck  # noqa: E402

project = "geomcheck"
author = "the geomcheck developers"
copyright = "the geomcheck developers"
release = geomcheck.__version__
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]
source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}
root_doc = "index"

# --------------------------------------------------------------------------- MyST and notebooks
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

nb_execution_mode = "force"            # every build runs every notebook page from scratch
nb_execution_timeout = 180             # seconds per cell (the slowest, a case study, takes ~10-20 s)
nb_execution_raise_on_error = True     # a cell that raises fails the build
nb_execution_show_tb = True            # ... and the log shows its traceback
nb_execution_in_temp = True            # figures written by the cells land in a temporary directory
nb_merge_streams = True

# --------------------------------------------------------------------------- API reference
autosummary_generate = False           # the API pages are written by hand (api/*.md)
autodoc_default_options = {
    "members": True,                   # a module's members are the names in its __all__ ...
    "imported-members": True,          # ... wherever they are defined (the packages re-export them)
    "member-order": "bysource",
    "show-inheritance": True,
}
autodoc_typehints = "none"             # signatures as written; the types are in the numpydoc sections
autodoc_class_signature = "separated"
autodoc_inherit_docstrings = False

napoleon_google_docstring = False
napoleon_numpy_docstring = True
# numpydoc sections as plain field lists: "q, p : sequence of Symbol" stays one entry naming both
# (Sphinx's typed parameter fields would read "q," as a type), and the free-text types
# ("sympy expression", "(batch, dim) array") are shown as written, not turned into links.
napoleon_use_param = False
napoleon_use_keyword = False
napoleon_use_rtype = False
napoleon_preprocess_types = False
# "Attributes" like "Parameters": a field list, not a second description of dataclass fields
napoleon_custom_sections = [("Attributes", "params_style")]

# Certificates show in a notebook as $\text{...}$ with LaTeX's text-mode escapes (\_, \^{}, \&):
# MathJax reads those only with its textmacros package.
mathjax3_config = {"loader": {"load": ["[tex]/textmacros"]}, "tex": {"packages": {"[+]": ["textmacros"]}}}

# --------------------------------------------------------------------------- HTML
html_theme = "furo"
html_title = f"geomcheck {release}"
html_static_path: list = []
