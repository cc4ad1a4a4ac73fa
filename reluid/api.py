"""The public façade: every supported entry point, re-exported by :mod:`reluid`.

Each function checks its input, names the algorithm it runs, and hands off to
the implementation (imported lazily, so that ``import reluid`` stays cheap and
``reluid.check`` never loads the solver or the search code).  The data flows
one way: files (:mod:`reluid.io`) → exact model (:mod:`reluid.model`) →
analyses (frozen results) → certificates (:mod:`reluid.certificates.build`) →
checker (:mod:`reluid.checker`) → reports (:mod:`reluid.report`).

>>> from reluid.model import Shallow
>>> theta1 = Shallow.make([1, 1, 1], [[1, 1], [-1, 0], [0, -1]], [-2, -1, -1], [-6])   # Ramakrishnan 2026, §1
>>> cert = certify(theta1)
>>> cert.verdict.value, cert.witness.mechanism, check(cert).valid
('hidden-symmetry', 'flip-set', True)
"""

from __future__ import annotations

import sys
import time

from reluid.certificates.schema import Certificate
from reluid.errors import InvalidArgument
from reluid.model.network import Network, Shallow
from reluid.verdicts import Reason, ReasonCode, Verdict

__all__ = [
    "load", "save", "parse_network", "generate_json", "read_certificate", "write_certificate",
    "from_torch", "from_sklearn", "as_network",
    "certify", "decide", "check", "check_work", "check_work_limit", "triangular_identifiability",
    "equivalent", "canonical_form", "is_canonical", "same_orbit", "align", "alignment_document", "write_alignment",
    "read_alignment", "check_alignment", "activation_regions", "difference", "region", "search_region",
    "nearest_alignment", "stored_types",
    "reduce_network", "reduction_document", "write_reduction", "read_reduction", "check_reduction",
    "minimal_form", "is_minimal", "zero_factor_reduction", "ominus", "stabilizer",
    "find_flip_set", "is_flip_set", "functional_dimension", "conditions", "evaluate_conditions",
    "run_survey", "prove", "progress_bar",
]


def progress_bar(enabled: bool = True, *, stream=None, force: bool = False):
    """One progress bar for everything run while it is open (a :class:`~reluid.analysis.progress.Tracker`).

    Shown with rich on stderr only when ``enabled`` and stderr is a terminal
    (``force`` shows it on ``stream`` anyway); otherwise it is silent and
    costs nothing.  Pass it as ``progress=`` to :func:`certify`,
    :func:`check`, :func:`functional_dimension` and :func:`run_survey`, and
    divide it with ``bar.stage(label, steps)`` / ``bar.step(name)`` around
    several calls.  The analyses report their phases to it; it never
    affects a result.
    """
    from reluid.analysis.progress import progress_bar as _bar

    return _bar(enabled, stream=stream, force=force)


class _Tracking:
    """``with _Tracking(progress) as t``: the tracker to report to, installed for the analyses.

    ``progress`` is a tracker (used, not closed), True (a bar of its own,
    closed at the end) or False (the tracker already active, if any, else a
    silent one).
    """

    def __init__(self, progress):
        from reluid.analysis import progress as _p

        self._p = _p
        self.own = None
        if isinstance(progress, _p.Tracker):
            self.tracker = progress
        elif progress and not isinstance(progress, bool):
            raise InvalidArgument(f"progress must be a bool or a progress_bar(), got {type(progress).__name__}")
        elif progress and _p.current() is None:
            self.tracker = self.own = _p.progress_bar(True)
        else:
            self.tracker = _p.current() or _p.Tracker()
        self._token = None

    def __enter__(self):
        if self.own is not None:
            self.own.__enter__()
        elif self._p.current() is not self.tracker:
            self._token = self._p._CURRENT.set(self.tracker)
        return self.tracker

    def __exit__(self, *exc):
        if self._token is not None:
            self._p._CURRENT.reset(self._token)
        if self.own is not None:
            self.own.__exit__(*exc)


def _network(net, what: str = "net") -> Network:
    try:
        return as_network(net)
    except InvalidArgument:
        raise InvalidArgument(f"{what} must be a reluid Network, Shallow, torch.nn.Module or fitted scikit-learn "
                              f"MLP, got {type(net).__name__}") from None


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

