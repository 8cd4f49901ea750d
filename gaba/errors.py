"""Exceptions raised by :mod:`gaba`, each saying what went wrong and what to do.

All derive from :class:`GabaError`.
"""
from __future__ import annotations


class GabaError(Exception):
    """Base class of every error raised by :mod:`gaba`."""


class ConfigError(GabaError):
    """A setting in the environment or in ``.env`` is missing or invalid."""


class BackendUnavailable(GabaError):
    """The model backend cannot be reached or refused the credentials."""


class CacheMiss(GabaError):
    """Offline mode is on and a model call is not in the response cache."""


class LLMOutputError(GabaError):
    """The model's output did not satisfy the requested JSON schema after retries."""


class EntityNotFound(GabaError, KeyError):
    """An entity name is not a node of the graph (the message lists close matches)."""

    def __str__(self) -> str:  # KeyError would quote the message; keep it readable
        return str(self.args[0]) if self.args else ""


class NoPath(GabaError):
    """Two entities are not connected within the requested limits."""


class DocumentError(GabaError, ValueError):
    """A document cannot be used (empty, not text, or too long for the model)."""


class StoreError(GabaError):
    """The graph database failed: not started, died, or a query timed out."""


class CacheCorrupt(GabaError):
    """A recorded response in the cache is unreadable, malformed, or does not match its key."""


class QueryTimeout(StoreError):
    """A graph-database query ran past its time limit and the server cancelled it."""
