"""Certificates: the frozen record of a verdict and the evidence behind it."""

from reluid.certificates.schema import (
    FORMAT, Certificate, Claim, ClaimKind, Verdict, Witness, from_json, to_json, read_certificate,
    write_certificate,
)

__all__ = ["FORMAT", "Certificate", "Claim", "ClaimKind", "Verdict", "Witness", "from_json", "to_json",
           "read_certificate", "write_certificate"]
