"""Measuring retrieval systems honestly: cases, repeated trials, rates with intervals, retrieval metrics.

Taught in chapter "Measuring graph against flat".

The pieces:

- :class:`Case` - one test question: the entities a correct answer must name, its kind
  (``single-fact``, ``two-hop``, ``three-hop`` or ``unanswerable``) and whether the corpus
  holds the answer at all;
- :func:`run_eval` - asks every system every question ``trials`` times (seed 0, 1, ...) and
  returns a tidy :class:`pandas.DataFrame`, one row per case x system x trial;
- :func:`pass_rates` and :func:`answer_abstain_rates` - rates with Wilson 95% intervals and
  the ``n`` behind them (:func:`wilson_interval`); :func:`plot_pass_rates` draws them;
- :func:`format_rate` / :func:`format_rates` - ``k/n = rate [low, high]``, the only way the
  book prints a rate;
- :func:`evidence_recall`, :func:`context_tokens` and :func:`take_within_budget` -
  retrieval-only metrics that need no model call, so they can be run at any corpus size;
- :func:`context_evidence` - did each system's retrieval hand over a case's gold facts;
- :func:`budget_recall` - flat retrieval against graph traversal on a multi-hop benchmark at
  equal context budgets; :func:`retrieval_summary` and :func:`plot_retrieval` summarise and
  draw it.

The scaling experiment of chapter "Retrieval that stays sharp at scale" is in :mod:`gaba.scaling`.

Examples
--------
>>> wilson_interval(8, 10)  # doctest: +ELLIPSIS
(0.49016..., 0.94331...)
>>> cases = [Case("Who runs Acme?", ["ada"], "single-fact"),
...          Case("Who runs Zeta?", [], "unanswerable")]
>>> df = run_eval(cases, {"echo": lambda q, seed: "Ada runs Acme."}, trials=2,
...               abstained=lambda a: "cannot" in a, progress=False)
>>> df.groupby("case").passed.mean().to_dict()
{'c01': 1.0, 'c02': 0.0}
"""
from __future__ import annotations

import inspect
import math
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np

from . import embed as _embedding
from . import rag
from .answer import is_abstention
from .data.benchmarks import pooled_paragraphs, to_graph
from .data.cases import KINDS, Case
from .embed import cosine_top_k
from .graph import fact_sentence, find_entities, gather_facts, gather_facts_by_hop

#: Tokens per English word assumed by :func:`context_tokens`.
TOKENS_PER_WORD = 1.3
#: z for a two-sided 95% interval.
Z95 = 1.959963984540054

__all__ = ["KINDS", "Case", "wilson_interval", "score_answer", "run_eval", "pass_rates",
           "answer_abstain_rates", "plot_pass_rates", "evidence_recall", "context_tokens",
           "take_within_budget", "budget_recall", "rag_systems", "retrieval_summary",
           "plot_retrieval", "context_evidence", "format_rate", "format_rates"]


