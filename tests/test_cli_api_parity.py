"""`gaba build-graph` + `gaba ask` on a folder of unseen text give what the Python API gives.

The model is a scripted stand-in (these are plumbing tests); the text and relation verbs are
invented, so nothing here can lean on the book's corpora.
"""
from __future__ import annotations

import json

import pytest

from gaba import llm
from gaba.__main__ import main
from gaba.graph import build_knowledge_graph, load_graph
from gaba.rag import graph_rag, graph_rag_trace

DOCS = {
    "a.txt": "Dr. Vell Oranu glimmers the Quonfirm Guild. The guild meets at dawn.",
    "b.md": "The Quonfirm Guild was zanthed into Port Ibrel in 1820.",
}


def _extraction(records):
    return json.dumps({"facts": records})


def _replies():
    """One extraction reply per document (in file order), then one answer."""
    a = _extraction([{"sentence": 1, "subject": "Vell Oranu", "predicate": "glimmers",
                      "object": "Quonfirm Guild", "subject_type": "person", "object_type": "org"}])
    b = _extraction([{"sentence": 1, "subject": "Quonfirm Guild", "predicate": "was zanthed into",
                      "object": "Port Ibrel", "subject_type": "org", "object_type": "place"}])
    answer = ("Facts used: Vell Oranu glimmers Quonfirm Guild. Quonfirm Guild zanthed into Port Ibrel.\n"
              "Answer: Port Ibrel")
    return [a, b, answer]


def _folder(tmp_path):
    folder = tmp_path / "my_docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_cli_and_api_build_the_same_graph_and_answer(scripted, tmp_path, capsys):
    folder = _folder(tmp_path)
    question = "Where was the guild that Vell Oranu glimmers zanthed into?"
    scripted.replies.extend(_replies())
    G_api = build_knowledge_graph(folder, cache_dir=tmp_path / "kg-api", progress=False)
    api_answer, api_facts = graph_rag(question, G_api)      # the defaults of both

    # the CLI replays the same requests from the response cache: no new model call
    misses = llm.stats().misses
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    assert main(["ask", question, "--graph", str(out)]) == 0
    assert llm.stats().misses == misses
    printed = capsys.readouterr().out.strip().splitlines()
    G_cli = load_graph(out)
    assert sorted(G_cli.edges(keys=True)) == sorted(G_api.edges(keys=True))
    assert printed[-1] == api_answer == "Port Ibrel"
    assert f'next: python -m gaba ask "your question" --graph {out}' in printed   # the command to paste
    assert ("Quonfirm Guild", "zanthed_into", "Port Ibrel") in api_facts
    assert "Dr. Vell Oranu" in G_cli.nodes["Vell Oranu"]["aliases"]


