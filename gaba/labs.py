"""Self-checks for the Build lab and the Evaluate lab, in the manner of a course autograder: each
checker reads what the reader built (no model call) and returns a :class:`LabReport`."""
from __future__ import annotations

import contextlib
import dataclasses
import html
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import networkx as nx

from .data.news import NEWS_PATH, load_documents
from .entities import find_entities
from .evaluate import wilson_interval
from .graph import gather_facts


@dataclasses.dataclass
class Check:
    """One check: its name, whether it passed, and a hint when it did not."""

    name: str
    passed: bool
    hint: str = ""


@dataclasses.dataclass
class LabReport:
    """The result of a checker: a list of :class:`Check`, printable and shown as HTML."""

    lab: str
    checks: list[Check]

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        """The checks that did not pass."""
        return [c for c in self.checks if not c.passed]

    @property
    def headline(self) -> str:
        """``"<lab>: k of n checks passed"``."""
        return f"{self.lab}: {sum(c.passed for c in self.checks)} of {len(self.checks)} checks passed"

    def __str__(self) -> str:
        lines = [self.headline]
        for c in self.checks:
            lines.append(f"  [{'x' if c.passed else ' '}] {c.name}")
            if not c.passed and c.hint:
                lines.append(f"      hint: {c.hint}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<li style='color:{'#1a7f37' if c.passed else '#cf222e'}'>{'&#10004;' if c.passed else '&#10008;'} "
            f"{html.escape(c.name)}{'' if c.passed or not c.hint else '<br><small>hint: ' + html.escape(c.hint) + '</small>'}</li>"
            for c in self.checks)
        return f"<div class='lab-report'><strong>{html.escape(self.headline)}</strong><ul>{rows}</ul></div>"


def _mentions(answer: str, name: str) -> bool:
    """Does an answer name an entity (full name or a first word over 3 letters, any case)?"""
    a = (answer or "").lower()
    n = name.lower()
    return n in a or (len(n.split()[0]) > 3 and n.split()[0] in a)


# --------------------------------------------------------------------------- build lab
def check_build_lab(answers_by_hops: Mapping[int, str], *, corpus: Iterable[Mapping[str, Any]],
                    corpus_path: str | Path | None, new_doc_id: str, graph, chain: tuple[str, str],
                    chain_answers: Mapping[int, str], tradeoff,
                    supplier_answer: str = "Voltaic Dynamics") -> LabReport:
    """Check the Build lab.

    ``answers_by_hops``/``chain_answers``: hop count -> ``graph_rag`` answer; ``corpus``: the
    reader's copy, saved at ``corpus_path``; ``chain``: (start entity, answer); ``tradeoff``: one
    row per hop count 1-4 with ``hops``, ``facts``, ``relevant``, ``tokens``.
    """
    one, two = (_mentions(answers_by_hops.get(h, ""), supplier_answer) for h in (1, 2))
    hint = (f"the hops=1 answer already names {supplier_answer}: one hop from Kestrel Motors reaches "
            "Aurora but not Aurora's competitor - did you pass hops=1?" if one else
            f"the hops=2 answer does not name {supplier_answer}; print the facts graph_rag "
            "returned: if the COMPETES_WITH edge is there, the answering call failed, not retrieval"
            if not two else "")
    checks = [Check("one hop fails and two hops answer the supplier-competitor question",
                    not one and two, hint)]

    untouched = (corpus_path is None or Path(corpus_path).resolve() != Path(NEWS_PATH).resolve()) \
        and all(d["id"] != new_doc_id for d in load_documents())
    checks.append(Check("the shipped corpus is untouched (the lab works on a copy)", untouched,
                        "" if untouched else "write your new document into a copy of the corpus "
                        "(e.g. in a temporary folder), never into assets/data/kg/news_snippets.json"))

    docs = {d.get("id"): d for d in corpus}
    new_doc = docs.get(new_doc_id)
    checks.append(Check("the new document is in the corpus copy",
                        bool(new_doc and str(new_doc.get("text", "")).strip()),
                        f"no document with id {new_doc_id!r} and some text in your corpus copy"))

    new_edges = [(u, v, d) for u, v, d in graph.edges(data=True) if d.get("doc_id") == new_doc_id]
    checks.append(Check("the rebuilt graph has edges from the new document", bool(new_edges),
                        "" if new_edges else f"no edge has doc_id {new_doc_id!r}: was the graph rebuilt "
                        "from the copy, and did the extractor find a relation in your document? "
                        "Try plainer sentences ('X supplies Y', 'X acquired Y')."))

    start, end = chain
    missing, path = [n for n in (start, end) if n not in graph], []
    if not missing:
        with contextlib.suppress(nx.NetworkXNoPath):
            path = nx.shortest_path(graph.to_undirected(as_view=True), start, end)
    length = len(path) - 1 if path else None
    if length == 3:
        hint = ""
    elif length is not None:
        hint = f"your new document creates a chain of length {length}, not 3: the path is {' -> '.join(path)}"
    else:
        hint = f"{missing} not in the graph" if missing else \
            f"{start!r} and {end!r} are not connected in the rebuilt graph"
    checks.append(Check("the chain question needs exactly three hops", length == 3, hint))

    uses_new = any(d.get("doc_id") == new_doc_id for u, v in zip(path, path[1:])     # either direction
                   for e in (graph.get_edge_data(u, v), graph.get_edge_data(v, u)) for d in (e or {}).values())
    checks.append(Check("the three-hop path goes through the new document's fact", uses_new,
                        "" if uses_new else "the shortest path does not use any edge from your new "
                        "document, so the document did not create the chain"))

    a1, a2, a3 = (_mentions(chain_answers.get(h, ""), end) for h in (1, 2, 3))
    only3 = a3 and not a1 and not a2
    hint = ("" if only3 else f"the hops=3 answer does not name {end!r}; check the facts it was given"
            if not a3 else f"a shallower traversal already names {end!r}: the chain is shorter than you "
            "think, or the answer is guessed (check that hops=1/2 facts do not contain it)")
    checks.append(Check("only hops=3 answers the chain question", only3, hint))

    checks.append(_check_tradeoff(tradeoff))
    return LabReport("Build lab", checks)


