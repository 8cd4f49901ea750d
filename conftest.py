"""Root pytest configuration.

- nbval runs every chapter of the book: the notebooks listed in ``_toc.yml``. A notebook that is
  not in the table of contents is a draft, not a chapter, and is not collected.
- A full run (no paths given) must collect notebooks and unit tests, or it fails.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def book_chapters() -> set[Path]:
    """The notebooks the book's ``_toc.yml`` lists."""
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    return {(ROOT / f"{m}.ipynb").resolve() for m in re.findall(r"file:\s*(\S+)", toc)}


def pytest_ignore_collect(collection_path, config):
    p = Path(str(collection_path))
    if p.suffix == ".ipynb" and "chapters" in p.parts:
        named = {Path(str(a)).resolve() for a in config.invocation_params.args if not str(a).startswith("-")}
        return p.resolve() not in book_chapters() | named
    return None


def pytest_collection_modifyitems(session, config, items):
    explicit_paths = [a for a in config.invocation_params.args if not str(a).startswith("-")]
    if explicit_paths or not config.getoption("--nbval-lax", default=False):
        return
    paths = [str(getattr(i, "path", "")) for i in items]
    if not any(p.endswith(".ipynb") for p in paths):
        raise pytest.UsageError("no notebook was collected: nbval must run every chapter")
    if not any(p.endswith(".py") for p in paths):
        raise pytest.UsageError("no unit test was collected")
