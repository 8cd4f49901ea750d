"""Measuring answers honestly: cases, repeated trials, rates with their intervals (chapter
"Measuring graph against flat"; retrieval-only measures are in :mod:`gaba.retrieval_eval`)."""
from __future__ import annotations

import inspect
import math
import numbers
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from . import rag
from .answer import is_abstention
from .data.cases import KINDS, Case
from .llm import check_temperature
from .tokens import estimate_tokens

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054

__all__ = ["KINDS", "Case", "wilson_interval", "score_answer", "run_eval", "rag_systems", "pass_rates",
           "answer_abstain_rates", "plot_pass_rates", "context_tokens", "format_rate", "format_rates"]


def _whole(x) -> bool:
    """Whether ``x`` is a finite whole number (an int, or a float such as 3.0)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x) and int(x) == x


def wilson_interval(k: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for ``k`` successes in ``n`` trials (``z``: normal quantile).

    Stays inside [0, 1], even at 0 or n successes; ``n == 0`` gives (0.0, 1.0).

    >>> wilson_interval(0, 5)  # doctest: +ELLIPSIS
    (0.0, 0.43448...)
    """
    if not (_whole(k) and _whole(n)):
        raise TypeError(f"wilson_interval needs integer counts, got k={k!r}, n={n!r}")
    if not isinstance(z, numbers.Real) or not z > 0:
        raise ValueError(f"z must be a positive number (1.96 for a 95% interval), got {z!r}")
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


