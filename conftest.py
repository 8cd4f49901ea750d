"""Root pytest configuration: a full run (no paths given) must collect notebooks and unit tests."""
from __future__ import annotations

import pytest


def pytest_collection_modifyitems(session, config, items):
    explicit_paths = [a for a in config.invocation_params.args if not str(a).startswith("-")]
    if explicit_paths or not config.getoption("--nbval-lax", default=False):
        return
    paths = [str(getattr(i, "path", "")) for i in items]
    if not any(p.endswith(".ipynb") for p in paths):
        raise pytest.UsageError("no notebook was collected: nbval must run every chapter")
    if not any(p.endswith(".py") for p in paths):
        raise pytest.UsageError("no unit test was collected")
