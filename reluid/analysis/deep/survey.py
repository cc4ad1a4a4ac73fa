"""The functional-dimension survey of Figure 6 (Grigsby, Lindsey, Rolnick 2023, Section 6).

For an architecture (w, ..., w, 1) with d layer maps (depth 4 = (w, w, w, w, 1),
input dimension w unless given), draw K networks with weights N(0, 2/fan-in)
and biases N(0, 0.01) (variance 0.01), and for each compute the certified
functional dimension of :func:`~reluid.analysis.deep.fundim.functional_dimension`
on F × U sample points from N(0, I) (the paper: F = 100, K = 5000).

Differences from the paper's float computation, all in the direction of rigour:

* every rank is an exactly certified lower bound (rank modulo a prime of the
  exact Jacobian at exactly checked parametrically smooth points), where the
  paper uses a float SVD rank, which can over- or under-count;
* the computation stops adding points once the rank reaches U (that value is
  then certified; the paper's float rank cannot exceed U either);
* points are the Gaussian samples rounded to multiples of 2^-20 (exactly), and
  the generated float weights are read as the exact binary values they hold.

Networks are reproducible from ``(seed, index)`` alone
(``numpy.random.SeedSequence([seed, index])``), so the result does not depend on
how the work is split: local processes (:mod:`concurrent.futures`) by default,
or a dask.distributed cluster.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Callable, Sequence

import numpy as np

from reluid.analysis.deep.fundim import functional_dimension, upper_bound
from reluid.errors import InvalidArgument
from reluid.model.network import Network

__all__ = ["SurveyConfig", "SurveyRecord", "SurveyResult", "PAPER_FIGURE6", "architecture_for", "random_network",
           "survey_task", "run_survey", "wilson_interval", "generate_markdown", "generate_json", "write_plot",
           "read_json"]

#: Fraction of networks with full functional dimension reported in Section 6
#: (Figure 6), keyed by (depth, width), with n0 = width, K = 5000, F = 100.
PAPER_FIGURE6 = {(4, 5): 0.25, (4, 10): 0.48, (4, 15): 0.66, (6, 5): 0.01, (6, 10): 0.03, (6, 15): 0.05}


@dataclass(frozen=True, slots=True)
class SurveyConfig:
    """What to sample: architecture (width, ..., width, 1) with ``depth`` layer maps."""

    depth: int
    width: int
    input_dim: int | None = None
    networks: int = 100
    seed: int = 0
    points_factor: int = 100
    weight_gain: float = 2.0        # weights N(0, gain / fan-in)
    bias_variance: float = 0.01     # biases N(0, bias_variance)

    def __post_init__(self):
        if self.depth < 2 or self.width < 1 or self.networks < 1 or self.points_factor < 1 \
                or not self.bias_variance >= 0 or not self.weight_gain > 0:
            raise InvalidArgument(f"invalid survey configuration {self}")
        if self.input_dim is not None and self.input_dim < 1:
            raise InvalidArgument(f"input dimension must be positive, got {self.input_dim}")

    @property
    def architecture(self) -> tuple[int, ...]:
        return architecture_for(self.depth, self.width, self.input_dim)

    def to_dict(self) -> dict:
        return {"depth": self.depth, "width": self.width, "input_dim": self.architecture[0],
                "networks": self.networks, "seed": self.seed, "points_factor": self.points_factor,
                "weight_variance": f"{self.weight_gain}/fan-in", "bias_variance": self.bias_variance}


@dataclass(frozen=True, slots=True)
class SurveyRecord:
    """One network's outcome."""

    index: int
    rank: int
    upper_bound: int
    n_regions: int
    n_rows: int
    stopped_early: bool
    seconds: float


@dataclass(frozen=True, slots=True)
class SurveyResult:
    """All records of one architecture, with the summary statistics."""

    config: SurveyConfig
    records: tuple[SurveyRecord, ...]
    seconds: float
    workers: int
    backend: str

    @property
    def architecture(self) -> tuple[int, ...]:
        return self.config.architecture

    @property
    def upper_bound(self) -> int:
        return upper_bound(self.architecture)[0]

    @property
    def n(self) -> int:
        return len(self.records)

    @property
    def full(self) -> int:
        return sum(r.rank == r.upper_bound for r in self.records)

    @property
    def fraction_full(self) -> float:
        return self.full / self.n if self.n else float("nan")

    @property
    def wilson(self) -> tuple[float, float]:
        return wilson_interval(self.full, self.n)

    @property
    def histogram(self) -> tuple[tuple[int, int], ...]:
        """(functional dimension, number of networks), ascending."""
        return tuple(sorted(Counter(r.rank for r in self.records).items()))

    @property
    def paper(self) -> float | None:
        if self.config.input_dim not in (None, self.config.width):
            return None
        return PAPER_FIGURE6.get((self.config.depth, self.config.width))

    def summary(self) -> str:
        lo, hi = self.wilson
        arch = "(" + ", ".join(map(str, self.architecture)) + ")"
        s = (f"{arch}: U = {self.upper_bound}, {self.full}/{self.n} networks with dim_fun = U (certified) = "
             f"{100 * self.fraction_full:.1f}% [95% Wilson {100 * lo:.1f}%, {100 * hi:.1f}%]")
        if self.paper is not None:
            s += f"; paper {100 * self.paper:.0f}%"
        return s