def rag_systems(G=None, *, k: int | None = 2, hops: int | None = rag.DEFAULT_HOPS, documents=None,
                grounding: bool = True, budget: int | None | str = "default",
                fact_order: str = rag.DEFAULT_FACT_ORDER, rank: str = rag.DEFAULT_RANK,
                second_look: bool = True, clause_first: bool = True) -> dict[str, Callable]:
    """The two systems the book compares, ready for :func:`run_eval`.

    Flat RAG over the top ``k`` documents and Graph RAG within ``hops`` (its options show in its
    name); ``None`` leaves one out. Raises ValueError for Graph RAG without ``G``.

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
        extra = ("" if grounding else ", no grounding") + {
            "sorted": ", alphabetical order", "outline": ", outline", "chains": ", chains"}.get(fact_order, "")
        b = rag.DEFAULT_BUDGET if budget == "default" else budget
        extra += ("" if b == rag.DEFAULT_BUDGET else ", every fact" if b is None else f", {b} facts")
        extra += "" if rank == rag.DEFAULT_RANK else f", {rank} ranking"
        extra += "" if second_look or not grounding else ", one question"
        extra += ", whole question" if not clause_first and second_look and grounding else ""
        systems[f"graph RAG ({hops} hops{extra})"] = lambda q, seed, temperature: rag.graph_rag(
            q, G, hops=hops, budget=b, grounding=grounding, temperature=temperature, seed=seed,
            fact_order=fact_order, rank=rank, second_look=second_look, clause_first=clause_first)
    return systems


def run_eval(cases: Sequence[Case], systems: Mapping[str, Callable], *, trials: int = 3,
             temperature: float = 0.7, first_seed: int = 0,
             abstained: Callable[[str], bool] | None = None, on_error: str = "raise",
             progress: bool = True, concurrency: int = 1):
    """Ask every system every question ``trials`` times and score each answer.

    A system is ``fn(question, seed)`` (plus ``temperature=`` if it takes it) returning the answer
    or ``(answer, context)``; trial ``i`` uses seed ``first_seed + i``. ``on_error="record"`` stores
    an error on its row instead of raising; ``concurrency`` answers in threads. Returns a DataFrame,
    one row per case x system x trial: ``case, question, kind, answerable, system, trial, seed,
    answer, abstained, passed, context_tokens, seconds, error``.

    >>> df = run_eval([Case("Who runs Acme?", ["ada"], "single-fact")],
    ...               {"a": lambda q, seed: "Ada."}, trials=3, abstained=lambda a: False,
    ...               progress=False)
    >>> len(df), bool(df.passed.all())
    (3, True)
    """
    import pandas as pd
    cases = list(cases)
    if not cases:
        raise ValueError("run_eval needs at least one Case.")
    bad = next((c for c in cases if not isinstance(c, Case)), None)
    if bad is not None:
        raise TypeError(f"run_eval takes Case objects, got {type(bad).__name__}: {bad!r}")
    if not systems:
        raise ValueError("run_eval needs at least one system (a dict of name -> callable).")
    for name, fn in systems.items():
        if not callable(fn):
            raise TypeError(f"system {name!r} is not callable")
    if not _whole(trials) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if on_error not in {"raise", "record"}:
        raise ValueError(f"on_error must be 'raise' or 'record', not {on_error!r}")
    check_temperature(temperature)
    if not _whole(first_seed):
        raise ValueError(f"first_seed must be a whole number, got {first_seed!r}")
    if not _whole(concurrency) or concurrency < 1:
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
        error, context, did_abstain, tokens = "", None, False, None
        try:
            out = fn(case.question, seed, temperature=temperature) if takes_t[name] \
                else fn(case.question, seed)
            pair = isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], str)
            answer, context = out if pair else (out, None)      # (answer, context) like graph_rag's
            if not isinstance(answer, str):
                raise TypeError(f"a system must return a string or (answer, context), "
                                f"got {type(answer).__name__}")
            did_abstain = bool(abstained(answer))
            tokens = context_tokens(context) if context is not None else None
        except Exception as exc:  # noqa: BLE001 - recorded or re-raised with context
            if on_error == "raise":
                message = f"system {name!r} failed on case {cid} ({case.question!r}), trial {trial}: {exc}"
                try:
                    wrapped = type(exc)(message)
                except Exception:  # noqa: BLE001 - an exception class that takes other arguments
                    wrapped = RuntimeError(f"{message} ({type(exc).__name__})")
                raise wrapped from exc
            answer, error, did_abstain, tokens = "", f"{type(exc).__name__}: {exc}", False, None
        return {"case": cid, "question": case.question, "kind": case.kind, "answerable": case.answerable,
                "system": name, "trial": trial, "seed": seed, "answer": answer, "abstained": did_abstain,
                "passed": False if error else score_answer(answer, case, abstained=did_abstain),
                "context_tokens": tokens, "seconds": time.perf_counter() - start, "error": error}

    tasks = [(cid, case, name, trial) for cid, case in zip(ids, cases) for name in systems
             for trial in range(int(trials))]
    with tqdm(total=len(tasks), desc="evaluating", unit="answer", disable=not progress) as bar:
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
                    pool.shutdown(cancel_futures=True)
                    raise
            rows = [f.result() for f in futures]   # in task order, not in finishing order
    df = pd.DataFrame(rows)
    df["kind"] = pd.Categorical(df["kind"], categories=[k for k in KINDS if k in set(df["kind"])],
                                ordered=True)
    df["system"] = pd.Categorical(df["system"], categories=list(systems), ordered=True)
    return df


def _columns(by) -> list[str]:
    """The grouping columns: one name, or a sequence of names."""
    return [by] if isinstance(by, str) else list(by)


def _check_table(df) -> None:
    if not hasattr(df, "columns") or not hasattr(df, "groupby"):
        raise TypeError(f"expected the DataFrame of run_eval, got {type(df).__name__}")


def _rate_table(df, by: list[str], column: str, unit: str):
    """Rates of the boolean ``column`` per group ``by``, with Wilson intervals."""
    _check_table(df)
    if unit not in {"trial", "question"}:
        raise ValueError(f"unit must be 'trial' or 'question', not {unit!r}")
    missing = [c for c in [*by, column, "case"] if c not in df.columns]
    if missing:
        raise KeyError(f"the results have no column(s) {missing}; columns are {list(df.columns)}")
    data = df
    if unit == "question":
        # a question counts once: it passes when it passed in more than half of its trials
        data = (df.groupby([*by, "case"], observed=True)[column].mean() > 0.5).reset_index()
    out = data.groupby(by, observed=True, sort=True).agg(
        k=(column, "sum"), n=(column, "size"), questions=("case", "nunique")).reset_index()
    out["k"] = out["k"].astype(int)
    out["rate"] = out["k"] / out["n"]
    intervals = [wilson_interval(k, n) for k, n in zip(out["k"], out["n"])]      # none for no rows
    out["low"], out["high"] = [lo for lo, _ in intervals], [hi for _, hi in intervals]
    return out


def pass_rates(df, by: Sequence[str] = ("system", "kind"), *, unit: str = "trial"):
    """Pass rate of :func:`run_eval`'s rows per group: columns ``*by, k, n, questions, rate, low, high``.

    ``unit="question"`` counts a question passed when most of its trials passed; ``"trial"``
    counts every answer (an optimistic interval: one question's trials are not independent).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["g"] * 4, "case": ["a", "a", "b", "b"],
    ...                    "passed": [True, True, True, False]})
    >>> row = pass_rates(df, by=["system"]).iloc[0]
    >>> int(row.k), int(row.n), float(row.rate)
    (3, 4, 0.75)
    """
    return _rate_table(df, _columns(by), "passed", unit)


def answer_abstain_rates(df, by: Sequence[str] = ("system",), *, unit: str = "trial"):
    """Answer rate on answerable cases and abstain rate on unanswerable ones, with intervals: columns
    ``*by, measure, k, n, questions, rate, low, high``.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["g"] * 3, "case": ["a", "b", "c"],
    ...                    "answerable": [True, True, False], "abstained": [False, True, True]})
    >>> answer_abstain_rates(df)[["measure", "k", "n"]].values.tolist()
    [['answered (answerable)', 1, 2], ['abstained (unanswerable)', 1, 1]]
    """
    import pandas as pd
    by = _columns(by)
    _check_table(df)
    if "answerable" not in df.columns or "abstained" not in df.columns:
        raise KeyError("answer_abstain_rates needs the 'answerable' and 'abstained' columns of run_eval")
    parts = []
    answerable = df[df["answerable"]].assign(answered=lambda d: ~d["abstained"].astype(bool))
    unanswerable = df[~df["answerable"].astype(bool)]
    for label, data, column in [("answered (answerable)", answerable, "answered"),
                                ("abstained (unanswerable)", unanswerable, "abstained")]:
        if len(data):
            parts.append(_rate_table(data, by, column, unit).assign(measure=label))
    if not parts:
        raise ValueError("no rows to rate")
    out = pd.concat(parts, ignore_index=True)
    return out[[*by, "measure", "k", "n", "questions", "rate", "low", "high"]]


def plot_pass_rates(summary, ax=None, *, x: str = "kind", hue: str = "system",
                    ylabel: str = "pass rate", colors: Sequence[str] | None = None):
    """Grouped bars of :func:`pass_rates` (or :func:`answer_abstain_rates`, ``x="measure"``) with
    Wilson error bars and ``k/n`` on each bar: groups by ``x``, one bar per ``hue``."""
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
        sub = summary[summary[hue] == name].set_index(x, drop=False).reindex(groups)
        bars = ax.bar(xs - 0.4 + width * (i + 0.5), sub["rate"], width=width * 0.95,
                      color=colors[i % len(colors)], label=str(name), capsize=3,
                      yerr=[sub["rate"] - sub["low"], sub["high"] - sub["rate"]],
                      error_kw={"elinewidth": 1, "ecolor": "#444"})
        for bar, (k, n, hi) in zip(bars, sub[["k", "n", "high"]].itertuples(index=False)):
            if n == n:                             # a group this series has no row in: no label
                ax.annotate(f"{int(k)}/{int(n)}", (bar.get_x() + bar.get_width() / 2, hi), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7)
    ns = [sorted({int(v) for v in summary.loc[summary[x] == g, "n"]}) for g in groups]
    ax.set_xticks(xs, [f"{g}\n(n={'/'.join(map(str, n))})" for g, n in zip(groups, ns)])
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.15)
    ax.legend(frameon=False, ncols=len(series), loc="upper center")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def context_tokens(text: Any) -> int:
    """Approximate model tokens in a context (a string, passages or fact triples): words x 1.3, rounded down.

    >>> context_tokens([("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors")])
    7
    """
    if text is None:
        return 0
    if not isinstance(text, str):
        text = " ".join(" ".join(map(str, item)) if isinstance(item, (tuple, list)) else
                        str(item["text"]) if isinstance(item, Mapping) and "text" in item else str(item)
                        for item in text)
    return estimate_tokens(text, words_only=True)


def format_rate(k: int, n: int, *, digits: int = 2) -> str:
    """``"k/n = rate [low, high]"``: a rate as the book prints it, never without its interval.

    >>> format_rate(8, 10)
    '8/10 = 0.80 [0.49, 0.94]'
    """
    low, high = wilson_interval(k, n)
    rate = k / n if n else float("nan")
    return f"{k}/{n} = {rate:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def format_rates(summary, *, index: Sequence[str] | None = None, columns: str | None = None):
    """A rate summary (:func:`pass_rates`, ...) as a table of ``k/n = rate [low, high]`` cells.

    One row per group, or pivoted: rows by ``index``, one column per value of ``columns``.
    """
    cell = [format_rate(int(k), int(n)) for k, n in zip(summary["k"], summary["n"])]
    table = summary.assign(**{"k/n = rate [95% interval]": cell})
    if columns is None:
        keep = [c for c in summary.columns if c not in {"k", "n", "questions", "rate", "low", "high"}]
        return table[[*keep, "k/n = rate [95% interval]"]].reset_index(drop=True)
    out = table.pivot(index=list(index or []), columns=columns, values="k/n = rate [95% interval]")
    out.columns.name = None
    return out
