"""Helpers for the book's notebooks: :func:`glue` shows strings as plain text, not in quotes."""
from __future__ import annotations

from typing import Any

__all__ = ["Plain", "glue"]


class Plain:
    """A string whose plain-text representation is the string itself, without quotes."""

    def __init__(self, text: str) -> None:
        self.text = str(text)

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return str(other) == self.text if isinstance(other, (str, Plain)) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


def glue(name: str, value: Any, display: bool = True) -> None:
    """:func:`myst_nb.glue` ``name`` (the prose's ``{glue:}`name```), a ``str`` as :class:`Plain` text."""
    from myst_nb import glue as _glue
    _glue(name, Plain(value) if isinstance(value, str) else value, display=display)