def _check_tradeoff(df) -> Check:
    name = "the reach-vs-noise table covers hops 1-4 with facts, relevant fraction and tokens"
    need = {"hops", "facts", "relevant", "tokens"}
    cols = set(getattr(df, "columns", []))
    if not need <= cols:
        return Check(name, False, f"the table needs columns {sorted(need)}; it has {sorted(cols)}")
    d = df.sort_values("hops")
    if list(d["hops"]) != [1, 2, 3, 4]:
        return Check(name, False, f"one row per hop count 1, 2, 3, 4; found hops {list(d['hops'])}")
    if not (d["facts"].is_monotonic_increasing and d["tokens"].is_monotonic_increasing):
        return Check(name, False, "facts and tokens cannot shrink as hops grow: a deeper traversal "
                                  "contains the shallower one")
    if not d["relevant"].between(0, 1).all():
        return Check(name, False, "'relevant' is a fraction of the facts gathered, between 0 and 1")
    return Check(name, True)


# ------------------------------------------------------------------------ evaluate lab
def check_evaluate_lab(cases, results, *, graph, rates=None, min_trials: int = 3) -> LabReport:
    """Check the Evaluate lab: the reader's five ``cases``, ``run_eval``'s ``results``, optional ``rates``."""
    checks: list[Check] = []
    cases = list(cases)
    n_ans = sum(bool(c.answerable) for c in cases)
    ok = len(cases) == 5 and n_ans == 3
    checks.append(Check("five questions: three answerable, two not", ok,
                        "" if ok else f"found {len(cases)} questions, {n_ans} answerable"))

    for c in cases:
        ents = find_entities(c.question, graph)
        if not ents:
            checks.append(Check(f"{c.question!r} names an entity of the graph", False,
                                "no node name or alias occurs in it, so graph_rag abstains without "
                                "reading anything: that tests entity matching, not reasoning"))
            continue
        if c.answerable:
            near = {x for f in gather_facts(graph, ents, hops=1) for x in (f[0], f[2])}
            far = {x for f in gather_facts(graph, ents, hops=3) for x in (f[0], f[2])}
            targets = [n for n in graph.nodes if any(e.lower() in n.lower() for e in c.expected)]
            reach = [t for t in targets if t in far]
            # one hop from the only named entity: one fact answers it (with two entities, it is multi-hop)
            one_hop = [t for t in targets if t in near and t not in ents] if len(ents) == 1 else []
            if not reach:
                hint = (f"none of {list(c.expected)} matches a node within 3 hops of {ents}: the graph "
                        "cannot answer it as written")
                checks.append(Check(f"answerable: {c.question!r}", False, hint))
            elif one_hop and c.kind != "single-fact":
                checks.append(Check(f"multi-hop: {c.question!r}", False,
                                    f"{one_hop[0]!r} is one hop from {ents}: this is a single-fact "
                                    "question, not a multi-hop one"))
            else:
                checks.append(Check(f"answerable and multi-hop: {c.question!r}", True))
        else:
            rows = results[results["question"] == c.question] if len(results) else results
            answered = rows[~rows["abstained"].astype(bool)] if len(rows) else rows
            facts = gather_facts(graph, ents, hops=2)
            names = {x for f in facts for x in (f[0], f[2])} - set(ents)
            grounded = [a for a in answered["answer"] if any(n.lower() in a.lower() for n in names)] \
                if len(answered) else []
            suspicious = len(rows) and len(grounded) > len(rows) / 2
            hint = (f"graph_rag answered it in {len(grounded)} of {len(rows)} trials with an entity "
                    f"from the gathered facts (e.g. {grounded[0][:80]!r}): the graph may well answer "
                    "this question - ask about a fact the corpus never states. If the corpus really "
                    "never states it, the model made an answer out of a neighbouring fact (print the "
                    "facts it was given): that is a failure to abstain worth reporting, but it makes "
                    "a poor control question") if suspicious else ""
            checks.append(Check(f"not answerable from the graph: {c.question!r}", not suspicious, hint))

    if len(results):
        per = results.groupby(["question"], observed=True).size()
        few = per[per < min_trials]
        checks.append(Check(f"every question asked at least {min_trials} times", few.empty,
                            "" if few.empty else f"{len(few)} question(s) have fewer trials: "
                            f"{dict(few)}; one trial per question is a coin toss, not a rate"))
    else:
        checks.append(Check("results table is not empty", False, "run run_eval first"))

    if rates is not None and len(results):
        checks.extend(_check_rates(results, rates))
    return LabReport("Evaluate lab", checks)


