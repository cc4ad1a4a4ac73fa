"""Verifier for ``no-other-pattern`` claims: the essential stratum (docs/mathematics.md §4)."""

from __future__ import annotations

from reluid.certificates.schema import ClaimKind
from reluid.checker.registry import Context, fail, verifies

__all__ = ["verify_no_other_pattern"]


@verifies(ClaimKind.NO_OTHER_PATTERN)
def verify_no_other_pattern(evidence, ctx: Context) -> str:
    fail(ctx, "the checker cannot yet re-verify that no other realisation pattern exists")