def wilson_interval(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n (95% by default).

    Examples
    --------
    >>> lo, hi = wilson_interval(25, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.175, 0.343)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def architecture_for(depth: int, width: int, input_dim: int | None = None) -> tuple[int, ...]:
    """(n0, w, ..., w, 1) with ``depth`` layer maps; n0 = w unless given."""
    n0 = width if input_dim is None else input_dim
    return (n0,) + (width,) * (depth - 1) + (1,)


def random_network(architecture: Sequence[int], rng: np.random.Generator, *, weight_gain: float = 2.0,
                   bias_variance: float = 0.01) -> Network:
    """Weights N(0, gain/fan-in), biases N(0, bias_variance), read exactly as their binary values."""
    layers = []
    for a, b in zip(architecture, architecture[1:]):
        W = rng.normal(0.0, math.sqrt(weight_gain / a), (b, a))
        c = rng.normal(0.0, math.sqrt(bias_variance), b)
        layers.append((W.tolist(), c.tolist()))
    return Network.from_lists(layers, allow_float=True)


def _seeds(seed: int, index: int) -> tuple[np.random.Generator, int]:
    ss = np.random.SeedSequence([seed, index])
    net_ss, pts_ss = ss.spawn(2)
    return np.random.default_rng(net_ss), int(pts_ss.generate_state(1)[0])


def survey_task(config: SurveyConfig, index: int) -> SurveyRecord:
    """Network ``index`` of the survey (a pure function of ``config`` and ``index``)."""
    arch = config.architecture
    rng, pts_seed = _seeds(config.seed, index)
    net = random_network(arch, rng, weight_gain=config.weight_gain, bias_variance=config.bias_variance)
    U = upper_bound(arch)[0]
    t0 = time.perf_counter()
    r = functional_dimension(net, points=config.points_factor * U, seed=pts_seed)
    return SurveyRecord(index=index, rank=r.rank, upper_bound=r.upper_bound, n_regions=r.n_regions,
                        n_rows=r.n_rows, stopped_early=r.stopped_early, seconds=time.perf_counter() - t0)


def _survey_batch(config: SurveyConfig, indices: Sequence[int]) -> list[SurveyRecord]:
    return [survey_task(config, i) for i in indices]


def run_survey(config: SurveyConfig, *, workers: int | None = None, dask_address: str | None = None,
               client=None, progress: Callable[[int, int], None] | None = None) -> SurveyResult:
    """Run the survey over ``config.networks`` networks.

    Parameters
    ----------
    config : SurveyConfig
    workers : int, optional, keyword-only
        Local processes (default: the number of CPUs; 1 runs in this process).
    dask_address : str, optional, keyword-only
        Run the same tasks on the dask.distributed scheduler at this address.
    client : distributed.Client, optional, keyword-only
        An existing dask client (takes precedence over ``dask_address``).
    progress : callable, optional, keyword-only
        Called as ``progress(done, total)``.

    Returns
    -------
    SurveyResult
        Records sorted by network index; identical whatever the backend.
    """
    K = config.networks
    t0 = time.perf_counter()
    records: list[SurveyRecord] = []
    batch = max(1, min(64, K // 32 or 1))
    batches = [list(range(s, min(K, s + batch))) for s in range(0, K, batch)]
    own_client = None
    if client is None and dask_address:
        from distributed import Client
        client = own_client = Client(dask_address)
    try:
        if client is not None:
            from distributed import as_completed
            futures = client.map(_survey_batch, [config] * len(batches), batches, pure=False)
            n_workers = len(client.scheduler_info().get("workers", {})) or 1
            backend = "dask"
            for fut in as_completed(futures):
                records.extend(fut.result())
                if progress:
                    progress(len(records), K)
        else:
            n_workers = workers or os.cpu_count() or 1
            if n_workers <= 1:
                backend = "serial"
                for b in batches:
                    records.extend(_survey_batch(config, b))
                    if progress:
                        progress(len(records), K)
            else:
                from concurrent.futures import ProcessPoolExecutor, as_completed as done
                backend = "processes"
                with ProcessPoolExecutor(max_workers=n_workers) as ex:
                    futs = [ex.submit(_survey_batch, config, b) for b in batches]
                    for f in done(futs):
                        records.extend(f.result())
                        if progress:
                            progress(len(records), K)
    finally:
        if own_client is not None:
            own_client.close()
    records.sort(key=lambda r: r.index)
    return SurveyResult(config=config, records=tuple(records), seconds=time.perf_counter() - t0,
                        workers=n_workers, backend=backend)


# ---------------------------------------------------------------------------
# reports
# ---------------------------------------------------------------------------

def _result_dict(r: SurveyResult) -> dict:
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


def generate_json(results: Sequence[SurveyResult], extra: dict | None = None) -> str:
    """The survey as JSON (``reluid.survey/1``); ranks listed per network in index order."""
    d = {"format": "reluid.survey/1",
         "method": "certified lower bound: rank mod p of the exact Jacobian at exactly checked smooth points",
         "reference": "Grigsby, Lindsey, Rolnick 2023, Section 6, Figure 6",
         "results": [_result_dict(r) for r in results]}
    if extra:
        d.update(extra)
    return json.dumps(d, indent=1) + "\n"


def read_json(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def generate_markdown(results: Sequence[SurveyResult], title: str = "Functional dimension survey") -> str:
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
    """The fields :func:`write_plot` reads, taken from a survey JSON file."""

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
    write_plot(results, png_path)


def write_plot(results: Sequence[SurveyResult], path) -> None:
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