def load(path, *, assume: str | None = None, layers=None, batchnorm: str = "exact",
         spelling: str = "python") -> Network:
    """Read a network file exactly (``.json``, ``.npz``, ``.onnx``, ``.safetensors``); see :func:`reluid.io.load`.

    ``assume``, ``layers`` and ``batchnorm`` state what a file does not say
    itself (a safetensors file's architecture and layer order, how a
    BatchNorm is folded); ``spelling="cli"`` names them as command-line flags
    in messages.
    """
    from reluid.io.loader import ReadOptions, read_file

    if spelling not in ("python", "cli"):
        raise InvalidArgument(f"spelling must be 'python' or 'cli', got {spelling!r}")
    return read_file(path, ReadOptions(assume=assume, layers=layers, batchnorm=batchnorm, cli=spelling == "cli"))


def from_torch(module, *, input_shape=None, batchnorm: str = "exact") -> Network:
    """The exact network of a PyTorch module (``nn.Sequential`` or a plain chain); see :mod:`reluid.io.torch_adapter`."""
    from reluid.io.torch_adapter import from_torch as _from_torch

    return _from_torch(module, input_shape=input_shape, batchnorm=batchnorm)


def from_sklearn(estimator) -> Network:
    """The exact network (the logits) of a fitted scikit-learn MLP; see :mod:`reluid.io.sklearn_adapter`."""
    from reluid.io.sklearn_adapter import from_sklearn as _from_sklearn

    return _from_sklearn(estimator)


def as_network(net) -> Network:
    """``net`` as a :class:`Network`: a Shallow θ, a torch module or a fitted scikit-learn MLP are converted.

    torch and scikit-learn objects are recognised only when the caller has
    already imported those libraries, so nothing here imports them.
    """
    if isinstance(net, Network):
        return net
    if isinstance(net, Shallow):
        return net.to_network()
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(net, torch.nn.Module):
        return from_torch(net)
    if "sklearn" in sys.modules and type(net).__module__.startswith("sklearn."):
        return from_sklearn(net)
    raise InvalidArgument(f"expected a Network, Shallow, torch.nn.Module or fitted scikit-learn MLP, "
                          f"got {type(net).__name__}")


def save(net: Network | Shallow, path, *, float_type: str = "float64", names: tuple[str, str] | None = None) -> None:
    """Write a network file (the format follows the suffix); see :func:`reluid.io.save`.

    ``float_type`` ("float64" or "float32") is the element type of the binary
    formats, written only when every parameter is exactly of that type;
    ``names`` are an ONNX file's input and output names.
    """
    from reluid.io import save as _save

    _save(_network(net), path, float_type=float_type, names=names)


def stored_types(path):
    """``(float_type, names)`` of a network file (see :func:`reluid.io.loader.stored_types`)."""
    from reluid.io.loader import stored_types as _stored

    return _stored(path)


def parse_network(text: str) -> Network:
    """Parse ``reluid.network/1`` JSON text."""
    from reluid.io import parse_network as _parse

    return _parse(text)


def generate_json(net: Network | Shallow) -> str:
    """The ``reluid.network/1`` JSON text of a network (exact: integers and ``"p/q"`` strings)."""
    from reluid.io import generate_json as _generate

    return _generate(_network(net))


def read_certificate(path) -> Certificate:
    """Read a certificate file strictly (no floats, lowest-terms rationals)."""
    from reluid.certificates.schema import read_certificate as _read

    return _read(path)


def write_certificate(cert: Certificate, path) -> None:
    """Write a certificate file."""
    from reluid.certificates.schema import write_certificate as _write

    _write(cert, path)


# ---------------------------------------------------------------------------
# verdicts
# ---------------------------------------------------------------------------

