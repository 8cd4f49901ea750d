"""The greenhouse corpus of chapter "Multi-hop from scratch": five short fictional notes, our own
reference triples for them, and a question that needs three of the notes at once."""
from __future__ import annotations

import json
from functools import lru_cache

from ..config import ASSETS
from ..errors import DocumentError

#: The corpus file (JSON: question, answer, documents, reference_triples).
GREENHOUSE_PATH = ASSETS / "data" / "greenhouse" / "greenhouse.json"


@lru_cache(maxsize=1)
def _read() -> dict:
    try:
        data = json.loads(GREENHOUSE_PATH.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DocumentError(f"{GREENHOUSE_PATH} is missing; it ships with the book's repository "
                            "(restore it with `git checkout assets/data/greenhouse`).") from exc
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{GREENHOUSE_PATH} is not valid JSON ({exc.msg}, line {exc.lineno}).") from exc
    docs = data.get("documents")
    if not isinstance(docs, list) or not docs:
        raise DocumentError(f"{GREENHOUSE_PATH} has no 'documents' list.")
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict) or not isinstance(doc.get("id"), str) or \
                not isinstance(doc.get("text"), str) or not doc["text"].strip():
            raise DocumentError(f"greenhouse document at position {i} needs a string 'id' and a "
                                "non-empty string 'text'.")
    return data


def load_greenhouse() -> list[dict]:
    """The five greenhouse notes, in order, as ``{"id", "title", "text"}`` dicts (a fresh list)."""
    return [{"id": d["id"], "title": d.get("title", ""), "text": d["text"]} for d in _read()["documents"]]


def load_greenhouse_triples(*, with_doc_ids: bool = False) -> list[tuple]:
    """Our hand-written reading of the notes: ``(subject, relation, object)`` triples.

    >>> load_greenhouse_triples(with_doc_ids=True)[0]
    ('humidity sensor', 'located in', 'greenhouse', 'gh1')
    """
    rows = [tuple(t) for t in _read()["reference_triples"]]
    return rows if with_doc_ids else [t[:3] for t in rows]


def greenhouse_question() -> tuple[str, str]:
    """The chapter's question and the name its answer must contain."""
    data = _read()
    return data["question"], data["answer"]