def wilson_interval(k: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion of ``k`` successes out of ``n`` trials.

    Unlike the textbook ``p +/- z*sqrt(p(1-p)/n)``, it stays inside [0, 1] and does not
    collapse to a zero-width interval at 0 or n successes, which matters for small ``n``.
    Computed by ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.

    Parameters
    ----------
    k, n : int
        Successes and trials, ``0 <= k <= n``. With ``n == 0`` nothing is known: (0.0, 1.0).
    z : float
        Normal quantile (1.96 for 95%).

    Returns
    -------
    (low, high) : tuple of float

    Examples
    --------
    >>> wilson_interval(0, 5)  # doctest: +ELLIPSIS
    (0.0, 0.43448...)
    >>> wilson_interval(15, 15)[1]
    1.0
    """
    if isinstance(k, bool) or isinstance(n, bool) or int(k) != k or int(n) != n:
        raise TypeError(f"wilson_interval needs integer counts, got k={k!r}, n={n!r}")
    k, n = int(k), int(n)
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"wilson_interval needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    from scipy.stats import binomtest

    # scipy takes a confidence level, not z: the two-sided level whose normal quantile is z.
    ci = binomtest(k, n).proportion_ci(confidence_level=math.erf(z / math.sqrt(2)), method="wilson")
    return (max(0.0, float(ci.low)), min(1.0, float(ci.high)))


def score_answer(answer: str, case: Case, *, abstained: bool) -> bool:
    """Whether ``answer`` passes ``case`` (see :class:`Case`); ``abstained`` is decided by the caller.

    Examples
    --------
    >>> c = Case("Who competes with Kestrel Motors' battery supplier?", ["voltaic"], "two-hop")
    >>> score_answer("Voltaic Dynamics.", c, abstained=False)
    True
    """
    if not case.answerable:
        return bool(abstained)
    text = (answer or "").casefold()
    return (not abstained) and all(e.casefold() in text for e in case.expected)


def _accepts_temperature(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "temperature" or p.kind is p.VAR_KEYWORD for p in params)


def _split_output(out: Any) -> tuple[str, Any]:
    """A system returns an answer, or ``(answer, context)`` like ``graph_rag`` and ``flat_rag``."""
    if isinstance(out, str):
        return out, None
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], str):
        return out[0], out[1]
    raise TypeError(f"a system must return a string or (answer, context), got {type(out).__name__}")


def rag_systems(G=None, *, k: int | None = 2, hops: int | None = 2, documents=None,
                grounding: bool = True, budget: int | None | str = "default") -> dict[str, Callable]:
    """The two systems the book compares, ready for :func:`run_eval`.

    ``"flat RAG (top-k)"`` is :func:`gaba.rag.flat_rag` with ``k`` documents (from
    ``documents``, default the news corpus) and ``"graph RAG (h hops)"`` is
    :func:`gaba.rag.graph_rag` over ``G`` with ``hops`` hops and the grounding rule on (or,
    with ``grounding=False``, ``"graph RAG (h hops, no grounding)"``: the model's own answer);
    each takes ``(question, seed, temperature)``. Pass ``k=None`` or ``hops=None`` to leave one out.
    ``budget`` is graph_rag's fact budget (``"default"``: :data:`gaba.rag.DEFAULT_BUDGET`).

    Examples
    --------
    >>> list(rag_systems(k=2, hops=None))
    ['flat RAG (top-2)']
    """
    systems: dict[str, Callable] = {}
    if k is not None:
        systems[f"flat RAG (top-{k})"] = lambda q, seed, temperature: rag.flat_rag(
            q, k=k, documents=documents, temperature=temperature, seed=seed)
    if hops is not None:
        if G is None:
            raise ValueError("rag_systems needs the knowledge graph G for the graph RAG system")
        name = f"graph RAG ({hops} hops)" if grounding else f"graph RAG ({hops} hops, no grounding)"
        b = rag.DEFAULT_BUDGET if budget == "default" else budget
        systems[name] = lambda q, seed, temperature: rag.graph_rag(
            q, G, hops=hops, budget=b, grounding=grounding, temperature=temperature, seed=seed)
    return systems


def run_eval(cases: Sequence[Case], systems: Mapping[str, Callable], *, trials: int = 3,
             temperature: float = 0.7, first_seed: int = 0,
             abstained: Callable[[str], bool] | None = None, on_error: str = "raise",
             progress: bool = True, concurrency: int = 1):
    """Ask every system every question ``trials`` times and score each answer.

    Parameters
    ----------
    cases : sequence of Case
    systems : mapping of name -> callable
        Each is called as ``fn(question, seed)``, or ``fn(question, seed, temperature=t)``
        when it accepts a ``temperature`` keyword. It returns the answer string, or
        ``(answer, context)`` where context is the facts or passages it used (their size is
        recorded as ``context_tokens``).
    trials : int
        Repetitions per case and system; trial ``i`` uses seed ``first_seed + i``.
    temperature : float
        Sampling temperature handed to systems that accept it. With ``temperature == 0`` the
        trials of a deterministic model are copies, not evidence (a warning says so).
    abstained : callable, optional
        ``answer -> bool``; defaults to ``gaba.answer.is_abstention``.
    on_error : {"raise", "record"}
        ``record`` keeps going when a system raises, storing the error on that row (which
        then fails); ``raise`` stops with a message naming the case and the system.
    progress : bool
        Show a tqdm progress bar over the calls.
    concurrency : int
        Answers asked at once (threads; default 1, one after another). With a hosted endpoint,
        8-16 makes a large evaluation minutes instead of hours; the embedded local model answers
        one request at a time, so more gains nothing there. The rows come back in the same
        order whatever the setting (case, then system, then trial).

    Returns
    -------
    pandas.DataFrame
        One row per case x system x trial with columns ``case, question, kind, answerable,
        system, trial, seed, answer, abstained, passed, context_tokens, seconds, error``.

    Examples
    --------
    >>> df = run_eval([Case("Who runs Acme?", ["ada"], "single-fact")],
    ...               {"a": lambda q, seed: "Ada."}, trials=3, abstained=lambda a: False,
    ...               progress=False)
    >>> len(df), bool(df.passed.all())
    (3, True)
    """
    import pandas as pd
    from tqdm.auto import tqdm

    cases = list(cases)
    if not cases:
        raise ValueError("run_eval needs at least one Case.")
    if not all(isinstance(c, Case) for c in cases):
        bad = next(c for c in cases if not isinstance(c, Case))
        raise TypeError(f"run_eval takes Case objects, got {type(bad).__name__}: {bad!r}")
    if not systems:
        raise ValueError("run_eval needs at least one system (a dict of name -> callable).")
    for name, fn in systems.items():
        if not callable(fn):
            raise TypeError(f"system {name!r} is not callable")
    if int(trials) != trials or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if on_error not in {"raise", "record"}:
        raise ValueError(f"on_error must be 'raise' or 'record', not {on_error!r}")
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if isinstance(concurrency, bool) or int(concurrency) != concurrency or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
    if trials > 1 and temperature == 0:
        warnings.warn("temperature=0 with several trials: a deterministic model gives the same "
                      "answer every trial, so the trials add no evidence.", stacklevel=2)
    abstained = abstained or is_abstention
    ids = [c.id or f"c{i + 1:02d}" for i, c in enumerate(cases)]
    if len(set(ids)) != len(ids):
        raise ValueError("two cases share an id; give each case a unique id.")
    takes_t = {name: _accepts_temperature(fn) for name, fn in systems.items()}

    def ask(cid: str, case: Case, name: str, trial: int) -> dict:
        fn = systems[name]
        seed = first_seed + trial
        start = time.perf_counter()
        error, context = "", None
        try:
            out = fn(case.question, seed, temperature=temperature) if takes_t[name] \
                else fn(case.question, seed)
            answer, context = _split_output(out)
        except Exception as exc:  # noqa: BLE001 - recorded or re-raised with context
            if on_error == "raise":
                raise type(exc)(f"system {name!r} failed on case {cid} "
                                f"({case.question!r}), trial {trial}: {exc}") from exc
            answer, error = "", f"{type(exc).__name__}: {exc}"
        did_abstain = bool(abstained(answer)) if not error else False
        return {
            "case": cid, "question": case.question, "kind": case.kind,
            "answerable": case.answerable, "system": name, "trial": trial, "seed": seed,
            "answer": answer, "abstained": did_abstain,
            "passed": False if error else score_answer(answer, case, abstained=did_abstain),
            "context_tokens": context_tokens(context) if context is not None else None,
            "seconds": time.perf_counter() - start, "error": error,
        }

    tasks = [(cid, case, name, trial) for cid, case in zip(ids, cases) for name in systems
             for trial in range(int(trials))]
    bar = tqdm(total=len(tasks), desc="evaluating", unit="answer", disable=not progress)
    try:
        if concurrency == 1:
            rows = []
            for task in tasks:
                rows.append(ask(*task))
                bar.update(1)
        else:
            with ThreadPoolExecutor(max_workers=min(int(concurrency), len(tasks)),
                                    thread_name_prefix="gaba-eval") as pool:
                futures = [pool.submit(ask, *task) for task in tasks]
                try:
                    for fut in as_completed(futures):
                        fut.result()               # the first error stops the evaluation
                        bar.update(1)
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
            rows = [f.result() for f in futures]   # in task order, not in finishing order
    finally:
        bar.close()
    df = pd.DataFrame(rows)
    df["kind"] = pd.Categorical(df["kind"], categories=[k for k in KINDS if k in set(df["kind"])],
                                ordered=True)
    df["system"] = pd.Categorical(df["system"], categories=list(systems), ordered=True)
    return df


def _rate_table(df, by: list[str], column: str, unit: str):
    import pandas as pd

    if unit not in {"trial", "question"}:
        raise ValueError(f"unit must be 'trial' or 'question', not {unit!r}")
    missing = [c for c in [*by, column, "case"] if c not in df.columns]
    if missing:
        raise KeyError(f"the results have no column(s) {missing}; columns are {list(df.columns)}")
    data = df
    if unit == "question":
        # a question counts once: it passes when it passed in more than half of its trials
        data = (df.groupby([*by, "case"], observed=True)[column].mean() > 0.5).reset_index()
    rows = []
    for key, group in data.groupby(by, observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        k, n = int(group[column].sum()), int(len(group))
        low, high = wilson_interval(k, n)
        rows.append({**dict(zip(by, key)), "k": k, "n": n, "questions": group["case"].nunique(),
                     "rate": k / n if n else float("nan"), "low": low, "high": high})
    out = pd.DataFrame(rows)
    for col in by:  # keep the categorical order (systems as given, kinds as KINDS)
        if col in df.columns and isinstance(df[col].dtype, pd.CategoricalDtype):
            out[col] = pd.Categorical(out[col], categories=df[col].cat.categories, ordered=True)
    return out.sort_values(by).reset_index(drop=True)


def pass_rates(df, by: Sequence[str] = ("system", "kind"), *, unit: str = "trial"):
    """Pass rate per group with its Wilson 95% interval and ``n``.

    Parameters
    ----------
    df : pandas.DataFrame
        The output of :func:`run_eval`.
    by : sequence of str
        Columns to group by (default system and kind).
    unit : {"trial", "question"}
        ``trial`` counts every answer (n = questions x trials). Trials of one question are
        not independent, so this interval is optimistic; ``question`` counts each question
        once, as passed when it passed in a majority of its trials.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by, k, n, questions, rate, low, high``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["g"] * 4, "case": ["a", "a", "b", "b"],
    ...                    "passed": [True, True, True, False]})
    >>> row = pass_rates(df, by=["system"]).iloc[0]
    >>> int(row.k), int(row.n), float(row.rate)
    (3, 4, 0.75)
    """
    return _rate_table(df, list(by), "passed", unit)


def answer_abstain_rates(df, by: Sequence[str] = ("system",), *, unit: str = "trial"):
    """Answer rate on answerable cases and abstain rate on unanswerable ones, with intervals.

    A system that always abstains scores 0 on the first and 1 on the second; one that always
    answers, the reverse. Both rates have to be high.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by, measure, k, n, questions, rate, low, high`` with ``measure`` either
        ``answered (answerable)`` or ``abstained (unanswerable)``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["g"] * 3, "case": ["a", "b", "c"],
    ...                    "answerable": [True, True, False], "abstained": [False, True, True]})
    >>> answer_abstain_rates(df)[["measure", "k", "n"]].values.tolist()
    [['answered (answerable)', 1, 2], ['abstained (unanswerable)', 1, 1]]
    """
    import pandas as pd

    if "answerable" not in df.columns or "abstained" not in df.columns:
        raise KeyError("answer_abstain_rates needs the 'answerable' and 'abstained' columns of run_eval")
    parts = []
    answerable = df[df["answerable"]].assign(answered=lambda d: ~d["abstained"].astype(bool))
    unanswerable = df[~df["answerable"].astype(bool)]
    for label, data, column in [("answered (answerable)", answerable, "answered"),
                                ("abstained (unanswerable)", unanswerable, "abstained")]:
        if len(data):
            parts.append(_rate_table(data, list(by), column, unit).assign(measure=label))
    if not parts:
        raise ValueError("no rows to rate")
    out = pd.concat(parts, ignore_index=True)
    return out[[*by, "measure", "k", "n", "questions", "rate", "low", "high"]]


def plot_pass_rates(summary, ax=None, *, x: str = "kind", hue: str = "system",
                    ylabel: str = "pass rate", colors: Sequence[str] | None = None):
    """Grouped bars of ``summary`` rates with Wilson error bars; ``n`` in the tick labels.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`pass_rates` (or :func:`answer_abstain_rates` with ``x="measure"``).
    ax : matplotlib Axes, optional
    x, hue : str
        Column for the groups along the x axis and column for the bars within a group.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    for col in (x, hue, "rate", "low", "high", "n", "k"):
        if col not in summary.columns:
            raise KeyError(f"summary has no column {col!r}; pass the output of pass_rates")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.8))
    groups = list(dict.fromkeys(summary[x]))
    series = list(dict.fromkeys(summary[hue]))
    colors = list(colors or ["#cf222e", "#0969da", "#1a7f37", "#8250df", "#bf8700"])
    width = 0.8 / max(len(series), 1)
    xs = np.arange(len(groups))
    for i, name in enumerate(series):
        sub = summary[summary[hue] == name].set_index(x)
        rates = [float(sub.loc[g, "rate"]) if g in sub.index else np.nan for g in groups]
        lows = [float(sub.loc[g, "low"]) if g in sub.index else np.nan for g in groups]
        highs = [float(sub.loc[g, "high"]) if g in sub.index else np.nan for g in groups]
        err = np.array([[r - lo for r, lo in zip(rates, lows)], [h - r for r, h in zip(rates, highs)]])
        pos = xs - 0.4 + width * (i + 0.5)
        bars = ax.bar(pos, rates, width=width * 0.95, color=colors[i % len(colors)], label=str(name),
                      yerr=err, capsize=3, error_kw={"elinewidth": 1, "ecolor": "#444"})
        labels = [f"{int(sub.loc[g, 'k'])}/{int(sub.loc[g, 'n'])}" if g in sub.index else ""
                  for g in groups]
        for bar, hi, label in zip(bars, highs, labels):
            if label:
                ax.annotate(label, (bar.get_x() + bar.get_width() / 2, hi), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7)
    ticks = []
    for g in groups:
        ns = sorted(set(int(v) for v in summary.loc[summary[x] == g, "n"]))
        ticks.append(f"{g}\n(n={'/'.join(map(str, ns))})")
    ax.set_xticks(xs, ticks)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.15)
    ax.legend(frameon=False, ncols=len(series), loc="upper center")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def _norm(item: Any) -> Any:
    if isinstance(item, str):
        return " ".join(item.casefold().split())
    if isinstance(item, (tuple, list)):
        return tuple(_norm(x) for x in item)
    return item


