"""Tests of gaba.data.synthetic: determinism, nesting, planted chains, popularity, bad input."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from gaba.data import make_scaling_corpus
from gaba.data.synthetic import RELATIONS, ChainQuestion, ScalingCorpus
from gaba.data.triple import Triple
from gaba.graph import gather_facts


@pytest.fixture(scope="module")
def c1400():
    return make_scaling_corpus(1400, seed=0)


def test_lazy_export_and_types(c1400):
    # gaba.data loads its generator only when the name is first used
    code = ("import sys, gaba.data; assert 'gaba.data.synthetic' not in sys.modules; "
            "gaba.data.make_scaling_corpus; assert 'gaba.data.synthetic' in sys.modules")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
    assert isinstance(c1400, ScalingCorpus)
    assert all(isinstance(q, ChainQuestion) for q in c1400.questions)
    assert all(isinstance(t, Triple) for t in c1400.all_triples())


def test_deterministic_under_the_seed():
    a, b = make_scaling_corpus(300, seed=3), make_scaling_corpus(300, seed=3)
    assert a.documents == b.documents
    assert a.triples == b.triples
    assert a.questions == b.questions
    assert a.aliases == b.aliases
    other = make_scaling_corpus(300, seed=4)
    assert [d["text"] for d in other.documents] != [d["text"] for d in a.documents]


def test_sizes_and_document_fields(c1400):
    docs = c1400.documents
    assert len(docs) == 1400 and len(c1400.questions) == 50
    assert len({d["id"] for d in docs}) == 1400
    for d in docs:
        assert set(d) == {"id", "title", "date", "text"}
        assert d["text"].strip() and d["title"].strip()
        assert len(d["date"]) == 10 and d["date"][4] == "-"
    assert [d["date"] for d in docs] == sorted(d["date"] for d in docs)
    assert set(c1400.triples) == {d["id"] for d in docs}


def test_gold_triples_are_exact(c1400):
    text = {d["id"]: d["text"] for d in c1400.documents}
    for t in c1400.all_triples():
        assert t.relation in RELATIONS
        assert t.evidence in text[t.doc_id]                  # evidence is a sentence of its document
        assert t.subject in t.evidence and t.object in t.evidence
        assert t.subject != t.object


def test_small_corpora_hold_fewer_questions():
    c = make_scaling_corpus(14)
    assert len(c.documents) == 14 and len(c.questions) == 7
    c = make_scaling_corpus(3, n_questions=5)
    assert len(c.documents) == 3 and len(c.questions) == 1


def test_corpora_are_nested():
    small, big = make_scaling_corpus(140), make_scaling_corpus(1400)
    big_docs = {d["id"]: d for d in big.documents}
    assert all(big_docs[d["id"]] == d for d in small.documents)
    assert small.questions == big.questions[:len(small.questions)]


def test_planted_chains(c1400):
    G = c1400.to_graph()
    docs = {d["id"]: d["text"] for d in c1400.documents}
    for q in c1400.questions:
        first, second = q.facts
        assert first.doc_id != second.doc_id
        # no document states both hops
        for doc_id, ts in c1400.triples.items():
            facts = {t.fact for t in ts}
            assert not (first.fact in facts and second.fact in facts), doc_id
        assert q.start in first.evidence and q.answer in second.evidence
        assert q.bridge in first.evidence and q.bridge in second.evidence
        assert q.start not in docs[second.doc_id]            # hop 2 never mentions the start
        assert q.start in q.question and q.question.endswith("?")
        # two hops from the start reach both facts; one hop does not reach the second
        assert {first.fact, second.fact} <= gather_facts(G, [q.start], hops=2)
        assert second.fact not in gather_facts(G, [q.start], hops=1)


def test_planted_answers_are_unique(c1400):
    G = c1400.to_graph()
    for q in c1400.questions:
        rel2 = q.facts[1].relation
        # the bridge takes part in exactly one fact of the second hop's relation
        n = sum(1 for _, _, k in G.in_edges(q.bridge, keys=True) if k == rel2) + \
            sum(1 for _, _, k in G.out_edges(q.bridge, keys=True) if k == rel2)
        assert n == 1, (q.id, q.bridge, rel2)


def test_every_kind_is_planted(c1400):
    kinds = {q.kind for q in c1400.questions}
    assert kinds == {"supplier_competitor", "supplier_ceo", "supplier_investor",
                     "supplier_acquirer", "ceo_board"}


def test_large_corpus_is_fast_and_has_hubs():
    t0 = time.perf_counter()
    c = make_scaling_corpus(14_000)
    seconds = time.perf_counter() - t0
    assert seconds < 20, f"14,000 documents took {seconds:.1f} s"
    assert len(c.documents) == 14_000
    summary = c.summary()
    assert summary["max_degree"] > 100                     # popular entities exist at scale
    G = c.to_graph()
    sizes = [len(gather_facts(G, [q.start], hops=2)) for q in c.questions[:5]]
    assert max(sizes) > 300


def test_aliases_are_unambiguous(c1400):
    seen = {}
    for name, aliases in c1400.aliases.items():
        for a in aliases:
            assert a not in seen, (a, name, seen.get(a))
            seen[a] = name
            assert name.startswith(a)
    G = c1400.to_graph()
    named = [n for n in G.nodes if G.nodes[n]["aliases"]]
    assert named


@pytest.mark.parametrize("kwargs", [
    {"n_docs": 1}, {"n_docs": 0}, {"n_docs": -5}, {"n_docs": "100"}, {"n_docs": 2.5},
    {"n_docs": True}, {"n_docs": 100, "n_questions": 0}, {"n_docs": 100, "seed": "x"},
])
def test_bad_input(kwargs):
    bad = list(kwargs)[-1]               # the error names the argument it refuses
    n = kwargs.pop("n_docs")
    with pytest.raises(ValueError, match=f"^{bad} must be"):
        make_scaling_corpus(n, **kwargs)


# ----------------------------------------------------------------------------- the trade wire

from gaba.data.tradewire import COMMODITIES, QUESTION_KINDS, make_trade_corpus  # noqa: E402


@pytest.fixture(scope="module")
def t1400():
    return make_trade_corpus(1400, seed=0)


def test_trade_is_deterministic_nested_and_seeded():
    a, b = make_trade_corpus(300, seed=3), make_trade_corpus(300, seed=3)
    assert a.documents == b.documents and a.triples == b.triples and a.questions == b.questions
    assert [d["text"] for d in make_trade_corpus(300, seed=4).documents] != [d["text"] for d in a.documents]
    small, big = make_trade_corpus(140), make_trade_corpus(1400)
    big_docs = {d["id"]: d for d in big.documents}
    assert all(big_docs[d["id"]] == d for d in small.documents)
    assert small.questions == big.questions[:len(small.questions)]
    c = make_trade_corpus(14)
    assert len(c.documents) == 14 and len(c.questions) == 7


def test_trade_names_relations_and_questions_unlike_the_book(t1400):
    relations = {t.relation for t in t1400.all_triples()}
    assert not relations & set(RELATIONS)
    assert all(r == r.lower() and " " not in r for r in relations)
    assert {f"ships_{w}_to" for w, _ in COMMODITIES.values()} <= relations
    book = make_scaling_corpus(1400)
    book_names = {t.subject for t in book.all_triples()} | {t.object for t in book.all_triples()}
    trade_names = {t.subject for t in t1400.all_triples()} | {t.object for t in t1400.all_triples()}
    assert not book_names & trade_names
    book_openings = {" ".join(q.question.split()[:3]) for q in book.questions}
    assert not book_openings & {" ".join(q.question.split()[:3]) for q in t1400.questions}
    assert {q.kind for q in t1400.questions} == set(QUESTION_KINDS)
    docs = {d["id"]: d["text"] for d in t1400.documents}
    for t in t1400.all_triples():
        assert t.evidence in docs[t.doc_id] and t.subject in t.evidence and t.object in t.evidence


def test_trade_chains_cross_documents(t1400):
    G = t1400.to_graph()
    docs = {d["id"]: d["text"] for d in t1400.documents}
    for q in t1400.questions:
        first, second = q.facts
        assert first.doc_id != second.doc_id
        assert not any({first.fact, second.fact} <= {t.fact for t in ts} for ts in t1400.triples.values())
        assert q.start in q.question and q.start in first.evidence and q.start not in docs[second.doc_id]
        assert q.bridge in first.evidence and q.bridge in second.evidence and q.answer in second.evidence
        assert {first.fact, second.fact} <= gather_facts(G, [q.start], hops=2)
        assert second.fact not in gather_facts(G, [q.start], hops=1)
        # the answer is unique: the bridge has one fact of the second hop's relation
        rel2 = second.relation
        n = sum(1 for _, _, k in G.in_edges(q.bridge, keys=True) if k == rel2) + \
            sum(1 for _, _, k in G.out_edges(q.bridge, keys=True) if k == rel2)
        assert n == 1, (q.id, q.bridge, rel2)
        if first.relation.startswith("ships_"):        # one supplier of that commodity
            assert sum(1 for _, _, k in G.in_edges(q.start, keys=True) if k == first.relation) == 1


def test_trade_plants_near_misses(t1400):
    """Beside each supply chain, the start takes another commodity from another supplier that
    has the same kind of second-hop fact (its own rival, backer, manager or owner)."""
    G = t1400.to_graph()
    checked = 0
    for q in t1400.questions:
        first, second = q.facts
        if not first.relation.startswith("ships_"):
            continue
        near = [s for s, _, k in G.in_edges(q.start, keys=True)
                if k.startswith("ships_") and k != first.relation and s != q.bridge
                and any(k2 == second.relation for *_, k2 in list(G.in_edges(s, keys=True)) + list(G.out_edges(s, keys=True)))]
        assert near, q.id
        checked += 1
    assert checked == 40


def test_trade_large_corpus_is_fast_and_has_hubs():
    t0 = time.perf_counter()
    c = make_trade_corpus(14_000)
    assert time.perf_counter() - t0 < 20
    assert len(c.documents) == 14_000 and c.summary()["max_degree"] > 100
    G = c.to_graph()
    assert max(len(gather_facts(G, [q.start], hops=2)) for q in c.questions[:5]) > 300


@pytest.mark.parametrize("kwargs", [{"n_docs": 1}, {"n_docs": "100"}, {"n_docs": True},
                                    {"n_docs": 100, "n_questions": 0}, {"n_docs": 100, "seed": 1.5}])
def test_trade_bad_input(kwargs):
    n = kwargs.pop("n_docs")
    with pytest.raises(ValueError):
        make_trade_corpus(n, **kwargs)
