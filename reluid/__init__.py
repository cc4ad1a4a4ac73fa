"""reluid: exact verification of the symmetries of ReLU networks."""

__version__ = "0.1.0"