def evidence_recall(retrieved: Iterable, gold: Iterable, *, match: str = "equal") -> float:
    """Fraction of the gold evidence found in what a retriever returned. No model call.

    Parameters
    ----------
    retrieved : iterable
        What the retriever handed over: fact triples ``(subject, relation, object)``,
        passage texts, or passage ids/titles.
    gold : iterable
        The evidence a correct answer needs, of the same kind (with ``match="contains"``:
        strings such as gold sentences to look for inside the retrieved passages).
    match : {"equal", "contains"}
        ``equal`` compares items after case-folding and collapsing whitespace (triples
        element by element); ``contains`` counts a gold string as found when it occurs in
        any retrieved string.

    Returns
    -------
    float
        In [0, 1]; 1.0 means every gold item was retrieved (see also ``== 1.0`` per question
        for the "all evidence" rate).

    Examples
    --------
    >>> gold = [("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
    ...         ("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works")]
    >>> evidence_recall([("aurora cell works", "SUPPLIES_TO", "Kestrel Motors")], gold)
    0.5
    >>> evidence_recall(["Voltaic Dynamics competes with Aurora."], ["competes with aurora"],
    ...                 match="contains")
    1.0
    """
    if match not in {"equal", "contains"}:
        raise ValueError(f"match must be 'equal' or 'contains', not {match!r}")
    if isinstance(gold, str) or isinstance(retrieved, str):
        raise TypeError("evidence_recall takes collections of items; wrap a single string in a list")
    gold_items = list(dict.fromkeys(_norm(g) for g in gold))
    if not gold_items:
        raise ValueError("evidence_recall: the gold evidence is empty, so recall is undefined")
    got = [_norm(r) for r in retrieved]
    if match == "equal":
        have = set(got)
        found = sum(g in have for g in gold_items)
    else:
        texts = [r if isinstance(r, str) else " ".join(map(str, r)) for r in got]
        found = sum(any(str(g) in t for t in texts) for g in gold_items)
    return found / len(gold_items)


