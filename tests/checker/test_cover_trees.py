"""H4's cover trees (docs/mathematics.md Lemma 8.13, reluid/checker/cover_trees.py): honest trees are accepted,
every forged tree is rejected by its own message, and a certificate without trees is still decided by the
checker's search (reluid/checker/search.py), recorded as a search.

The network is GLR3 of test_mutants_two_layers.py: Ω(3,3,3,1) with two distinct bend flats on each H_j kept
(flats 0, 1 on H_1; 2, 3 on H_2; 4, 5 on H_3, 0-based), Lemma 10.12's count fails, and the checker's own
hyperplanes through two flats give the three blocks {2, 4}, {3, 4}, {0, 2}.  The count settles no I of size
1 (2 > 1 flats); the sets left to trees are {1, 2}, {1, 3}, {2, 3} and {1, 2, 3}.
"""

from __future__ import annotations

import copy

import pytest

from reluid.checker import two_layers as T
from reluid.checker.registry import Budget, Context, WorkLimit
from reluid.errors import CheckFailed
from tests.checker.test_mutants_two_layers import CERTIFIED, EVIDENCE, GLR3, GLR3_EVIDENCE

#: the producer's trees without a linear program (reluid/analysis/deep/h4_trees.py, lp=False): branches
#: on the flat with fewest children, leaves closed by the uniform y = 1/m
BRANCHING = [{"I": [0, 1], "tree": {"split": 0, "children": [{"y": 1}]}},
             {"I": [0, 2], "tree": {"y": 1}},
             {"I": [1, 2], "tree": {"split": 2, "children": [{"y": 1}]}},
             {"I": [0, 1, 2], "tree": {"split": 0, "children": [{"split": 1, "children": [{"y": "1/2"}]}]}}]
#: the producer's trees with the LP: every root closed by a 0/1 packing
PACKED = [{"I": [0, 1], "tree": {"y": [[0, 1], [1, 1], [3, 1]]}},
          {"I": [0, 2], "tree": {"y": 1}},
          {"I": [1, 2], "tree": {"y": [[2, 1], [3, 1], [5, 1]]}},
          {"I": [0, 1, 2], "tree": {"y": [[0, 1], [1, 1], [3, 1], [5, 1]]}}]


def with_trees(trees, evidence=GLR3_EVIDENCE):
    return dict(copy.deepcopy(evidence), cover=copy.deepcopy(trees))


def verify(evidence, network=GLR3, limit=None):
    c = Context(network, "h", Budget() if limit is None else Budget(limit=limit))
    return T.verify_two_layer_hypotheses(evidence, c), c


def rejects(trees, reason, evidence=GLR3_EVIDENCE, network=GLR3):
    with pytest.raises(CheckFailed) as e:
        verify(with_trees(trees, evidence), network)
    assert (e.value.claim, e.value.reason) == ("h", reason)


def forged(trees, k, **node):
    """``trees`` with the root of tree k replaced by ``node``."""
    out = copy.deepcopy(trees)
    out[k]["tree"] = node
    return out


TAIL = ("H4 by the count and 4 cover tree(s) ({} node(s)) for the sets I it leaves open, checked against the "
        "checker's own 3 hyperplanes through two flats: H0–H4 of docs/mathematics.md §8 hold (recomputed)")


def test_honest_trees_are_accepted_without_a_search():
    for trees, nodes in ((BRANCHING, 8), (PACKED, 4)):
        msg, c = verify(with_trees(trees))
        assert msg.endswith(TAIL.format(nodes)) and c.budget.searches == []


def test_the_trees_are_charged():
    """The evidence before H4 costs what test_mutants_two_layers measures (4632 steps, then 2880 + 864 for the
    blocks); then 2^3 · 4 sets I; per node blocks × (|U| + 1) + 1; per leaf blocks × (|y| + 1)."""
    _, c = verify(with_trees(PACKED))
    nodes = 3 * (4 + 1) + 1 + 3 * (4 + 1) + 1 + 3 * (4 + 1) + 1 + 3 * (6 + 1) + 1
    leaves = 3 * (3 + 1) + 3 * (4 + 1) + 3 * (3 + 1) + 3 * (4 + 1)
    assert c.budget.used == 4632 + 2880 + 864 + 32 + nodes + leaves == 8532
    with pytest.raises(WorkLimit) as e:
        verify(with_trees(PACKED), limit=8531)
    assert e.value.reason.startswith("the H4 cover trees' packings takes 15 steps")


#: three 4 000-digit denominators: y_t = (D_t − 1)/D_t is a valid packing value (just below 1), and a sum of
#: two of them has about 8 000 digits, past what Python prints (4 300)
LONG = [10 ** 3999 + 7, 10 ** 3999 + 9, 10 ** 3999 + 13]


