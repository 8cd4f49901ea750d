"""Tests of gaba.evaluate (cases, Wilson intervals, trials, rates, the plot) and gaba.retrieval_eval."""
from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

from gaba.evaluate import (Case, answer_abstain_rates, context_tokens, pass_rates, plot_pass_rates,
                           run_eval, score_answer, wilson_interval)
from gaba.retrieval_eval import evidence_recall


def refuses(answer: str) -> bool:
    return "cannot" in answer.lower()


CASES = [
    Case("Who is the chief executive of Meridian Semiconductors?", ["raman"], "single-fact"),
    Case("Who competes with Kestrel Motors' battery supplier?", ["voltaic"], "two-hop"),
    Case("Who is the CEO of Kestrel Motors' tyre supplier?", [], "unanswerable"),
]


# --- Case -----------------------------------------------------------------------------------

def test_case_defaults_and_normalisation():
    c = Case("q?", ["  voltaic "], "two-hop")
    assert c.expected == ("voltaic",) and c.answerable is True
    assert Case("q?", [], "unanswerable").answerable is False


@pytest.mark.parametrize("kwargs, error", [
    ({"question": "", "expected": ["a"], "kind": "two-hop"}, ValueError),
    ({"question": "q", "expected": "voltaic", "kind": "two-hop"}, TypeError),
    ({"question": "q", "expected": ["a"], "kind": "four-hop"}, ValueError),
    ({"question": "q", "expected": [], "kind": "two-hop"}, ValueError),
    ({"question": "q", "expected": [""], "kind": "two-hop"}, ValueError),
    ({"question": "q", "expected": ["a"], "kind": "unanswerable", "answerable": True}, ValueError),
])
def test_case_rejects_bad_input(kwargs, error):
    with pytest.raises(error):
        Case(**kwargs)


def test_string_expected_error_says_how_to_fix():
    with pytest.raises(TypeError, match=r"\['voltaic'\]"):
        Case("q", "voltaic", "two-hop")


def test_score_answer():
    two_hop, unanswerable = CASES[1], CASES[2]
    assert score_answer("It is VOLTAIC Dynamics.", two_hop, abstained=False)
    assert not score_answer("Aurora Cell Works.", two_hop, abstained=False)
    # naming the entity while abstaining is not a pass
    assert not score_answer("I cannot say whether Voltaic...", two_hop, abstained=True)
    assert score_answer("I cannot answer.", unanswerable, abstained=True)
    assert not score_answer("Bob.", unanswerable, abstained=False)


# --- Wilson ---------------------------------------------------------------------------------

def test_wilson_known_values():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # symmetric around one half
    lo, hi = wilson_interval(5, 10)
    assert lo + hi == pytest.approx(1.0)


@pytest.mark.parametrize("k, n, low, high", [
    # values of the hand-written formula gaba used before scipy, z = 1.96:
    # (p + z^2/2n +/- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    (18, 54, 0.222414165374926, 0.466390363988706),
    (0, 16, 0.0, 0.193607680534436),
    (16, 16, 0.806392319465564, 1.0),
    (0, 5, 0.0, 0.434482464783175),
    (2, 3, 0.207659600802048, 0.938508055279604),
    (1, 1, 0.206549314377237, 1.0),
])
def test_wilson_matches_the_formula_the_book_printed(k, n, low, high):
    # gaba.evaluate used to compute this formula by hand; scipy must give the same numbers.
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=1e-12)
    assert all(type(x) is float for x in got)


def test_wilson_at_18_of_54_is_22_to_47_percent():
    assert [round(x, 2) for x in wilson_interval(18, 54)] == [0.22, 0.47]
    assert wilson_interval(0, 16)[0] == 0.0 and wilson_interval(16, 16)[1] == 1.0


def test_wilson_other_z():
    # z = 1 (a 68% interval) is narrower than the default 95%, and still exact at the ends
    lo68, hi68 = wilson_interval(5, 20, z=1.0)
    lo95, hi95 = wilson_interval(5, 20)
    assert lo95 < lo68 < 0.25 < hi68 < hi95
    assert (lo68, hi68) == pytest.approx((0.166666666666667, 0.357142857142857), abs=1e-12)