_WORD = re.compile(r"\S+")


def context_tokens(text: Any) -> int:
    """Approximate number of model tokens in a context: words x 1.3, rounded down.

    English text averages about 1.3 tokens per word with common BPE tokenizers (the same
    rule as ``gaba.graph.approx_tokens``); the estimate needs no tokenizer and is the same
    for every system, which is what a comparison needs. ``text`` may be a string, a list of strings (passages), or a
    collection of fact triples (each rendered as ``subject relation object``).

    Examples
    --------
    >>> context_tokens("Aurora Cell Works supplies Kestrel Motors.")
    7
    >>> context_tokens([("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors")])
    7
    """
    if text is None:
        return 0
    if isinstance(text, str):
        words = len(_WORD.findall(text))
    else:
        words = 0
        for item in text:
            if isinstance(item, str):
                words += len(_WORD.findall(item))
            elif isinstance(item, (tuple, list)):
                words += sum(len(_WORD.findall(str(x))) for x in item)
            elif isinstance(item, Mapping) and "text" in item:
                words += len(_WORD.findall(str(item["text"])))
            else:
                words += len(_WORD.findall(str(item)))
    return int(words * TOKENS_PER_WORD)


# --------------------------------------------------------------------------- retrieval experiments

def take_within_budget(items: Iterable, budget: int | None, *,
                       size: Callable[[Any], int] | None = None) -> list:
    """The longest prefix of ``items`` whose total size fits in ``budget`` tokens.

    ``size`` defaults to :func:`context_tokens` of one item; ``budget=None`` keeps everything.

    Examples
    --------
    >>> take_within_budget(["one two", "three four five", "six"], 4)
    ['one two']
    >>> take_within_budget(["a", "b"], None)
    ['a', 'b']
    """
    items = list(items)
    if budget is None:
        return items
    if isinstance(budget, bool) or int(budget) != budget or budget < 0:
        raise ValueError(f"budget must be a non-negative number of tokens or None, not {budget!r}")
    size = size or (lambda item: context_tokens([item]))
    kept, used = [], 0
    for item in items:
        cost = size(item)
        if used + cost > budget:
            break
        kept.append(item)
        used += cost
    return kept


