"""Rendering of the functional-dimension survey (Grigsby, Lindsey, Rolnick 2023, Figure 6).

The results are :class:`~reluid.analysis.deep.survey.SurveyResult` objects:
JSON (``reluid.survey/1``), a Markdown table against the paper's figures, and
histograms in the style of Figure 6 (matplotlib, optional).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

__all__ = ["generate_survey_text", "generate_survey_json", "generate_survey_markdown", "read_survey_json", "write_survey_plot",
           "plot_from_json"]


def _summary(r) -> str:
    lo, hi = r.wilson
    arch = "(" + ", ".join(map(str, r.architecture)) + ")"
    s = (f"{arch}: U = {r.upper_bound}, {r.full}/{r.n} networks with dim_fun = U (certified) = "
         f"{100 * r.fraction_full:.1f}% [95% Wilson {100 * lo:.1f}%, {100 * hi:.1f}%]")
    if r.paper is not None:
        s += f"; paper {100 * r.paper:.0f}%"
    return s


def generate_survey_text(r) -> str:
    """What ``reluid survey`` prints: the certified fraction, the distribution, and where it ran."""
    return "\n".join([
        _summary(r),
        "distribution (dim_fun: networks): " + ", ".join(f"{d}: {c}" for d, c in r.histogram),
        f"{r.n} networks in {r.seconds:.1f} s on {r.workers} worker(s) ({r.backend})",
    ]) + "\n"


def _result_dict(r) -> dict:
    lo, hi = r.wilson
    return {
        "architecture": list(r.architecture), "config": r.config.to_dict(), "upper_bound": r.upper_bound,
        "networks": r.n, "full": r.full, "fraction_full": round(r.fraction_full, 6),
        "wilson95": [round(lo, 6), round(hi, 6)], "paper_fraction_full": r.paper,
        "histogram": [[d, c] for d, c in r.histogram],
        "mean_dim_fun": round(float(np.mean([x.rank for x in r.records])), 4) if r.records else None,
        "stopped_early": sum(x.stopped_early for x in r.records),
        "mean_regions": round(float(np.mean([x.n_regions for x in r.records])), 2) if r.records else None,
        "seconds_wall": round(r.seconds, 3),
        "seconds_per_network_cpu": round(float(np.mean([x.seconds for x in r.records])), 5) if r.records else None,
        "workers": r.workers, "backend": r.backend,
        "ranks": [x.rank for x in r.records],
    }


def generate_survey_json(results, extra: dict | None = None) -> str:
    """The survey as JSON (``reluid.survey/1``); ranks listed per network in index order."""
    d = {"format": "reluid.survey/1",
         "method": "certified lower bound: rank mod p of the exact Jacobian at exactly checked smooth points",
         "reference": "Grigsby, Lindsey, Rolnick 2023, Section 6, Figure 6",
         "results": [_result_dict(r) for r in results]}
    if extra:
        d.update(extra)
    return json.dumps(d, indent=1) + "\n"


def read_survey_json(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def generate_survey_markdown(results, title: str = "Functional dimension survey") -> str:
    """A Markdown table comparing the certified fractions with the paper's Figure 6."""
    lines = [f"# {title}", "",
             "| architecture | K | U | dim_fun = U (certified) | 95% Wilson | paper (Fig. 6) | paper in CI | "
             "mean dim_fun | s/network |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lo, hi = r.wilson
        paper = r.paper
        inside = "" if paper is None else ("yes" if lo <= paper <= hi else "no")
        arch = "(" + ", ".join(map(str, r.architecture)) + ")"
        mean = np.mean([x.rank for x in r.records]) if r.records else float("nan")
        sec = np.mean([x.seconds for x in r.records]) if r.records else float("nan")
        lines.append(f"| {arch} | {r.n} | {r.upper_bound} | {r.full} ({100 * r.fraction_full:.1f}%) | "
                     f"[{100 * lo:.1f}%, {100 * hi:.1f}%] | {'' if paper is None else f'{100 * paper:.0f}%'} | "
                     f"{inside} | {mean:.2f} | {sec:.3f} |")
    lines.append("")
    for r in results:
        arch = "(" + ", ".join(map(str, r.architecture)) + ")"
        top = [(d, c) for d, c in r.histogram][-8:]
        lines.append(f"- {arch}: highest functional dimensions (value: count) "
                     + ", ".join(f"{d}: {c}" for d, c in top))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _StoredResult:
    """The fields :func:`write_survey_plot` reads, taken from a survey JSON file."""

    config: SimpleNamespace
    histogram: tuple[tuple[int, int], ...]
    n: int
    upper_bound: int
    fraction_full: float


def plot_from_json(json_path, png_path) -> None:
    """Redraw the Figure 6 histograms from a survey JSON file (e.g. ``reports/survey.json``)."""
    with open(json_path, encoding="utf-8") as fh:
        data = json.load(fh)
    results = [_StoredResult(SimpleNamespace(**r["config"]), tuple(map(tuple, r["histogram"])), r["networks"],
                             r["upper_bound"], r["fraction_full"]) for r in data["results"]]
    write_survey_plot(results, png_path)


def write_survey_plot(results, path) -> None:
    """Histograms of dim_fun in the style of Figure 6: one panel per depth, one colour per width.

    The black dot marks the fraction of networks with dim_fun = U.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    depths = sorted({r.config.depth for r in results})
    fig, axes = plt.subplots(1, len(depths), figsize=(5.5 * len(depths), 4), squeeze=False)
    for ax, depth in zip(axes[0], depths):
        for r in sorted((r for r in results if r.config.depth == depth), key=lambda r: r.config.width):
            hist = r.histogram
            xs = [d for d, _ in hist]
            ys = [c / r.n for _, c in hist]
            label = f"width {r.config.width} (U = {r.upper_bound}, K = {r.n})"
            ax.bar(xs, ys, width=1.0, alpha=0.6, label=label)
            ax.plot([r.upper_bound], [r.fraction_full], "ko", markersize=6)
        ax.set_title(f"Depth {depth}")
        ax.set_xlabel("functional dimension (certified lower bound)")
        ax.set_ylabel("fraction of networks")
        ax.legend(fontsize=8)
    fig.suptitle("Certified dim_fun at initialisation (cf. Grigsby-Lindsey-Rolnick 2023, Fig. 6)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
