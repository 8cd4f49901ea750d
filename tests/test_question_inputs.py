"""Hostile and unusual input to the question-answering functions: a clear error, never a crash.

Graphs a reader builds by hand (numbers or tuples as node names, aliases that are not lists,
evidence that is not text), questions that are not text, replies that are not text, malformed
facts, and evaluation systems whose output cannot be counted. Invented names only.
"""
from __future__ import annotations

import math

import networkx as nx
import pandas as pd
import pytest

from gaba import answer, answer_kind, citation, evaluate, graph, link, rag, rank, relevance, stepwise
from gaba.data.cases import Case
from gaba.entities import find_entities

pytestmark = pytest.mark.usefixtures("tmp_cache")     # embeddings and replies go to a temporary folder

REPLY = "Facts used: Orlo Vance owns Tessa Mill.\nAnswer: Orlo Vance"
FACTS = [("Orlo Vance", "OWNS", "Tessa Mill")]


def _graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_edge("Orlo Vance", "Tessa Mill", key="OWNS", relation="OWNS",
               evidence="Orlo Vance owns Tessa Mill.")
    G.add_edge("Brim Quarry", "Tessa Mill", key="SUPPLIES_TO", relation="SUPPLIES_TO")
    return G


# --- graphs whose node names are not strings --------------------------------------------------

@pytest.mark.parametrize("a, b", [(1, 2), (("Orlo", "Vance"), ("Tessa",)), (1.5, "Tessa Mill")])
def test_link_entities_refuses_node_names_that_are_not_strings(a, b):
    G = nx.MultiDiGraph()
    G.add_edge(a, b, relation="OWNS")
    with pytest.raises(TypeError, match=r"node names are strings.*relabel_nodes\(G, str\)"):
        link.link_entities("What does Tessa own?", G)


def test_graph_rag_refuses_node_names_that_are_not_strings(scripted):
    G = nx.MultiDiGraph()
    G.add_edge(1, 2, relation="OWNS")
    with pytest.raises(TypeError, match=r"node 1 is of type int; relabel"):
        rag.graph_rag("What does 1 own?", G)
    assert scripted.requests == []


def test_a_relabelled_graph_answers():
    G = nx.relabel_nodes(nx.MultiDiGraph([(1, 2)]), str)
    answer_text, facts = rag.graph_rag("What is the weather?", G)
    assert answer_text.startswith(answer.ABSTAIN) and facts == []


# --- aliases and evidence that are not lists of text ---------------------------------------------

@pytest.mark.parametrize("aliases", [5, float("nan"), None, ("Vance",), {"Vance": 1}])
def test_aliases_that_are_not_a_list_are_read_or_ignored(aliases):
    G = _graph()
    G.nodes["Orlo Vance"]["aliases"] = aliases
    assert find_entities("What does Orlo Vance own?", G) == ["Orlo Vance"]
    assert link.link_entities("What does Orlo Vance own?", G).names == ["Orlo Vance"]
    facts = sorted(graph.gather_facts(G, "Orlo Vance"))
    for method in ("lexical", "combined"):
        assert len(rank.rank_facts("What does Orlo Vance own?", facts, G, budget=1, method=method)) == 1


def test_graph_rag_with_an_alias_that_is_a_number(scripted):
    G = _graph()
    G.nodes["Orlo Vance"]["aliases"] = 7
    scripted.replies.append("Facts used: Orlo Vance owns Tessa Mill.\nAnswer: Tessa Mill")
    answer_text, _ = rag.graph_rag("What does Orlo Vance own?", G, budget=1)
    assert answer_text == "Tessa Mill"


@pytest.mark.parametrize("evidence", [7, 2.5, True])
def test_fact_evidence_skips_evidence_that_is_not_text(evidence):
    G = _graph()
    G.add_edge("Orlo Vance", "Brim Quarry", key="KNOWS", relation="KNOWS", evidence=evidence,
               sources=[("d1", "Orlo Vance knows Brim Quarry."), "loose", None])
    assert graph.fact_evidence(G, [("Orlo Vance", "KNOWS", "Brim Quarry")]) == ["Orlo Vance knows Brim Quarry."]