def _ordered_facts(G, entities, hops: int) -> list[tuple[str, str, str]]:
    """Facts in hop order (hop 1 first), sorted within a hop: a question-blind order."""
    out: list[tuple[str, str, str]] = []
    for layer in gather_facts_by_hop(G, entities, hops):
        out.extend(sorted(layer))
    return out


def _embed(texts, kind="passage"):
    return _embedding.embed_texts(list(texts), kind=kind)


def retrieval_summary(df, by: Sequence[str] = ("size", "method")):
    """All-evidence rate per group with Wilson 95% interval and n, plus mean recall and context size.

    Works on the output of :func:`budget_recall` (any frame with ``all_evidence``, ``recall``,
    ``context_tokens`` and ``seconds`` columns).

    Returns
    -------
    pandas.DataFrame
        Columns ``*by, k, n, rate, low, high, mean_recall, median_tokens, p90_tokens,
        mean_ms`` (context sizes in approximate tokens, the 90th percentile showing the
        large contexts of questions about hubs).
    """
    by = list(by)
    out = _rate_table(df.assign(case=df.get("question", df.get("example"))), by, "all_evidence", "trial")
    extra = df.groupby(by, observed=True, sort=True).agg(
        mean_recall=("recall", "mean"), median_tokens=("context_tokens", "median"),
        p90_tokens=("context_tokens", lambda s: s.quantile(0.9)),
        mean_ms=("seconds", lambda s: 1000 * s.mean())).reset_index()
    return out.drop(columns="questions").merge(extra, on=by)


