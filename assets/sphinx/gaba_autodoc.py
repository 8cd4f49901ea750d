"""Autodoc without the build machine's paths (a local Sphinx extension, see ``_config.yml``).

A module constant that is a filesystem path (``gaba.config.ROOT``, ``gaba.data.news.NEWS_PATH``,
...) is computed from where the package sits, so autodoc would print the absolute path of the
folder the book was built in: a path the reader does not have. Such a constant is documented
without its value; its comment says where it points. Other constants keep their values.
"""
from __future__ import annotations

from pathlib import PurePath

from sphinx.ext.autodoc import DataDocumenter


class PathlessDataDocumenter(DataDocumenter):
    """``DataDocumenter`` that leaves out the value of a path constant."""

    def should_suppress_value_header(self) -> bool:
        return isinstance(self.object, PurePath) or super().should_suppress_value_header()


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(PathlessDataDocumenter, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