def decide(net: Network | Shallow, *, timeout: float | None = 60.0, seed: int = 0, progress=False,
           budget=None):
    """The hidden-symmetry decision as a frozen result, before it becomes a certificate.

    No hidden layer: the affine map determines its parameters
    (:func:`reluid.analysis.shallow.decide.decide_affine`).  One hidden layer:
    :func:`reluid.analysis.shallow.decide.decide` (the
    complete decision, a :class:`~reluid.analysis.shallow.decide.Decision`).
    Two or more: :func:`reluid.analysis.deep.decide.decide_deep` (for two hidden
    layers the theorem of docs/mathematics.md §8 first, then mechanism detection;
    a :class:`~reluid.analysis.deep.decide.DeepDecision`; ``no-hidden-symmetries``
    only by that theorem).  ``budget`` (a :class:`reluid.budget.Budget`) bounds
    every phase; by default one of ``timeout`` seconds.
    """
    from reluid.budget import MIN_SECONDS, Budget

    net = _network(net)
    if budget is None:
        budget = Budget(timeout)
    with _Tracking(progress):   # the analyses report their phases to the active tracker
        if net.depth == 1:
            from reluid.analysis.shallow.decide import decide_affine

            return decide_affine(net)
        if net.is_shallow:
            from reluid.analysis.shallow.decide import decide as _decide

            left = budget.left()
            return _decide(net.shallow(), timeout=None if left == float("inf") else max(MIN_SECONDS, left), seed=seed,
                           paper_condition=True)
        from reluid.analysis.deep.decide import decide_deep

        return decide_deep(net, timeout=float("inf") if timeout is None else timeout, seed=seed, budget=budget)


#: Shallow networks: local identifiability (a side property; the verdict comes from the exact decision) gets
#: this share of the time the decision leaves, and this many seconds when there is no time budget.
SIDE_PROPERTY_SHARE = 0.4
SHALLOW_LOCAL_IDENTIFIABILITY_S = 2.0


def _shallow_fundim(net: Network, budget, seed: int):
    """The functional dimension of a shallow network, for its local-identifiability claim (or None, and why not)."""
    from reluid.analysis.deep.fundim import estimate_seconds, functional_dimension

    if any(a < 1 for a in net.architecture):
        return None, None                                 # no hidden neurons: nothing to say locally
    est = estimate_seconds(net.architecture)
    left = budget.left()
    cap = SHALLOW_LOCAL_IDENTIFIABILITY_S if left == float("inf") else SIDE_PROPERTY_SHARE * left
    if est > cap:
        return None, Reason(ReasonCode.LOCAL_IDENTIFIABILITY_SKIPPED, {
            "estimate_s": est, "cap_s": cap, "share": SIDE_PROPERTY_SHARE,
            "left_s": None if left == float("inf") else left})
    fd = functional_dimension(net, seed=seed, deadline=time.monotonic() + cap)
    if not fd.complete:
        return fd, Reason(ReasonCode.LOCAL_IDENTIFIABILITY_UNFINISHED, {"cap_s": cap, "rank": fd.rank})
    return fd, None


def certify(net: Network | Shallow, *, timeout: float | None = 60.0, seed: int = 0, embed: bool | None = None,
            progress=False, budget=None) -> Certificate:
    """Decide whether ``net`` has hidden symmetries and return a certificate.

    Parameters
    ----------
    net : Network, Shallow, torch.nn.Module or fitted scikit-learn MLP
        A module or estimator is read by :func:`from_torch` / :func:`from_sklearn`
        with their defaults (call those yourself for ``input_shape`` or
        ``batchnorm="float32"``).
    timeout : float or None
        Seconds for the whole computation (every phase); running out gives an
        ``unknown`` verdict that says what was done and what was left.
    seed : int
        Seed recorded in the certificate.
    embed : bool or None
        Embed the network in the certificate so that it stands alone (default:
        when it has at most 20 000 parameters).
    progress : bool or progress_bar()
        Show one progress bar across the phases (True: a bar of its own, on
        a terminal); a :func:`progress_bar` passed in is advanced, not closed.
    budget : reluid.budget.Budget, optional
        A time budget shared with the caller (instead of ``timeout``).

    Examples
    --------
    >>> cert = certify(Shallow.make([1, 1], [[1], [1]], [0, 1], [0]))   # σ(x) + σ(x + 1)
    >>> cert.verdict.value, check(cert).valid
    ('no-hidden-symmetries', True)
    """
    from reluid.budget import Budget
    from reluid.certificates.build import certificate_from_decision, certificate_from_deep_decision

    from reluid.analysis.progress import phases

    net = _network(net)
    if budget is None:
        budget = Budget(timeout)
    if net.depth <= 2:
        steps = ["decide", "local identifiability", "certificate"] if net.depth == 2 else ["decide", "certificate"]
    else:
        steps = ["mechanism detection"]
        steps += ["two hidden layers (docs/mathematics.md §8)"] if len(net.hidden_widths) == 2 else []
        steps += ["witness construction", "functional dimension", "certificate"]
    with _Tracking(progress) as bar, bar.stage("", steps):
        bar.step(steps[0])
        net.sha256()         # the certificate names the network by it: hashed first, so the decision gets what is left
        d = decide(net, timeout=timeout, seed=seed, budget=budget)
        with phases(False, budget) as phase:
            if net.depth <= 2:
                fd, note = None, None
                if net.depth == 2:
                    phase("local identifiability")
                    fd, note = _shallow_fundim(net, budget, seed)
                phase("certificate")
                cert = certificate_from_decision(net, d, embed=embed, timeout=timeout, seed=seed, fundim=fd,
                                                 fundim_note=note)
            else:
                phase("certificate")
                cert = certificate_from_deep_decision(d, embed=embed)
            if cert.verdict is Verdict.HIDDEN:
                cert = _with_reduced_property(cert, net, budget, seed, timeout)
            return cert


