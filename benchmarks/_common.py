"""Shared plumbing of the benchmark scripts: command line, tables, CSV files, figures and memory.

Every script accepts ``--out PATH`` (default ``_build/benchmarks``) and ``--full`` (the large
sizes), prints its tables, and writes ``<name>.csv`` and ``bench_<name>*.png`` into ``--out``.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import re
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:      # run as `python benchmarks/x.py` from anywhere
    sys.path.insert(0, str(ROOT))

DEFAULT_OUT = ROOT / "_build" / "benchmarks"


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"folder for the CSV files and plots (default {DEFAULT_OUT.relative_to(ROOT)})")
    p.add_argument("--full", action="store_true", help="run the large sizes (slow)")
    return p


def int_list(text: str) -> list[int]:
    """``"1000,1e4"`` -> ``[1000, 10000]`` (for ``--sizes``)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        value = float(part)
        if value != int(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{part!r} is not a positive whole number")
        out.append(int(value))
    if not out:
        raise argparse.ArgumentTypeError("give at least one size")
    return out


def fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return str(value)


def print_table(rows: list[dict], columns: list[str], title: str) -> None:
    """Print rows as an aligned plain-text table under a title."""
    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print(f"\n== {title} ==")
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))
    sys.stdout.flush()


def write_csv(rows: list[dict], path: Path) -> Path:
    """Write rows (union of their keys, in first-seen order) to a CSV file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for r in rows for k in r)), restval="")
        w.writeheader()
        w.writerows(rows)                          # csv writes None as an empty field
    return path


def save_figure(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process (default: this one) in MB (10**6 bytes)."""
    import psutil

    return psutil.Process(pid).memory_info().rss / 1e6


def peak_rss_mb(pid: int | None = None) -> float:
    """Peak resident memory of a process since it started or since :class:`PeakRSS` reset it, in MB.

    Linux ``VmHWM``; without ``/proc``: ``getrusage`` for this process, the current RSS for others."""
    try:
        status = Path(f"/proc/{pid or os.getpid()}/status").read_text()
        return int(re.search(r"^VmHWM:\s*(\d+)", status, re.M)[1]) * 1024 / 1e6
    except (OSError, TypeError):
        if pid in (None, os.getpid()):
            scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, kB elsewhere
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6
        return rss_mb(pid)


class PeakRSS:
    """Context manager measuring the peak RSS (MB) of one or more processes (default: this one) in a block.

    On entry each process's peak mark is reset to its current RSS (Linux ``clear_refs``, when
    allowed); ``start_mb``, ``peak_mb`` and ``end_mb`` list one value per process.
    """

    def __init__(self, *pids: int | None):
        self.pids = list(pids) or [None]

    def __enter__(self) -> "PeakRSS":
        for pid in self.pids:
            try:
                Path(f"/proc/{pid or os.getpid()}/clear_refs").write_text("5")
            except OSError:
                pass
        self.start_mb = [rss_mb(pid) for pid in self.pids]
        return self

    def __exit__(self, *exc) -> None:
        self.peak_mb = [peak_rss_mb(pid) for pid in self.pids]
        self.end_mb = [rss_mb(pid) for pid in self.pids]
