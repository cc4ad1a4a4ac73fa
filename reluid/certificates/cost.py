"""What re-verifying a certificate is expected to cost the checker, from the certificate alone.

``reluid certify`` runs its own check only when this estimate fits in what is left of the time budget
(reluid.cli.cmd_certify.check_estimate); the checker itself never reads it (its work limit counts what it
actually does, reluid.checker.registry.charge).
"""

from __future__ import annotations

from reluid.certificates.schema import ClaimKind

__all__ = ["check_work"]


def check_work(cert) -> tuple[int, int]:
    """(loop steps, rank steps) the checker is expected to charge for the loops of a one-hidden-layer certificate
    that grow with θ (0, 0 for other certificates).

    The stratum of θ (n × (m + k + 1) steps) is recomputed twice, as a claim and by the derivation rule; a
    separation certificate of "no flip set" costs n × (m + k) more (reluid.checker.flipsets), and the rank
    behind the functional dimension and local identifiability (computed once for both) what
    reluid.checker.fundim charges for its points and rows.  Other evidence (a deep certificate's ranks) is
    estimated by reluid certify from the producer's own time.
    """
    arch = tuple(cert.architecture)
    if len(arch) != 3:
        return 0, 0
    m, n, k = arch
    steps = 2 * n * (m + k + 1)
    ranks = set()
    for c in cert.claims:
        ev = c.evidence if hasattr(c.evidence, "get") else {}
        if c.kind == ClaimKind.NO_FLIP_SET and ev.get("y") is not None:
            steps += n * (m + k)
        elif c.kind in (ClaimKind.FUNCTIONAL_DIMENSION, ClaimKind.LOCAL_IDENTIFIABILITY) and ev.get("points"):
            ranks.add((len(ev["points"]), len(ev.get("rows") or ()), _words(ev["points"])))
    rank = 0
    for points, rows, words in ranks:
        D, cols = n * (m + 1) + k * (n + 1), k * (n + 1)
        rank += points * D * words + points * (m * n + n * k) * (m + 1) + rows * cols \
            + rows * cols * min(rows, cols) // 65536
    return steps, rank


def _words(points) -> int:
    """64-bit words of the longest coordinate (numerator and denominator bits), as reluid.checker.fundim counts."""
    bits = max((len(str(q)) * 10 // 3 for x in points for q in x), default=0)     # decimal digits -> bits
    return 1 + bits // 64