# --- entities that are not a name or a list of names ---------------------------------------------

@pytest.mark.parametrize("entities", [12, None, b"Orlo Vance", {"Orlo Vance": 1}])
def test_gather_facts_refuses_entities_that_are_not_names(entities):
    with pytest.raises(TypeError, match="a name or a list of names"):
        graph.gather_facts(_graph(), entities)


def test_gather_facts_takes_one_node_of_a_graph_named_by_numbers():
    G = nx.MultiDiGraph([(3, 4, "R")])
    assert graph.gather_facts(G, 3, hops=1) == {("3", "R", "4")}


# --- questions that are not text -------------------------------------------------------------------

LONE = "Who owns \ud800 Tessa Mill?"     # a lone surrogate: what a bad byte on the command line becomes


def test_graph_rag_refuses_a_lone_surrogate_before_the_model_call(scripted):
    with pytest.raises(ValueError, match=r"position 9.*retype the question"):
        rag.graph_rag(LONE, _graph())
    assert scripted.requests == []


def test_stepwise_refuses_a_lone_surrogate_before_the_model_call(scripted):
    with pytest.raises(ValueError, match="retype the question"):
        stepwise.graph_rag_stepwise(LONE, _graph())
    assert scripted.requests == []


def test_flat_retrieve_refuses_a_lone_surrogate():
    with pytest.raises(ValueError, match="retype the question"):
        rag.flat_retrieve(LONE, documents=["Orlo Vance owns Tessa Mill."])


