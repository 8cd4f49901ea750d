"""Answering hop by hop: split a question into one-fact questions, answer each from the graph.

Taught in chapter "Measuring graph against flat". Each step is a :func:`gaba.rag.graph_rag`
question with its own grounding check; the entity it names replaces ``#1`` in the next step, and a
step without an answer ends the chain with :data:`gaba.answer.ABSTAIN`.

>>> parse_steps("1. Who trained Ana Rusk?\\n2. Which boat does #1 own?", "q")
['Who trained Ana Rusk?', 'Which boat does #1 own?']
"""
from __future__ import annotations

import re
from typing import Any

from . import prompts
from .answer import ABSTAIN, is_abstention
from .checks import check_question
from .llm import call_llm
from .rag import DEFAULT_BUDGET, DEFAULT_HOPS, graph_rag_trace

__all__ = ["MAX_STEPS", "decompose", "parse_steps", "graph_rag_stepwise"]

#: At most this many one-fact questions; a longer split is not trusted and the question is asked whole.
MAX_STEPS = 4
_STEP = re.compile(r"^\s*(\d+)\s*[.)]\s*(.+?)\s*$")
_REF = re.compile(r"#(\d+)")


def parse_steps(reply: str, question: str) -> list[str]:
    """The numbered questions of a reply, or ``[question]`` when they do not form a valid split.

    Valid: lines numbered 1, 2, ..., at most :data:`MAX_STEPS`, each step after the first using
    ``#k`` of the step before it (other lines ignored).
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
    """The one-fact questions of ``question``: one model call at temperature 0, then :func:`parse_steps`."""
    user = prompts.DECOMPOSE_PROMPT.format(question=" ".join(question.split()))
    resp = call_llm(user, system=prompts.DECOMPOSE_SYSTEM, temperature=0.0, seed=0,
                    max_tokens=150, purpose=f"decompose: {question[:60]}")
    return parse_steps(resp.text, question)


def graph_rag_stepwise(question: str, G, hops: int = DEFAULT_HOPS, *, budget: int | None = DEFAULT_BUDGET,
                       temperature: float = 0.0, seed: int = 0, **options: Any) -> dict:
    """Answer ``question`` hop by hop: a dict with ``answer``, ``plan``, ``steps`` and ``traces``.

    ``steps`` are the questions as asked (``#k`` filled in), ``traces`` their
    :func:`gaba.rag.graph_rag_trace` dicts. Other options go to every step. Grounding is always on
    (each step must name an entity for the next), so ``grounding=`` raises ValueError; each step is
    asked once (no second look).
    """
    check_question(question, "graph_rag_stepwise")        # refused before the split's model call
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
        t = graph_rag_trace(asked, G, hops, budget=budget, temperature=temperature, seed=seed,
                            second_look=False, **options)    # the split is the method: each step asked once
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