def _with_reduced_property(cert: Certificate, net: Network, budget, seed: int, timeout) -> Certificate:
    """``cert`` with the property "the reduced network has no hidden symmetries" when it is certified.

    Runs only with a share of what is left of the budget (:data:`reluid.budget.SHARES`); the reduced
    network is certified with the same machinery, and nothing is added unless its verdict is
    no-hidden-symmetries.  The verdict of ``cert`` is unchanged.
    """
    from dataclasses import replace

    from reluid.analysis.reduction import reduce_network as _reduce
    from reluid.budget import MIN_SECONDS, Budget
    from reluid.certificates.build import reduced_no_hidden_claim

    if budget.expired():
        return cert
    r = _reduce(net, timeout=budget.share_of("reduction"), seed=seed)
    red = r.reduced
    if not r.steps or (not red.is_shallow and min(red.hidden_widths) == 0):
        return cert
    seconds = budget.share_of("reduced network")
    if not seconds > MIN_SECONDS:
        return cert
    sub = Budget(None if seconds == float("inf") else seconds)
    # the budget object bounds the work; ``timeout`` (the caller's figure) is what the certificate records
    reduced_cert = certify(red, timeout=timeout, seed=seed, embed=False, budget=sub)
    if reduced_cert.verdict is not Verdict.NO_HIDDEN:
        return cert
    return replace(cert, claims=cert.claims + (reduced_no_hidden_claim(r, reduced_cert),))


def check(cert: Certificate, network: Network | None = None, *, work_limit: int | None = None,
          input_bytes: int | None = None, progress=False):
    """Re-verify a certificate with the independent checker (no z3, no search code); a :class:`CheckReport`.

    ``work_limit`` bounds the checker's work over the whole certificate (default
    ``reluid.checker.registry.WORK_LIMIT`` steps, or ``work_limit_for(input_bytes)`` -- 4 steps per
    byte when that is more -- when the size of the certificate and network files is given); a claim
    past it is reported as not re-verified.  ``progress`` as for :func:`certify` (the checker itself
    reports nothing: the bar shows one step, "re-verification by the independent checker").
    """
    from reluid.checker.check import check_certificate
    from reluid.checker.registry import WORK_LIMIT, work_limit_for

    if work_limit is None and input_bytes is not None:
        work_limit = work_limit_for(input_bytes)

    step = "re-verification by the independent checker"
    with _Tracking(progress) as bar, bar.stage("", [step]):
        bar.step(step)
        return check_certificate(cert, network, work_limit=WORK_LIMIT if work_limit is None else work_limit)


def check_work(cert: Certificate) -> tuple[int, int]:
    """(loop steps, rank steps) the checker is expected to charge for ``cert``; see :mod:`reluid.certificates.cost`."""
    from reluid.certificates.cost import check_work as _check_work

    return _check_work(cert)


