"""The memos of the certification engine are bounded, registered, and emptied by clear_caches()."""

import sympy as sp

import geomcheck as gc
from geomcheck.caches import cache_sizes, clear_caches
from geomcheck.certify import compositions, families, lyndon, modified, splitting, tableaux

#: the registry's names of the memos the calls below fill
MEMOS = [
    "geomcheck.certify.compositions._words",
    "geomcheck.certify.compositions._words_by_length",
    "geomcheck.certify.compositions._lyndon",
    "geomcheck.certify.lyndon.bracket_expansion",
    "geomcheck.certify.compositions._refined",
    "geomcheck.certify.modified",
    "geomcheck.certify.tableau_arithmetic.fields",
    "geomcheck.certify.trees",
]


def _fill():
    compositions.composition_order(compositions.triple_jump(4))      # words, Lyndon words, brackets
    compositions.yoshida6("A", dps=20)                                 # a refined published composition
    tableaux.order(families.gauss_legendre(2))                         # a number field, rooted trees
    M = gc.Chart("q p")
    q, p = M.coords
    h = sp.Symbol("h")
    verlet = gc.Map(M, M, [q + h * p - h**2 * q / 2, (1 - h**2 / 2) * p - h * q + h**3 * q / 4])
    gc.modified_vector_field(verlet, h, 3)                             # compositions of the modified field


def test_the_memos_are_listed_by_cache_sizes_and_emptied_by_clear_caches():
    clear_caches()
    assert all(cache_sizes()[name] == 0 for name in MEMOS)
    _fill()
    sizes = cache_sizes()
    assert all(sizes[name] > 0 for name in MEMOS), {name: sizes[name] for name in MEMOS}
    clear_caches()
    sizes = cache_sizes()
    assert all(sizes[name] == 0 for name in MEMOS), {name: sizes[name] for name in MEMOS}


def test_every_lru_cache_of_the_engine_is_bounded():
    memos = [compositions._words, compositions._words_by_length, compositions._lyndon, lyndon.bracket_expansion,
             compositions._refined, modified._compositions, splitting._lyndon, splitting._functionals]
    assert all(m.cache_info().maxsize is not None for m in memos)
    bound = compositions._words.cache_info().maxsize
    for k in range(bound + 10):           # more (letters, weight) pairs than the memo keeps
        compositions._words((1, k + 3), 1)
    assert compositions._words.cache_info().currsize == bound
    clear_caches()
