"""Answering from graph facts: facts as paths from the question's entities, and the grounding rule.

Taught in chapter "Graph RAG and multi-hop reasoning". Two ideas, both plain code:

1. :func:`fact_paths` lays the gathered facts out as *paths* that start at an entity of the
   question (``Kestrel Motors <- Aurora Cell Works <- Voltaic Dynamics``), and
   :func:`paths_prompt` numbers each fact once and shows every path as a chain of numbered
   sentences. A small model that must chain two facts finds the chain written out.
2. :func:`check_grounding` is the rule that decides whether an answer is accepted. The model
   names the numbers of the facts it used; the answer stands only when the cited facts exist,
   connect an entity of the question to an entity the answer names, and that entity is not
   one of the question's own. Otherwise the system answers :data:`ABSTAIN` and says why. The
   rule knows nothing of any domain: no relation names, no keywords.

Examples
--------
>>> facts = [("Aurora", "supplies", "Kestrel"), ("Voltaic", "competes_with", "Aurora")]
>>> paths = fact_paths(facts, ["Kestrel"])
>>> [[f[1] for f in p] for p in paths]
[['supplies', 'competes_with']]
>>> numbered, text = render_paths(paths)
>>> print(text)
Path 1: [1] Aurora supplies Kestrel. [2] Voltaic competes with Aurora.
>>> check_grounding("Facts used: 1, 2\\nAnswer: Voltaic", numbered, ["Kestrel"]).accepted
True
"""
from __future__ import annotations

import dataclasses
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence

Fact = tuple[str, str, str]

#: The exact phrase every answering prompt asks the model to use when the context lacks the answer.
ABSTAIN = "I don't know"
#: At most this many paths are shown between two entities of the same question.
MAX_CONNECTING_PATHS = 3

__all__ = ["ABSTAIN", "Grounding", "fact_paths", "render_paths", "paths_prompt", "cited_numbers",
           "check_grounding", "fact_sentence", "final_answer", "is_abstention"]


def fact_sentence(fact: Fact) -> str:
    """A fact as a plain sentence: ``("A", "born_in", "B")`` -> ``"A born in B."``.

    Relation labels are written as words (underscores to spaces, lowercase); nothing is looked
    up in a table, so a relation the code has never seen reads as well as a known one.

    Examples
    --------
    >>> fact_sentence(("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works"))
    'Voltaic Dynamics competes with Aurora Cell Works.'
    >>> fact_sentence(("Lena Marsh", "joined_board_of", "Pellucid"))
    'Lena Marsh joined board of Pellucid.'
    """
    s, r, o = fact
    words = " ".join(w for w in re.split(r"[_\s]+", str(r).strip().lower()) if w) or "is linked to"
    return f"{s} {words} {o}."


def _bfs(facts: Sequence[Fact], starts: Sequence[str]):
    """Distance of each node from the starts over the facts (undirected), and each node's parent fact."""
    adj: dict[str, list[tuple[str, Fact]]] = defaultdict(list)
    for f in facts:
        s, _, o = f
        adj[s].append((o, f))
        adj[o].append((s, f))
    dist: dict[str, int] = {}
    parent: dict[str, Fact | None] = {}
    queue = deque()
    for s in starts:
        if s in adj and s not in dist:
            dist[s], parent[s] = 0, None
            queue.append(s)
    while queue:
        u = queue.popleft()
        for v, f in sorted(adj[u], key=lambda t: (t[1], t[0])):
            if v not in dist:
                dist[v], parent[v] = dist[u] + 1, f
                queue.append(v)
    return adj, dist, parent


