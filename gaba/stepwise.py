"""Answering hop by hop: split a question into one-fact questions, answer each from the graph.

Taught in chapter "Measuring graph against flat". A small model that is given a whole chain
of facts often answers with the entity in the middle of it. Here one call splits the question ("Who coaches the
club that Ana Rusk plays for?" becomes "1. Which club does Ana Rusk play for?" and "2. Who coaches
#1?"), and each step is a :func:`gaba.rag.graph_rag` question of its own, with its own grounding
check. The entity a step's answer names stands in for ``#1`` in the next step; a step that the
rule refuses, or that the model declines, ends the chain with :data:`gaba.answer.ABSTAIN`.

Examples
--------
>>> parse_steps("1. Who trained Ana Rusk?\\n2. Which boat does #1 own?", "q")
['Who trained Ana Rusk?', 'Which boat does #1 own?']
>>> parse_steps("Ana Rusk trained Lio.", "Who trained Lio?")   # no numbered lines: the question itself
['Who trained Lio?']
"""
from __future__ import annotations

import re
from typing import Any

from . import prompts
from .answer import ABSTAIN, is_abstention
from .llm import call_llm
from .rag import DEFAULT_BUDGET, MAX_QUESTION_CHARS, graph_rag_trace

__all__ = ["MAX_STEPS", "decompose", "parse_steps", "graph_rag_stepwise"]

#: At most this many one-fact questions; a longer split is not trusted and the question is asked whole.
MAX_STEPS = 4
_STEP = re.compile(r"^\s*(\d+)\s*[.)]\s*(.+?)\s*$")
_REF = re.compile(r"#(\d+)")


def parse_steps(reply: str, question: str) -> list[str]:
    """The numbered questions of a reply, or ``[question]`` when they do not form a valid split.

    Valid: lines numbered 1, 2, ... (other lines ignored), at most :data:`MAX_STEPS`, every
    ``#k`` refers to an earlier step, and every step after the first uses the step before it: a
    list of unrelated questions is not a chain.
    """
    steps: list[str] = []
    for line in (reply or "").splitlines():
        m = _STEP.match(line)
        if m and int(m.group(1)) == len(steps) + 1:
            steps.append(m.group(2))
    if not steps or len(steps) > MAX_STEPS:
        return [question]
    for i, s in enumerate(steps, 1):
        refs = [int(k) for k in _REF.findall(s)]
        if any(not 1 <= k < i for k in refs) or (i > 1 and i - 1 not in refs):
            return [question]
    return steps


def decompose(question: str) -> list[str]:
    """Split ``question`` into one-fact questions with one model call (see :func:`parse_steps`).

    At temperature 0: a question has one right split, so trials vary only in the answers.
    """
    user = prompts.DECOMPOSE_PROMPT.format(question=" ".join(question.split()))
    resp = call_llm(user, system=prompts.DECOMPOSE_SYSTEM, temperature=0.0, seed=0,
                    max_tokens=150, purpose=f"decompose: {question[:60]}")
    return parse_steps(resp.text, question)


def graph_rag_stepwise(question: str, G, hops: int = 2, *, budget: int | None = DEFAULT_BUDGET,
                       temperature: float = 0.0, seed: int = 0, **options: Any) -> dict:
    """Answer ``question`` hop by hop; a dict with ``answer``, ``steps`` and each step's trace.

    ``steps`` are the one-fact questions as asked (``#k`` replaced by the entity step ``k``
    named); ``traces`` are their :func:`gaba.rag.graph_rag_trace` dicts. Other options
    (``rank``, ``linking``, ``fact_order``, ...) go to every step; the grounding rule is always on,
    since a step's answer must be an entity of the graph for the next step to start from.
    """
    if not isinstance(question, str) or not question.strip():
        raise ValueError("graph_rag_stepwise needs a non-empty question string.")
    if len(question) > MAX_QUESTION_CHARS:                 # refused before the split's model call
        raise ValueError(f"the question is {len(question):,} characters long; graph_rag_stepwise takes "
                         f"at most {MAX_QUESTION_CHARS:,}. Ask one question at a time.")
    if "grounding" in options:
        raise ValueError("graph_rag_stepwise always checks grounding: each step's answer must name an "
                         "entity of the graph for the next step; drop grounding=")
    plan = decompose(question)
    out: dict[str, Any] = {"question": question, "plan": plan, "steps": [], "traces": []}
    found: list[str] = []
    for i, step in enumerate(plan, 1):
        # only references to steps already answered are filled in: a "#2" the reader typed stays
        asked = _REF.sub(lambda m: found[int(m.group(1)) - 1] if 1 <= int(m.group(1)) <= len(found)
                         else m.group(0), step)
        t = graph_rag_trace(asked, G, hops, budget=budget, temperature=temperature, seed=seed, **options)
        out["steps"].append(asked)
        out["traces"].append(t)
        if is_abstention(t["answer"]):
            why = t["reason"] or "the model abstained"     # the system's reason, or the model's own
            out["answer"] = f"{ABSTAIN}: step {i} ({asked}) has no answer: {why}"
            return out
        named = t["grounding"].answer_entities if t["grounding"] else ()
        if i < len(plan):
            if not named:                 # the model's own answer names no entity to go on from
                out["answer"] = f"{ABSTAIN}: step {i} ({asked}) named no entity to go on from"
                return out
            found.append(named[0])
    out["answer"] = out["traces"][-1]["answer"]
    return out
