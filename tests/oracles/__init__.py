"""Independent oracles that geomcheck results are cross-checked against.

An oracle takes plain data (index-tuple -> sympy expression dictionaries) and computes
with a different library, so that a bug in geomcheck cannot hide in a shared code path.
"""
