"""Fixtures of the integrators tests (the systems themselves are in ig_cases.py)."""

import pytest

from ig_cases import GENERIC, PENDULUM


@pytest.fixture(scope="session")
def generic():
    """H = p^2/2 + V(q), V undefined: certificates on it hold for every potential."""
    return GENERIC


@pytest.fixture(scope="session")
def pendulum():
    return PENDULUM
