"""Corpora and datasets, one module each (imported lazily, so ``import gaba.data`` is cheap)."""
from __future__ import annotations

import importlib

_LAZY = {  # name -> submodule that defines it
    "load_documents": "news", "load_gold_triples": "news", "load_gold_aliases": "news",
    "NEWS_PATH": "news",
    "load_hotpotqa": "benchmarks", "load_2wiki": "benchmarks", "load_musique": "benchmarks",
    "make_scaling_corpus": "synthetic",
    "load_westeros": "westeros", "synthetic_genealogy": "westeros",
    "load_greenhouse": "greenhouse",
    "load_collection": "transfer", "load_pooled": "transfer", "load_wikipedia": "transfer",
    "Case": "cases",
}


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'gaba.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))
