"""The lab checkers accept a worked solution and reject typical mistakes with a specific hint."""
from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

from gaba.data.news import NEWS_PATH, load_documents, load_gold_triples
from gaba.evaluate import Case, wilson_interval
from gaba.labs import Check, LabReport, check_build_lab, check_evaluate_lab

NEW = {"id": "lab01", "title": "t", "date": "2024-08-01",
       "text": "Saltbox Retail Group has hired Brightline Audit to check its accounts."}


def _graph(extra=()):
    G = nx.MultiDiGraph()
    for t in list(load_gold_triples()) + list(extra):
        G.add_edge(t["subject"], t["object"], key=t["relation"], relation=t["relation"],
                   doc_id=t["doc_id"], evidence=t["evidence"])
    for n in G.nodes:
        G.nodes[n]["aliases"] = []
    return G


# Brightline Audit -> Saltbox <- Pacific Crest -> Kestrel Motors: three hops from Kestrel.
LAB_EDGE = {"subject": "Brightline Audit", "relation": "AUDITS", "object": "Saltbox Retail Group",
            "doc_id": "lab01", "evidence": NEW["text"]}
TRADEOFF = pd.DataFrame({"hops": [1, 2, 3, 4], "facts": [4, 11, 20, 26],
                         "relevant": [0.25, 0.18, 0.1, 0.08], "tokens": [30, 90, 160, 210]})


def _build_kwargs(**over):
    corpus = load_documents() + [NEW]
    kw = dict(answers_by_hops={1: "I don't know.", 2: "Voltaic Dynamics competes with Aurora."},
              corpus=corpus, corpus_path="lab-copy/news.json", new_doc_id="lab01",
              graph=_graph([LAB_EDGE]), chain=("Kestrel Motors", "Brightline Audit"),
              chain_answers={1: "I don't know.", 2: "I don't know.", 3: "Brightline Audit."},
              tradeoff=TRADEOFF)
    kw.update(over)
    return kw


def test_report_text_and_html():
    r = LabReport("x", [Check("ok", True), Check("bad", False, "do y")])
    assert "1 of 2" in str(r) and "hint: do y" in str(r) and "&#10008;" in r._repr_html_()


def test_build_lab_solution_passes():
    report = check_build_lab(**_build_kwargs())
    assert report.passed, str(report)


def test_build_lab_chain_too_short():
    short = dict(LAB_EDGE, object="Pacific Crest Logistics")   # 2 hops from Kestrel
    report = check_build_lab(**_build_kwargs(graph=_graph([short])))
    hints = " ".join(c.hint for c in report.failed)
    assert "chain of length 2, not 3" in hints and "Pacific Crest Logistics" in hints


def test_build_lab_edits_shipped_corpus():
    report = check_build_lab(**_build_kwargs(corpus_path=NEWS_PATH))
    assert any("copy" in c.hint for c in report.failed)


def test_build_lab_one_hop_already_answers():
    report = check_build_lab(**_build_kwargs(answers_by_hops={1: "Voltaic Dynamics", 2: "Voltaic Dynamics"}))
    assert any("hops=1 answer already names" in c.hint for c in report.failed)


def test_build_lab_no_edges_from_new_document():
    report = check_build_lab(**_build_kwargs(graph=_graph()))
    hints = " ".join(c.hint for c in report.failed)
    assert "no edge has doc_id 'lab01'" in hints


def test_build_lab_tradeoff_shrinking_facts():
    bad = TRADEOFF.assign(facts=[4, 11, 9, 26])
    report = check_build_lab(**_build_kwargs(tradeoff=bad))
    assert any("cannot shrink" in c.hint for c in report.failed)


CASES = [
    Case("Who competes with Kestrel Motors' battery supplier?", ["voltaic"], "two-hop"),
    Case("Who supplies chips to the company that acquired Orchard Software?", ["meridian"], "two-hop"),
    Case("Which board member connects Northwind Systems and Kestrel Motors?", ["voss"], "two-hop"),
    Case("Who audits the bank of Tidewater Hotels?", [], "unanswerable"),
    Case("Which lawyer advised Helio Capital on its Aurora investment?", [], "unanswerable"),
]


def _results(cases=CASES, trials=3, abstain_unans=True, answers=None):
    rows = []
    for c in cases:
        for t in range(trials):
            if c.answerable:
                ans = (answers or {}).get(c.question, c.expected[0].title() + " is the answer.")
                rows.append(dict(question=c.question, answerable=True, abstained=False, answer=ans,
                                 passed=True, trial=t))
            else:
                ans = "I don't know." if abstain_unans else (answers or {}).get(c.question, "Granite Bank.")
                rows.append(dict(question=c.question, answerable=False, abstained=abstain_unans,
                                 answer=ans, passed=abstain_unans, trial=t))
    return pd.DataFrame(rows)


def _rates(df):
    ans, una = df[df.answerable], df[~df.answerable]
    k1, n1 = int((~ans.abstained).sum()), len(ans)
    k2, n2 = int(una.abstained.sum()), len(una)
    return {"answer_rate": k1 / n1, "answer_n": n1, "answer_ci": wilson_interval(k1, n1),
            "abstain_rate": k2 / n2, "abstain_n": n2, "abstain_ci": wilson_interval(k2, n2)}


def test_evaluate_lab_solution_passes():
    df = _results()
    report = check_evaluate_lab(CASES, df, graph=_graph(), rates=_rates(df))
    assert report.passed, str(report)


def test_evaluate_lab_unanswerable_that_is_answerable():
    cases = CASES[:4] + [Case("Who invests in Kestrel Motors' battery supplier?", [], "unanswerable")]
    df = _results(cases, abstain_unans=False,
                  answers={"Who invests in Kestrel Motors' battery supplier?": "Helio Capital invests in Aurora."})
    report = check_evaluate_lab(cases, df, graph=_graph())
    assert any("may well answer this question" in c.hint for c in report.failed)


def test_evaluate_lab_wrong_denominator():
    df = _results()
    df.loc[df.index[0], "abstained"] = True          # one answerable trial abstained
    rates = _rates(df)
    rates["answer_rate"] = float((~df.abstained).sum() / len(df))   # over all 15 trials
    report = check_evaluate_lab(CASES, df, graph=_graph(), rates=rates)
    assert any("computed over all 15 trials" in c.hint for c in report.failed)


def test_evaluate_lab_single_fact_and_too_few_trials():
    cases = [Case("Which company acquired Orchard Software?", ["northwind"], "two-hop")] + CASES[1:]
    df = _results(cases, trials=1)
    report = check_evaluate_lab(cases, df, graph=_graph())
    hints = " ".join(c.hint for c in report.failed)
    assert "single-fact question" in hints and "coin toss" in hints


def test_evaluate_lab_missing_interval():
    df = _results()
    rates = _rates(df)
    rates.pop("answer_ci")
    report = check_evaluate_lab(CASES, df, graph=_graph(), rates=rates)
    assert any("Wilson 95% interval" in c.hint for c in report.failed)
