"""Rendering of functional equivalence (``reluid equiv``) and exact alignment (``reluid align``)."""

from __future__ import annotations

from reluid.model.symmetry import GroupElement
from reluid.report.certificate import fmt_q, fmt_vec
from reluid.report.reasons import note
from reluid.verdicts import EquivalenceMethod

__all__ = ["generate_equivalence", "generate_equivalence_json", "generate_difference", "generate_region_search",
           "describe_region",
           "generate_alignment", "generate_alignment_check", "generate_nearest", "generate_nearest_json",
           "MAX_LISTED", "SCALE_DEFINITION"]

#: How the relative size of a difference is defined (printed and written with it).
SCALE_DEFINITION = "max_k max(|net1_k(x)|, |net2_k(x)|), the larger output magnitude at the same input x"

#: Longest permutation printed in full; longer ones are summarised (``reluid align`` writes them all).
MAX_LISTED = 16


def _where(layer: int | None, depth: int | None) -> str:
    if layer is None:
        return ""
    return "the output layer" if depth is not None and layer == depth else f"hidden layer {layer}"


def _moves(perm) -> str:
    """A permutation as people read it, neurons counted from 1: ``(1 ↦ 2, 2 ↦ 1)``."""
    return "(" + ", ".join(f"{i + 1} ↦ {p + 1}" for i, p in enumerate(perm)) + ")"


def _element_line(label: str, g: GroupElement) -> str:
    if g.n <= MAX_LISTED:
        return f"{label}: permutation {_moves(g.perm)} and scalings {fmt_vec(g.scale)}"
    moved = sum(1 for i, p in enumerate(g.perm) if p != i)
    distinct = sorted(set(g.scale))
    scales = (", ".join(fmt_q(s) for s in distinct) if len(distinct) <= 8
              else f"{len(distinct)} distinct values in [{dec(distinct[0])}, {dec(distinct[-1])}] (decimals; exact "
                   "values in the certificate or with --format json)")
    return (f"{label}: {g.n} neurons, {moved} moved (permutation begins {_moves(g.perm[:8])[:-1]}, …); scalings: {scales}")


def dec(x) -> str:
    """A rational as a decimal people scan (6 significant digits); the exact value is printed beside it."""
    if x is None:
        return "undefined"
    f = float(x)
    return "0" if x == 0 else f"{f:.6g}"


def dec_vec(v, limit: int | None = None) -> str:
    items = [dec(x) for x in v]
    if limit is not None and len(items) > limit:
        return "(" + ", ".join(items[:limit]) + f", … {len(items) - limit} more)"
    return "(" + ", ".join(items) + ")"


def generate_difference(d, name1: str, name2: str, indent: str = "") -> list:
    """The lines of an exact :class:`~reluid.analysis.deep.equivalence.Difference`: decimals first, then exact."""
    norm = max((abs(v) for v in d.input), default=0)
    rel = ("undefined (both outputs are 0)" if d.relative is None else f"{dec(d.relative)}")
    return [f"{indent}x ≈ {dec_vec(d.input, 12)}   (|x|∞ ≈ {dec(norm)})",
            f"{indent}{name1}(x) ≈ {dec_vec(d.outputs[0], 12)}",
            f"{indent}{name2}(x) ≈ {dec_vec(d.outputs[1], 12)}",
            f"{indent}|Δ| = max_k |{name2}_k(x) − {name1}_k(x)| ≈ {dec(d.abs_diff)} (output {d.coordinate + 1}); "
            f"relative to the outputs' scale {dec(d.scale)}: {rel}",
            f"{indent}exact: x = {fmt_vec(d.input)}",
            f"{indent}exact: {name1}(x) = {fmt_vec(d.outputs[0])}",
            f"{indent}exact: {name2}(x) = {fmt_vec(d.outputs[1])}",
            f"{indent}exact: |Δ| = {fmt_q(d.abs_diff)}"]


