"""The functional-dimension survey of Figure 6 (Grigsby, Lindsey, Rolnick 2023, Section 6).

For an architecture (w, ..., w, 1) with d layer maps (depth 4 = (w, w, w, w, 1),
input dimension w unless given), draw K networks with weights N(0, 2/fan-in)
and biases N(0, 0.01) (variance 0.01), and for each compute the certified
functional dimension of :func:`~reluid.analysis.deep.fundim.functional_dimension`
on F × U sample points from N(0, I) (the paper: F = 100, K = 5000).

Differences from the paper's float computation, all in the direction of rigour:

* every rank is an exactly certified lower bound (rank modulo a prime of the
  exact Jacobian rows of the activation regions of exactly checked generic
  sample points, docs/mathematics.md §6, Lemma R), where the paper uses a float
  SVD rank at the points, which can over- or under-count (region rows see at
  least what the points see);
* the computation stops adding points once the rank reaches U (that value is
  then certified; the paper's float rank cannot exceed U either);
* points are the Gaussian samples rounded to multiples of 2^-20 (exactly), and
  the generated float weights are read as the exact binary values they hold.

Networks are reproducible from ``(seed, index)`` alone
(``numpy.random.SeedSequence([seed, index])``), so the result does not depend on
how the work is split: local processes (:mod:`concurrent.futures`) by default,
or a dask.distributed cluster.  :mod:`reluid.report.survey` renders the results.
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from reluid.analysis.deep.fundim import functional_dimension, upper_bound
from reluid.errors import InvalidArgument
from reluid.model.network import Network

__all__ = ["SurveyConfig", "SurveyRecord", "SurveyResult", "PAPER_FIGURE6", "architecture_for", "random_network",
           "survey_task", "run_survey", "wilson_interval"]

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
