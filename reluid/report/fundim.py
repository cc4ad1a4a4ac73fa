"""Rendering of a functional-dimension result: the ``reluid.fundim/1`` JSON and the one-line summary."""

from __future__ import annotations

import json

from reluid.model.rational import format_rational
from reluid.report.reasons import fundim_words, note, sentence

__all__ = ["FUNDIM_FORMAT", "fundim_dict", "generate_fundim_json", "generate_fundim_text", "cells_fundim_dict",
           "describe_cells"]

FUNDIM_FORMAT = "reluid.fundim/1"


def fundim_dict(r) -> dict:
    """A :class:`~reluid.analysis.deep.fundim.FunDimResult` as JSON-ready data; rationals as "p/q" strings."""
    return {"format": FUNDIM_FORMAT, "architecture": list(r.architecture), "n_params": r.n_params,
            "upper_bound": r.upper_bound, "upper_bound_reason": r.upper_bound_reason, "rank": r.rank,
            "certified_equal_upper_bound": r.certified, "prime": r.prime, "seed": r.seed, "method": r.method,
            "n_sampled": r.n_sampled, "n_smooth": r.n_smooth, "n_regions": r.n_regions, "n_rows": r.n_rows,
            "stopped_early": r.stopped_early, "stop_reason": r.stop_reason,
            "estimate_s": None if r.estimate_s is None else round(r.estimate_s, 1),
            "locally_identifiable": r.full_rank,
            "points": [[format_rational(v) for v in x] for x in r.points],
            "pivots": [list(t) for t in r.pivots], "rows": [list(t) for t in r.rows]}


def generate_fundim_json(r) -> str:
    return json.dumps(fundim_dict(r), indent=1) + "\n"


def describe_fundim(r) -> str:
    """A :class:`~reluid.analysis.deep.fundim.FunDimResult` in one line (``reluid fundim``)."""
    return fundim_words(r.summary().params)


def describe_triangular(r) -> str:
    """A :class:`~reluid.analysis.deep.triangular.TriangularRank` in one line (``reluid fundim --triangular``)."""
    arch = "(" + ", ".join(map(str, r.architecture)) + ")"
    head = ("locally identifiable (Theorem A3: block-triangular Jacobian rank D - N = "
            f"{r.target}, so dim_fun = U)" if r.full_rank else
            f"triangular rank {r.rank} < D - N = {r.target}: no conclusion ({len(r.short)} blocks short)")
    return (f"{head}; architecture {arch}, {len(r.points)} generic points, biases {r.r_bias}, output "
            f"weights {r.architecture[-1]}·{r.r_out}, rank mod p = {r.prime}, {r.seconds:.1f} s")


def generate_fundim_text(r, name: str) -> str:
    text = f"{name}: {describe_fundim(r)}\n"
    if r.full_rank:
        text += (f"{name}: locally identifiable (Theorem A1, docs/mathematics.md §6): near θ every parameter with "
                 "the same function is a positive rescaling of θ; this does not exclude hidden symmetries far "
                 "from θ\n")
    return text


def describe_cells(r) -> str:
    """A :class:`~reluid.analysis.deep.cells.CellsFunDim` in one line (``reluid fundim --exact-cells``)."""
    return sentence(r.summary())


def cells_fundim_dict(r) -> dict:
    """A :class:`~reluid.analysis.deep.cells.CellsFunDim` (exact, from the cells) as JSON-ready data."""
    return {"format": FUNDIM_FORMAT, "method": "cells", "architecture": list(r.architecture), "n_params": r.n_params,
            "upper_bound": r.upper_bound, "rank": r.rank, "exact": r.exact, "cells": r.cells,
            "complete": r.complete, "dense": r.dense, "reason": None if r.reason is None else note(r.reason),
            "description": describe_cells(r),
            "points": [[format_rational(v) for v in x] for x in r.points]}
