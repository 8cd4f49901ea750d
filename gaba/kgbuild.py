"""The knowledge graph of a corpus (a :class:`networkx.MultiDiGraph`), its triples and a drawing.

Taught in chapter "From text to a knowledge graph". Public as ``gaba.graph.build_knowledge_graph``.
"""
from __future__ import annotations

import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx

from .aliases import apply_aliases, reconcile_entities
from .cooccurrence import cooccurrence_triples, topic_triples
from .data.news import load_documents
from .data.triple import Triple
from .extract import extract_corpus
from .kgfile import edge_relation, edge_rows
from .names import ALL_TITLES, SENTENCE_START, TITLES, UPPER, candidate_names, common_openers, strip_title
from .request import prompt_version, schema_relations


def build_knowledge_graph(documents: Any = None, *, schema: Any = None,
                          cache_dir: str | Path | None = None, rebuild: bool = False,
                          concurrency: int | None = None,
                          progress: bool = True, cooccurrence: bool | None = None):
    """Build the knowledge graph of a corpus: extraction (cached), validation, reconciliation.

    ``documents`` default to the news snippets; ``schema=None`` is open extraction; ``cooccurrence``
    (default: open mode) also links names sharing a sentence. A word the texts capitalise only to
    open a sentence and also write in lowercase ("Chief executive ...") is no name, nor is a title on
    its own ("Chief"): their facts go.
    Edges go subject -> object, key = relation, with ``doc_id``, ``evidence`` and ``sources``;
    ``G.graph`` records the run. A bad document raises DocumentError before any model call.

    >>> G = build_knowledge_graph(["Acme said so."], progress=False)    # one name: no model call
    >>> G.graph["documents"], G.number_of_edges()
    (1, 0)
    """
    if cooccurrence is not None and not isinstance(cooccurrence, bool):
        raise TypeError(f"cooccurrence must be True, False or None (on in open mode), not {cooccurrence!r}.")
    docs = load_documents(documents)
    ex = extract_corpus(docs, schema=schema, cache_dir=cache_dir, rebuild=rebuild, progress=progress,
                        concurrency=concurrency)
    openers = common_openers(d["text"] for d in docs)
    kept = [t for t in ex.triples if not (_no_name(t.subject, openers) or _no_name(t.object, openers))]
    names = sorted({t.subject for t in kept} | {t.object for t in kept})
    types = _name_types(kept)
    table = reconcile_entities(names, docs, extended_titles=schema is None, types=types)
    triples = apply_aliases(kept, table)
    if cooccurrence is None:
        cooccurrence = schema is None
    rule_triples: dict[Triple, str] = {}
    if cooccurrence:
        linked = {frozenset((t.subject, t.object)) for t in triples}
        # a one-word run ("Later") is linked only if the model used it as a name somewhere
        used = {m.casefold() for n in names for m in (n, table.get(n, n))}
        people = {n for n, ty in types.items() if ty == "person"}
        raw, topical = [], set()
        for d in docs:
            found = [n for n in candidate_names(d["text"])
                     if not _no_name(n, openers) and (" " in n or n.casefold() in used)]
            raw += cooccurrence_triples(d, found)
            topical |= set(topic_triples(d, found, people=people))
        topical = sorted(topical, key=lambda r: (r.doc_id, r.evidence, r.object))
        extra = reconcile_entities(sorted({n for r in raw + topical for n in (r.subject, r.object)}), docs,
                                   extended_titles=schema is None)
        # a sentence's own pairs first: a topic link only where nothing joins the two names yet
        for rule, found in (("co-occurrence", raw), ("topic", topical)):
            for r in apply_aliases(found, {**extra, **table}):
                pair = frozenset((r.subject, r.object))
                if pair not in linked:
                    linked.add(pair)
                    rule_triples[r] = rule
                    triples.append(r)
    G = nx.MultiDiGraph(documents=len(docs), failed=dict(ex.failed), cache=dict(ex.cache),
                        schema="open" if schema is None else list(schema_relations(schema)),
                        prompt_version=prompt_version(schema), cooccurrence=bool(cooccurrence))
    for t in triples:
        for n in (t.subject, t.object):
            if n not in G:
                G.add_node(n, aliases=set())
        if G.has_edge(t.subject, t.object, key=t.relation):
            G.edges[t.subject, t.object, t.relation]["sources"].append([t.doc_id, t.evidence])
            continue
        attrs = {"relation": t.relation, "doc_id": t.doc_id, "evidence": t.evidence,
                 "sources": [[t.doc_id, t.evidence]]}
        if t.verb:
            attrs["verb"] = t.verb
        if t in rule_triples:
            attrs["rule"] = rule_triples[t]
        G.add_edge(t.subject, t.object, key=t.relation, **attrs)
    for alias, canonical in table.items():
        if canonical in G and alias != canonical:
            G.nodes[canonical]["aliases"].add(alias)
    for n, ty in _name_types(triples).items():
        G.nodes[n]["type"] = ty
    _add_titled_aliases(G, docs, extended=schema is None)
    for n in G:
        G.nodes[n]["aliases"] = sorted(G.nodes[n]["aliases"])
    parts = ex.cache["hits"] + ex.cache["misses"]    # extract_corpus counts every passage once
    G.graph["passages"] = parts
    if ex.failed:
        what = (f"{len(ex.failed)} of {len(docs)} documents" if parts == len(docs) else
                f"{len(ex.failed)} of {parts} passages ({len(docs)} documents)")
        failures = "; ".join(f"{k}: {v}" for k, v in sorted(ex.failed.items()))
        warnings.warn(f"{what} could not be extracted and are missing from the graph: {failures}",
                      stacklevel=2)
    return G


