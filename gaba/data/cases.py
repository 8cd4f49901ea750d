"""Evaluation cases (chapter "Measuring graph against flat"): a test question, what a correct answer
must name, and its gold evidence."""
from __future__ import annotations

import dataclasses

#: The kinds of question the evaluation distinguishes, in display order.
KINDS = ("single-fact", "two-hop", "three-hop", "unanswerable")

__all__ = ["KINDS", "Case"]


@dataclasses.dataclass(frozen=True)
class Case:
    """One evaluation question.

    An answerable case passes when the answer contains every ``expected`` string (any case) and does
    not abstain; an unanswerable one when it abstains. ``kind``: ``"single-fact"``, ``"two-hop"``,
    ``"three-hop"`` or ``"unanswerable"``; ``evidence``: gold facts for retrieval-only metrics.
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