def budget_recall(examples: Sequence, *, budgets: Sequence[int] = (50, 100, 200, 400), hops: int = 2,
                  triples: Mapping | None = None, rankers: Mapping[str, Callable | None] | None = None,
                  embed: Callable | None = None, progress: bool = True):
    """Evidence recall of graph traversal and flat retrieval at equal context budgets, on a
    multi-hop benchmark in the common :class:`~gaba.data.benchmarks.MultiHopExample` form.

    - flat: every distinct paragraph of all ``examples`` is pooled into one corpus; for each
      question the paragraphs are ranked by embedding similarity and their sentences taken in
      that order until the budget is spent; the question has its evidence when every
      supporting sentence made it in;
    - graph: a graph of ``triples`` (title -> [(subject, relation, object, sentence)], e.g.
      :func:`~gaba.data.benchmarks.load_sample_triples`) or, by default, of the examples'
      evidence triples; traversal from the entities named in the question
      (:func:`gaba.graph.find_entities`), facts in some order rendered as sentences until the
      budget is spent; the question has its evidence when every gold evidence triple made it in.
      ``rankers`` maps a method name to the order: ``None`` is hop order (hop 1 first, sorted
      within a hop), a callable ``rank(question, facts, G) -> facts`` any other order (for
      instance ``gaba.rank.rank_facts`` with ``budget=len(facts)``). Default: ``{"graph": None}``.

    Examples without evidence triples are skipped (HotpotQA has none).

    Returns
    -------
    pandas.DataFrame
        One row per example x budget x method: ``example, kind, budget, method, recall,
        all_evidence, linked, context_tokens, seconds``.
    """
    import pandas as pd
    from tqdm.auto import tqdm

    examples = [ex for ex in examples if ex.evidence_triples]
    if not examples:
        raise ValueError("budget_recall needs examples with evidence triples (2WikiMultihopQA, "
                         "or MuSiQue records with a '>>' decomposition).")
    rankers = dict(rankers) if rankers is not None else {"graph": None}
    if not rankers or "flat" in rankers:
        raise ValueError("rankers must name at least one graph method, and not 'flat'")
    budgets = sorted({int(b) for b in budgets})
    if budgets[0] < 1:
        raise ValueError(f"budgets must be positive token counts, got {budgets!r}")
    embed = embed or _embed
    pool = pooled_paragraphs(examples)
    matrix = np.asarray(embed([f"{t}: {x}" for t, x in pool], kind="passage"))
    qvecs = embed([ex.question for ex in examples], kind="query")
    sentences = {}
    for ex in examples:
        for title, sents in ex.paragraphs:
            sentences.setdefault((title, " ".join(s.strip() for s in sents)), [s.strip() for s in sents])
    G = to_graph(examples, triples=triples)
    rows = []
    for ex, qv in tqdm(list(zip(examples, qvecs)), desc="questions", unit="question",
                       disable=not progress):
        t0 = time.perf_counter()
        order = cosine_top_k(np.asarray(qv), matrix, len(pool))
        units = [(pool[i][0], j, s) for i in order for j, s in enumerate(sentences[pool[i]])]
        t_flat = time.perf_counter() - t0
        gold_sf = [(t, j) for t, j in ex.supporting_facts]
        t0 = time.perf_counter()
        entities = find_entities(ex.question, G)
        facts = _ordered_facts(G, entities, hops) if entities else []
        t_gather = time.perf_counter() - t0
        orders = {}
        for name, rank in rankers.items():
            t0 = time.perf_counter()
            ordered = list(rank(ex.question, facts, G)) if (rank is not None and facts) else facts
            orders[name] = ([(f, fact_sentence(f)) for f in ordered], t_gather + time.perf_counter() - t0)
        for b in budgets:
            kept = take_within_budget(units, b, size=lambda u: context_tokens(u[2]))
            got = {(t, j) for t, j, _ in kept} | {(t, None) for t, _, _ in kept}
            recall = evidence_recall([f"{t}\x00{j}" for t, j in got], [f"{t}\x00{j}" for t, j in gold_sf])
            rows.append({"example": ex.id, "kind": ex.kind, "budget": b, "method": "flat",
                         "recall": recall, "all_evidence": recall == 1.0, "linked": None,
                         "context_tokens": sum(context_tokens(u[2]) for u in kept),
                         "seconds": t_flat})
            for name, (rendered, seconds) in orders.items():
                kept_f = take_within_budget(rendered, b, size=lambda r: context_tokens(r[1]))
                recall = evidence_recall([f for f, _ in kept_f], ex.evidence_triples)
                rows.append({"example": ex.id, "kind": ex.kind, "budget": b, "method": name,
                             "recall": recall, "all_evidence": recall == 1.0, "linked": bool(entities),
                             "context_tokens": sum(context_tokens(r) for _, r in kept_f),
                             "seconds": seconds})
    df = pd.DataFrame(rows)
    df["method"] = pd.Categorical(df["method"], categories=["flat", *rankers], ordered=True)
    return df


