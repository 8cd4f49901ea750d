"""Transfer collections, small corpora unlike the company news, with their questions: four fictional
ones, ``wikipedia`` (30 real paragraphs, 12 questions from HotpotQA and 2WikiMultihopQA) and
thirteen held-out ones (:data:`HELD_OUT`, questions only, no gold triples) and those written later
by a helper that read no code of ``gaba`` (:data:`FRESH`). Files and licences:
``assets/data/transfer/README.md``."""
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
#: Collections written after the method, to try it as a reader would (``benchmarks/heldout_transfer.py``).
HELD_OUT = ("music", "food", "space", "rail", "health", "ports", "courts", "stage", "energy", "aviation",
            "museums", "vineyards", "ferries")
#: Collections written after the method by a helper that read none of its code (zoos and textiles
#: before two of its changes, architecture, beekeeping, alpine, gardens and chess after them,
#: ceramics, radio and forestry after every change; what each of the first seven showed was in part
#: fixed after it was measured) (``heldout_transfer.py --fresh``).
FRESH = ("zoos", "textiles", "architecture", "beekeeping", "alpine", "gardens", "chess", "ceramics", "radio",
         "forestry")


def _folder(name: str, *, gold: bool = False):
    """The folder of collection ``name``; ``gold=True`` allows only those with gold triples."""
    valid = COLLECTIONS + (() if gold else (WIKIPEDIA,) + HELD_OUT + FRESH)
    if name not in valid:
        raise DocumentError(f"no transfer collection named {name!r}; valid names are "
                            f"{', '.join(repr(v) for v in valid)}.")
    return TRANSFER_DIR / name


def load_collection(name: str) -> list[dict]:
    """The documents of collection ``name``: :data:`COLLECTIONS`, ``"wikipedia"``, :data:`HELD_OUT` or
    :data:`FRESH`."""
    return load_documents(_folder(name) / "documents.json")


def load_gold(name: str) -> list[dict]:
    """The hand-written gold triples of a fictional collection, as dicts (``evidence`` verbatim)."""
    return _read_json(_folder(name, gold=True) / "gold_triples.json")


def load_cases(name: str) -> list[Case]:
    """The questions of a collection as :class:`gaba.data.cases.Case` objects.

    >>> case = load_cases("film_books")[0]
    >>> case.kind, case.expected
    ('single-fact', ('thistledown',))
    """
    return [Case(question=q["question"], expected=q["expected"], kind=q["kind"], id=q["id"],
                 evidence=q.get("evidence", [])) for q in _read_json(_folder(name) / "questions.json")]


def load_pooled() -> tuple[list[dict], list[Case]]:
    """The four fictional collections pooled into one corpus: ``(documents, cases)``."""
    docs = load_documents([d for name in COLLECTIONS for d in load_collection(name)])
    cases = [c for name in COLLECTIONS for c in load_cases(name)]
    return docs, cases


def load_wikipedia() -> tuple[list[dict], list[Case]]:
    """The real Wikipedia paragraphs and their 12 questions: ``(documents, cases)``."""
    return load_collection(WIKIPEDIA), load_cases(WIKIPEDIA)