def check_work_limit(input_bytes: int) -> int:
    """The work limit :func:`check` gives ``input_bytes`` of certificate and network files by default."""
    from reluid.checker.registry import work_limit_for

    return work_limit_for(input_bytes)


# ---------------------------------------------------------------------------
# functions and orbits
# ---------------------------------------------------------------------------

def equivalent(net1: Network | Shallow, net2: Network | Shallow, *, seed: int = 0, timeout: float | None = 60.0,
               max_regions: int | None = 50_000):
    """Decide exactly whether two networks compute the same function (an ``Equivalence``).

    One hidden layer each: the exact function data (Ramakrishnan 2026,
    Theorems 3 and 4; docs/mathematics.md §1), always decided, with the orbit
    relation.  Otherwise (any depths; docs/mathematics.md §7,
    :func:`reluid.analysis.deep.equivalence.equivalent`): the canonical forms
    layer by layer (same orbit: the element per hidden layer, verified with
    ``act_layers``), else a distinguishing input found by float probes and
    decided exactly, else, for small networks, the exact split over joint
    activation regions (decides both ways within ``timeout`` seconds and
    ``max_regions`` regions) and a z3 search; ``equal`` is None with the
    reason when nothing decides.

    Raises
    ------
    IncompatibleNetworks
        When the input or output dimensions differ.
    """
    a, b = _network(net1, "net1"), _network(net2, "net2")
    if a.is_shallow and b.is_shallow:
        from reluid.analysis.shallow.function import equivalent as _equivalent

        return _equivalent(a, b, seed=seed)
    from reluid.analysis.deep.equivalence import equivalent as _deep_equivalent

    return _deep_equivalent(a, b, seed=seed, timeout=timeout, max_regions=max_regions)


def align(reference: Network | Shallow, other: Network | Shallow):
    """The exact alignment of ``other`` to ``reference`` (an ``Alignment``; docs/mathematics.md §7).

    When ``other`` lies in the orbit of ``reference``, ``elements`` is the
    permutation and positive scalings per hidden layer with
    ``act_layers(elements, other) == reference`` (verified) and ``aligned`` is
    that network; otherwise ``first_difference`` names the first layer whose
    canonical rows cannot be matched.  Raises ``IncompatibleNetworks`` when
    the input or output dimensions differ.
    """
    from reluid.analysis.deep.align import align as _align

    return _align(_network(reference, "reference"), _network(other, "other"))


def nearest_alignment(reference: Network | Shallow, other: Network | Shallow, *, scales: str = "ratio"):
    """The best permutation and positive scaling per hidden layer by weight matching, with the exact deviation.

    A measurement, never a verdict (a ``NearestAlignment``; see
    :func:`reluid.analysis.deep.align.nearest_alignment`): ``aligned`` computes
    exactly ``other``'s function and ``max_deviation`` is the exact largest
    |θ_reference − θ_aligned|.  Raises ``IncompatibleNetworks`` when the
    architectures differ.
    """
    from reluid.analysis.deep.align import nearest_alignment as _nearest

    return _nearest(_network(reference, "reference"), _network(other, "other"), scales=scales)


def difference(net1: Network | Shallow, net2: Network | Shallow, x):
    """The exact size of the difference of two networks at the rational input ``x`` (a ``Difference``)."""
    from reluid.analysis.deep.equivalence import measure

    return measure(_network(net1, "net1"), _network(net2, "net2"), x)


def region(*, box=None, near=None):
    """A region to search for distinguishing inputs: ``box=(lo, hi)`` for every coordinate, or ``near=points``."""
    from reluid.analysis.deep.equivalence import Region

    if (box is None) == (near is None):
        raise InvalidArgument("give exactly one of box=(lo, hi) and near=points")
    return Region.box(*box) if box is not None else Region.near(near)


def search_region(net1: Network | Shallow, net2: Network | Shallow, where, *, seed: int = 0, also=()):
    """Look for an input in the region ``where`` at which the networks differ (a ``RegionSearch``).

    Float probes choose; the difference reported is exact.  ``found`` None
    means none was found there, which proves nothing about equality.
    """
    from reluid.analysis.deep.equivalence import search_region as _search

    return _search(_network(net1, "net1"), _network(net2, "net2"), where, seed=seed, also=also)