def plot_retrieval(summary, ax=None, *, x: str = "size", y: str = "rate", hue: str = "method",
                   logx: bool = True, xlabel: str | None = None, ylabel: str | None = None,
                   colors: Sequence[str] | None = None):
    """Lines of a :func:`retrieval_summary` column against ``x``, one per ``hue`` value.

    With ``y="rate"`` the Wilson intervals are drawn as error bars; any other numeric column
    (``median_tokens``, ``mean_recall``, ``mean_ms``) is drawn as a plain line.

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt

    for col in (x, y, hue):
        if col not in summary.columns:
            raise KeyError(f"summary has no column {col!r}; pass the output of retrieval_summary")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.6))
    colors = list(colors or ["#cf222e", "#0969da", "#8250df", "#1a7f37", "#bf8700"])
    markers = ["o", "s", "^", "D", "v"]
    lines = ["-", "--", ":", "-."]
    for i, name in enumerate(dict.fromkeys(summary[hue])):
        sub = summary[summary[hue] == name].sort_values(x)
        style = {"color": colors[i % len(colors)], "marker": markers[i % len(markers)],
                 "linestyle": lines[i % len(lines)], "label": str(name), "linewidth": 1.5,
                 "markersize": 5}
        if y == "rate":
            err = [sub["rate"] - sub["low"], sub["high"] - sub["rate"]]
            ax.errorbar(sub[x], sub["rate"], yerr=err, capsize=3, **style)
        else:
            ax.plot(sub[x], sub[y], **style)
    if logx:
        ax.set_xscale("log")
        values = sorted(set(summary[x]))
        ax.set_xticks(values, [f"{v:,}" for v in values])
        ax.minorticks_off()
    if y == "rate":
        ax.set_ylim(-0.03, 1.08)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    ax.legend(frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def context_evidence(cases: Sequence[Case], G, *, documents: Sequence[Mapping], hops: int = 2,
                     k: int = 2, embed: Callable | None = None):
    """Did each system's retrieval hand over the gold evidence? Retrieval only, no model call.

    For every answerable case with ``evidence`` (gold triples ``(subject, relation, object,
    doc_id)``):

    - graph: the facts within ``hops`` hops of the entities the question names
      (:func:`gaba.graph.find_entities`, :func:`gaba.graph.gather_facts`); a gold fact counts
      as retrieved when a gathered fact joins the same two entities (in either direction,
      under any relation label: an extractor may word a relation differently);
    - flat: the ``k`` documents most similar to the question, as :func:`gaba.rag.flat_rag`
      retrieves them (:func:`gaba.rag.flat_retrieve`, or ``embed`` if given); a gold fact
      counts when its document is among them.

    Returns
    -------
    pandas.DataFrame
        One row per case: ``case, kind, graph_recall, graph_has_evidence, graph_facts,
        flat_recall, flat_has_evidence``.
    """
    import pandas as pd

    docs = list(documents)
    if embed is None:
        def top_k(question):  # exactly what flat_rag retrieves
            return [d["id"] for d in rag.flat_retrieve(question, k, documents=docs)]
    else:
        matrix = embed([d["text"] for d in docs], kind="passage")

        def top_k(question):
            qv = embed([question], kind="query")[0]
            return [docs[j]["id"] for j in cosine_top_k(qv, matrix, min(k, len(docs)))]
    rows = []
    for i, case in enumerate(cases):
        if not case.answerable or not case.evidence:
            continue
        cid = case.id or f"c{i + 1:02d}"
        entities = find_entities(case.question, G)
        facts = gather_facts(G, entities, hops) if entities else set()
        pairs = {frozenset((_norm(s), _norm(o))) for s, _, o in facts}
        gold_pairs = [frozenset((_norm(e[0]), _norm(e[2]))) for e in case.evidence]
        g_recall = sum(p in pairs for p in gold_pairs) / len(gold_pairs)
        f_recall = evidence_recall(top_k(case.question), [e[3] for e in case.evidence])
        rows.append({"case": cid, "kind": case.kind, "graph_recall": g_recall,
                     "graph_has_evidence": g_recall == 1.0, "graph_facts": len(facts),
                     "flat_recall": f_recall, "flat_has_evidence": f_recall == 1.0})
    return pd.DataFrame(rows)


def format_rate(k: int, n: int, *, digits: int = 2) -> str:
    """``"k/n = rate [low, high]"``: a rate as the book prints it, never without its interval.

    Examples
    --------
    >>> format_rate(8, 10)
    '8/10 = 0.80 [0.49, 0.94]'
    """
    low, high = wilson_interval(k, n)
    rate = k / n if n else float("nan")
    return f"{k}/{n} = {rate:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def format_rates(summary, *, index: Sequence[str] | None = None, columns: str | None = None):
    """A readable table of a rate summary: each cell ``k/n = rate [low, high]``.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`pass_rates`, :func:`answer_abstain_rates` or :func:`retrieval_summary`.
    index, columns : optional
        Pivot: rows by ``index`` columns, one column per value of ``columns``
        (e.g. ``index=["kind"], columns="system"``). Without them, one row per group.
    """
    cell = [format_rate(int(k), int(n)) for k, n in zip(summary["k"], summary["n"])]
    table = summary.assign(**{"k/n = rate [95% interval]": cell})
    if columns is None:
        keep = [c for c in summary.columns if c not in {"k", "n", "questions", "rate", "low", "high"}]
        return table[[*keep, "k/n = rate [95% interval]"]].reset_index(drop=True)
    out = table.pivot(index=list(index or []), columns=columns, values="k/n = rate [95% interval]")
    out.columns.name = None
    return out
