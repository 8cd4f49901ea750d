"""Corpora and datasets, one module each (imported lazily, so ``import gaba.data`` is cheap)."""
from __future__ import annotations

import importlib

_LAZY = {  # name -> submodule that defines it
    "load_gold_triples": "news", "load_gold_aliases": "news",
    "make_scaling_corpus": "synthetic",
    "load_greenhouse": "greenhouse",
}


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'gaba.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))