def alignment_document(alignment, reference: Network | Shallow, other: Network | Shallow, *,
                       reference_name: str | None = None, other_name: str | None = None,
                       aligned_file: str | None = None) -> dict:
    """The ``reluid.alignment/1`` certificate of an alignment in the same orbit (a JSON-ready dict)."""
    from reluid.certificates.alignment import alignment_document as _document

    if not getattr(alignment, "same_orbit", False):
        raise InvalidArgument("only an alignment within one orbit has a certificate")
    return _document(_network(reference, "reference"), _network(other, "other"), alignment.elements,
                     reference_name=reference_name, other_name=other_name, aligned_file=aligned_file)


def write_alignment(document: dict, path) -> None:
    """Write a ``reluid.alignment/1`` document."""
    from reluid.certificates.alignment import write_alignment as _write

    _write(document, path)


def read_alignment(path) -> dict:
    """Read a ``reluid.alignment/1`` document strictly (CertificateError when malformed)."""
    from reluid.checker.alignment import read_alignment as _read

    return _read(path)


def check_alignment(document, reference: Network | Shallow, other: Network | Shallow):
    """Re-verify an alignment document with the model alone (an ``AlignmentCheck``)."""
    from reluid.checker.alignment import check_alignment as _check

    return _check(document, _network(reference, "reference"), _network(other, "other"))


def reduce_network(net: Network | Shallow, *, timeout: float | None = 60.0, seed: int = 0):
    """The exact reduction of a network of any depth (a ``Reduction``; docs/mathematics.md §11).

    Constant, dead and zero-outgoing neurons are removed and positively proportional
    neurons merged, one at a time, until nothing changes; every step names its premise
    and the SHA-256 of its result.  ``timeout`` bounds the Farkas-tree prover.

    >>> net = Network.from_lists([([[1], [2]], [0, 0]), ([[1, 3]], [0])])       # σ(x) + 3 σ(2x) = 7 σ(x)
    >>> r = reduce_network(net)
    >>> r.reduced.architecture, r.reduced([2]), net([2])
    ((1, 1, 1), (Fraction(14, 1),), (Fraction(14, 1),))
    """
    from reluid.analysis.reduction import reduce_network as _reduce

    return _reduce(_network(net, "network"), timeout=timeout, seed=seed)


def reduction_document(reduction, *, original_name: str | None = None, reduced_file: str | None = None) -> dict:
    """The ``reluid.reduction/1`` certificate of a reduction (a JSON-ready dict)."""
    from reluid.certificates.reduction import reduction_document as _document

    return _document(reduction, original_name=original_name, reduced_file=reduced_file)


def write_reduction(document: dict, path) -> None:
    """Write a ``reluid.reduction/1`` document."""
    from reluid.certificates.reduction import write_reduction as _write

    _write(document, path)


def read_reduction(path) -> dict:
    """Read a ``reluid.reduction/1`` document strictly (CertificateError when malformed)."""
    from reluid.checker.reduction import read_reduction as _read

    return _read(path)


def check_reduction(document, original: Network | Shallow, reduced: Network | Shallow):
    """Re-verify a reduction document step by step with the checker alone (a ``ReductionCheck``)."""
    from reluid.checker.reduction import check_reduction as _check

    return _check(document, _network(original, "original"), _network(reduced, "reduced"))


def activation_regions(nets, *, upto: int | None = None, timeout: float | None = None,
                       max_regions: int | None = None):
    """Every nonempty open activation region of one or more networks, exactly (a ``RegionEnumeration``).

    Each region carries a rational point, its defining strict inequalities
    and the networks' affine pieces on it; dropped sign choices carry Farkas
    certificates (:mod:`reluid.analysis.deep.regions`, docs/mathematics.md §7).
    """
    from reluid.analysis.deep.regions import activation_regions as _regions

    if isinstance(nets, (Network, Shallow)):
        nets = [nets]
    return _regions([_network(n) for n in nets], upto=upto, timeout=timeout, max_regions=max_regions)