def test_wilson_narrows_with_n():
    widths = [hi - lo for lo, hi in (wilson_interval(n // 2, n) for n in (4, 40, 400))]
    assert widths[0] > widths[1] > widths[2]


@pytest.mark.parametrize("k, n", [(3, 2), (-1, 5), (1, -1)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        wilson_interval(k, n)


def test_wilson_rejects_fractions():
    with pytest.raises(TypeError):
        wilson_interval(0.5, 2)


# --- run_eval -------------------------------------------------------------------------------

def test_run_eval_shape_seeds_and_scoring():
    calls = []

    def graph(question, seed):
        calls.append((question, seed))
        if "tyre" in question:
            return "I cannot answer from the facts.", [("a", "R", "b")]
        return "Raman; Voltaic Dynamics", [("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors")]

    def flat(question, seed, *, temperature):
        assert temperature == 0.7
        return "Raman" if seed == 0 else "I cannot tell."

    df = run_eval(CASES, {"graph": graph, "flat": flat}, trials=3, abstained=refuses,
                  progress=False)
    assert len(df) == len(CASES) * 2 * 3
    assert sorted({s for _, s in calls}) == [0, 1, 2]
    assert list(df.columns[:7]) == ["case", "question", "kind", "answerable", "system", "trial", "seed"]
    g = df[df.system == "graph"]
    assert g.passed.all()
    assert (g.context_tokens > 0).all()
    f = df[df.system == "flat"]
    assert f[f.case == "c01"].passed.tolist() == [True, False, False]
    assert f[f.case == "c03"].passed.tolist() == [False, True, True]
    assert f.context_tokens.isna().all()
    assert list(df.system.cat.categories) == ["graph", "flat"]


def test_run_eval_validates_before_calling():
    def never(q, seed):
        raise AssertionError("must not be called")

    with pytest.raises(ValueError):
        run_eval([], {"x": never}, abstained=refuses)
    with pytest.raises(ValueError):
        run_eval(CASES, {}, abstained=refuses)
    with pytest.raises(TypeError):
        run_eval(["a question"], {"x": never}, abstained=refuses)
    with pytest.raises(TypeError):
        run_eval(CASES, {"x": "not callable"}, abstained=refuses)
    with pytest.raises(ValueError):
        run_eval(CASES, {"x": never}, trials=0, abstained=refuses)
    with pytest.raises(ValueError):
        run_eval(CASES, {"x": never}, on_error="ignore", abstained=refuses)
    with pytest.raises(ValueError):
        run_eval([Case("a", ["x"], "two-hop", id="same"), Case("b", ["y"], "two-hop", id="same")],
                 {"x": never}, abstained=refuses)


def test_run_eval_warns_on_deterministic_trials():
    with pytest.warns(UserWarning, match="temperature=0"):
        run_eval(CASES[:1], {"x": lambda q, s: "Raman"}, trials=2, temperature=0.0,
                 abstained=refuses, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_eval(CASES[:1], {"x": lambda q, s: "Raman"}, trials=1, temperature=0.0,
                 abstained=refuses, progress=False)


def test_run_eval_error_names_case_and_system():
    def broken(q, seed):
        raise RuntimeError("backend down")

    with pytest.raises(RuntimeError, match=r"system 'b' failed on case c01"):
        run_eval(CASES, {"b": broken}, trials=1, abstained=refuses, progress=False)


def test_run_eval_record_keeps_going():
    def flaky(q, seed):
        if seed == 1:
            raise RuntimeError("timeout")
        return "Raman Voltaic"

    df = run_eval(CASES[:2], {"f": flaky}, trials=3, abstained=refuses, on_error="record",
                  progress=False)
    assert len(df) == 6
    bad = df[df.error != ""]
    assert len(bad) == 2 and not bad.passed.any() and bad.error.str.contains("timeout").all()


def test_run_eval_rejects_bad_system_output():
    with pytest.raises(TypeError, match="must return a string"):
        run_eval(CASES[:1], {"x": lambda q, s: 42}, trials=1, abstained=refuses, progress=False)


# --- rates ----------------------------------------------------------------------------------

def _results():
    answers = {"graph": {"c01": "Raman", "c02": "Voltaic", "c03": "cannot"},
               "flat": {"c01": "Raman", "c02": "Aurora", "c03": "Somebody"}}
    return run_eval(CASES, {name: (lambda table: lambda q, seed: table[
        {c.question: f"c{i + 1:02d}" for i, c in enumerate(CASES)}[q]])(t)
        for name, t in answers.items()}, trials=4, abstained=refuses, progress=False)


def test_pass_rates_with_intervals():
    s = pass_rates(_results())
    assert list(s.columns) == ["system", "kind", "k", "n", "questions", "rate", "low", "high"]
    assert len(s) == 6 and (s.n == 4).all() and (s.questions == 1).all()
    row = s[(s.system == "flat") & (s.kind == "two-hop")].iloc[0]
    assert (row.k, row.rate, row.low) == (0, 0.0, 0.0)
    assert row.high == pytest.approx(wilson_interval(0, 4)[1])
    assert s.system.tolist()[:3] == ["graph"] * 3  # systems keep the order they were given in


def test_pass_rates_per_question_counts_each_question_once():
    df = pd.DataFrame({"system": ["s"] * 6, "case": ["a"] * 3 + ["b"] * 3,
                       "passed": [True, True, False, False, False, True]})
    by_q = pass_rates(df, by=["system"], unit="question").iloc[0]
    assert (by_q.k, by_q.n) == (1, 2)
    with pytest.raises(ValueError):
        pass_rates(df, by=["system"], unit="case")
    with pytest.raises(KeyError):
        pass_rates(df, by=["kind"])


def test_answer_abstain_rates():
    r = answer_abstain_rates(_results())
    g = r[r.system == "graph"].set_index("measure")
    assert g.loc["answered (answerable)", "k"] == 8 and g.loc["answered (answerable)", "n"] == 8
    assert g.loc["abstained (unanswerable)", "rate"] == 1.0
    f = r[r.system == "flat"].set_index("measure")
    assert f.loc["abstained (unanswerable)", "k"] == 0


def test_plot_pass_rates_draws_bars_with_n():
    import matplotlib

    matplotlib.use("Agg")
    ax = plot_pass_rates(pass_rates(_results()))
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0].startswith("single-fact") and "(n=4)" in labels[0]
    assert len(ax.patches) == 6
    with pytest.raises(KeyError):
        plot_pass_rates(pd.DataFrame({"rate": [0.5]}))


# --- retrieval metrics ----------------------------------------------------------------------

def test_evidence_recall_triples_and_passages():
    gold = [("A", "R", "B"), ("B", "S", "C")]
    assert evidence_recall([("a", "R", "b"), ("x", "y", "z")], gold) == 0.5
    assert evidence_recall(gold + [("q", "r", "s")], gold) == 1.0
    assert evidence_recall([], gold) == 0.0
    assert evidence_recall(["d3", "d7"], ["d7", "d3"]) == 1.0
    assert evidence_recall(["d13"], ["d1"]) == 0.0  # ids compare whole, not as substrings
    assert evidence_recall(["Northwind  Systems acquired Orchard."], ["northwind systems acquired orchard."]) == 1.0


@pytest.mark.parametrize("args, error", [
    (([("a",)], []), ValueError),
    (("abc", ["a"]), TypeError),
    (([], ["a"]), None),
])
def test_evidence_recall_bad_input(args, error):
    if error is None:
        assert evidence_recall(*args) == 0.0
    else:
        with pytest.raises(error):
            evidence_recall(*args)


def test_context_tokens():
    assert context_tokens("") == 0 and context_tokens(None) == 0
    assert context_tokens("one two three") == 3
    assert context_tokens(" ".join(["w"] * 10)) == 13
    assert context_tokens(["one two", "three"]) == 3
    assert context_tokens([("A B", "R", "C")]) == math.floor(4 * 1.3)
    assert context_tokens([{"id": "d1", "text": "one two three"}]) == 3


# --- retrieval experiments (a deterministic bag-of-words embedder stands in for the model) ----

def bag_of_words(texts, kind="passage"):
    import hashlib
    import re

    import numpy as np

    out = np.zeros((len(texts), 128), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in re.findall(r"\w+", t.lower()):
            out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 128] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_take_within_budget():
    from gaba.retrieval_eval import take_within_budget

    assert take_within_budget(["a b", "c d e", "f"], 2) == ["a b"]
    assert take_within_budget(["a b c d"], 1) == []
    assert take_within_budget([], 10) == []
    assert take_within_budget([1, 2, 3], 5, size=lambda x: x) == [1, 2]
    with pytest.raises(ValueError):
        take_within_budget(["a"], -1)


def test_budget_recall_on_the_sample():
    from gaba.data.benchmarks import load_sample, load_sample_triples
    from gaba.retrieval_eval import budget_recall, retrieval_summary

    examples = load_sample("2wiki")
    df = budget_recall(examples, budgets=(20, 400), triples=load_sample_triples(),
                       embed=bag_of_words, progress=False)
    assert len(df) == len(examples) * 2 * 2
    assert set(df.method) == {"flat", "graph"}
    assert (df.context_tokens <= df.budget).all()
    s = retrieval_summary(df, by=["budget", "method"]).set_index(["budget", "method"])
    # every question names its entities exactly, so a generous budget holds all gold triples
    assert s.loc[(400, "graph"), "rate"] == 1.0
    assert s.loc[(20, "graph"), "rate"] < s.loc[(400, "graph"), "rate"]
    assert s.loc[(400, "flat"), "n"] == len(examples)
    with pytest.raises(ValueError, match="evidence triples"):
        budget_recall(load_sample("hotpotqa"), embed=bag_of_words, progress=False)


def test_budget_recall_accepts_a_ranker():
    from gaba.data.benchmarks import load_sample, load_sample_triples
    from gaba.retrieval_eval import budget_recall

    examples = load_sample("2wiki")[:6]
    seen = []

    def reverse(question, facts, G):
        seen.append(question)
        return list(reversed(facts))

    df = budget_recall(examples, budgets=(30,), triples=load_sample_triples(),
                       rankers={"hop order": None, "reversed": reverse}, embed=bag_of_words,
                       progress=False)
    assert len(seen) == 6 and len(df) == 18
    assert list(df.method.cat.categories) == ["flat", "hop order", "reversed"]
    with pytest.raises(ValueError):
        budget_recall(examples, rankers={"flat": None}, embed=bag_of_words, progress=False)


def test_plot_retrieval():
    import matplotlib

    matplotlib.use("Agg")
    from gaba.retrieval_eval import plot_retrieval

    s = pd.DataFrame({"size": [14, 140, 14, 140], "method": ["flat", "flat", "graph", "graph"],
                      "rate": [0.8, 0.1, 1.0, 1.0], "low": [0.5, 0.0, 0.7, 0.9],
                      "high": [0.95, 0.2, 1.0, 1.0], "median_tokens": [100, 100, 20, 60]})
    ax = plot_retrieval(s)
    assert ax.get_xscale() == "log" and len(ax.get_legend().get_texts()) == 2
    ax = plot_retrieval(s, y="median_tokens", logx=False)
    assert ax.get_xscale() == "linear"
    with pytest.raises(KeyError):
        plot_retrieval(s, x="budget")


def test_context_evidence_on_the_gold_news_graph(monkeypatch):
    import networkx as nx

    from gaba import embed, rag
    from gaba.data.news import load_documents, load_gold_triples
    from gaba.retrieval_eval import context_evidence

    monkeypatch.setattr(embed, "embed_texts", bag_of_words)    # flat_retrieve without the model
    monkeypatch.setattr(rag, "_doc_cache", {})

    gold = load_gold_triples()
    G = nx.MultiDiGraph()
    for t in gold:
        # a relation worded differently by an extractor still counts (pair-level match)
        G.add_edge(t["object"], t["subject"], key="X", relation="RELATED_TO")
    ev = {(t["subject"], t["relation"], t["object"]): t["doc_id"] for t in gold}

    def fact(s, r, o):
        return (s, r, o, ev[(s, r, o)])

    cases = [
        Case("Who competes with Kestrel Motors' battery supplier?", ["voltaic"], "two-hop", id="t1",
             evidence=[fact("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
                       fact("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works")]),
        Case("Who founded Bluepeak Robotics?", [], "unanswerable", id="u1"),
        Case("Which venture firm invested in the battery supplier of the company that Pacific Crest "
             "Logistics founded?", ["helio"], "three-hop", id="h3",
             evidence=[fact("Pacific Crest Logistics", "FOUNDED", "Kestrel Motors"),
                       fact("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
                       fact("Helio Capital", "INVESTS_IN", "Aurora Cell Works")]),
    ]
    df = context_evidence(cases, G, documents=load_documents(), hops=2, k=2)
    assert df.case.tolist() == ["t1", "h3"]  # unanswerable cases have no evidence to find
    row = df.set_index("case")
    assert row.loc["t1", "graph_has_evidence"]
    assert row.loc["h3", "graph_recall"] == pytest.approx(2 / 3)  # the third fact is a third hop
    assert 0 <= row.loc["t1", "flat_recall"] <= 1
    deeper = context_evidence(cases, G, documents=load_documents(), hops=3)
    assert deeper.set_index("case").loc["h3", "graph_has_evidence"]


def test_format_rates():
    from gaba.evaluate import format_rate, format_rates

    assert format_rate(0, 4) == "0/4 = 0.00 [0.00, 0.49]"
    s = pass_rates(_results())
    wide = format_rates(s, index=["kind"], columns="system")
    assert list(wide.columns) == ["graph", "flat"] and len(wide) == 3
    assert wide.loc["two-hop", "flat"].startswith("0/4 = 0.00")
    long = format_rates(s)
    assert list(long.columns) == ["system", "kind", "k/n = rate [95% interval]"]


def test_rag_systems_names_and_calls(monkeypatch):
    import networkx as nx

    from gaba import evaluate, rag

    calls = []
    monkeypatch.setattr(rag, "flat_rag", lambda q, k, documents, temperature, seed:
                        calls.append(("flat", k, temperature, seed)) or "A")
    monkeypatch.setattr(rag, "graph_rag", lambda q, G, hops, budget, grounding, temperature, seed, fact_order, rank,
                        second_look, clause_first: calls.append(("graph", hops, temperature, seed, budget, grounding,
                                                                 fact_order, rank, second_look, clause_first))
                        or ("B", []))
    G = nx.MultiDiGraph()
    systems = evaluate.rag_systems(G, k=2, hops=3)
    assert list(systems) == ["flat RAG (top-2)", "graph RAG (3 hops)"]
    systems["flat RAG (top-2)"]("q", 4, 0.7)
    systems["graph RAG (3 hops)"]("q", 1, 0.7)
    assert calls == [("flat", 2, 0.7, 4),
                     ("graph", 3, 0.7, 1, rag.DEFAULT_BUDGET, True, "hops", rag.DEFAULT_RANK, True, True)]
    assert list(evaluate.rag_systems(G, k=None, hops=2, grounding=False)) == ["graph RAG (2 hops, no grounding)"]
    once = evaluate.rag_systems(G, k=None, hops=3, second_look=False)
    assert list(once) == ["graph RAG (3 hops, one question)"]
    once["graph RAG (3 hops, one question)"]("q", 0, 0.0)
    assert calls[-1][-2] is False
    whole = evaluate.rag_systems(G, k=None, hops=3, clause_first=False)
    assert list(whole) == ["graph RAG (3 hops, whole question)"]
    whole["graph RAG (3 hops, whole question)"]("q", 0, 0.0)
    assert calls[-1][-1] is False
    assert list(evaluate.rag_systems(k=5, hops=None)) == ["flat RAG (top-5)"]
    with pytest.raises(ValueError, match="needs the knowledge graph"):
        evaluate.rag_systems(k=None, hops=2)


def test_rag_systems_forward_documents_budget_and_grounding(monkeypatch):
    import networkx as nx

    from gaba import evaluate, rag

    calls = []
    monkeypatch.setattr(rag, "flat_rag", lambda q, **kw: calls.append(("flat", kw)) or "A")
    monkeypatch.setattr(rag, "graph_rag", lambda q, G, **kw: calls.append(("graph", kw)) or ("B", []))
    docs = ["one passage", "another passage"]
    systems = evaluate.rag_systems(nx.MultiDiGraph(), k=1, hops=2, documents=docs, grounding=False, budget=None)
    assert list(systems) == ["flat RAG (top-1)", "graph RAG (2 hops, no grounding, every fact)"]
    for fn in systems.values():
        fn("q", 3, 0.0)
    assert calls == [("flat", {"k": 1, "documents": docs, "temperature": 0.0, "seed": 3}),
                     ("graph", {"hops": 2, "budget": None, "grounding": False, "temperature": 0.0, "seed": 3,
                                "fact_order": "hops", "rank": rag.DEFAULT_RANK, "second_look": True,
                                "clause_first": True})]
    calls.clear()
    evaluate.rag_systems(nx.MultiDiGraph(), k=None, budget=5, rank="combined")["graph RAG (3 hops, 5 facts, combined ranking)"](
        "q", 0, 0.0)                                   # graph_rag's default hops
    assert calls == [("graph", {"hops": rag.DEFAULT_HOPS, "budget": 5, "grounding": True, "temperature": 0.0, "seed": 0,
                                "fact_order": "hops", "rank": "combined", "second_look": True,
                                "clause_first": True})]
    calls.clear()
    evaluate.rag_systems(nx.MultiDiGraph(), k=None, fact_order="sorted")["graph RAG (3 hops, alphabetical order)"]("q", 0, 0.0)
    assert calls[0][1]["fact_order"] == "sorted"
