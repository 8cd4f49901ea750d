"""Figures of the chapters drawn with matplotlib: :func:`plot_path_growth`."""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from numbers import Real


def plot_path_growth(depths: Sequence[int], series: dict[str, Sequence[float]], *,
                     branching: dict[str, float] | None = None, ax=None):
    """Path counts against depth on a log axis, with dashed ``b ** k`` lines for ``branching``; the Axes.

    >>> ax = plot_path_growth([1, 2, 3], {"paths": [2, 7, 30]}, branching={"3^k": 3})
    >>> ax.get_yscale(), len(ax.lines)
    ('log', 2)
    """
    import matplotlib.pyplot as plt
    depths = list(depths)
    if not isinstance(series, Mapping) or not isinstance(branching or {}, Mapping):
        raise TypeError("series and branching must map labels to values, such as {'paths': [2, 7, 30]} "
                        f"and {{'3^k': 3}}, not {series!r:.60} and {branching!r:.60}.")
    if any(isinstance(cs, (str, bytes)) or not isinstance(cs, Iterable) for cs in series.values()):
        raise TypeError("each series must be a list of path counts, one per depth.")
    series = {label: list(cs) for label, cs in series.items()}      # a generator is read once, below too
    values = [*depths, *(branching or {}).values(), *(c for cs in series.values() for c in cs if c is not None)]
    bad = [x for x in values if isinstance(x, bool) or not isinstance(x, Real)]
    if bad:
        raise TypeError(f"depths, path counts and branching factors must be numbers, not {bad[0]!r}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    for (label, counts), marker in zip(series.items(), itertools.cycle("osd^v")):
        pts = [(d, c) for d, c in zip(depths, counts) if c and c > 0]    # a log axis has no 0
        if pts:
            ax.plot(*zip(*pts), marker=marker, label=label)
    for label, b in (branching or {}).items():
        ax.plot(depths, [b ** d for d in depths], linestyle="--", linewidth=1, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("depth (hops)")
    ax.set_ylabel("number of paths (log scale)")
    ax.set_xticks(depths)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return ax
