"""How the scaling corpus's news items read: templates, filler sentences, dates.

Used by :mod:`gaba.data.synthetic`; :func:`write_document` turns one fact into a news item.
"""
from __future__ import annotations

import datetime as _dt
import random

from .triple import Triple

__all__ = ["write_document", "possessive"]

_REGIONS = ("the north", "the coastal region", "the river valley", "the capital", "the east",
            "the southern corridor", "the lake district", "the western plains")

_FILLERS = (
    "Financial terms were not disclosed.",
    "The agreement runs for {years} years.",
    "Shares of {a} rose {pct} percent on the news.",
    "Analysts said the move strengthens {a_s} position in {region}.",
    "The announcement came at an industry conference in {region}.",
    "{a} said more details would follow in its next quarterly report.",
    "The companies did not comment further.",
    "Industry observers called the step overdue.",
)

# Templates: (title, fact sentence). {a} is the subject, {b} the object, {p} a product phrase.
_TEMPLATES: dict[str, tuple[tuple[str, str], ...]] = {
    "SUPPLIES_TO": (
        ("{a} wins {p} contract from {b}", "{a} will supply {p} to {b} under a new contract."),
        ("{b} picks {a} for {p}", "{b} has chosen {a} as its supplier of {p}."),
        ("{a} to ship {p} to {b}", "{a} signed a deal to deliver {p} to {b} from next quarter."),
    ),
    "COMPETES_WITH": (
        ("{a} takes on {b}", "{a} competes with {b} for the same customers."),
        ("Rivalry heats up between {a} and {b}", "{a} and {b} are now direct rivals in {region}."),
        ("{a} undercuts {b} on price", "{a} cut its prices to win business from its competitor {b}."),
    ),
    "INVESTS_IN": (
        ("{a} leads funding round in {b}", "{a} led a new funding round in {b}."),
        ("{b} raises money from {a}", "{b} raised fresh capital from {a}."),
        ("{a} takes a stake in {b}", "{a} bought a minority stake in {b}."),
    ),
    "BOARD_MEMBER_OF": (
        ("{a} joins the board of {b}", "{a} has joined the board of directors of {b}."),
        ("{b} adds {a} to its board", "{b} appointed {a} to its board."),
    ),
    "CEO_OF": (
        ("{b} names {a} chief executive", "{b} named {a} as its chief executive officer."),
        ("{a} to lead {b}", "{a} takes over as CEO of {b} next month."),
    ),
    "ACQUIRED": (
        ("{a} acquires {b}", "{a} has acquired {b} in an all-cash deal."),
        ("{a} buys {b}", "{a} completed its purchase of {b}."),
    ),
    "PARTNERS_WITH": (
        ("{a} and {b} form partnership", "{a} formed a research partnership with {b}."),
        ("{a} teams up with {b}", "{a} and {b} agreed to develop products together."),
    ),
    "FOUNDED": (
        ("Profile: the founder of {b}", "{a} founded {b} a decade ago."),
        ("{a} recalls starting {b}", "{a}, who founded {b}, spoke about its early years."),
    ),
}
_PLAIN_NEWS = (
    ("{a} reports record quarter", "{a} reported record revenue for the quarter."),
    ("{a} opens new plant", "{a} opened a new plant in {region}."),
    ("{a} cuts jobs", "{a} announced it will cut two hundred jobs."),
    ("{a} unveils new product line", "{a} unveiled a new product line at its annual event."),
)


def possessive(name: str) -> str:
    """``"Kestrel Motors"`` -> ``"Kestrel Motors'"``, ``"Alderbrook"`` -> ``"Alderbrook's"``."""
    return name + ("'" if name.endswith("s") else "'s")


def _date(rng: random.Random) -> str:
    day = _dt.date(2021, 1, 1) + _dt.timedelta(days=rng.randrange(5 * 365))
    return day.isoformat()


def _filler(rng: random.Random, a: str) -> str:
    return rng.choice(_FILLERS).format(a=a, a_s=possessive(a), years=rng.randint(2, 7), pct=rng.randint(2, 14),
                                       region=rng.choice(_REGIONS))


def write_document(doc_id: str, rng: random.Random, relation: str | None, a: str, b: str,
                   product: str = "", extra: list[tuple[str, str, str, str]] | None = None
                   ) -> tuple[dict, list[Triple]]:
    """A news item stating ``a -[relation]-> b`` (news about ``a`` if no relation), and its triples.

    ``extra`` adds ``(relation, subject, object, sentence)`` facts; all randomness comes from ``rng``.

    Examples
    --------
    >>> import random
    >>> doc, triples = write_document("d1", random.Random(0), "ACQUIRED", "Alderbrook", "Fenwick")
    >>> triples[0].as_tuple()
    ('Alderbrook', 'ACQUIRED', 'Fenwick')
    """
    region = rng.choice(_REGIONS)
    if relation is None:
        title, sent = rng.choice(_PLAIN_NEWS)
        title, sent = title.format(a=a), sent.format(a=a, region=region)
        triples = []
    else:
        title, sent = rng.choice(_TEMPLATES[relation])
        title = title.format(a=a, b=b, p=product)
        sent = sent.format(a=a, b=b, p=product, region=region)
        triples = [Triple(a, relation, b, doc_id, sent)]
    sentences = [sent]
    for rel2, s2, o2, sent2 in extra or []:
        sentences.append(sent2)
        triples.append(Triple(s2, rel2, o2, doc_id, sent2))
    company = b if relation in ("CEO_OF", "BOARD_MEMBER_OF", "FOUNDED") else a
    sentences.append(_filler(rng, company))
    doc = {"id": doc_id, "title": title[0].upper() + title[1:], "date": _date(rng),
           "text": " ".join(sentences)}
    return doc, triples
