"""How many model tokens a text is, estimated without a tokenizer (:func:`estimate_tokens`)."""
from __future__ import annotations

import re

#: Tokens per English word with common BPE tokenizers.
TOKENS_PER_WORD = 1.3

#: A run of visible ASCII characters (for plain English text: a whitespace-separated word).
_ASCII_WORD = re.compile(r"[\x21-\x7e]+")


def estimate_tokens(text: str, *, words_only: bool = False) -> int:
    """A cheap estimate of a text's token count.

    ``words_only=True``: words x :data:`TOKENS_PER_WORD` (the book's context sizes). Otherwise an
    upper-side estimate for any script, to guard a model's context (non-ASCII counts per UTF-8 byte).

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