def describe_region(region) -> str:
    """A :class:`~reluid.analysis.deep.equivalence.Region` in words."""
    if region.kind == "box":
        return f"the box [{dec(region.lo)}, {dec(region.hi)}] (every coordinate)"
    return f"near the {region.points.shape[0]} given points"


def generate_region_search(rs, name1: str, name2: str) -> list:
    """Lines for a :class:`~reluid.analysis.deep.equivalence.RegionSearch`."""
    where = describe_region(rs.region)
    how = f"{rs.probes} float probes, {rs.exact_checks} evaluated exactly"
    if rs.found is None:
        return [f"{where}: no distinguishing input found ({how}); this search does not show that the functions "
                "agree there"]
    lines = [f"{where}: distinguishing input found (the largest exact |Δ| among the {rs.exact_checks} inputs "
             f"evaluated exactly; {rs.probes} float probes)"]
    if rs.distance is not None:
        lines.append(f"  distance to the nearest given point ≈ {rs.distance:.6g} (float64)")
    lines += generate_difference(rs.found, name1, name2, indent="  ")
    return lines


def generate_equivalence(eq, name1: str, name2: str, depth: int | None = None, difference=None,
                         region=None, labels=None) -> str:
    """An :class:`~reluid.analysis.shallow.function.Equivalence` as ``reluid equiv`` prints it.

    ``depth`` (the number of layer maps) names the output layer in a first difference;
    ``difference`` (the exact :class:`~reluid.analysis.deep.equivalence.Difference` at ``eq.input``) adds
    the magnitudes, and ``region`` (a ``RegionSearch``) the search in the region the user gave.
    ``labels`` (short names such as ``("net1", "net2")``) name the networks in the magnitude lines, after a
    line saying which file each stands for.
    """
    l1, l2 = labels or (name1, name2)
    legend = [f"{l1} = {name1}, {l2} = {name2}"] if labels else []
    tail = [] if region is None else generate_region_search(region, l1, l2)
    if eq.equal is None:
        return "\n".join(["unknown: functional equality not decided", f"reason: {note(eq.reason)}"]
                         + (legend if tail else []) + tail) + "\n"
    if eq.equal:
        lines = ["equal functions"]
        if eq.same_orbit and isinstance(eq.orbit, GroupElement):
            g = eq.orbit
            lines.append(f"same H_n-orbit: g·{name1} = {name2} with permutation {_moves(g.perm)} and scalings "
                         f"{fmt_vec(g.scale)}")
        elif eq.same_orbit:
            lines.append(f"same orbit: act_layers(g, {name1}) = {name2} exactly, with")
            lines += [_element_line(f"  hidden layer {l}", g) for l, g in enumerate(eq.orbit, 1)]
        elif eq.same_orbit is None:
            lines.append("orbit relation not decided (tied neurons: the exhaustive search ran out)")
        elif isinstance(eq.orbit, GroupElement) or eq.method == EquivalenceMethod.FUNCTION_DATA:
            lines.append("different H_n-orbits: a hidden symmetry relates them")
        else:
            where = _where(eq.first_difference, depth)
            lines.append("different orbits: a hidden symmetry relates them"
                         + (f" (the canonical rows first differ in {where})" if where else ""))
        if eq.method not in (EquivalenceMethod.FUNCTION_DATA, EquivalenceMethod.ORBIT):
            lines.append(f"decided by the {eq.method}: {note(eq.reason)}")
        return "\n".join(lines) + "\n"
    if difference is not None:
        lines = ["different functions"] + legend + generate_difference(difference, l1, l2)
    else:
        lines = ["different functions", f"x = {fmt_vec(eq.input)}", f"{name1}(x) = {fmt_vec(eq.outputs[0])}",
                 f"{name2}(x) = {fmt_vec(eq.outputs[1])}"]
    if eq.method != EquivalenceMethod.FUNCTION_DATA:
        where = _where(eq.first_difference, depth)
        lines.append(f"found by the {eq.method}, decided by exact evaluation"
                     + (f"; the canonical rows first differ in {where}" if where else ""))
    return "\n".join(lines + tail) + "\n"


