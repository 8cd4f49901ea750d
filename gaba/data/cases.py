"""Evaluation cases: one test question, what a correct answer must name, and its gold evidence.

:class:`Case` is the unit of :func:`gaba.evaluate.run_eval` (which re-exports it as
``gaba.evaluate.Case``); the corpora of :mod:`gaba.data` that come with questions, such as
:func:`gaba.data.transfer.load_cases`, return them. Taught in chapter "Measuring graph against flat".

Examples
--------
>>> Case("Who runs Acme?", ["ada"], "single-fact").answerable
True
"""
from __future__ import annotations

import dataclasses

#: The kinds of question the evaluation distinguishes, in display order.
KINDS = ("single-fact", "two-hop", "three-hop", "unanswerable")

__all__ = ["KINDS", "Case"]


@dataclasses.dataclass(frozen=True)
class Case:
    """One evaluation question.

    Parameters
    ----------
    question : str
        The question as the systems receive it.
    expected : list of str
        Strings a passing answer must all contain (case-insensitive), e.g. ``["voltaic"]``.
        Empty for unanswerable questions.
    kind : {"single-fact", "two-hop", "three-hop", "unanswerable"}
        How many documents the answer needs (or that none holds it).
    answerable : bool, optional
        Whether the corpus holds the answer; by default ``kind != "unanswerable"``.
    id : str, optional
        A short name; :func:`gaba.evaluate.run_eval` numbers unnamed cases ``c01``, ``c02``, ...
    evidence : sequence, optional
        The gold supporting facts (triples, document ids...) a retriever must hand over for
        the question to be answerable from its context; used by retrieval-only metrics.

    A passing answer to an answerable case names every expected string and does not abstain;
    a passing answer to an unanswerable case abstains.

    Examples
    --------
    >>> Case("Which company acquired Orchard Software?", ["northwind"], "single-fact").answerable
    True
    """

    question: str
    expected: tuple[str, ...]
    kind: str
    answerable: bool | None = None
    id: str = ""
    evidence: tuple = ()

    def __post_init__(self) -> None:
        if not isinstance(self.question, str) or not self.question.strip():
            raise ValueError("Case.question must be a non-empty string.")
        if isinstance(self.expected, str):
            raise TypeError(f"Case.expected must be a list of strings, not the string "
                            f"{self.expected!r}; write [{self.expected!r}].")
        expected = tuple(str(e).strip() for e in self.expected)
        if any(not e for e in expected):
            raise ValueError(f"Case {self.question!r}: an expected string is empty.")
        if self.kind not in KINDS:
            raise ValueError(f"Case {self.question!r}: kind {self.kind!r} is not one of {KINDS}.")
        answerable = self.kind != "unanswerable" if self.answerable is None else bool(self.answerable)
        if answerable and not expected:
            raise ValueError(f"Case {self.question!r} is answerable but lists no expected string; "
                             f"say what a correct answer must name.")
        if answerable and self.kind == "unanswerable":
            raise ValueError(f"Case {self.question!r}: kind 'unanswerable' with answerable=True.")
        object.__setattr__(self, "expected", expected)
        object.__setattr__(self, "answerable", answerable)
        object.__setattr__(self, "evidence", tuple(tuple(e) if isinstance(e, list) else e
                                                   for e in self.evidence))
