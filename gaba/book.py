"""Helpers for the book's notebooks (used by every chapter; no chapter teaches them).

The chapters put computed values into their prose with MyST-NB's ``{glue:}`` role. A glued
Python string would be shown through its ``repr``, in quotes (``'10/15 = 0.67'``);
:func:`glue` shows strings as plain text and passes every other value through unchanged.

Examples
--------
>>> Plain("10/15 = 0.67")
10/15 = 0.67
"""
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
    """:func:`myst_nb.glue`, with strings glued as :class:`Plain` text (no quotes in the book).

    Parameters
    ----------
    name : str
        The key the prose uses: ``{glue:}`name```.
    value : any
        The value; a ``str`` is wrapped in :class:`Plain`.
    display : bool
        Also show the value in the cell's output (as ``myst_nb.glue`` does).
    """
    from myst_nb import glue as _glue

    _glue(name, Plain(value) if isinstance(value, str) else value, display=display)