def test_cli_ask_budget_and_trace(scripted, tmp_path, capsys):
    folder = _folder(tmp_path)
    scripted.replies.extend(_replies())
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    assert main(["ask", "What does Vell Oranu glimmer?", "--graph", str(out), "--trace",
                 "--budget", "1"]) == 0
    text = capsys.readouterr().out
    assert "<facts>" in text and "grounding:" in text
    assert main(["ask", "What does Vell Oranu glimmer?", "--graph", str(out), "--budget", "0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


TWO_HOP = "Where was the guild that Vell Oranu glimmers zanthed into?"


def _built(scripted, tmp_path):
    """The graph file ``gaba build-graph`` writes for the invented folder."""
    scripted.replies.extend(_replies())
    out = tmp_path / "g.json"
    assert main(["build-graph", str(_folder(tmp_path)), "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("order", ["hops", "outline", "chains"])
def test_cli_ask_fact_order_matches_the_api(order, scripted, tmp_path, capsys):
    question, out = TWO_HOP, _built(scripted, tmp_path)
    G = load_graph(out)
    api_answer, _ = graph_rag(question, G, hops=2, fact_order=order)   # the third reply
    prompt = scripted.requests[-1]["messages"][-1]["content"]
    assert ("indented fact continues" in prompt) == (order == "outline")
    assert ("an arrow leads" in prompt) == (order == "chains")
    misses = llm.stats().misses
    assert main(["ask", question, "--graph", str(out), "--fact-order", order]) == 0
    assert llm.stats().misses == misses                               # the same request, replayed
    assert capsys.readouterr().out.strip().splitlines()[-1] == api_answer == "Port Ibrel"


@pytest.mark.parametrize("method", ["pairs", "embedding"])
def test_cli_ask_rank_matches_the_api(method, scripted, tmp_path, capsys):
    question, out = TWO_HOP, _built(scripted, tmp_path)
    api = graph_rag_trace(question, load_graph(out), hops=2, budget=1, rank=method)
    misses = llm.stats().misses
    assert main(["ask", question, "--graph", str(out), "--budget", "1", "--rank", method, "--trace"]) == 0
    assert llm.stats().misses == misses                               # the same request, replayed
    text = capsys.readouterr().out
    assert api["prompt"] in text and text.strip().splitlines()[-1] == api["answer"]
    assert main(["ask", question, "--graph", str(out), "--rank", "best"]) == 2   # argparse: bad choice
    assert "invalid choice" in capsys.readouterr().err


def test_cli_ask_hop_by_hop_matches_the_api(scripted, tmp_path, capsys):
    from gaba.stepwise import graph_rag_stepwise

    folder = _folder(tmp_path)
    question = "Where was the guild that Vell Oranu glimmers zanthed into?"
    extraction_a, extraction_b, _ = _replies()
    scripted.replies.extend([
        extraction_a, extraction_b,
        "1. Which guild does Vell Oranu glimmer?\n2. Where was #1 zanthed into?",
        "Facts used: Vell Oranu glimmers Quonfirm Guild.\nAnswer: Quonfirm Guild",
        "Facts used: Quonfirm Guild zanthed into Port Ibrel.\nAnswer: Port Ibrel"])
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    api = graph_rag_stepwise(question, load_graph(out), hops=2)
    assert api["steps"] == ["Which guild does Vell Oranu glimmer?", "Where was Quonfirm Guild zanthed into?"]
    misses = llm.stats().misses
    assert main(["ask", question, "--graph", str(out), "--hop-by-hop", "--trace"]) == 0
    assert llm.stats().misses == misses                               # the same requests, replayed
    text = capsys.readouterr().out
    assert text.strip().splitlines()[-1] == api["answer"] == "Port Ibrel"
    assert "step 2: Where was Quonfirm Guild zanthed into?" in text
    assert main(["ask", question, "--graph", str(out), "--hop-by-hop", "--no-grounding"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and "--no-grounding" in err and "Traceback" not in err


def test_cli_ask_paths_matches_the_api(scripted, tmp_path, capsys):
    from gaba.multihop import multi_hop_query

    folder = _folder(tmp_path)
    question = "How is Vell Oranu connected to Port Ibrel?"
    extraction_a, extraction_b, _ = _replies()
    scripted.replies.extend([extraction_a, extraction_b,
                             "Vell Oranu is connected to Port Ibrel through the Quonfirm Guild."])
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    api = multi_hop_query(load_graph(out), question)
    capsys.readouterr()
    assert "So Vell Oranu is connected to Port Ibrel through Quonfirm Guild." in api.context
    misses = llm.stats().misses
    assert main(["ask", question, "--graph", str(out), "--paths", "--trace"]) == 0
    assert llm.stats().misses == misses                               # the same request, replayed
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "entities: Vell Oranu, Port Ibrel" and api.context in "\n".join(lines)
    assert lines[-1] == api.answer
    # a question naming none of the graph's entities, and two answering modes at once: one line each
    assert main(["ask", "How is Ada connected to Bo?", "--graph", str(out), "--paths"]) == 1
    assert main(["ask", question, "--graph", str(out), "--paths", "--hop-by-hop"]) == 1
    errs = capsys.readouterr().err.strip().splitlines()
    assert len(errs) == 2 and all(e.startswith("error:") for e in errs) and "choose one" in errs[1]


@pytest.mark.parametrize("api_options, flags, first", [
    ({}, [], "Name the guild that Vell Oranu glimmers."),          # the default: the guild first
    ({"clause_first": False}, ["--whole-question"],                  # the whole question; the model names
     "Which port took in the guild that Vell Oranu glimmers?"),      # the guild, and the rest is asked
])
def test_cli_asks_in_two_steps_as_the_api_does(scripted, tmp_path, capsys, api_options, flags, first):
    """Both ask the same two questions (the second about the guild), with one trace each."""
    folder = _folder(tmp_path)
    question = "Which port took in the guild that Vell Oranu glimmers?"
    a, b, _ = _replies()
    scripted.replies.extend([a, b, "Facts used: Vell Oranu glimmers Quonfirm Guild.\nAnswer: Quonfirm Guild",
                             "Facts used: Quonfirm Guild zanthed into Port Ibrel.\nAnswer: Port Ibrel"])
    api = graph_rag_trace(question, build_knowledge_graph(folder, cache_dir=tmp_path / "kg", progress=False),
                          **api_options)
    assert api["answer"] == "Port Ibrel"
    assert [s["question"] for s in api["steps"]] == [first, "Which port took in Quonfirm Guild?"]
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    misses = llm.stats().misses
    assert main(["ask", question, "--graph", str(out), *flags, "--trace"]) == 0
    assert llm.stats().misses == misses                       # the same two requests, from the cache
    printed = capsys.readouterr().out
    assert f"step 1: {first}" in printed and "step 2: Which port took in Quonfirm Guild?" in printed
    assert printed.strip().splitlines()[-1] == "Port Ibrel"


def test_cli_one_question_asks_once_as_the_api_does(scripted, tmp_path, capsys):
    folder = _folder(tmp_path)
    question = "Which port took in the guild that Vell Oranu glimmers?"
    a, b, _ = _replies()
    scripted.replies.extend([a, b, "Facts used: Vell Oranu glimmers Quonfirm Guild.\nAnswer: Quonfirm Guild"])
    api = graph_rag(question, build_knowledge_graph(folder, cache_dir=tmp_path / "kg", progress=False),
                    second_look=False)[0]
    assert api.startswith("I don't know: the question describes an entity on the way from Vell Oranu")
    out = tmp_path / "g.json"
    assert main(["build-graph", str(folder), "--out", str(out)]) == 0
    requests = len(scripted.requests)
    assert main(["ask", question, "--graph", str(out), "--one-question"]) == 0
    assert len(scripted.requests) == requests                   # one call, replayed from the cache
    assert capsys.readouterr().out.strip().splitlines()[-1] == api
    assert main(["ask", question, "--graph", str(out), "--one-question", "--hop-by-hop"]) == 1
    assert "drop --one-question" in capsys.readouterr().err
    assert main(["ask", question, "--graph", str(out), "--whole-question", "--hop-by-hop"]) == 1
    assert "drop --whole-question" in capsys.readouterr().err
