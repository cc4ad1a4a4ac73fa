"""The checker's readers of evidence and its exact linear algebra: every bound in one place."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import pytest

from reluid.checker import linalg
from reluid.checker import readers as R
from reluid.checker.registry import Context
from reluid.errors import CheckFailed
from reluid.model.network import Network

NET = Network.from_lists([([[1, 2]], [0]), ([[1]], [0])])


def ctx():
    return Context(NET, "c")


def rejected(fn, *args, match):
    with pytest.raises(CheckFailed) as e:
        fn(*args)
    assert e.value.claim == "c"
    assert (match[1:] in e.value.reason) if match.startswith("~") else e.value.reason == match, e.value.reason


def test_integers():
    c = ctx()
    assert R.integer(c, 3, "n") == 3 and R.integer(c, -1, "n", lo=-1, hi=0) == -1
    for bad, shown in ((True, "True"), (None, "None"), (1.0, "1.0"), ([1], "[1]")):
        rejected(R.integer, c, bad, "n", match=f"n must be an integer, got {shown}")
    assert R.integer(c, "-3", "n") == -3                      # every number may be written as a string
    rejected(R.integer, c, "1/2", "n", match="n: '1/2' is not an integer")
    rejected(R.integer, c, "4/1", "n", match="~n: '4/1': an integer is written 'p'")
    rejected(R.integer, c, 5, "n", 0, 5, match="n = 5 is outside [0, 5)")
    assert R.integers(c, [1, 2], "k") == (1, 2) and R.integers(c, (), "k") == ()
    rejected(R.integers, c, [1, 2], "k", 3, match="k has 2 entries, expected 3")
    rejected(R.integers, c, "12", "k", match="k must be a list")
    assert R.indices(c, [2, 0], 3, "F") == (2, 0)
    rejected(R.indices, c, [3], 3, "F", match="F: index out of range [0, 3)")
    rejected(R.indices, c, [1, 1], 3, "F", match="F: repeated index")
    assert R.tuples(c, [[1, 2]], "t", 2) == ((1, 2),)
    for bad in ([[1]], "x", [[1, 2, 3]]):
        rejected(R.tuples, c, bad, "t", 2, match="t must be a list of 2-tuples of integers")
    rejected(R.tuples, c, [[1, True]], "t", 2, match="t must be a list of 2-tuples of integers")
    rejected(R.tuples, c, [[1, "1/2"]], "t", 2, match="t: '1/2' is not an integer")


def test_rationals_and_points():
    c = ctx()
    assert R.rational(c, "-1/2", "x") == F(-1, 2) and R.rationals(c, [1, "1/3"], "x") == (F(1), F(1, 3))
    rejected(R.rational, c, "2/4", "x", match="x: not in lowest terms: '2/4'")
    rejected(R.rational, c, True, "x", match="~x: boolean where a number was expected")
    rejected(R.rational, c, "1/" + "7" * 4100, "x", match="~x: a number with more than 4000 digits")
    assert R.points(c, [[1, "1/2"], [0, -3]], "p", 2) == ((F(1), F(1, 2)), (F(0), F(-3)))
    assert R.points(c, [], "p", 2) == ()
    rejected(R.points, c, [], "p", 2, True, match="p must be a nonempty list of points")
    rejected(R.points, c, [[1, 0.5]], "p", 2, match="~p: expected an integer")
    rejected(R.points, c, [[1, 2], [1]], "p", 2, match="p: every point needs 2 coordinates")


def test_one_primality_test_and_one_bound():
    c = ctx()
    assert R.prime(c, 3, "p") == 3 and R.prime(c, 2, "p") == 2 and R.prime(c, 2**61 - 1, "p") == 2**61 - 1
    assert R.prime(c, 2**63 - 25, "p") == 2**63 - 25                   # the largest prime below 2^63
    assert flint.fmpz(2**63 + 29).is_prime()                           # the smallest above
    for p in (1, 0, -3, 2**63, 2**63 + 29):
        rejected(R.prime, c, p, "p", match=f"p = {p} is outside [2, 2^63)")
    rejected(R.prime, c, 2, "p", 3, match="p = 2 is outside [3, 2^63)")
    rejected(R.prime, c, 2**30 - 35, "p", R.SEARCH_PRIME_MIN, match=f"p = {2**30 - 35} is outside [2^30, 2^63)")
    for p in (9, 2**61 + 1, 3317044064679887385961981 % 2**63 | 1, 561, 2**62 + 1):
        if not flint.fmpz(p).is_prime():
            rejected(R.prime, c, p, "p", match=f"p = {p} is not prime")
    assert [n for n in range(60) if R.is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59]
    assert R.prime(c, "7", "p") == 7
    assert R.residue(c, F(2, 5), 7) == 6 and R.residue(c, F(-1), 7) == 6 and R.residue(c, F(0), 7) == 0
    rejected(R.residue, c, F(5, 6), 3, match="the prime 3 divides a denominator (5/6)")


def test_numbers_in_messages_never_exceed_the_digit_limit():
    big = F(10**4000 + 1, 3**8000)         # 4001 and 3818 digits; the product below has 7800
    assert R.show(big * big).endswith("digits)") and len(R.show(big * big)) < 80
    assert R.show(F(-7, 3)) == "-7/3" and R.show(-(10**100)).startswith("-1000000000…(101 digits")
    assert R.show(2**20_000).startswith("?…(") and R.show("x" * 100).endswith("…")


def test_structures():
    c = ctx()
    assert R.mapping(c, {"a": 1}, "ev", {"a"}) == {"a": 1}
    rejected(R.mapping, c, [], "ev", match="ev must be an object, got list")
    rejected(R.mapping, c, {"a": 1}, "ev", {"b"}, match="ev must have the fields ['b'], got ['a']")
    assert R.fields(c, {"a": 1}, "x", ("a",), ("b",)) == {"a": 1}
    rejected(R.fields, c, {"b": 1}, "x", ("a",), ("b",), match="x: missing field 'a'")
    rejected(R.fields, c, {"a": 1, "z": 2}, "x", ("a",), ("b",), match="x: unexpected field 'z'")
    assert R.network(c, NET.to_dict(), "w") == NET
    rejected(R.network, c, {"format": "x"}, "w", match="w: not a reluid.network/1 object")
    rejected(R.network, c, 3, "w", match="w must be a reluid.network/1 object, got int")


def test_linear_algebra_against_flint():
    rows = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
    R_, piv = linalg.rref(rows, 3)
    assert piv == [0, 1] and R_ == [[1, 0, 1], [0, 1, 1]]
    assert linalg.rank(rows) == 2 == flint.fmpq_mat(rows).rank() and linalg.rank([]) == 0
    K = linalg.integer_kernel(rows, 3)
    assert K == [(-1, -1, 1)] and all(sum(a * b for a, b in zip(r, K[0])) == 0 for r in rows)
    Rp, pv = linalg.rref_mod_p(rows, 5)
    assert pv == [0, 1] and Rp == [[1, 0, 1], [0, 1, 1]]
    assert linalg.rank_mod_p(3, 3, [x for r in rows for x in r], 5) == 2 and linalg.rank_mod_p(0, 3, [], 5) == 0
    assert linalg.rank([[F(1, 2), F(1, 3)], [F(3), F(2)]]) == 1


def test_show_is_exact_when_short_and_counts_digits_when_long():
    assert R.show(F(7)) == "7" and R.show(F(7, 2)) == "7/2" and R.show(F(-1, 10**70)).startswith("-1/1000000000…(71")
    assert R.show(2**179) == str(2**179)                     # 180 bits are at most 55 digits: exact
    assert R.show(2**180) == "1532495540…(55 digits)"
    assert R.show(-(2**181)) == "-3064991081…(55 digits)"
    assert R.show(2**20_000) == "?…(6021 digits)" and R.show(-(2**20_000)) == "-?…(6021 digits)"
    assert R.show(2**13_998).endswith("(4214 digits)")        # below 14 000 bits the digits are counted exactly
    assert R.show(2**13_999) == "?…(4215 digits)"
    assert R.show("x" * 58) == repr("x" * 58) and R.show("x" * 59) == repr("x" * 59)[:60] + "…"


def test_every_reader_names_its_field():
    c = ctx()
    rejected(R.fields, c, [1], "x", ("a",), match="x must be an object, got list")
    rejected(R.integers, c, [1, "1/2"], "k", match="k: '1/2' is not an integer")
    rejected(R.integers, c, [1, None], "k", match="k must be an integer, got None")
    rejected(R.indices, c, [0], 3, "F", 2, match="F has 1 entries, expected 2")
    rejected(R.indices, c, [0, "1/2"], 3, "F", match="F: '1/2' is not an integer")
    rejected(R.points, c, "x", "p", 2, match="p must be a list")
    rejected(R.prime, c, None, "p", match="p must be an integer, got None")
    rejected(R.integer, c, -1, "n", 0, match="n = -1 is outside [0, )")
    rejected(R.integer, c, 9, "n", None, 9, match="n = 9 is outside [, 9)")
    assert R.indices(c, [1, 1], 3, "F", distinct=False) == (1, 1)