def fact_paths(facts: Iterable[Fact], entities: Sequence[str]) -> list[list[Fact]]:
    """The facts laid out as paths that start at the question's entities.

    A breadth-first walk from ``entities`` over the facts (either direction) gives each fact the
    path that reaches it: the path to its nearer end, then the fact. The paths returned end at
    facts that no longer path continues, so together they hold every fact; paths that connect
    two of the question's entities come first (shortest first, at most
    :data:`MAX_CONNECTING_PATHS` per pair). Facts that no entity reaches come last, one per path.

    Examples
    --------
    >>> facts = [("A", "r", "B"), ("B", "s", "C"), ("D", "t", "A")]
    >>> fact_paths(facts, ["A"])
    [[('D', 't', 'A')], [('A', 'r', 'B'), ('B', 's', 'C')]]
    >>> fact_paths(facts, ["D", "C"])[0]
    [('D', 't', 'A'), ('A', 'r', 'B'), ('B', 's', 'C')]
    """
    facts = sorted(set(facts))
    starts = [e for e in dict.fromkeys(entities)]
    adj, dist, parent = _bfs(facts, starts)

    def path_to(node: str) -> list[Fact]:
        out: list[Fact] = []
        while parent.get(node) is not None:
            f = parent[node]
            out.append(f)
            node = f[0] if f[2] == node else f[2]
        return out[::-1]

    far = len(facts) + 1
    chains: dict[Fact, list[Fact]] = {}
    for f in facts:
        s, _, o = f
        inner = s if dist.get(s, far) <= dist.get(o, far) else o
        if inner not in dist:
            continue
        chains[f] = path_to(inner) + ([] if f in path_to(inner) else [f])
    used_as_prefix = {g for c in chains.values() for g in c[:-1]}
    leaves = [c for f, c in chains.items() if f not in used_as_prefix]
    leaves.sort(key=lambda c: (len(c), [fact_sentence(x) for x in c]))
    connecting = _connecting_paths(facts, starts)
    out = connecting + [c for c in leaves if c not in connecting]
    unreached = [[f] for f in facts if f not in chains]
    return out + unreached


def _connecting_paths(facts: Sequence[Fact], starts: Sequence[str]) -> list[list[Fact]]:
    """Shortest fact paths between each pair of question entities (undirected)."""
    if len(starts) < 2:
        return []
    import networkx as nx

    U = nx.MultiGraph()
    for f in facts:
        U.add_edge(f[0], f[2], key=f)
    out: list[list[Fact]] = []
    for i, a in enumerate(starts):
        for b in starts[i + 1:]:
            if a not in U or b not in U or a == b:
                continue
            try:
                node_paths = list(nx.all_shortest_paths(U, a, b))
            except nx.NetworkXNoPath:
                continue
            for nodes in sorted(node_paths)[:MAX_CONNECTING_PATHS]:
                path = [sorted(U[u][v])[0] for u, v in zip(nodes, nodes[1:])]
                if path not in out:
                    out.append(path)
    return out


def render_paths(paths: Sequence[Sequence[Fact]]) -> tuple[dict[int, Fact], str]:
    """Number each fact once, in order of first appearance, and write one line per path.

    Returns ``(numbered, text)`` where ``numbered`` maps each number to its fact.

    Examples
    --------
    >>> numbered, text = render_paths([[("A", "r", "B")], [("A", "r", "B"), ("B", "s", "C")]])
    >>> print(text)
    Path 1: [1] A r B.
    Path 2: [1] A r B. [2] B s C.
    """
    number: dict[Fact, int] = {}
    lines = []
    for i, path in enumerate(paths, 1):
        parts = []
        for f in path:
            n = number.setdefault(f, len(number) + 1)
            parts.append(f"[{n}] {fact_sentence(f)}")
        lines.append(f"Path {i}: " + " ".join(parts))
    return {n: f for f, n in number.items()}, "\n".join(lines)


def _quote(text: str) -> str:
    """Neutralize the data delimiters inside quoted text so a document cannot close its own block."""
    return re.sub(r"</?\s*(facts|paths|sources|passages|passage|question)\s*>", "", text, flags=re.I)


def paths_prompt(question: str, facts: Iterable[Fact], entities: Sequence[str]
                 ) -> tuple[str, str, dict[int, Fact]]:
    """The (system, user) messages of the Graph RAG answering call, and the numbered facts.

    Templates: :data:`gaba.prompts.PATHS_ANSWER_PROMPT` and :data:`gaba.prompts.ANSWER_SYSTEM`.

    Examples
    --------
    >>> system, user, numbered = paths_prompt("Who supplies B?", [("A", "supplies", "B")], ["B"])
    >>> "Path 1: [1] A supplies B." in user, numbered
    (True, {1: ('A', 'supplies', 'B')})
    """
    from . import prompts

    numbered, text = render_paths(fact_paths(facts, entities))
    user = prompts.PATHS_ANSWER_PROMPT.format(paths=_quote(text) or "(none)",
                                             question=_quote(question.strip()), abstain=ABSTAIN)
    return prompts.ANSWER_SYSTEM.format(abstain=ABSTAIN), user, numbered


_USED_LINE = re.compile(r"^[ \t*#>-]*facts?[ \t]+used[ \t*]*:(.*)$", re.I | re.M)


def cited_numbers(reply: str) -> list[int]:
    """The fact numbers a reply cites on its ``Facts used:`` line, in order, each once.

    Examples
    --------
    >>> cited_numbers("Facts used: [1], [3] and 3\\nAnswer: Voltaic")
    [1, 3]
    >>> cited_numbers("Answer: Voltaic")
    []
    """
    m = _USED_LINE.search(reply or "")
    if not m:
        return []
    return list(dict.fromkeys(int(x) for x in re.findall(r"\d+", m.group(1))))