def long_y(D) -> str:
    return f"{D - 1}/{D}"


def test_long_numbers_in_a_packing_are_charged_by_their_size():
    """The packing y = (D−1)/D on flats 0, 1, 3 of I = {1, 2} is valid (each block meets it in one flat, Σ y > 2),
    and is accepted, but its sums cost by the numbers' size: w = 415 words beyond the first per number, the
    blocks {3, 4} and {0, 2} sum one of them each and Σ y sums three, (2·w² + 3·(3w)²) // 512 = 9 754 steps more
    than the small packing's 8 532.  A forged tree of such leaves once cost 2.35 s of CPU for 235 265 steps."""
    trees = forged(PACKED, 0, y=[[0, long_y(LONG[0])], [1, long_y(LONG[1])], [3, long_y(LONG[2])]])
    msg, c = verify(with_trees(trees))
    w = (2 * LONG[0].bit_length()) // 64
    assert w == 415 and msg.endswith(TAIL.format(4))
    assert c.budget.used == 8532 + (2 * w * w + 3 * (3 * w) ** 2) // 512 == 8532 + 9754
    with pytest.raises(WorkLimit) as e:
        verify(with_trees(trees), limit=8436 + 9753)   # 8 436 used when tree 1's leaf sums start
    assert e.value.reason.startswith("the H4 cover trees' packings (long numbers) takes 9,754 steps")


def test_a_failing_packing_of_long_numbers_is_reported_in_one_line():
    """Flats 0 and 2 lie on one block; their y sum to 2 − 1/D_0 − 1/D_1, an 8 000-digit number, shown shortened."""
    trees = forged(PACKED, 0, y=[[0, long_y(LONG[0])], [2, long_y(LONG[1])]])
    with pytest.raises(CheckFailed) as e:
        verify(with_trees(trees))
    assert e.value.reason.startswith("the cover tree for I = {1, 2}, at its root: the packing puts ?…(7999 digits)/?…(7999 "
                                     "digits) > 1 on the flats [1, 3] of one hyperplane")


def test_without_trees_the_checker_searches_and_says_so():
    msg, c = verify(copy.deepcopy(GLR3_EVIDENCE))
    assert "the checker searched: no cover of the flats of any of the 7 sets I" in msg
    assert c.budget.searches == ["covers of the bend flats of the 7 sets I by |I| hyperplanes (H4)"]


def test_a_missing_child():
    trees = copy.deepcopy(BRANCHING)
    trees[0]["tree"]["children"] = []
    rejects(trees, "the cover tree for I = {1, 2}, at its root: 0 children, but flat 1 lies in 1 set(s) of the "
                   "family ([1, 3]): one child each")


def test_a_wrong_x():
    rejects(forged(BRANCHING, 0, split=4, children=[{"y": 1}]),
            "the cover tree for I = {1, 2}, at its root: split = 4 (0-based) is not one of the uncovered flats "
            "[1, 2, 3, 4] (1-based)")
    # x = 1 is uncovered but lies in no block of two flats: its only child is {x}, and (U − {x}, 1) is no leaf
    rejects(forged(BRANCHING, 0, split=1, children=[{"y": 1}]),
            "the cover tree for I = {1, 2}, node 1: the packing puts 2 > 1 on the flats [1, 3] of one hyperplane")


def test_a_packing_violating_a_block():
    # y = 1 on flats 0 and 2 (0-based) of I = {1, 2}: both on the block {0, 2}
    rejects(forged(PACKED, 0, y=[[0, 1], [1, 1], [2, 1]]),
            "the cover tree for I = {1, 2}, at its root: the packing puts 2 > 1 on the flats [1, 3] of one hyperplane")
    rejects(forged(PACKED, 0, y=[[1, "3/2"], [3, 1]]),
            "the cover tree for I = {1, 2}, at its root: the packing puts y = 3/2 on flat 2, outside [0, 1] (its "
            "singleton)")
    rejects(forged(PACKED, 0, y=[[1, -1], [3, 1]]),
            "the cover tree for I = {1, 2}, at its root: the packing puts y = -1 on flat 2, outside [0, 1] (its "
            "singleton)")


def test_a_packing_not_above_the_budget():
    rejects(forged(PACKED, 0, y=[[0, 1], [1, 1]]),
            "the cover tree for I = {1, 2}, at its root: the packing's total Σ y = 2 is not above the budget r = 2")
    rejects(forged(PACKED, 3, y="3/4"),        # 6 flats · 3/4 = 9/2 > 3, but the block {2, 4} gets 3/2
            "the cover tree for I = {1, 2, 3}, at its root: the packing puts 3/2 > 1 on the flats [3, 5] of one "
            "hyperplane")
    rejects(forged(PACKED, 3, y="1/2"),
            "the cover tree for I = {1, 2, 3}, at its root: the packing's total Σ y = 3 is not above the budget r = 3")


