"""The reluid exception tree.

Every error reluid raises on purpose derives from :class:`ReluidError`.  The
subclasses are named for what went wrong mathematically or with the input, and
carry the offending objects so that callers (and the CLI) can report them in
one line.
"""

from __future__ import annotations

__all__ = [
    "ReluidError",
    "InvalidNetwork",
    "UnsupportedOperator",
    "InvalidArgument",
    "NotShallow",
    "IncompatibleNetworks",
    "CertificateError",
    "CheckFailed",
    "OrbitSearchExhausted",
]


class ReluidError(Exception):
    """Root of every error raised deliberately by reluid."""


class InvalidArgument(ReluidError, ValueError):
    """A caller passed a value outside the documented domain."""


class InvalidNetwork(ReluidError, ValueError):
    """A network file or object is malformed.

    Parameters
    ----------
    message : str
        What is wrong, in one line.
    path : str, optional
        The file it came from, when there is one.
    """

    def __init__(self, message: str, path: str | None = None):
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)

    def with_path(self, path: str) -> "InvalidNetwork":
        """Return a copy of this error that names ``path``."""
        if self.path is not None:
            return self
        err = type(self).__new__(type(self))
        InvalidNetwork.__init__(err, self.message, str(path))
        return err


class UnsupportedOperator(InvalidNetwork):
    """An ONNX graph uses an operator reluid cannot read exactly."""


class NotShallow(ReluidError, ValueError):
    """An analysis that needs exactly one hidden layer got another depth."""

    def __init__(self, architecture):
        self.architecture = tuple(architecture)
        super().__init__(
            f"expected a shallow network (one hidden layer), got architecture {self.architecture}"
        )


class IncompatibleNetworks(ReluidError, ValueError):
    """Two networks that cannot be compared (different input or output dimensions)."""

    def __init__(self, a, b):
        self.architectures = (tuple(a), tuple(b))
        super().__init__(f"cannot compare networks with architectures {self.architectures[0]} and "
                         f"{self.architectures[1]}: the input and output dimensions must agree")


class CertificateError(ReluidError, ValueError):
    """A certificate file is malformed (not the same as a failed check)."""

    def __init__(self, message: str, path: str | None = None):
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class CheckFailed(ReluidError):
    """A certificate was read correctly but a claim in it does not hold."""

    def __init__(self, claim: str, reason: str):
        self.claim = claim
        self.reason = reason
        super().__init__(f"{claim}: {reason}")


class OrbitSearchExhausted(ReluidError):
    """The deep orbit search hit its node budget (only with massively tied neurons)."""

    def __init__(self, nodes: int):
        self.nodes = nodes
        super().__init__(f"orbit search stopped after {nodes} nodes; the networks have too many tied neurons")
