"""The version of geomcheck (also in pyproject.toml), in a module of its own so that the
command line can read it without importing the package it lies in."""

__version__ = "0.1.0"
