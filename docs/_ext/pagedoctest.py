"""Run the examples of the site's pages while the site is built.

Every code block of a markdown page that starts with ``>>>`` is a doctest: the blocks of a
page run in order, in one namespace per page (nothing is imported for them), and a block
whose output differs from what it shows, or that raises where it shows no traceback, is a
warning at that block, so ``sphinx-build -W`` fails. Notebooks are left out: they run in
the build as notebooks.
"""

from __future__ import annotations

import doctest
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class _Collect(doctest.DocTestRunner):
    """A runner that keeps its failure reports instead of printing them."""

    def __init__(self) -> None:
        super().__init__(optionflags=FLAGS, verbose=False)
        self.reports: list[str] = []

    def _report(self, text: str) -> None:
        self.reports.append(text)


def _run_page(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    if app.env.doc2path(docname).suffix != ".md":
        return
    namespace: dict[str, Any] = {"__name__": "__page__"}
    parser = doctest.DocTestParser()
    for i, block in enumerate(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if not text.lstrip().startswith(">>>"):
            continue
        test = parser.get_doctest(text, namespace, f"{docname}[{i}]", docname, 0)
        runner = _Collect()
        runner.run(test, out=runner._report, clear_globs=False)
        if runner.failures:
            logger.warning("page example failed:\n%s", "".join(runner.reports), location=block)
        namespace.update(test.globs)  # (a DocTest runs in a copy of its namespace)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", _run_page)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