def test_cli_ask_refuses_a_bad_byte_in_one_line(tmp_path, monkeypatch, capsys):
    from gaba.__main__ import main

    path = tmp_path / "g.json"
    graph.save_graph(_graph(), path)
    monkeypatch.setenv("GABA_OFFLINE", "1")
    assert main(["ask", LONE.replace("\ud800", "\udcff"), "--graph", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "retype the question" in err[0]


# --- replies and facts that are not what the model or the reader should give -----------------------

@pytest.mark.parametrize("reply", [5, b"Answer: Orlo Vance", ["Answer: Orlo Vance"]])
def test_grounding_refuses_a_reply_that_is_not_text(reply):
    for call in (lambda: answer.check_grounding(reply, FACTS, ["Tessa Mill"]),
                 lambda: citation.cited_facts(reply, FACTS),
                 lambda: answer.final_answer(reply), lambda: answer.is_abstention(reply)):
        with pytest.raises(TypeError, match="model's text"):
            call()


def test_grounding_still_reads_no_reply_as_an_abstention():
    assert answer.check_grounding(None, FACTS, ["Tessa Mill"]).accepted
    assert answer.final_answer(None) == ""


@pytest.mark.parametrize("facts", [[("Orlo Vance", "OWNS")], [("Orlo Vance", 1, "Tessa Mill")], None, 5])
def test_grounding_and_prompt_refuse_malformed_facts(facts):
    with pytest.raises(TypeError, match="fact"):
        answer.check_grounding(REPLY, facts, ["Tessa Mill"])
    with pytest.raises(TypeError, match="fact"):
        answer.answer_prompt("What owns Tessa Mill?", facts if facts is not None else 5)


def test_grounding_takes_one_entity_as_a_string():
    reply = "Facts used: Orlo Vance owns Tessa Mill.\nAnswer: Orlo Vance"
    as_list = answer.check_grounding(reply, FACTS, ["Tessa Mill"])
    assert as_list.accepted
    assert answer.check_grounding(reply, FACTS, "Tessa Mill") == as_list


def test_prompt_and_question_word_refuse_a_question_that_is_not_text():
    with pytest.raises(TypeError, match="question must be a string"):
        answer.answer_prompt(None, FACTS)
    with pytest.raises(TypeError, match="question must be a string"):
        answer_kind.question_word(None)


# --- ranking -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("facts", [None, 5, [{}], [{"Orlo"}]])
def test_rank_facts_refuses_facts_that_are_not_triples(facts):
    with pytest.raises(TypeError, match="fact"):
        rank.rank_facts("Who owns Tessa Mill?", facts, None, budget=1, method="hop")


def test_rank_facts_refuses_entities_that_are_not_names():
    with pytest.raises(TypeError, match="a name or a list of names"):
        rank.rank_facts("Who owns Tessa Mill?", FACTS, None, budget=1, method="hop", entities=5)


def test_ppr_flow_needs_one_weight_per_fact():
    facts = FACTS + [("Brim Quarry", "SUPPLIES_TO", "Tessa Mill")]
    with pytest.raises(ValueError, match="one weight per fact"):
        relevance.ppr_flow(facts, ["Tessa Mill"], [1.0])


# --- evaluation -----------------------------------------------------------------------------------------

CASES = [Case("Who owns Tessa Mill?", ["orlo"], "single-fact"), Case("Who owns Brim Quarry?", ["orlo"], "single-fact")]


@pytest.mark.parametrize("context", [float("nan"), 5])
def test_run_eval_records_a_context_it_cannot_count_and_keeps_the_other_rows(context):
    systems = {"good": lambda q, seed: "Orlo Vance", "odd": lambda q, seed: ("Orlo Vance", context)}
    df = evaluate.run_eval(CASES, systems, trials=1, on_error="record", progress=False)
    assert len(df) == 4
    odd = df[df.system == "odd"]
    assert odd.error.str.startswith("TypeError").all() and not odd.passed.any()
    assert df[df.system == "good"].passed.all()


def test_run_eval_records_an_abstention_test_that_raises():
    df = evaluate.run_eval(CASES, {"s": lambda q, seed: "Orlo Vance"}, trials=1, on_error="record",
                           abstained=lambda a: 1 / 0, progress=False)
    assert len(df) == 2 and df.error.str.startswith("ZeroDivisionError").all()


def test_run_eval_reraises_an_error_whose_class_takes_other_arguments():
    def system(question, seed):
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")

    with pytest.raises(RuntimeError, match=r"system 's' failed on case c01.*UnicodeDecodeError") as info:
        evaluate.run_eval(CASES, {"s": system}, trials=1, progress=False)
    assert isinstance(info.value.__cause__, UnicodeDecodeError)


@pytest.mark.parametrize("option", [{"trials": math.inf}, {"trials": math.nan}, {"concurrency": math.inf},
                                    {"temperature": math.nan}, {"temperature": "hot"}, {"first_seed": "a"}])
def test_run_eval_refuses_odd_numbers(option):
    with pytest.raises(ValueError, match="must be"):
        evaluate.run_eval(CASES, {"s": lambda q, seed: "x"}, progress=False, **{"trials": 1, **option})


@pytest.mark.parametrize("k, n", [(math.nan, 3), (3, math.inf), (None, 2)])
def test_wilson_interval_refuses_counts_that_are_not_whole(k, n):
    with pytest.raises(TypeError, match="integer counts"):
        evaluate.wilson_interval(k, n)


@pytest.mark.parametrize("z", [-1, 0, math.nan, "a"])
def test_wilson_interval_refuses_a_bad_z(z):
    with pytest.raises(ValueError, match="z must be a positive number"):
        evaluate.wilson_interval(1, 2, z=z)


def test_pass_rates_odd_tables():
    df = pd.DataFrame({"system": ["g", "g"], "kind": ["k", "k"], "case": ["a", "b"], "passed": [True, False]})
    assert evaluate.pass_rates(df, by="system")[["k", "n"]].values.tolist() == [[1, 2]]
    assert evaluate.pass_rates(df.iloc[:0]).empty
    with pytest.raises(TypeError, match="DataFrame of run_eval"):
        evaluate.pass_rates(df.to_dict("records"))
    with pytest.raises(TypeError, match="DataFrame of run_eval"):
        evaluate.answer_abstain_rates([])


# --- flat retrieval ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("documents", ["Orlo Vance owns Tessa Mill.", b"Orlo Vance owns Tessa Mill.",
                                       {"d1": "Orlo Vance owns Tessa Mill."}])
def test_flat_retrieve_refuses_one_document_that_is_not_a_list(documents):
    with pytest.raises(TypeError, match=r"a list of documents.*\[text\]"):
        rag.flat_retrieve("Who owns Tessa Mill?", documents=documents)


