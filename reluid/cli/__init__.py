"""Command-line interface: a thin shell over pure functions."""
