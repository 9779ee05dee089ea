"""Sphinx configuration of daskpad's documentation site.

Build it from the repository root (the ``docs`` extra installs what it needs)::

    pip install -e ".[docs]"
    sphinx-build -W -b html docs docs/_build/html

Warnings are errors: a broken reference, a notebook cell that raises, a public name
without a docstring (numpydoc's GL08) or a failing example of a page (``pagedoctest``)
fails the build. The notebooks run in the build, cached by content in
``docs/_build/.jupyter_cache`` (myst-nb). There is no intersphinx: other projects' pages
are linked by address.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import sphinx_autosummary_accessors
from sphinx.util import logging

import daskpad
import daskpad.testing

logger = logging.getLogger("daskpad.docs")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))  # this site's own extensions
sys.path.insert(0, str(HERE))  # gallery.py, for the gallery's pictures

project = "daskpad"
copyright = "the daskpad developers"
author = "the daskpad developers"
version = release = daskpad.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_autosummary_accessors",
    "sphinxarg.ext",
    "sphinx_copybutton",
    "myst_nb",  # (myst-parser's markdown too)
    "matplotlib.sphinxext.plot_directive",
    "pagedoctest",
    "sitelinks",
]

templates_path = ["_templates", sphinx_autosummary_accessors.templates_path]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
nitpicky = False
# the benchmark pages (benchmarks/*.md, included as they are) go from a title to
# third-level headings
suppress_warnings = ["myst.header"]

# --- API reference: autosummary + numpydoc --------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters say the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = {"GL08"}  # a public name without a docstring fails the build


def _unreadable(obj: object) -> bool:
    try:
        inspect.getsource(obj)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return True
    return False


# numpydoc's validator reads each object's source, which a function made at run time has
# not: hypothesis' composite strategies in daskpad.testing. They are left to
# ``_require_docstring`` below, which checks what GL08 checks for every documented object.
numpydoc_validation_exclude = {
    rf"^daskpad\.testing\.{name}$"
    for name in daskpad.testing.__all__
    if callable(getattr(daskpad.testing, name)) and _unreadable(getattr(daskpad.testing, name))
}

# --- markdown and notebooks -----------------------------------------------------------
myst_heading_anchors = 3  # GitHub-style anchors, so that "page.md#section" links resolve
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
nb_execution_mode = "cache"  # run in the build, kept by content: an unchanged one is not rerun
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_in_temp = True  # files a notebook writes go to a temporary directory
nb_execution_timeout = 300  # per cell
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# --- the gallery's pictures (matplotlib's plot directive) ------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 80)]
plot_rcparams = {"figure.max_open_warning": 0}

# --- HTML -----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"daskpad {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"index": [], "getting-started": []}
html_show_sourcelink = False
html_copy_source = False


def _require_docstring(app, what, name, obj, options, lines) -> None:
    """GL08 for every object the reference documents: one without a docstring fails."""
    if what in {"function", "method", "class", "module"} and not "".join(lines).strip():
        logger.warning("%s %s has no docstring (GL08)", what, name)


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _require_docstring, priority=400)
