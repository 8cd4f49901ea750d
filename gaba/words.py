"""Words of names and questions, compared across spellings: folding, tokens, name words, stems.
Generic English rules only: no word list of any corpus."""
from __future__ import annotations

import re
import unicodedata

from .names import FUNCTION_WORDS, fold

__all__ = ["fold", "token_spans", "phrase_key", "strip_diacritics", "name_tokens", "comma_head", "NAME_STOP",
           "STOP_WORDS", "word_stems"]

_HONORIFICS = frozenset("""mr mrs ms miss dr prof professor sir dame lady lord saint st rev
reverend fr father hon honourable honorable jr sr junior senior""".split())
#: Connector words inside names ("Margaret of Henneberg", "Ludwig van Beethoven").
NAME_STOP = frozenset("""of the de la le von van der den di da del du des y and el al""".split())

_TOKEN = re.compile(r"\w+|[^\w\s]")


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """(folded token, start, end) for words and single punctuation marks (offsets into ``text``)."""
    return [(fold(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def phrase_key(text: str) -> tuple[str, ...]:
    """Exact-tier key: folded tokens, without punctuation at either end."""
    toks = [t for t, _, _ in token_spans(text)]
    while toks and not toks[0][0].isalnum():
        toks.pop(0)
    while toks and not toks[-1][-1].isalnum():
        toks.pop()
    return tuple(toks)


def strip_diacritics(word: str) -> str:
    """``"Gábor"`` -> ``"Gabor"``."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def name_tokens(name: str) -> list[str]:
    """The content words of a name: folded, without diacritics, qualifiers, honorifics or connectors.

    >>> name_tokens("Sir Henry Vane-Tempest (politician)")
    ['henry', 'vane', 'tempest']
    """
    text = re.sub(r"\([^)]*\)", " ", name)
    text = re.sub(r"['\u2019]s\b", "", text)
    words = [strip_diacritics(w) for w in re.findall(r"\w+", fold(text))]
    return [w for w in words if w not in NAME_STOP and w not in _HONORIFICS]


def comma_head(name: str) -> list[str] | None:
    """The :func:`name_tokens` before a comma title ("Thomas Stanley, 1st Earl"), or None without a comma."""
    return name_tokens(name.split(",")[0]) if "," in name else None


#: Words skipped when words are compared: generic English function and question words.
STOP_WORDS = FUNCTION_WORDS | frozenset("""or nor not no is are was were be been being am do does
did done has have had having can could would should will shall may might must who whom whose which
what where why how these those there here it its he him his she her hers they them their theirs we
us our you your i me my than then so such very also too only just both either neither each every any
all some other another same own more most less least much many few one about into onto over under
between among through during above below up down out off again once if whether because until against
per via name tell give list show find please s t""".split())


def _stem(word: str) -> str:
    """A light English stem of a folded word, at most five letters ("runs" -> "run", "class" stays)."""
    if len(word) > 3 and not word.endswith(("ss", "us", "is")):
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                    word = word[:-1]            # "shipping" -> "ship"
                break
    return word[:5]


def word_stems(text: str) -> list[str]:
    """The content words of a text as light stems: no stop words, endings dropped, cut to five letters.

    >>> word_stems("Who is shipping batteries to the supplier?")
    ['ship', 'batte', 'suppl']
    """
    words = re.findall(r"[^\W_]+", strip_diacritics(fold(text)))
    return [_stem(w) for w in words if w not in STOP_WORDS]

