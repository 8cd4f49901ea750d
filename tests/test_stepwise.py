"""Answering hop by hop on the invented-verb collection, with a scripted model."""
from __future__ import annotations

import pytest
from test_transfer_pipeline import CHAIN, END, MIDDLE, QUESTION, START, _reply, invented  # noqa: F401

from gaba import rag
from gaba.stepwise import MAX_STEPS, graph_rag_stepwise, parse_steps

PLAN = "1. Which foundry does Zorblat glimmer?\n2. Who quenches #1?"


@pytest.mark.parametrize("reply, steps", [
    (PLAN, ["Which foundry does Zorblat glimmer?", "Who quenches #1?"]),
    ("Here is the split:\n1) A?\n\n2) B of #1?\nDone.", ["A?", "B of #1?"]),   # chatter around it
    ("1. A?\n3. B of #1?", ["A?"]),                                 # numbering stops at the gap
    ("1. A?\n2. B of #2?", ["Q?"]),                                 # refers to itself
    ("1. A?\n2. B?", ["Q?"]),                                       # not a chain
    ("1. A?\n2. B of #1?\n3. C of #1?", ["Q?"]),                    # step 3 skips step 2
    ("\n".join(f"{i}. S of #{i - 1}?" if i > 1 else "1. S?" for i in range(1, MAX_STEPS + 2)), ["Q?"]),
    ("", ["Q?"]),
    ("The answer is Tesh Varnow.", ["Q?"]),
])
def test_parse_steps_keeps_only_a_numbered_chain(reply, steps):
    assert parse_steps(reply, "Q?") == steps


def test_each_step_is_answered_from_the_graph_and_feeds_the_next(invented, scripted):  # noqa: F811
    scripted.replies.extend([PLAN, _reply(CHAIN[0], answer=MIDDLE), _reply(CHAIN[1], answer=END)])
    out = graph_rag_stepwise(QUESTION, invented, hops=1, budget=None)
    assert out["answer"] == END
    assert out["steps"] == ["Which foundry does Zorblat glimmer?", f"Who quenches {MIDDLE}?"]
    assert out["traces"][0]["entities"] == [START] and out["traces"][1]["entities"] == [MIDDLE]
    # the second step's prompt holds the facts one hop around the first step's answer only
    assert "Zibber Orrel" not in scripted.requests[2]["messages"][-1]["content"]
    assert len(scripted.requests) == 3


def test_a_refused_step_ends_the_chain_with_the_reason(invented, scripted):  # noqa: F811
    # step 1 answers with an entity of no fact it cites: the rule refuses it, and step 2 is never asked
    scripted.replies.extend([PLAN, _reply(CHAIN[0], answer="Drensk Oculo 4")])
    out = graph_rag_stepwise(QUESTION, invented, hops=1, budget=None)
    assert rag.is_abstention(out["answer"]) and "step 1" in out["answer"]
    assert "names no entity" in out["answer"] and len(scripted.requests) == 2
    assert out["answer"].endswith(f"has no answer: {out['traces'][0]['reason']}")


def test_a_declined_step_is_an_abstention(invented, scripted):  # noqa: F811
    scripted.replies.extend([PLAN, _reply(CHAIN[0], answer=MIDDLE), "Facts used: none\nAnswer: I don't know"])
    out = graph_rag_stepwise(QUESTION, invented, hops=1, budget=None)
    assert out["answer"] == f"{rag.ABSTAIN}: step 2 (Who quenches {MIDDLE}?) has no answer: the model abstained"


def test_an_invalid_split_asks_the_whole_question(invented, scripted):  # noqa: F811
    scripted.replies.extend(["I cannot split this.", _reply(*CHAIN, answer=END)])
    out = graph_rag_stepwise(QUESTION, invented, hops=2, budget=None)
    assert out["plan"] == [QUESTION] and out["answer"] == END
    assert len(scripted.requests) == 2


def test_the_split_is_asked_at_temperature_zero(invented, scripted):  # noqa: F811
    scripted.replies.extend([PLAN, _reply(CHAIN[0], answer=MIDDLE), _reply(CHAIN[1], answer=END)])
    graph_rag_stepwise(QUESTION, invented, hops=1, budget=None, temperature=0.7, seed=3)
    temps = [r.get("temperature") for r in scripted.requests]
    assert temps[0] == 0.0 and temps[1:] == [0.7, 0.7]


def test_grounding_cannot_be_turned_off(invented, scripted):  # noqa: F811
    with pytest.raises(ValueError, match="always checks grounding"):
        graph_rag_stepwise(QUESTION, invented, grounding=False)
    assert not scripted.requests


@pytest.mark.parametrize("question", ["", "   ", None])
def test_an_empty_question_is_refused(invented, question):  # noqa: F811
    with pytest.raises(ValueError, match="non-empty question"):
        graph_rag_stepwise(question, invented)


def test_a_hash_reference_in_the_readers_question_is_left_alone(invented, scripted):  # noqa: F811
    # the split is refused, so the question is asked whole; its own "#2" must not be filled in
    question = "Who quenches the foundry that Zorblat glimmers, item #2?"
    scripted.replies.extend(["no split", _reply(*CHAIN, answer=END)])
    out = graph_rag_stepwise(question, invented, hops=2, budget=None)
    assert out["steps"] == [question] and out["answer"] == END


def test_an_over_long_question_is_refused_before_any_model_call(invented, scripted):  # noqa: F811
    with pytest.raises(ValueError, match="characters long"):
        graph_rag_stepwise("Who? " * 1000, invented)
    assert not scripted.requests
