"""How many model tokens a text is, estimated without a tokenizer (:func:`estimate_tokens`).

Taught in chapters "From text to a knowledge graph" and "Measuring graph against flat".
"""
from __future__ import annotations

import re

#: Tokens per English word with common BPE tokenizers.
TOKENS_PER_WORD = 1.3

#: A run of visible ASCII characters (for plain English text: a whitespace-separated word).
_ASCII_WORD = re.compile(r"[\x21-\x7e]+")


def estimate_tokens(text: str, *, words_only: bool = False) -> int:
    """A cheap estimate of a text's token count.

    ``words_only=True``: words x :data:`TOKENS_PER_WORD`, rounded down - the same for every system,
    for the context sizes the book compares (:func:`gaba.evaluate.context_tokens`).

    Otherwise an upper-side estimate for any script, which guards a model's context
    (:func:`gaba.passages.check_document`): ASCII counts the larger of characters / 4 and words x
    1.3; a non-ASCII character a third of a token per UTF-8 byte (2/3 for accented Latin or
    Cyrillic, 1 for a kana or Chinese character, 4/3 for an emoji), since byte-level BPE splits
    those scripts finer (characters / 4 undercounts Japanese about 3x).

    Examples
    --------
    >>> text = "Aurora Cell Works supplies Kestrel Motors."
    >>> estimate_tokens(text), estimate_tokens(text, words_only=True)
    (10, 7)
    """
    if words_only:
        return int(len(text.split()) * TOKENS_PER_WORD)
    ascii_chars = len(text.encode("ascii", "ignore"))
    non_ascii_bytes = len(text.encode("utf-8", "surrogatepass")) - ascii_chars
    ascii_words = len(_ASCII_WORD.findall(text))
    return max(ascii_chars // 4, round(ascii_words * TOKENS_PER_WORD)) + -(-non_ascii_bytes // 3)
