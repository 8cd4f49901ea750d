"""Fault probe: the document length check must not undercount non-Latin text.

Issue 18, probe 4: characters / 4 estimated a 22,800-character Japanese document at 5,700 tokens
(the local model's tokenizer counts about 16,400 against an 8,192 context), so the document passed
the check and failed at the model. gaba.tokens.estimate_tokens is now conservative for any script.
"""
from __future__ import annotations

import pytest

from gaba.data.news import load_documents
from gaba.errors import DocumentError
from gaba.passages import MAX_DOCUMENT_TOKENS, check_document
from gaba.tokens import estimate_tokens

#: An invented Japanese paragraph (a battery maker and a car maker), repeated to the probe's length.
JAPANESE = ("オーロラ電池工業は、北斗自動車に新型の蓄電池を納めると発表した。"
            "両社は三年前から共同で研究を進めており、来年には新しい工場が稼働する予定だ。"
            "社長の田中氏は記者会見で「品質と価格の両方で世界に挑む」と述べた。\n")
#: Tokens per character the local model's tokenizer gave the probe's Japanese text (16,400 / 22,800).
MEASURED_JA_RATE = 16_400 / 22_800


def japanese_document(chars: int = 22_800) -> str:
    return (JAPANESE * (chars // len(JAPANESE) + 1))[:chars]


def test_long_japanese_document_is_not_undercounted():
    text = japanese_document()
    assert len(text) == 22_800
    assert len(text) // 4 < MAX_DOCUMENT_TOKENS, "the probe: characters / 4 let this document through"
    assert estimate_tokens(text) >= 16_400
    with pytest.raises(DocumentError, match=r"about 2\d{4} tokens"):
        check_document({"id": "ja", "text": text})


@pytest.mark.parametrize("chars", [100, 2_000, 8_000])
def test_japanese_estimate_is_at_least_the_measured_rate(chars):
    assert estimate_tokens(japanese_document(chars)) >= MEASURED_JA_RATE * chars


@pytest.mark.parametrize("sample", [
    "Аврора поставляет аккумуляторы компании Кестрел Моторс уже три года.",     # Cyrillic
    "Η Αυρόρα προμηθεύει μπαταρίες στην Κέστρελ εδώ και τρία χρόνια.",        # Greek
    "오로라 전지는 케스트럴 자동차에 배터리를 공급한다.",                          # Hangul
    "ऑरोरा तीन साल से केस्ट्रेल मोटर्स को बैटरी देती है।",                           # Devanagari
    "奥罗拉电池公司向北斗汽车供应电池已有三年。",                                 # Chinese
])
def test_other_scripts_count_more_than_characters_over_four(sample):
    assert estimate_tokens(sample) >= len(sample) / 2


def test_english_news_article_is_unchanged_and_accepted():
    docs = load_documents()
    longest = max(docs, key=lambda d: len(d["text"]))
    for d in docs:
        text = d["text"].encode("ascii", "ignore").decode()
        assert estimate_tokens(text) == max(len(text) // 4, round(len(text.split()) * 1.3))
        check_document(d)
    article = " ".join(d["text"] for d in docs * 3)[:6_000]   # a long news article: ~900 words
    assert 800 < len(article.split()) and estimate_tokens(article) < MAX_DOCUMENT_TOKENS
    check_document({"id": "news", "text": article})
    assert estimate_tokens(longest["text"]) < MAX_DOCUMENT_TOKENS


def test_mixed_text_adds_both_parts():
    assert estimate_tokens("") == 0
    assert estimate_tokens("Zoë") == estimate_tokens("Zo") + 1              # ë: 2 bytes -> 2/3, rounded up
    assert estimate_tokens("Acme 電池") == estimate_tokens("Acme") + 2
    assert estimate_tokens("\ud800") == 1                                    # a lone surrogate does not crash