def _check_rates(results, rates) -> list[Check]:
    """``rates``: a dict of ``answer_rate``, ``answer_n``, ``answer_ci``, ``abstain_...``, or
    :func:`gaba.evaluate.answer_abstain_rates`'s table."""
    if isinstance(rates, Mapping):
        r = dict(rates)
    else:
        r = {}
        for _, row in rates.iterrows():
            key = "answer" if str(row["measure"]).startswith("answer") else "abstain"
            r[f"{key}_rate"], r[f"{key}_n"] = float(row["rate"]), int(row["n"])
            r[f"{key}_ci"] = (float(row["low"]), float(row["high"]))
    answerable, abstained = results["answerable"].astype(bool), results["abstained"].astype(bool)
    checks = []
    for label, key, hit, among in [("answer rate (over answerable trials only)", "answer", ~abstained, answerable),
                                   ("abstain rate (over unanswerable trials only)", "abstain", abstained, ~answerable)]:
        k, n, k_all = int((hit & among).sum()), int(among.sum()), int(hit.sum())
        got, got_n = r.get(f"{key}_rate"), r.get(f"{key}_n")
        want = k / n if n else float("nan")
        if got is None:
            checks.append(Check(label, False, f"report {key}_rate"))
            continue
        if math.isclose(got, want, abs_tol=1e-9) and (got_n is None or got_n == n):
            lo, hi = wilson_interval(k, n)
            ci = r.get(f"{key}_ci")
            if ci is None or not (math.isclose(ci[0], lo, abs_tol=1e-3) and math.isclose(ci[1], hi, abs_tol=1e-3)):
                checks.append(Check(label, False, f"the rate is right ({k}/{n}) but give its Wilson 95% "
                                                  f"interval: ({lo:.2f}, {hi:.2f})"))
            else:
                checks.append(Check(label, True))
        elif len(results) and math.isclose(got, k_all / len(results), abs_tol=1e-9):
            checks.append(Check(label, False, f"{got:.2f} is computed over all {len(results)} trials; "
                                              f"the {key} rate is over the {n} "
                                              f"{'answerable' if key == 'answer' else 'unanswerable'} trials "
                                              f"only ({k}/{n} = {want:.2f})"))
        else:
            checks.append(Check(label, False, f"expected {k}/{n} = {want:.2f} from the results table, "
                                              f"got {got:.2f}" + (f" over n={got_n}" if got_n else "")))
    return checks
