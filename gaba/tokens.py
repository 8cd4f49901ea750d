"""How many model tokens a text is, estimated without a tokenizer.

One function, two estimates (``words_only``):

- the default guards a model's context (:func:`gaba.passages.check_document`): an upper-side
  estimate for any script;
- ``words_only=True`` is words x :data:`TOKENS_PER_WORD`, rounded down: the context sizes the
  book compares and prints (:func:`gaba.evaluate.context_tokens`, :func:`gaba.graph.hop_table`).

Examples
--------
>>> text = "Aurora Cell Works supplies Kestrel Motors."
>>> estimate_tokens(text), estimate_tokens(text, words_only=True)
(10, 7)
"""
from __future__ import annotations

import re

#: Tokens per English word with common BPE tokenizers.
TOKENS_PER_WORD = 1.3

#: A run of visible ASCII characters (for plain English text: a whitespace-separated word).
_ASCII_WORD = re.compile(r"[\x21-\x7e]+")


def estimate_tokens(text: str, *, words_only: bool = False) -> int:
    """A cheap estimate of a text's token count (no tokenizer needed).

    With ``words_only=True``: the whitespace-separated words x :data:`TOKENS_PER_WORD`, rounded
    down (English prose; the same for every system, which is what a comparison needs).

    Otherwise an upper-side estimate for any script, the one that guards a model's context:
    ASCII text counts the larger of characters / 4 and words x 1.3 (English with common BPE
    tokenizers). A non-ASCII character counts a third of a token per UTF-8 byte: 2/3 for
    accented Latin, Greek, Cyrillic, Hebrew or Arabic letters, 1 for a kana, Chinese character,
    Hangul syllable or Devanagari letter, 4/3 for an emoji. Byte-level BPE vocabularies split
    those scripts into more pieces than English, so characters / 4 undercounts them about 3x
    (a 22,800-character Japanese text is about 16,400 tokens; this estimate gives 22,800).

    Examples
    --------
    >>> estimate_tokens("Aurora Cell Works supplies Kestrel Motors.")
    10
    >>> estimate_tokens("オーロラ電池は北斗自動車に電池を納める。")
    20
    >>> estimate_tokens(" ".join(["w"] * 10), words_only=True)
    13
    """
    if words_only:
        return int(len(text.split()) * TOKENS_PER_WORD)
    ascii_chars = len(text.encode("ascii", "ignore"))
    non_ascii_bytes = len(text.encode("utf-8", "surrogatepass")) - ascii_chars
    ascii_words = len(_ASCII_WORD.findall(text))
    return max(ascii_chars // 4, round(ascii_words * TOKENS_PER_WORD)) + -(-non_ascii_bytes // 3)