def canonical_form(net: Network | Shallow):
    """``(canon, g)`` with ``g·net == canon``, depending only on the orbit.

    One hidden layer: a :class:`Shallow` θ and a
    :class:`~reluid.model.symmetry.GroupElement` (Ramakrishnan 2026, H_n);
    deeper: a :class:`Network` and one group element per hidden layer.
    """
    if isinstance(net, Shallow) or _network(net).is_shallow:
        from reluid.analysis.shallow.orbit import canonical_form as _canonical

        return _canonical(net)
    from reluid.analysis.deep.orbit import canonical_form as _canonical

    return _canonical(net)


def is_canonical(net: Network | Shallow) -> bool:
    """``True`` when ``net`` equals its own :func:`canonical_form`."""
    if isinstance(net, Shallow) or _network(net).is_shallow:
        from reluid.analysis.shallow.orbit import is_canonical as _is

        return _is(net)
    from reluid.analysis.deep.orbit import is_canonical as _is

    return _is(net)


def same_orbit(net1: Network | Shallow, net2: Network | Shallow):
    """The group element g with g·net1 = net2, or None when they lie in different orbits (exact)."""
    shallow = isinstance(net1, Shallow) or _network(net1).is_shallow
    if shallow:
        from reluid.analysis.shallow.orbit import same_orbit as _same

        return _same(net1, net2)
    from reluid.analysis.deep.orbit import same_orbit as _same

    return _same(_network(net1, "net1"), _network(net2, "net2"))


def minimal_form(net: Network | Shallow):
    """The minimal form (Ramakrishnan 2026, Definition 3) of a shallow network (a ``MinimalForm``)."""
    from reluid.analysis.shallow.minimal import minimal_form as _minimal

    return _minimal(net)


def is_minimal(net: Network | Shallow) -> bool:
    """Whether a shallow network is its own minimal form."""
    from reluid.analysis.shallow.minimal import is_minimal as _is

    return _is(net)


def zero_factor_reduction(net: Network | Shallow) -> Shallow:
    """The 0-factor reduction θ_r (Ramakrishnan 2026, Definition-Lemma 5)."""
    from reluid.analysis.shallow.minimal import zero_factor_reduction as _reduce

    return _reduce(net)


def ominus(net1: Network | Shallow, net2: Network | Shallow) -> Shallow:
    """θ1 ⊖ θ2 (Ramakrishnan 2026, Definition 7)."""
    from reluid.analysis.shallow.minimal import ominus as _ominus

    return _ominus(net1, net2)


def stabilizer(net: Network | Shallow):
    """Stab_{H_n}(θ) with explicit generators (Ramakrishnan 2026, Theorem 2; a ``Stabilizer``)."""
    from reluid.analysis.shallow.stabilizer import stabilizer as _stabilizer

    return _stabilizer(net)


# ---------------------------------------------------------------------------
# certificates' building blocks
# ---------------------------------------------------------------------------

def find_flip_set(net: Network | Shallow, **options):
    """A flip set or a certificate that there is none (a ``FlipSetResult``; docs/mathematics.md §2–3).

    Options are those of :func:`reluid.analysis.shallow.flipsets.find_flip_set`
    (``timeout``, ``method``, ``progress``, ``seed``, ``encoding``).
    """
    from reluid.analysis.shallow.flipsets import find_flip_set as _find

    return _find(net, **options)


def is_flip_set(net: Network | Shallow, F) -> bool:
    """Whether F is a flip set: nonempty and Σ_{i∈F} m_i a_iᵀ = 0, exactly."""
    from reluid.analysis.shallow.flipsets import is_flip_set as _is

    return _is(net, F)


