"""The package version, in one place (nothing low in the package imports ``reluid`` for it)."""

__version__ = "0.1.0"
