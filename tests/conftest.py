"""Shared fixtures: an isolated cache folder and a scripted backend for plumbing tests."""
from __future__ import annotations

import pytest

from gaba import config, llm


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    """Point the LLM and embedding caches at a temporary folder (and re-read the settings)."""
    monkeypatch.setenv("GABA_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("GABA_EMBED_CACHE", str(tmp_path / "embed-cache"))
    monkeypatch.setenv("GABA_KG_CACHE", str(tmp_path / "kg-cache"))
    monkeypatch.delenv("GABA_OFFLINE", raising=False)
    config.reload()
    llm.reset_stats()
    yield tmp_path
    llm.use_backend(None)
    monkeypatch.undo()      # the environment first: settings read before it would keep the temporary
    config.reload()         # folders and GABA_OFFLINE unset for the tests that run after this one


class Scripted:
    """A backend that replays a list of replies and records the requests it was sent."""

    def __init__(self, *replies: str):
        self.replies = list(replies)
        self.requests: list[dict] = []

    def __call__(self, request: dict) -> dict:
        self.requests.append(request)
        text = self.replies.pop(0) if self.replies else "ok"
        if isinstance(text, Exception):
            raise text
        return {"text": text, "model": "scripted", "usage": {"prompt_tokens": 3, "completion_tokens": 2}}


@pytest.fixture
def scripted(tmp_cache):
    """Install a :class:`Scripted` backend; use ``scripted.replies.extend([...])``."""
    s = Scripted()
    llm.use_backend(s)
    return s