def test_a_leaf_with_budget_and_no_bound():
    for y in ([], "0", [[0, 0]]):
        rejects(forged(PACKED, 0, y=y), "the cover tree for I = {1, 2}, at its root: a leaf with budget r = 2 > 0 "
                                        "needs a packing bound (y ≥ 0 on the uncovered flats, at most 1 on every "
                                        "hyperplane's flats, Σ y > r)")


def test_a_branch_with_no_budget_left():
    trees = copy.deepcopy(BRANCHING)
    trees[0]["tree"]["children"] = [{"split": 1, "children": [{"y": []}]}]     # honest too: ({4}, 0) is closed
    msg, _ = verify(with_trees(trees))
    assert msg.endswith(TAIL.format(9))
    trees[0]["tree"]["children"] = [{"split": 1, "children": [{"split": 3, "children": [{"y": []}]}]}]
    rejects(trees, "the cover tree for I = {1, 2}, node 1.1: a branch with budget r = 0 (no set is left to cover "
                   "flat 4; the node is a leaf)")


def test_a_tree_for_the_wrong_I():
    trees = copy.deepcopy(PACKED)
    trees[0], trees[1] = trees[1], trees[0]
    rejects(trees, "cover tree 1 is for I = [0, 2]; the next set I the count leaves open is [0, 1] (0-based)")
    rejects(PACKED[:3], "no cover tree for I = {1, 2, 3} (the count leaves 4 sets I, 3 trees)")
    rejects(PACKED + PACKED[:1], "5 cover trees, but the count leaves only 4 sets I")
    rejects([dict(PACKED[0], I=[0, 0])] + PACKED[1:],
            "cover tree 1 is for I = [0, 0]; the next set I the count leaves open is [0, 1] (0-based)")
    rejects([dict(PACKED[0], I=[False, True])] + PACKED[1:],
            "cover tree 1 is for I = [False, True]; the next set I the count leaves open is [0, 1] (0-based)")


def test_a_tree_built_from_a_block_list_that_omits_a_plane():
    """Trees of the producer (reluid/analysis/deep/h4_trees.py) over the checker's blocks less one plane are
    rejected: the checker's own child sets differ, or the left-out block is overloaded by a packing."""
    from reluid.analysis.deep.h4_trees import cover_trees
    from reluid.certificates.build import cover_tree

    def blind(*blocks):
        found = cover_trees([0, 0, 1, 1, 2, 2], [frozenset(b) for b in blocks], 3, lp=False)
        return [{"I": list(I), "tree": cover_tree(t)} for I, t in found]

    assert blind({2, 4}, {3, 4}, {0, 2}) == BRANCHING                      # all three planes: the honest trees
    # without the plane of {2, 4}: for I = {2, 3} the producer covers flat 2 by its singleton, and its leaf
    # y = 1/2 on {3, 4, 5} becomes, on the checker's child {3, 5} (the block {2, 4} taken), a total of 1
    rejects(blind({3, 4}, {0, 2}), "the cover tree for I = {2, 3}, node 1: the packing's total Σ y = 1 is not "
                                   "above the budget r = 1")
    # without the plane of {0, 2}: the uniform y = 1 on I = {1, 2} overloads it
    rejects(blind({2, 4}, {3, 4}), "the cover tree for I = {1, 2}, at its root: the packing puts 2 > 1 on the "
                                   "flats [1, 3] of one hyperplane")
    # without the plane of {2, 4}, a branch on flat 4 has one child where the checker wants two
    trees = copy.deepcopy(BRANCHING)
    trees[3]["tree"] = {"split": 4, "children": [{"y": 1}]}
    rejects(trees, "the cover tree for I = {1, 2, 3}, at its root: 1 children, but flat 5 lies in 2 set(s) of the "
                   "family ([3, 5], [4, 5]): one child each")


def test_a_cover_found_along_a_tree_fails_h4():
    """CERTIFIED with two flats per H_j (0, 1 on H_1, 2, 3 on H_2): the lines through flats 0, 2 and 1, 3 cover
    them; a tree that follows them reaches an empty U, and any other tree fails where it should close."""
    thin = {**copy.deepcopy(EVIDENCE), "flats": [EVIDENCE["flats"][t] for t in (0, 1, 3, 4)]}
    tree = {"split": 0, "children": [{"split": 1, "children": [{"y": []}]}, {"y": []}]}      # {0, 2}, then {1, 3}
    rejects([{"I": [0, 1], "tree": tree}], "H4 fails: for I = {1, 2} the bend flats on those H_j are covered by 2 "
                                           "hyperplane(s) other than the H_i (along the cover tree)",
            evidence=thin, network=CERTIFIED)
    rejects([{"I": [0, 1], "tree": {"y": 1}}],
            "the cover tree for I = {1, 2}, at its root: the packing puts 2 > 1 on the flats [2, 4] of one hyperplane",
            evidence=thin, network=CERTIFIED)