def triangular_identifiability(net: Network | Shallow, *, seed: int = 0, deadline: float | None = None,
                               work_limit: int = 1 << 40):
    """Theorem A3 (docs/mathematics.md §6.4): the block-triangular certificate of local identifiability, and the
    checker's re-verification of its functional-dimension and local-identifiability claims.

    Returns ``(result, evidence, messages)``: a ``TriangularResult``, the certificate evidence, and the
    checker's lines (empty when the condition was not met, which proves nothing).  Raises
    :class:`reluid.errors.CheckFailed` if the checker rejects the evidence.
    """
    from reluid.analysis.deep.triangular import triangular_certificate
    from reluid.certificates.schema import ClaimKind
    from reluid.checker import fundim as cfd
    from reluid.checker.registry import VERIFIERS, Budget, Context

    net = _network(net)
    r = triangular_certificate(net, seed=seed, deadline=deadline)
    ev = r.evidence()
    ev.update(rank=r.rank, n_params=net.n_params, upper_bound=cfd.upper_bound(net.architecture))
    if not r.full_rank:
        return r, ev, []
    budget = Budget(limit=work_limit)
    kinds = (ClaimKind.FUNCTIONAL_DIMENSION, ClaimKind.LOCAL_IDENTIFIABILITY)
    return r, ev, [f"{k.value}: {VERIFIERS[k](ev, Context(net, k.value, budget))}" for k in kinds]


def functional_dimension(net: Network | Shallow, **options):
    """Certified lower bound (and, when it meets U, the value) of dim_fun(θ) (a ``FunDimResult``).

    Options are those of :func:`reluid.analysis.deep.fundim.functional_dimension`, and ``progress`` as
    for :func:`certify`.
    """
    from reluid.analysis.deep.fundim import functional_dimension as _fundim

    progress = options.pop("progress", False)
    with _Tracking(progress) as bar, bar.stage("", ["functional dimension"]):
        bar.step("functional dimension")
        return _fundim(_network(net), **options)


def exact_functional_dimension(net: Network | Shallow, **options):
    """dim_fun(θ) exactly from the activation cells (docs/mathematics.md §9; a ``CellsFunDim``).

    Options are those of :func:`reluid.analysis.deep.cells.exact_functional_dimension`.
    """
    from reluid.analysis.deep.cells import exact_functional_dimension as _exact

    return _exact(_network(net), **options)


def conditions(m: int, n: int, k: int = 1, *, literal_definition_9: bool = False):
    """The Zariski-open conditions V1–V4 of Ω(m, n, k) (Ramakrishnan 2026, Lemma 23, Prop. 24)."""
    from reluid.analysis.shallow.zariski import conditions as _conditions

    return _conditions(m, n, k, literal_definition_9=literal_definition_9)


def evaluate_conditions(net: Network | Shallow, **options):
    """The conditions V1–V4 evaluated exactly at a shallow network (an ``Evaluation``)."""
    from reluid.analysis.shallow.zariski import evaluate

    return evaluate(net, **options)


# ---------------------------------------------------------------------------
# studies
# ---------------------------------------------------------------------------

def run_survey(config=None, *, workers: int | None = None, dask_address: str | None = None, progress=None,
               **fields):
    """The functional-dimension survey of Grigsby–Lindsey–Rolnick Figure 6 (a ``SurveyResult``).

    Give a :class:`~reluid.analysis.deep.survey.SurveyConfig`, or its fields
    as keywords (``depth``, ``width``, ``input_dim``, ``networks``, ``seed``,
    ``points_factor``, ``bias_variance``).  ``workers`` local processes, or the
    dask.distributed scheduler at ``dask_address``.  ``progress``: a callable
    ``progress(done, total)``, or as for :func:`certify` (one step per network).
    """
    from reluid.analysis.deep.survey import SurveyConfig, run_survey as _run

    if config is None:
        config = SurveyConfig(**fields)
    elif fields:
        raise InvalidArgument("give either a SurveyConfig or its fields, not both")
    if callable(progress) and not hasattr(progress, "stage"):
        return _run(config, workers=workers, dask_address=dask_address, progress=progress)
    K = config.networks
    with _Tracking(progress or False) as bar, bar.stage("survey", [f"{i + 1}/{K} networks" for i in range(K)]):
        bar.step(index=0)

        def done(d, total):
            bar.step(index=d)

        return _run(config, workers=workers, dask_address=dask_address, progress=done)


def prove(names=(), **options):
    """Run the papers' statements in :mod:`reluid.proofs` (a ``ProofRun``).

    ``names`` selects statements (names or shell globs; all by default);
    options are those of :func:`reluid.proofs._runner.run` (``max_n``,
    ``timeout``, ``progress``).
    """
    from reluid.proofs._runner import run

    return run(names, **options)
