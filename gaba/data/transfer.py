"""Transfer collections: small corpora in domains unlike the book's company news, to measure
whether Graph RAG carries over to other kinds of text.

Four collections were written for this book and are entirely fictional (``academia``,
``sport``, ``history``, ``film_books``); each has 10 to 12 short documents, hand-written gold
triples and at least 9 questions (single-fact, two-hop, three-hop and unanswerable). A fifth,
``wikipedia``, holds 30 real paragraphs and 10 bridge questions from HotpotQA (CC BY-SA 4.0)
and 2WikiMultihopQA (Apache-2.0), plus 2 unanswerable questions written for the book. The
files live in ``assets/data/transfer/``; its README describes them.

As in the news corpus, the facts of a multi-hop chain sit in different documents, and no
document names both a question's start entity and its answer.

Examples
--------
>>> from gaba.data.transfer import COLLECTIONS, load_collection, load_cases
>>> COLLECTIONS
('academia', 'sport', 'history', 'film_books')
>>> docs = load_collection("history")
>>> docs[0]["id"], sorted(docs[0])
('hi01', ['date', 'id', 'text', 'title'])
>>> sorted({c.kind for c in load_cases("history")})
['single-fact', 'three-hop', 'two-hop', 'unanswerable']
"""
from __future__ import annotations

from ..config import ASSETS
from ..errors import DocumentError
from .cases import Case
from .news import _read_json, load_documents

#: Folder of the transfer collections, one sub-folder per collection.
TRANSFER_DIR = ASSETS / "data" / "transfer"
#: The four fictional collections written for the book.
COLLECTIONS = ("academia", "sport", "history", "film_books")
#: The collection of real Wikipedia paragraphs from HotpotQA and 2WikiMultihopQA.
WIKIPEDIA = "wikipedia"


def _folder(name: str, *, wikipedia: bool = True):
    valid = COLLECTIONS + ((WIKIPEDIA,) if wikipedia else ())
    if name not in valid:
        raise DocumentError(f"no transfer collection named {name!r}; valid names are "
                            f"{', '.join(repr(v) for v in valid)}.")
    return TRANSFER_DIR / name


def _cases(rows: list[dict]) -> list[Case]:
    return [Case(question=q["question"], expected=q["expected"], kind=q["kind"], id=q["id"],
                 evidence=q.get("evidence", [])) for q in rows]


def load_collection(name: str) -> list[dict]:
    """The documents of one collection, as ``{"id", "title", "date", "text"}`` dicts.

    Read with :func:`gaba.data.news.load_documents`, so the same checks apply (non-empty
    text, unique ids).

    Parameters
    ----------
    name : str
        One of :data:`COLLECTIONS`, or ``"wikipedia"``.

    Raises
    ------
    DocumentError
        ``name`` is not a collection; the message lists the valid names.

    Examples
    --------
    >>> len(load_collection("sport")) >= 10
    True
    """
    return load_documents(_folder(name) / "documents.json")


def load_gold(name: str) -> list[dict]:
    """The hand-written gold triples of a fictional collection.

    Each is a dict with ``subject``, ``relation`` (lowercase snake_case), ``object``
    (canonical names without titles), ``doc_id`` and ``evidence`` (the sentence, copied
    verbatim from that document). The ``wikipedia`` collection has none.

    Examples
    --------
    >>> sorted(load_gold("academia")[0])
    ['doc_id', 'evidence', 'object', 'relation', 'subject']
    """
    return _read_json(_folder(name, wikipedia=False) / "gold_triples.json")


def load_cases(name: str) -> list[Case]:
    """The questions of a collection as :class:`gaba.data.cases.Case` objects.

    ``evidence`` holds the gold triples ``(subject, relation, object)`` the answer needs
    (empty for unanswerable questions and for the ``wikipedia`` collection).

    Examples
    --------
    >>> case = load_cases("film_books")[0]
    >>> case.kind, case.expected
    ('single-fact', ('thistledown',))
    """
    return _cases(_read_json(_folder(name) / "questions.json"))


def load_pooled() -> tuple[list[dict], list[Case]]:
    """The four fictional collections pooled into one corpus: ``(documents, cases)``.

    Document ids carry a per-collection prefix (``ac``, ``sp``, ``hi``, ``fb``), so they stay
    unique; pooling makes every collection a distractor for the others.

    Examples
    --------
    >>> docs, cases = load_pooled()
    >>> len({d["id"] for d in docs}) == len(docs), len(cases) >= 36
    (True, True)
    """
    docs = load_documents([d for name in COLLECTIONS for d in load_collection(name)])
    cases = [c for name in COLLECTIONS for c in load_cases(name)]
    return docs, cases


def load_wikipedia() -> tuple[list[dict], list[Case]]:
    """The real Wikipedia paragraphs and their 12 questions: ``(documents, cases)``.

    Ten bridge questions come from HotpotQA and 2WikiMultihopQA (with their two supporting
    paragraphs and one distractor each); two unanswerable questions were written for the book.

    Examples
    --------
    >>> docs, cases = load_wikipedia()
    >>> len(docs), len(cases), cases[0].kind
    (30, 12, 'two-hop')
    """
    return load_collection(WIKIPEDIA), load_cases(WIKIPEDIA)