def _difference_json(d) -> dict:
    return {"input": [fmt_q(v) for v in d.input], "input_decimal": [float(v) for v in d.input],
            "outputs": [[fmt_q(v) for v in o] for o in d.outputs],
            "outputs_decimal": [[float(v) for v in o] for o in d.outputs],
            "abs_diff": fmt_q(d.abs_diff), "abs_diff_decimal": float(d.abs_diff), "output_index": d.coordinate,
            "scale": fmt_q(d.scale), "scale_decimal": float(d.scale),
            "relative": None if d.relative is None else fmt_q(d.relative),
            "relative_decimal": None if d.relative is None else float(d.relative)}


def _region_json(rs) -> dict:
    r = rs.region
    doc = {"kind": r.kind, "probes": rs.probes, "exact_checks": rs.exact_checks, "found": rs.found is not None,
           "float_output_scale": rs.float_output_scale}
    if r.kind == "box":
        doc["box"] = [fmt_q(r.lo), fmt_q(r.hi)]
    else:
        doc["points"] = int(r.points.shape[0])
    if rs.found is not None:
        doc["difference"] = _difference_json(rs.found)
        if rs.distance is not None:
            doc["distance_to_nearest_point"] = rs.distance
    else:
        doc["note"] = "no distinguishing input found in the region; this does not show that the functions agree there"
    return doc


def generate_equivalence_json(eq, name1: str, name2: str, difference=None, region=None) -> str:
    """``reluid equiv --format json``: the decision, and the exact difference with decimals beside it.

    Exact rationals are ``"p/q"`` strings; every ``*_decimal`` field is the nearest float64, for reading.
    """
    import json

    orbit = None
    if eq.same_orbit and eq.orbit is not None:
        elements = (eq.orbit,) if isinstance(eq.orbit, GroupElement) else eq.orbit
        orbit = [{"layer": l, "perm": list(g.perm), "scale": [fmt_q(s) for s in g.scale]}
                 for l, g in enumerate(elements, 1)]
    doc = {"format": "reluid.equivalence/1", "net1": name1, "net2": name2, "equal": eq.equal,
           "method": eq.method, "reason": note(eq.reason), "same_orbit": eq.same_orbit,
           "first_difference": eq.first_difference, "orbit": orbit,
           "scale_definition": SCALE_DEFINITION,
           "difference": None if difference is None else _difference_json(difference),
           "region": None if region is None else _region_json(region)}
    return json.dumps(doc, indent=1) + "\n"


def generate_alignment(al, reference: str, other: str, output: str | None = None,
                       certificate: str | None = None, *, float_type: str | None = None, nothing_written: bool = True,
                       hint: bool = False) -> str:
    """An :class:`~reluid.analysis.deep.align.Alignment` as ``reluid align`` prints it."""
    depth = len(al.architecture) - 1 if al.architecture else None
    if al.same_orbit:
        lines = [f"{other} is in the orbit of {reference}: act_layers(g, {other}) = {reference} exactly"]
        lines += [_element_line(f"  hidden layer {l}", g) for l, g in enumerate(al.elements, 1)]
        if output:
            kind = f", stored as {float_type}" if float_type and float_type != "exact" else ""
            lines.append(f"aligned network: {output} (its parameters are exactly those of {reference}{kind})")
        if certificate:
            lines.append(f"certificate: {certificate} (re-verify: reluid align --verify {certificate} {reference} "
                         f"{other})")
        return "\n".join(lines) + "\n"
    if al.same_orbit is None:
        return f"unknown: whether {other} is in the orbit of {reference} was not decided\nreason: {note(al.reason)}\n"
    lines = [f"{other} is not in the orbit of {reference}" + ("; nothing written" if nothing_written else "")]
    where = _where(al.first_difference, depth)
    if where:
        lines.append(f"first difference: {where} ({al.unmatched} row{'s' if al.unmatched != 1 else ''} without a "
                     "partner)")
    lines.append(f"reason: {note(al.reason)}")
    if hint:
        lines.append("(--nearest measures how far apart they are after the best alignment by weight matching)")
    return "\n".join(lines) + "\n"