def test_malformed_trees():
    rejects(forged(PACKED, 0, z=1), "the cover tree for I = {1, 2}, at its root must have exactly the fields ['y'] "
                                    "(a leaf) or ['children', 'split'] (a branch)")
    rejects(forged(PACKED, 0, y=[[0, 1, 2]]), "the cover tree for I = {1, 2}, at its root: a packing entry must be "
                                              "a pair [flat, y], got [0, 1, 2]")
    rejects(forged(PACKED, 0, y=[[0, 1], [0, 1]]), "the cover tree for I = {1, 2}, at its root: the packing names "
                                                   "0, not an uncovered flat (0-based) or named twice")
    rejects(forged(PACKED, 0, y=[[4, 1]]), "the cover tree for I = {1, 2}, at its root: the packing names 4, not an "
                                           "uncovered flat (0-based) or named twice")
    rejects(forged(PACKED, 0, y=0.5), "the cover tree for I = {1, 2}, at its root: expected an integer or 'p/q' "
                                      "string, got float 0.5")
    rejects([{"I": [0, 1]}] + PACKED[1:], "cover tree 1 must have exactly the fields ['I', 'tree']")
    rejects(forged(BRANCHING, 0, split=0, children=None), "the cover tree for I = {1, 2}, at its root: no list of "
                                                      "children, but flat 1 lies in 1 set(s) of the family ([1, 3]): "
                                                      "one child each")
    with pytest.raises(CheckFailed) as e:
        verify(with_trees(None))
    assert e.value.reason == "cover must be a list"
    with pytest.raises(CheckFailed) as e:
        verify(with_trees({"I": [0, 1]}))
    assert e.value.reason == "cover must be a list"


def test_an_index_equal_to_a_flat_but_no_integer_is_rejected():
    # True == 1 and 0.0 == 0 are members of the uncovered set U, so only the type test rejects them
    for bad in (True, 0.0):
        rejects(forged(BRANCHING, 0, split=bad, children=[{"y": 1}]),
                f"the cover tree for I = {{1, 2}}, at its root: split = {bad!r} (0-based) is not one of the uncovered "
                "flats [1, 2, 3, 4] (1-based)")
        rejects(forged(PACKED, 0, y=[[bad, 1], [3, 1]]), f"the cover tree for I = {{1, 2}}, at its root: the packing "
                                                         f"names {bad!r}, not an uncovered flat (0-based) or named twice")


def test_no_trees_where_the_count_holds():
    msg, _ = verify(with_trees([], EVIDENCE), CERTIFIED)
    assert "H4 by Lemma 10.12's count" in msg
    rejects([{"I": [0], "tree": {"y": 1}}], "1 cover trees, but the count leaves only 0 sets I", evidence=EVIDENCE,
            network=CERTIFIED)


def test_the_count_leaves_every_set_whose_hyperplanes_hold_few_flats():
    """open_sets: I is left to a tree exactly when every H_j, j ∈ I, holds at most |I| flats, sets of size 1
    included (an H_j with a single flat: one other hyperplane covers it, and no tree can close that set)."""
    from reluid.checker.cover_trees import open_sets, verify_cover_trees
    flats = [(0, "a"), (1, "b"), (1, "c"), (2, "d"), (2, "e"), (2, "f")]
    c = Context(GLR3, "h", Budget())
    assert open_sets(c, 3, flats) == [(0,), (0, 1), (0, 1, 2)] and c.budget.used == 2 ** 3 * 4
    assert open_sets(Context(GLR3, "h", Budget()), 3, [(j, t) for j in range(3) for t in range(3)]) == [(0, 1, 2)]
    assert open_sets(Context(GLR3, "h", Budget()), 3, [(j, t) for j in range(3) for t in range(4)]) == []
    with pytest.raises(CheckFailed) as e:       # the trees of the larger sets alone do not do
        verify_cover_trees(Context(GLR3, "h", Budget()), 3, flats, [], [{"I": [0, 1], "tree": {"y": 1}}])
    assert e.value.reason == "cover tree 1 is for I = [0, 1]; the next set I the count leaves open is [0] (0-based)"
    for tree in ({"y": 1}, {"split": 0, "children": [{"y": 1}]}):
        with pytest.raises(CheckFailed):
            verify_cover_trees(Context(GLR3, "h", Budget()), 3, flats, [], [{"I": [0], "tree": tree}])
