"""Documents and passages: what the extractor reads, sentence by sentence.

Taught in chapter "From text to a knowledge graph".
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .checks import check_positive_int, check_text
from .data.news import load_documents
from .errors import DocumentError
from .names import ABBREVIATIONS, UPPER
from .tokens import estimate_tokens


#: A document longer than this (estimated tokens) does not fit the local model's context.
MAX_DOCUMENT_TOKENS = 6000


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, but not after an abbreviation (:data:`gaba.names.ABBREVIATIONS`) or an initial.
    A blank line always ends a sentence (:func:`~gaba.data.news.plain_layout` separates blocks so).

    >>> split_sentences("Dr. Ann Lee met J. Tarn. They talked.")
    ['Dr. Ann Lee met J. Tarn.', 'They talked.']
    """
    check_text(text, "the text given to split_sentences")
    if len(blocks := re.split(r"\n[ \t]*\n", text.strip())) > 1:
        return [s for block in blocks for s in split_sentences(block)]
    parts = re.split(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?(?:" + UPPER + r"|\d))", text.strip())
    out: list[str] = []
    for p in (p.strip() for p in parts):
        if not p:
            continue
        last = re.search(r"(\w+)\.$", out[-1]) if out else None
        if last and (last.group(1).lower() in ABBREVIATIONS
                     or (len(last.group(1)) == 1 and last.group(1).isupper())):
            out[-1] = out[-1] + " " + p
        else:
            out.append(p)
    return out


def numbered_sentences(text: str) -> str:
    """The text as numbered sentences, one per line (``[1] ...``: what the open extractor reads)."""
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(split_sentences(text), 1))


#: Documents of more words are extracted passage by passage (dense text overran the answer cap).
PASSAGE_WORDS = 50


def split_document(doc: dict, max_words: int = PASSAGE_WORDS) -> list[dict]:
    """Split a long document into passages of whole sentences of at most ``max_words`` words.

    A short document is returned as it is; a passage has id ``"<id>#<n>"`` and ``"source"``.
    """
    require_document(doc, "split_document")
    check_positive_int("max_words", max_words)
    text = doc["text"]
    if len(text.split()) <= max_words:
        return [doc]
    sentences = split_sentences(text)
    if len(sentences) <= 1:
        return [doc]
    groups: list[list[str]] = []
    words = 0
    for sent in sentences:
        n = len(sent.split())
        if groups and words + n <= max_words:
            groups[-1].append(sent)
            words += n
        else:
            groups.append([sent])
            words = n
    return [{**doc, "id": f"{doc['id']}#{i}", "text": " ".join(g), "source": doc["id"]}
            for i, g in enumerate(groups, 1)]


def as_document(doc: Any) -> dict:
    """``doc`` (a string or a dict with ``text``) as a checked ``{"id", "text"}`` document."""
    if not isinstance(doc, (dict, str)):
        raise DocumentError(f"a document must be a string or a dict with 'text', not a "
                            f"{type(doc).__name__}.")
    d = load_documents([doc])[0]
    check_document(d)
    return d


def require_document(doc: Any, caller: str) -> None:
    """Raise TypeError unless ``doc`` is a dict with an ``"id"`` and a ``"text"`` string, as
    :func:`~gaba.data.news.load_documents` returns (``caller`` names the function in the message)."""
    if not isinstance(doc, Mapping) or "id" not in doc or not isinstance(doc.get("text"), str):
        raise TypeError(f"{caller} takes a document: a dict with 'id' and a 'text' string, not "
                        f"{doc!r:.60}; load_documents([...]) makes documents from strings.")


def check_document(doc: dict) -> None:
    """Raise :class:`~gaba.errors.DocumentError` if ``doc`` cannot be sent to the extractor."""
    require_document(doc, "check_document")
    n = estimate_tokens(doc["text"])
    if n > MAX_DOCUMENT_TOKENS:
        raise DocumentError(
            f"document {doc['id']!r} is about {n} tokens long; the extractor takes at most "
            f"{MAX_DOCUMENT_TOKENS}. Split it into smaller documents (paragraphs or sections).")