@dataclasses.dataclass(frozen=True)
class Grounding:
    """The verdict of :func:`check_grounding` on one reply."""

    accepted: bool
    reason: str
    cited: tuple[Fact, ...] = ()
    answer_entities: tuple[str, ...] = ()


_ANSWER_LINE = re.compile(r"^[ \t*#>-]*answer[ \t*]*:[ \t*]*", re.I | re.M)


def final_answer(reply: str) -> str:
    """The answer part of a reply laid out as ``Facts used: ... / Answer: ...``.

    The answering prompts ask the model to copy the facts it used before answering (small
    models chain better that way); only the text after the last ``Answer:`` is the answer, so
    copied facts cannot make a wrong answer pass. A reply without that line is kept whole.

    Examples
    --------
    >>> final_answer("Facts used: A supplies B.\\nAnswer: Voltaic Dynamics.")
    'Voltaic Dynamics.'
    >>> final_answer("Voltaic Dynamics.")
    'Voltaic Dynamics.'
    """
    text = (reply or "").strip()
    matches = list(_ANSWER_LINE.finditer(text))
    if matches:
        tail = text[matches[-1].end():].strip()
        if tail:
            return tail
    return text


def is_abstention(answer: str) -> bool:
    """True when an answer declines ("I don't know" and close variants).

    Examples
    --------
    >>> is_abstention("I don't know."), is_abstention("Voltaic Dynamics.")
    (True, False)
    """
    a = (answer or "").replace("\u2019", "'").casefold().strip()
    if not a:
        return True
    return bool(re.search(r"\bi (don't|do not|cannot|can't) (know|answer|tell)\b|"
                          r"\b(facts|passages|context|sources) (do not|does not|don't|doesn't) "
                          r"(contain|say|state|mention|include)", a))


def _named_in(answer: str, name: str) -> bool:
    return bool(re.search(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", answer.casefold()))


def check_grounding(reply: str, numbered: Mapping[int, Fact], entities: Sequence[str], *,
                    aliases: Mapping[str, Sequence[str]] | None = None) -> Grounding:
    """Accept an answer only when the facts it cites support it; else say why not.

    Taught in chapter "Graph RAG and multi-hop reasoning". The rule, in order:

    1. the reply cites at least one fact number that was in the prompt;
    2. the answer (the text after ``Answer:``) names an entity of the cited facts that is not an
       entity of the question (by its name or one of its ``aliases``);
    3. the cited facts connect that entity to an entity of the question (a path through
       cited facts only).

    A reply that abstains is a (correct) abstention and is "accepted" as such.

    Examples
    --------
    >>> numbered = {1: ("Aurora", "supplies", "Kestrel"), 2: ("Voltaic", "competes_with", "Aurora")}
    >>> check_grounding("Facts used: 2\\nAnswer: Voltaic", numbered, ["Kestrel"]).reason
    'the cited facts do not connect Voltaic to Kestrel'
    >>> check_grounding("Facts used: 7\\nAnswer: Voltaic", numbered, ["Kestrel"]).reason
    'the reply cites no fact that was given (it cites 7)'
    """
    answer = final_answer(reply)
    if is_abstention(answer):
        return Grounding(True, "the model abstained")
    nums = cited_numbers(reply)
    cited = tuple(numbered[n] for n in nums if n in numbered)
    if not cited:
        shown = ", ".join(map(str, nums)) if nums else "nothing"
        return Grounding(False, f"the reply cites no fact that was given (it cites {shown})")
    aliases = aliases or {}
    question = set(entities)
    candidates = sorted({x for s, _, o in cited for x in (s, o)} - question)
    named = tuple(c for c in candidates
                  if any(_named_in(answer, n) for n in [c, *aliases.get(c, ())] if n))
    if not named:
        return Grounding(False, "the answer names no entity of the facts it cites", cited)
    adj: dict[str, set[str]] = defaultdict(set)
    for s, _, o in cited:
        adj[s].add(o)
        adj[o].add(s)
    seen, queue = set(question & set(adj)), deque(question & set(adj))
    while queue:
        u = queue.popleft()
        for v in adj[u] - seen:
            seen.add(v)
            queue.append(v)
    linked = tuple(c for c in named if c in seen)
    if not linked:
        return Grounding(False, f"the cited facts do not connect {', '.join(named)} to "
                                f"{', '.join(sorted(question))}", cited, named)
    return Grounding(True, "the cited facts connect the question to the answer", cited, linked)