def _no_name(name: str, openers: frozenset[str]) -> bool:
    """Whether ``name`` names no one: a word the texts capitalise only to open a sentence
    (:func:`gaba.names.common_openers`), or a title on its own ("Chief" of "Chief executive Ann Lee
    said ...", :data:`gaba.names.ALL_TITLES`)."""
    return name in openers or (" " not in name.strip() and name.strip().rstrip(".").lower() in ALL_TITLES)


def _name_types(triples) -> dict[str, str]:
    """Each extracted name's most frequent entity type (ties: alphabetical); untyped names left out."""
    seen: dict[str, Counter] = {}
    for t in triples:
        for n, ty in ((t.subject, t.subject_type), (t.object, t.object_type)):
            if ty:
                seen.setdefault(n, Counter())[ty] += 1
    return {n: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for n, c in seen.items()}


def _add_titled_aliases(G, docs: list[dict], *, extended: bool = False) -> None:
    """Add "Dr. Lena Marsh" as an alias of person node "Lena Marsh" where a text writes it so.

    ``extended`` (open extraction) also gives a person node of three or more words that the texts
    write only at the start of a sentence ("Cellist Dario Fenwyck has signed ...") the alias without
    its first word: capitalised there, that word may be a description, not part of the name.
    """
    texts = [d["text"] for d in docs]
    text = "\n".join(texts)
    names = {n.casefold() for n in G}
    for n, data in G.nodes(data=True):
        if data.get("type") != "person":
            continue
        for m in re.finditer(rf"\b({UPPER}[\w'’-]*)\.?\s+{re.escape(n)}\b", text):
            alias = m.group(0)
            if m.group(1).lower() in TITLES or (extended and strip_title(alias, extended=True) == n):
                data["aliases"].add(alias)
        words = n.split()
        rest = " ".join(words[1:])
        if not extended or len(words) < 3 or not all(w[:1].isupper() for w in words) or rest.casefold() in names:
            continue
        starts = [SENTENCE_START.search(t[:m.start()]) is not None
                  for t in texts for m in re.finditer(rf"(?<![\w'’-]){re.escape(n)}\b", t)]
        if starts and all(starts):
            data["aliases"].add(rest)


def graph_triples(G, *, rules: bool = True) -> list[Triple]:
    """The edges of a graph as triples (sorted); ``rules=False`` leaves out the edges a rule added."""
    if not isinstance(G, nx.Graph):
        raise TypeError(f"graph_triples takes a networkx graph (build_knowledge_graph, load_graph), not a "
                        f"{type(G).__name__}.")
    out = [Triple(u, edge_relation(k, d, unnamed=""), v, d.get("doc_id", ""), d.get("evidence", ""),
                  d.get("verb", "")) for u, v, k, d in edge_rows(G) if rules or not d.get("rule")]
    return sorted(out, key=lambda t: (t.subject, t.relation, t.object))


def draw_knowledge_graph(G, *, ax=None, seed: int = 0):
    """Draw a knowledge graph; returns the Axes."""
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 7.5))
    U = nx.Graph(G)
    pos = nx.kamada_kawai_layout(U) if U.number_of_nodes() > 1 else nx.spring_layout(U, seed=seed)
    nx.draw_networkx_nodes(G, pos, ax=ax, node_size=260, node_color="#dbe9f6", edgecolors="#0969da")
    nx.draw_networkx_edges(G, pos, edgelist=list(G.edges()), ax=ax, edge_color="#8c959f", arrows=True,
                           arrowsize=10, node_size=260)
    nx.draw_networkx_labels(G, pos, ax=ax, font_size=8,
                            labels={n: n.replace(" ", "\n", 1) if len(n) > 14 else n for n in G})
    labels: dict[tuple, list[str]] = {}     # one label per pair of nodes, both directions
    first: dict[frozenset, tuple] = {}
    for u, v, d in G.edges(data=True):
        pair = first.setdefault(frozenset((u, v)), (u, v))
        labels.setdefault(pair, []).append(d.get("relation", ""))
    nx.draw_networkx_edge_labels(G, pos, ax=ax, font_size=6, font_color="#57606a",
                                 edge_labels={k: "\n".join(sorted(set(v))) for k, v in labels.items()},
                                 rotate=False, bbox={"alpha": 0})
    ax.set_axis_off()
    ax.margins(0.08)
    return ax