def test_flat_retrieve_refuses_a_document_that_is_not_text():
    with pytest.raises(ValueError, match=r"document 1 holds '\\ud800'.*remove it"):
        rag.flat_retrieve("Who owns Tessa Mill?", documents=["Orlo Vance owns Tessa Mill.", "Brim \ud800 Quarry"])


# --- the reader's own linking and ranking functions ---------------------------------------------------------

@pytest.mark.parametrize("returned", [None, 5, b"Orlo Vance"])
def test_graph_rag_refuses_a_linking_function_that_returns_no_names(returned, scripted):
    with pytest.raises(TypeError, match="a linking function must return a list of node names"):
        rag.graph_rag("Who owns Tessa Mill?", _graph(), linking=lambda q, G: returned)
    assert scripted.requests == []


def test_graph_rag_takes_one_name_from_a_linking_function(scripted):
    scripted.replies.append("Facts used: Orlo Vance owns Tessa Mill.\nAnswer: Orlo Vance")
    t = rag.graph_rag_trace("Who owns Tessa Mill?", _graph(), linking=lambda q, G: "Tessa Mill")
    assert t["entities"] == ["Tessa Mill"] and t["answer"] == "Orlo Vance"


@pytest.mark.parametrize("returned", [None, 5, "Orlo Vance", [["Orlo Vance", "OWNS", "Tessa Mill"]]])
def test_graph_rag_refuses_a_ranking_function_that_returns_no_facts(returned, scripted):
    with pytest.raises(TypeError, match="a ranking function must return"):
        rag.graph_rag("Who owns Tessa Mill?", _graph(), budget=1, rank=lambda q, f, G, b: returned)
    assert scripted.requests == []


def test_graph_rag_checks_the_rank_method_even_when_the_budget_is_not_reached(scripted):
    with pytest.raises(ValueError, match="rank must be one of"):
        rag.graph_rag("Who owns Tessa Mill?", _graph(), budget=100, rank="bogus")
    assert scripted.requests == []


# --- merging nodes --------------------------------------------------------------------------------------------

def test_merge_equivalent_nodes_refuses_node_names_that_are_not_strings():
    from gaba.node_merge import merge_equivalent_nodes

    G = nx.MultiDiGraph([(1, "Orlo Vance"), (("Orlo", "Vance"), "Tessa Mill")])
    with pytest.raises(TypeError, match=r"merge_equivalent_nodes needs .*relabel_nodes\(G, str\)"):
        merge_equivalent_nodes(G)
    with pytest.raises(ValueError, match="threshold"):
        merge_equivalent_nodes(_graph(), threshold="high")


# --- the model call's own arguments, and a name the graph does not hold ------------------------

@pytest.mark.parametrize("bad", [0, -5, 2.5, "200", True])
def test_call_llm_refuses_a_max_tokens_that_is_not_a_positive_whole_number(bad, scripted):
    from gaba.llm import call_llm
    with pytest.raises(ValueError, match=r"max_tokens=.* must be a positive integer, or None: how many tokens"):
        call_llm("Name the quay.", max_tokens=bad)
    assert scripted.requests == []


@pytest.mark.parametrize("bad", [-1, 2.5, float("nan"), "hot", None])
def test_call_llm_refuses_a_temperature_outside_0_to_2(bad, scripted):
    from gaba.llm import call_llm
    with pytest.raises(ValueError, match="temperature must be a number from 0 to 2"):
        call_llm("Name the quay.", temperature=bad)
    assert scripted.requests == []


def test_entity_not_found_on_a_graph_with_no_close_name_says_so():
    from gaba.entities import resolve_entity
    from gaba.errors import EntityNotFound
    G = nx.MultiDiGraph()
    with pytest.raises(EntityNotFound) as err:
        resolve_entity(G, "Tessa Mill")
    assert "Did you mean: ?" not in str(err.value) and "No name in it is close" in str(err.value)
    with pytest.raises(EntityNotFound) as err:
        resolve_entity(G, "Quay " * 10_000)
    assert len(str(err.value)) < 400