def generate_nearest(near, reference: str, other: str, output: str | None = None,
                     float_type: str | None = None) -> str:
    """A :class:`~reluid.analysis.deep.align.NearestAlignment`: a measurement, labelled as one."""
    rel = "undefined" if near.relative is None else dec(near.relative)
    lines = ["nearest alignment (a measurement, not a verdict): " + near.matching
             + ("" if near.scales == "exact" else f", {'least-squares' if near.scales == 'ratio' else 'power-of-two'}"
                " positive scalings"),
             f"  largest weight deviation |θ_A − θ_B'| after alignment ≈ {dec(near.max_deviation)} "
             f"(exact: {fmt_q(near.max_deviation)}); relative to max |θ_A| ≈ {dec(near.reference_scale)}: {rel}",
             f"  before alignment (B as given) ≈ {dec(near.unaligned_deviation)}; "
             f"‖θ_A − θ_B'‖₂ ≈ {near.l2_deviation:.6g} after, {near.unaligned_l2:.6g} before (float64)",
             "  per layer map: " + ", ".join(f"{l}: {dec(d)}" for l, d in enumerate(near.layer_deviations, 1))]
    lines += [_element_line(f"  hidden layer {l}", g) for l, g in enumerate(near.elements, 1)]
    if output:
        lines.append(f"aligned network: {output} (B permuted and rescaled: exactly B's function; stored as "
                     f"{float_type}; no certificate, B is not in A's orbit)")
    return "\n".join(lines) + "\n"


def _elements_json(elements):
    return [{"layer": l, "perm": list(g.perm), "scale": [fmt_q(s) for s in g.scale]}
            for l, g in enumerate(elements, 1)]


def generate_alignment_json(al, reference: str, other: str, *, nearest=None, output: str | None = None,
                            float_type: str | None = None, certificate: str | None = None) -> str:
    """``reluid align --format json``: the exact decision, and with ``--nearest`` the measurement."""
    import json

    doc = {"format": "reluid.align/1", "reference": reference, "other": other, "same_orbit": al.same_orbit,
           "first_difference": al.first_difference, "reason": note(al.reason),
           "elements": _elements_json(al.elements) if al.same_orbit else None,
           "output": output, "float_type": float_type, "certificate": certificate, "nearest": None}
    if nearest is not None:
        doc["nearest"] = {
            "kind": "measurement (not a verdict)", "matching": nearest.matching, "scales": nearest.scales,
            "max_deviation": fmt_q(nearest.max_deviation), "max_deviation_decimal": float(nearest.max_deviation),
            "layer_deviations": [fmt_q(d) for d in nearest.layer_deviations],
            "layer_deviations_decimal": [float(d) for d in nearest.layer_deviations],
            "unaligned_deviation": fmt_q(nearest.unaligned_deviation),
            "unaligned_deviation_decimal": float(nearest.unaligned_deviation),
            "reference_scale": fmt_q(nearest.reference_scale),
            "relative": None if nearest.relative is None else fmt_q(nearest.relative),
            "relative_decimal": None if nearest.relative is None else float(nearest.relative),
            "l2_deviation_float64": nearest.l2_deviation, "unaligned_l2_float64": nearest.unaligned_l2,
            "elements": _elements_json(nearest.elements)}
    return json.dumps(doc, indent=1) + "\n"


def generate_alignment_check(check, path: str) -> str:
    """An :class:`~reluid.checker.alignment.AlignmentCheck` as ``reluid align --verify`` prints it."""
    if check.valid:
        return f"VALID: {path}\n  rule: {check.reason} ({check.layers} hidden layers)\n"
    return f"REJECTED: {path}\n  reason: {check.reason}\n"
