"""The words of reasons (reluid/report/reasons.py): every code is worded, exactly as the reports said it."""

from __future__ import annotations

import pytest

from reluid.report.reasons import THEOREM_8_2, facts, sentence, sentences, short, text
from reluid.verdicts import D3Step, Reason, ReasonCode, WFailure

ARCH = (2, 3, 3, 1)
FD = ("dim_fun = 19 = U (certified); architecture (2, 3, 3, 1), D = 25, 9 witness points (one per activation "
      "region)")
H1 = Reason(ReasonCode.HYPOTHESIS_FAILS, {"hypothesis": "H1", "detail": "0 of 7 nonempty layer-1 regions are full",
                                          "notes": ["+++: g_1 has no zero in R_s (F2; Motzkin y = (2/3, 0, 13/6))"]})
NO_MECHANISM = Reason(ReasonCode.NO_DEEP_MECHANISM, {
    "architecture": ARCH, "mechanisms": 0, "hidden": 6, "active": 6, "inactive": 6, "coactive": 9,
    "no_flip_layers": [1, 2], "flip_search": [[2, "undecided (timeout)"]], "prover_queries": 3, "undecided": 1})
BUDGET = Reason(ReasonCode.TIME_BUDGET, {
    "seconds": 10.0, "used": 10.04, "ran_out": True, "done": ["mechanism detection", "witness construction"],
    "left": [Reason(ReasonCode.LEFT_MECHANISM_DETECTION, {"questions": ["premise of dead-neuron (2, 1)"]}),
             Reason(ReasonCode.LEFT_WITNESS_CONSTRUCTION, {"mechanisms": 2}),
             Reason(ReasonCode.LEFT_FUNDIM_NOT_STARTED, {"needs": "it needs an estimated 40 s of CPU time"}),
             Reason(ReasonCode.LEFT_FUNDIM_NOT_STARTED, {"estimate_s": 40.4, "estimate_gb": 0.5, "cap_gb": 8}),
             Reason(ReasonCode.LEFT_FUNDIM_PARTIAL, {"rank": 17, "upper_bound": 19, "estimate_s": 41.5})]})

FD_FULL = ("dim_fun = 19 = U (certified); architecture (2, 3, 3, 1), D = 25, 9 witness points (one per activation "
           "region), rank mod p = 67108859, 1708/1900 generic sample points in 12 activation regions, 30 region rows "
           "examined (stopped at U)")
#: the parameters of ``FunDimResult.summary()`` for the result FD_FULL describes
FUNDIM_PARAMS = {"architecture": ARCH, "n_params": 25, "stop": "upper bound reached", "certified": True,
                 "by_theorem_a3": False, "complete": True, "rank": 19, "upper_bound": 19, "stall_rounds": 0,
                 "stall_regions": 0, "estimate_s": None, "estimate_gb": None, "cap_gb": None, "points": 9,
                 "prime": 67108859, "smooth": 1708, "sampled": 1900, "regions": 12, "rows": 30, "stopped_early": True}

#: the parameters of ``CellsFunDim.summary()`` for an exact dim_fun = U from 13 cells
CELLS = {"architecture": (2, 2, 3, 1), "n_params": 19, "rank": 14, "upper_bound": 14, "exact": True, "certified": True,
         "dense": True, "complete": True, "cells": 13, "dense_failure": None, "stopped": None}

#: (reason, its words): the sentences reluid wrote before reasons were data
WORDED = [
    (NO_MECHANISM, "no mechanism of hidden symmetry certified for the deep architecture (2, 3, 3, 1): no mechanism "
                   "found; 6 hidden neurons examined for dead/always-active (6 activity and 6 inactivity witnesses, 9 "
                   "co-activity witnesses); no layer flip in hidden layers [1, 2] (exact rank); layer 2 flip search: "
                   "undecided (timeout); 3 premise question(s) given to the Farkas-tree prover; 1 question(s) "
                   "undecided"),
    (Reason(ReasonCode.UNDECIDED_QUESTIONS, {"questions": [
        [Reason(ReasonCode.QUESTION_SIGN, {"layer": 2, "neuron": 0, "sign": ">0"}), "no Farkas tree within 1 node"],
        [Reason(ReasonCode.UNEXAMINED_COLLAPSED_KINKS), Reason(ReasonCode.OUT_OF_TIME)]], "more": 4}),
     "Undecided: is neuron 1 of hidden layer 2 ever active? (no Farkas tree within 1 node); collapsed kinks "
     "(mechanism iii) not all examined (time budget exhausted) and 4 more"),
    (Reason(ReasonCode.QUESTION_SIGN, {"layer": 1, "neuron": 4, "sign": "<0"}), "is neuron 5 of hidden layer 1 ever "
                                                                                "negative?"),
    (Reason(ReasonCode.QUESTION_COACTIVE, {"layer": 2, "first": 0, "second": 2}),
     "are neuron 1 of hidden layer 1 and neuron 3 of hidden layer 2 ever co-active?"),
    (Reason(ReasonCode.QUESTION_KINK, {"layer": 1, "neuron": 0, "next": 1, "removed": False}),
     "is neuron 1 of layer 1 ever negative while neuron 2 of layer 2 is active?"),
    (Reason(ReasonCode.QUESTION_KINK, {"layer": 1, "neuron": 0, "next": 1, "removed": True}),
     "is neuron 1 of layer 1 ever negative while neuron 2 of layer 2, with that ReLU removed, is active?"),
    (Reason(ReasonCode.QUESTION_FLIP_SUM, {"layer": 1, "sign": ">0"}), "is Σ_F W^2 z^1 above its value somewhere?"),
    (Reason(ReasonCode.QUESTION_FLIP_SUM, {"layer": 2, "sign": "<0"}), "is Σ_F W^3 z^2 below its value somewhere?"),
    (Reason(ReasonCode.UNEXAMINED_AFFINE_FLIPS), "affine layer flips (mechanism iv) not all examined"),
    (Reason(ReasonCode.UNEXAMINED_STEPS, {"steps": ["layer flips", "never co-active pairs"]}),
     "not examined: layer flips, never co-active pairs"),
    (Reason(ReasonCode.QUESTIONS_NOT_REFUTED, {"questions": 3}),
     "3 dead/always-active/co-activity question(s) not refuted by probes"),
    (Reason(ReasonCode.PROVER_NOT_USED, {"mechanism_found": True}), "prover not used (a mechanism was found)"),
    (Reason(ReasonCode.PROVER_NOT_USED, {"mechanism_found": False}), "prover disabled"),
    (Reason(ReasonCode.TWO_HIDDEN_LAYERS, {"theorem": Reason(ReasonCode.THEOREM_W_FAILS, {
        "theorem_8_2": H1, "failed": WFailure.H4,
        "detail": Reason(ReasonCode.W_COVER, {"counts": (1, 0, 0), "exhaustive": True})})}),
     f"Two hidden layers: the hypotheses of {THEOREM_8_2} fail: H1: 0 of 7 nonempty layer-1 regions are full; +++: "
     "g_1 has no zero in R_s (F2; Motzkin y = (2/3, 0, 13/6)); Theorem W: H4 fails (bend flats per H_j: [1, 0, 0]; a "
     "cover exists)"),
    (Reason(ReasonCode.FUNDIM, {"architecture": ARCH, "detail": FD}), "Functional dimension: " + FD),
    (Reason(ReasonCode.SIZE_LIMIT, {"limits": [Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": 12.34,
                                                                                 "cap_gb": 3.5})]}),
     "Size limit: functional dimension not attempted: it needs about 12 GB of memory, more than the 3.5 GB left under "
     "the memory cap (a size limit: a longer time budget does not help; reluid certify --memory-gb raises the cap)"),
    (BUDGET, "Time budget: the time budget 10 s (10.0 s used) ran out: done: mechanism detection, witness "
             "construction; left: part of mechanism detection (premise of dead-neuron (2, 1)); witness construction "
             "for 2 mechanism(s); functional dimension (not started: it needs an estimated 40 s of CPU time); "
             "functional dimension (not started: it needs an estimated 40 s of CPU time and more than the time "
             "budget left); "
             "functional dimension (rank 17 of U = 19 certified so far; the whole computation needs about 42 s)"),
    (Reason(ReasonCode.TIME_BUDGET, {"seconds": None, "used": 3, "ran_out": False, "done": ["mechanism detection"],
                                     "left": ["functional dimension"]}),
     "Time budget: no time budget: done: mechanism detection; left: functional dimension"),
    (Reason(ReasonCode.FLIP_SET_SEARCH_UNKNOWN, {"detail": "timeout in z3 (n = 40)"}),
     "flip-set search gave no answer: timeout in z3 (n = 40)"),
    (Reason(ReasonCode.PATTERNS_UNKNOWN, {"search": Reason(ReasonCode.PATTERN_TIMEOUT, {
        "seconds": 0.04, "P": [0, 2], "q": 1, "left": 3, "cases": 4})}),
     "realisation patterns: timeout after 0.0 s in case P = {1, 3}, q = 1: 3 of 4 cases left"),
    (Reason(ReasonCode.PATTERN_TIMEOUT, {"seconds": 2.25, "P": None, "q": 0, "left": 4, "cases": 4}),
     "timeout after 2.2 s: 4 of 4 cases left"),
    (Reason(ReasonCode.PATTERN_CASE_LIMIT, {"cases": 9, "limit": 1, "classes": 3, "pairs": 2}),
     "9 cases (P, q) exceed the limit 1 (s = 3 classes, p = 2 pairs)"),
    (Reason(ReasonCode.PATTERN_OWN_CASE, {"singles": 5, "search": "timeout in z3"}),
     "own case: the flip-set problem of the 5 single neurons modulo the pairs was not decided with a checkable "
     "certificate (timeout in z3)"),
    (Reason(ReasonCode.PATTERN_ENUMERATION_LIMIT, {"P": [], "q": 0, "orientations": 30, "limit": 22}),
     "case P = ∅, q = 0: 2^30 orientations exceed the enumeration limit 2^22"),
    (Reason(ReasonCode.THEOREM_W_FAILS, {"theorem_8_2": Reason(ReasonCode.INPUT_DIMENSION_ONE), "failed": "budget",
                                         "detail": Reason(ReasonCode.THEOREM_W_NOT_STARTED)}),
     "docs/mathematics.md §8 needs input dimension n0 >= 2 (for n0 = 1 there are no bend flats and H4 fails); "
     "Theorem W: budget fails (the time budget ran out before it started)"),
    (Reason(ReasonCode.INPUT_DIMENSION_ONE), "docs/mathematics.md §8 needs input dimension n0 >= 2 (for n0 = 1 there "
                                             "are no bend flats and H4 fails)"),
    (Reason(ReasonCode.THEOREM_82_SIZE_LIMIT, {"n1": 16, "max_width": 12}),
     "beyond the size limit of Theorem 8.2's enumeration: n1 = 16 > 12 (2^16 layer-1 sign patterns and sets I)"),
    (Reason(ReasonCode.THEOREM_82_BUDGET, {"stopped": "more than 3 strict systems", "decided": ["H0"], "regions": 2,
                                           "full": 1, "flats": 0, "tested": 2, "n1": 3}),
     "beyond the budget of the §8 checks: more than 3 strict systems; decided: H0; 2 nonempty layer-1 regions, 1 full, "
     "0 bend flats found (regions tested for fullness: 2); of the 2^3 = 8 sign patterns and 7 sets I of H4"),
    (Reason(ReasonCode.THEOREM_82_BUDGET, {"stopped": Reason(ReasonCode.W_STRICT_BUDGET, {"systems": 4, "limit": 3}),
                                           "decided": ["H0"], "regions": 2, "full": 1, "flats": 0, "tested": 2, "n1": 3}),
     "beyond the budget of the §8 checks: more than 3 strict systems; decided: H0; 2 nonempty layer-1 regions, 1 full, "
     "0 bend flats found (regions tested for fullness: 2); of the 2^3 = 8 sign patterns and 7 sets I of H4"),
    (Reason(ReasonCode.H82_TIMEOUT, {"phase": "bend-flats", "count": 5}), "timeout in the bend flats (5 found)"),
    (Reason(ReasonCode.H82_TIMEOUT, {"phase": "h4-candidates", "count": 9}),
     "timeout in H4's candidate hyperplanes (9 bend flats)"),
    (Reason(ReasonCode.H82_TIMEOUT, {"phase": "h4-blocks", "count": 2}),
     "timeout in H4's blocks (2 candidate hyperplanes)"),
    (Reason(ReasonCode.H82_TIMEOUT, {"phase": "h4-cover-search", "count": None}), "timeout in H4's cover search"),
    (Reason(ReasonCode.H82_TIMEOUT, {"phase": "h4-cover-trees", "count": None}), "timeout in H4's cover trees"),
    (Reason(ReasonCode.LAYER_FLIP_TIMEOUT, {"tried": 1023, "subsets": 65535}),
     "stopped at the time budget after 1023 of 65535 subsets"),
    (Reason(ReasonCode.H4_COVER_NODES, {"limit": 200000}),
     "the H4 cover search exceeded its node budget (200000 nodes for one I)"),
    (Reason(ReasonCode.FLIP_SEARCH_UNDECIDED, {"theorem_w": False, "layers": [[2, "timeout"]]}),
     f"H0–H4 hold ({THEOREM_8_2}), but the flip-set search is undecided: layer 2: timeout"),
    (Reason(ReasonCode.FLIP_SEARCH_UNDECIDED, {"theorem_w": True, "layers": [[1, "a"], [2, "b"]]}),
     "the hypotheses of Theorem W hold, but the flip-set search is undecided: layer 1: a; layer 2: b"),
    (Reason(ReasonCode.LOCAL_IDENTIFIABILITY_SKIPPED, {"estimate_s": 12.6, "cap_s": 0.02, "share": 0.4,
                                                       "left_s": 0.05}),
     "local identifiability not attempted: its rank computation is estimated at 13 s, more than the 0.0 s given to "
     "side properties of shallow networks (40% of the 0.1 s the decision left)"),
    (Reason(ReasonCode.LOCAL_IDENTIFIABILITY_SKIPPED, {"estimate_s": 9, "cap_s": 2.0, "share": 0.4, "left_s": None}),
     "local identifiability not attempted: its rank computation is estimated at 9 s, more than the 2.0 s given to "
     "side properties of shallow networks (the allowance when there is no time budget)"),
    (Reason(ReasonCode.LOCAL_IDENTIFIABILITY_UNFINISHED, {"cap_s": 2.0, "rank": 31}),
     "local identifiability not established within 2.0 s (rank 31 of D - N so far)"),
    (Reason(ReasonCode.LOCALLY_IDENTIFIABLE), "θ is locally identifiable (Theorem A1, docs/mathematics.md §6): near θ "
     "every parameter with the same function is a positive rescaling of θ; this does not exclude hidden symmetries "
     "far from θ, and no complete method is known for deep networks"),
    (Reason(ReasonCode.DIM_FUN_IS_U), "dim_fun = U is consistent with no hidden symmetries but does not prove it; no "
                                      "complete method is known for deep networks"),
    # the search results that were words before they were data (the words are those the analyses wrote)
    (Reason(ReasonCode.FUNDIM, FUNDIM_PARAMS), "Functional dimension: " + FD_FULL),
    (Reason(ReasonCode.FUNDIM, {**FUNDIM_PARAMS, "stop": "not attempted", "certified": False, "estimate_s": 812.4,
                                "estimate_gb": 9.25, "cap_gb": 4}),
     "Functional dimension: functional dimension not attempted: it needs an estimated 812 s of CPU time and about "
     "9.2 GB of memory, more than the 4.0 GB left under the memory cap; U = 19; architecture (2, 3, 3, 1), D = 25"),
    (Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": [
        ["separation", Reason(ReasonCode.SEPARATION_SPLIT_UNKNOWN, {
            "why": Reason(ReasonCode.SEPARATION_NOT_FOUND, {"lp": True}), "rest": 7,
            "sub": Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": []})})],
        ["rank", Reason(ReasonCode.FLIP_RANK_DEFICIENT, {"rank": 4, "n": 6, "p": 7})],
        ["lattice", Reason(ReasonCode.FLIP_LATTICE_TOO_LARGE, {"n": 400, "limit": 300})],
        ["z3", Reason(ReasonCode.Z3_MEMORY, {"n": 400, "km": 4, "rows": 4, "kernel_dim": None, "seconds_needed": 2.0,
                                             "seconds_left": None, "gb_needed": 3.25, "gb_left": 1.5})]]}),
     "separation: L-BFGS and the HiGHS max-margin LP found no y with yᵀu_i > 0 for every i; no certificate for the 7 "
     "neurons the split leaves (no method applies); rank: U has rank 4 < n = 6 mod 7; lattice: n = 400 > 300; z3: z3 "
     "not attempted: a formula of 4 rows × 400 neurons (1,600 terms) needs about 3.2 GB, more than the 1.5 GB left "
     "under the memory cap; regime n/km = 100.00 (n = 400, km = 4): past n/km ≈ 2 random columns are not separable, "
     "and the kernel is too large to enumerate"),
    (Reason(ReasonCode.Z3_TIME, {"n": 40, "km": 4, "rows": 4, "kernel_dim": 36, "seconds_needed": 12.6,
                                 "seconds_left": 0.25, "gb_needed": 0.1, "gb_left": 8}),
     "z3 not attempted: a formula of 4 rows × 40 neurons (160 terms) needs about 13 s to build and search once, more "
     "than the 0.2 s left; regime n/km = 10.00 (n = 40, km = 4, kernel of U of dimension 36): past n/km ≈ 2 random "
     "columns are not separable, and the kernel is too large to enumerate"),
    (Reason(ReasonCode.FLIP_TIMEOUT, {"method": "z3", "detail": Reason(ReasonCode.Z3_NO_TIME, {"n": 90}), "n": 90,
                                      "km": 2, "separable": 0.5 ** 89 * 90}),
     "timeout in z3 (n = 90, no time left for the solver); regime n/km = 45.00: random columns are separable with "
     "probability 1.5e-25 (Wendel), and the kernel of U has dimension at least 88"),
    (Reason(ReasonCode.FLIP_TIMEOUT, {"method": "mitm", "detail": "n = 30, matching", "n": 30, "km": 40,
                                      "separable": None}),
     "timeout in mitm (n = 30, matching)"),
    (Reason(ReasonCode.FLIP_SEPARATION_SHARE, {"share": 0.25, "detail": "L-BFGS, 12 evaluations", "n": 301, "km": 100,
                                               "separable": 3e-9}),
     "stopped at its share (25%) of the time left (L-BFGS, 12 evaluations): at n/km = 3.01 random columns are "
     "separable with probability 3e-09 (Wendel)"),
    (Reason(ReasonCode.SEPARATION_SPLIT_TOO_LARGE, {"why": Reason(ReasonCode.SEPARATION_ROUNDING), "rest": 9, "n": 12}),
     "the rounded y does not separate exactly; the split would leave 9 of the 12 neurons"),
    (Reason(ReasonCode.SEPARATION_ZERO_COLUMN), "a zero column u_i (m_i = 0 or a_i = 0) cannot be separated"),
    (Reason(ReasonCode.SEPARATION_IMPOSSIBLE, {"optimum": -0.125}),
     "not separable: the max-margin LP optimum is -0.12 ≤ 0, so (Gordan) some nonzero x ≥ 0 has Ux = 0"),
    (Reason(ReasonCode.SEPARATION_NOT_FOUND, {"lp": False}), "L-BFGS found no y with yᵀu_i > 0 for every i"),
    (Reason(ReasonCode.Z3_UNSAT, {"n": 5}),
     "z3 answered unsat for n = 5, which is not a certificate the checker can re-verify"),
    (Reason(ReasonCode.Z3_UNKNOWN, {"n": 5, "answer": "canceled"}), "z3 returned unknown (canceled) for n = 5"),
    (Reason(ReasonCode.Z3_SPURIOUS_ROW), "z3 returned a candidate that violates an encoded row"),
    (Reason(ReasonCode.Z3_SPURIOUS), "z3 kept returning spurious candidates"),
    (Reason(ReasonCode.NO_DEEP_MECHANISM, {**NO_MECHANISM.params, "flip_search": [
        [1, Reason(ReasonCode.LAYER_FLIP_SEARCH, {"status": Reason(ReasonCode.LAYER_FLIP_EXHAUSTED), "sets": 2})],
        [2, Reason(ReasonCode.LAYER_FLIP_SEARCH, {"status": Reason(ReasonCode.LAYER_FLIP_SKIPPED, {
            "support": 20, "limit": 16}), "sets": 0})],
        [3, Reason(ReasonCode.LAYER_FLIP_SEARCH, {"status": Reason(ReasonCode.LAYER_FLIP_EMPTY), "sets": 0})]]}),
     "no mechanism of hidden symmetry certified for the deep architecture (2, 3, 3, 1): no mechanism found; 6 hidden "
     "neurons examined for dead/always-active (6 activity and 6 inactivity witnesses, 9 co-activity witnesses); no "
     "layer flip in hidden layers [1, 2] (exact rank); layer 1 flip search: exhausted; 2 minimal flip set(s); layer 2 "
     "flip search: skipped: kernel support of 20 neurons exceeds 16; 0 minimal flip set(s); layer 3 flip search: "
     "skipped: empty layer; 0 minimal flip set(s); 3 premise question(s) given to the Farkas-tree prover; 1 "
     "question(s) undecided"),
    (Reason(ReasonCode.FUNDIM_CELLS, {**CELLS, "rank": 12, "exact": False, "certified": False, "complete": False,
                                      "stopped": Reason(ReasonCode.CELLS_STOPPED, {
                                          "why": Reason(ReasonCode.CELLS_NODES, {"limit": 50000}), "cells": 7})}),
     "dim_fun >= 12, U = 14; architecture (2, 2, 3, 1), D = 19; cell enumeration incomplete: more than 50000 nodes of "
     "the sign tree; 7 cells found so far"),
    (Reason(ReasonCode.FUNDIM_CELLS, {**CELLS, "rank": 12, "exact": False, "certified": False, "dense": False,
                                      "dense_failure": [2, 1, ["-1/2", "0"]]}),
     "dim_fun >= 12, U = 14; architecture (2, 2, 3, 1), D = 19; all 13 cells enumerated, but H_dense fails (neuron 2 "
     "of hidden layer 2 is identically 0 on an open region near ['-1/2', '0']), so only the lower bound is proved "
     "(docs/mathematics.md §9)"),
    (Reason(ReasonCode.FUNDIM_CELLS, {**CELLS, "rank": 14, "dense": False}),
     "dim_fun = 14 exactly = U; architecture (2, 2, 3, 1), D = 19; exact rank over Q at n0 + 1 points of each of the "
     "13 cells; rank = U, so H_dense is not needed (docs/mathematics.md §9, Theorem 9.1)"),
    (Reason(ReasonCode.CELLS_STOPPED, {"why": Reason(ReasonCode.CELLS_TIMEOUT, {"nodes": 812}), "cells": 3}),
     "timeout after 812 nodes; 3 cells found so far"),
    (Reason(ReasonCode.CELLS_STOPPED, {"why": Reason(ReasonCode.CELLS_TOO_MANY, {"limit": 5000}), "cells": 5000}),
     "more than 5000 cells; 5000 cells found so far"),
    (Reason(ReasonCode.LAYER_FLIP_FULL_RANK), "full-rank"),
    (Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": [
        ["screen", Reason(ReasonCode.SCREEN_NOTHING)],
        ["rank", Reason(ReasonCode.RANK_DEPENDENT, {"km": 4, "n": 9})],
        ["rank", Reason(ReasonCode.RANK_MINORS_VANISH, {"p": 1048573})],
        ["lattice", Reason(ReasonCode.LLL_NOT_ATTEMPTED, {"n": 301, "limit": 300})],
        ["lattice", Reason(ReasonCode.LATTICE_FULL_RANK)],
        ["lattice", Reason(ReasonCode.LATTICE_HOPELESS, {"dimension": 3, "n": 10})],
        ["lattice", Reason(ReasonCode.LATTICE_KERNEL_TOO_LARGE)],
        ["lattice", Reason(ReasonCode.LATTICE_GRAM_SCHMIDT, {"n": 10})],
        ["enumerate", Reason(ReasonCode.ENUMERATE_TOO_LARGE, {"p": 2147483647, "dimension": 30, "limit": 22})],
        ["mitm", Reason(ReasonCode.MITM_TOO_LARGE, {"n": 50, "limit": 44})],
        ["lattice", Reason(ReasonCode.METHOD_ERROR,
                           {"error": "LLL did not separate the kernel (entries of 9 bits)"})]]}),
     "screen: no zero column and no opposite pair; rank: k·m = 4 < n = 9: the columns of U are dependent; rank: the "
     "n × n minors of U tried vanish mod 1048573; lattice: n = 301 > 300: LLL not attempted; lattice: U has full "
     "column rank (the rank method applies); lattice: det(ker U ∩ Z^n)^(1/3) < √n = 3.16: no basis can meet the "
     "Gram–Schmidt bound; lattice: the kernel of the sampled rows is larger than ker U; lattice: Gram–Schmidt bound "
     "fails: min ‖b*_i‖² ≤ n = 10; enumerate: kernel of U mod 2147483647 has dimension 30 > 22; mitm: n = 50 > 44: "
     "meet in the middle not attempted; lattice: LLL did not separate the kernel (entries of 9 bits)"),
    (Reason(ReasonCode.LATTICE_ENUM_LIMIT, {"nodes": 1 << 20, "points": 64, "dimension": 12}),
     "Gram–Schmidt bound fails and the enumeration needs more than 1048576 nodes or meets more than 64 lattice points "
     "(dimension 12)"),
    (Reason(ReasonCode.LATTICE_CVP_INTEGER_CENTRE),
     "the last Gram–Schmidt coordinate of the centre is an integer (fplll's sign rule)"),
    (Reason(ReasonCode.LATTICE_CVP_NODES, {"estimate": 3.5e9, "block": 30, "dimension": 40, "limit": 2 ** 30}),
     "the enumeration of the ball needs up to about 3.5e+09 nodes after BKZ-30 (dimension 40), more than 1073741824"),
    (Reason(ReasonCode.LATTICE_CVP_TIME, {"estimate": 2.5e7, "block": 30, "dimension": 40, "seconds": 61.5,
                                          "left": 9.6}),
     "the enumeration of the ball needs up to about 2.5e+07 nodes after BKZ-30 (dimension 40), ≈ 62 s, more than the "
     "10 s left"),
    (Reason(ReasonCode.LATTICE_CVP_POINTS, {"points": 1000, "nodes": 2 ** 30, "dimension": 40}),
     "the ball holds more than 1000 lattice points or the enumeration more than 1073741824 nodes (dimension 40)"),
    (Reason(ReasonCode.FLIP_TIMEOUT, {"method": "rank profile", "detail": Reason(ReasonCode.RANK_PROFILE_MEMORY, {
        "n": 3000, "gb_needed": 12.25, "gb_left": 3.5}), "n": 3000, "km": 3000, "separable": None}),
     "timeout in rank profile (n = 3000: it needs about 12.2 GB, more than the 3.5 GB left under the memory cap)"),
    (Reason(ReasonCode.RANK_PROFILE_TIME, {"n": 3000, "seconds_needed": 812.7, "seconds_left": 2.25}),
     "n = 3000: it needs about 813 s, more than the 2.2 s left"),
    (Reason(ReasonCode.FLIP_METHODS_GAVE_UP, {"methods": [
        [m, Reason(c, params)] for m, c, params in (
            ("rank", ReasonCode.AT_SIZE, {"n": 9}),
            ("enumerate", ReasonCode.AT_CANDIDATES, {"dimension": 20, "left": 7}),
            ("mitm", ReasonCode.AT_SUBSET_SUMS, {"n": 40}), ("mitm", ReasonCode.AT_MATCHING, {"n": 40}),
            ("lattice", ReasonCode.AT_LLL, {"dimension": 60}),
            ("lattice", ReasonCode.AT_BKZ, {"block": 20, "dimension": 8}),
            ("lattice-enum", ReasonCode.AT_DIMENSION, {"dimension": 8}),
            ("lattice-enum", ReasonCode.AT_ENUM_NODES, {"nodes": 16384, "dimension": 8}),
            ("separation", ReasonCode.AT_LBFGS, {"evaluations": 12}), ("separation", ReasonCode.AT_EXACT_CHECK, {}),
            ("box", ReasonCode.AT_FRANK_WOLFE, {}), ("modp-enum", ReasonCode.AT_MODP_POINTS, {"free": 5, "p": 7}),
            ("proj-enum", ReasonCode.AT_ORIENTATIONS, {"free": 6}), ("flip", ReasonCode.NO_TIME_LEFT, {}))]}),
     "rank: n = 9; enumerate: kernel dimension 20, 7 of 2^20 candidates left; mitm: n = 40, subset sums built; mitm: "
     "n = 40, matching; lattice: LLL in dimension 60; lattice: BKZ-20 in dimension 8; lattice-enum: dimension 8; "
     "lattice-enum: 16384 enumeration nodes in dimension 8; separation: L-BFGS, 12 evaluations; separation: exact "
     "check of the rounded y; box: Frank–Wolfe iteration; modp-enum: 2^5 points mod 7; proj-enum: 2^6 orientations; "
     "flip: no time left"),
    (Reason(ReasonCode.EQUIV_UNDECIDED, {"notes": [
        Reason(ReasonCode.EQUIV_Z3_UNKNOWN, {"answer": Reason(ReasonCode.Z3_SAID, {"answer": "timeout"})}),
        Reason(ReasonCode.EQUIV_Z3_UNKNOWN, {"answer": Reason(ReasonCode.Z3_MODEL_NOT_RATIONAL, {"error": "root"})}),
        Reason(ReasonCode.EQUIV_Z3_UNKNOWN, {"answer": Reason(ReasonCode.Z3_MODEL_FAILED)})],
        "orbits": "different architectures"}),
     "z3: unknown (timeout); z3: unknown (model not rational: root); z3: unknown (z3 model failed exact "
     "re-evaluation); orbits: different architectures"),
    (Reason(ReasonCode.FARKAS_NODE_BUDGET, {"max_nodes": 20000, "open": 3}),
     "node budget of 20000 exhausted with 3 open node(s) left"),
    (Reason(ReasonCode.FARKAS_TIMEOUT, {"seconds": 0.5, "open": 1}), "timeout after 0.5 s with 1 open node(s) left"),
    (Reason(ReasonCode.FARKAS_INTERNAL, {"error": "leaf 3"}), "internal inconsistency: leaf 3"),
    (Reason(ReasonCode.REGIONS_NOT_RUN), "not run"),
    (Reason(ReasonCode.REGIONS_COMPLETE, {"regions": 12, "lps": 40}), "12 regions, 40 exact LPs"),
    (Reason(ReasonCode.REGIONS_STOPPED, {"regions": 3, "lps": 9, "max_regions": None}),
     "stopped after 3 regions and 9 exact LPs (time limit)"),
    (Reason(ReasonCode.EQUIV_UNDECIDED, {"notes": [
        Reason(ReasonCode.EQUIV_NO_PROBE_DIFFERENCE, {"probes": 4096}),
        Reason(ReasonCode.EQUIV_REGION_SPLIT_STOPPED, {"walk": Reason(ReasonCode.REGIONS_STOPPED, {
            "regions": 1, "lps": 2, "max_regions": 1})}),
        Reason(ReasonCode.EQUIV_TOO_LARGE, {"input_dim": 20, "neurons": 130, "limits": [16, 128]}),
        Reason(ReasonCode.EQUIV_Z3_UNSAT), Reason(ReasonCode.EQUIV_Z3_UNKNOWN, {"answer": "timeout"}),
        Reason(ReasonCode.EQUIV_NO_TIME_FOR_Z3)],
        "orbits": Reason(ReasonCode.ALIGN_UNMATCHED, {"layer": 3, "depth": 3, "unmatched": 1})}),
     "no distinguishing input among 4096 float probes; region split stopped after 1 regions (max_regions = 1); too "
     "large for the exact region split (input dimension 20, 130 hidden neurons; limits 16 and 128); z3 reports no "
     "distinguishing input (unsat; not an exact proof, so not a verdict); z3: unknown (timeout); no time left for z3; "
     "orbits: the output layer is the first whose canonical rows cannot be matched (1 row with no partner)"),
    (Reason(ReasonCode.EQUIV_SAME_ORBIT, {"alignment": Reason(ReasonCode.ALIGN_SAME_ORBIT, {
        "method": "canonical rows", "names": ["net1", "net2"]})}),
     "same orbit: the canonical forms agree layer by layer; act_layers(g, net1) == net2 exactly"),
    (Reason(ReasonCode.ALIGN_SAME_ORBIT, {"method": "exhaustive search (tied neurons)"}),
     "the exhaustive search (tied neurons) finds g; act_layers(g, other) == reference exactly"),
    (Reason(ReasonCode.ALIGN_DEPTHS, {"depths": [2, 3]}), "different depths (2 and 3 layer maps)"),
    (Reason(ReasonCode.ALIGN_WIDTHS, {"layer": 1, "widths": [3, 4]}),
     "hidden layer 1 has 3 neurons in the reference and 4 in the other network"),
    (Reason(ReasonCode.ALIGN_UNMATCHED, {"layer": 1, "depth": 3, "unmatched": 2}),
     "hidden layer 1 is the first whose canonical rows cannot be matched (2 rows with no partner)"),
    (Reason(ReasonCode.ALIGN_TIES_STOPPED, {"layer": 2, "nodes": 200000}),
     "hidden layer 2 has tied or zero canonical rows, and the exhaustive orbit search stopped after 200000 nodes"),
    (Reason(ReasonCode.ALIGN_TIES_NO_ELEMENT, {"layer": 2}),
     "layers before hidden layer 2 match; hidden layer 2 has tied or zero canonical rows, and the exhaustive search "
     "finds no element"),
    (Reason(ReasonCode.EQUIV_SAME_FUNCTION_DATA), "same kinks, linear part and constant"),
    (Reason(ReasonCode.EQUIV_FUNCTION_DATA_DIFFER), "function data differ"),
    (Reason(ReasonCode.EQUIV_FLOAT_SEARCH, {"probes": 4096,
                                            "orbits": Reason(ReasonCode.EQUIV_DIFFERENT_ARCHITECTURES)}),
     "the exact outputs differ at a point chosen by 4096 float probes; orbits: different architectures"),
    (Reason(ReasonCode.EQUIV_REGION_DIFFER, {"regions": 5, "orbits": "different architectures"}),
     "the affine maps differ on a joint activation region (found after 5 regions); orbits: different architectures"),
    (Reason(ReasonCode.EQUIV_REGION_AGREE, {"regions": 5, "lps": 17, "orbits": Reason(
        ReasonCode.ALIGN_DEPTHS, {"depths": [2, 3]})}),
     "the affine maps agree on all 5 joint activation regions (17 exact LPs); orbits: different depths (2 and 3 layer "
     "maps)"),
    (Reason(ReasonCode.EQUIV_Z3_FOUND, {"orbits": "different architectures"}),
     "z3 found the input, checked exactly; orbits: different architectures"),
    (Reason(ReasonCode.EQUIV_REGION_FOUND, {"region": "near the 3 given points", "before": Reason(
        ReasonCode.EQUIV_UNDECIDED, {"notes": [], "orbits": "different architectures"})}),
     "the exact outputs differ at an input found in near the 3 given points; before it: orbits: different "
     "architectures"),
    (Reason(ReasonCode.H4_MOVE_UNDECIDED, {"neuron": 0, "delta": "-1/2", "why": Reason(ReasonCode.OUT_OF_TIME)}),
     "neuron 1, δ = -1/2: time budget exhausted"),
    (Reason(ReasonCode.W_DEGENERATE_ROWS, {"items": [("zero-row", "A", "a", 2, None),
                                                     ("proportional", "W", "w", 1, 3),
                                                     ("zero-column", "V", "c", 2, None)]}),
     "A_2 = 0; (W_1, w_1) and (W_3, w_3) are proportional; V_(:,2) = 0"),
    (Reason(ReasonCode.W_NEEDS_REGIONS, {"n1": 16}),
     "the x frame (rank A < n1 = 16) needs layer-1 regions with exact witnesses: §8's sign tree stops at n1 = 14 and "
     "the LP-guided search needs highspy (the optional extra 'lp': pip install 'reluid[lp]')"),
    (Reason(ReasonCode.W_COVER, {"counts": [2, 1], "exhaustive": False}),
     "bend flats per H_j: [2, 1]; the count condition fails"),
    (Reason(ReasonCode.W_UNPINNED, {"pinned": 2, "n2": 5}), "2 of 5 layer-2 neurons pinned"),
    (Reason(ReasonCode.W_STRICT_BUDGET, {"systems": 40, "limit": None}), "timeout after 40 strict systems"),
    (Reason(ReasonCode.W_STRICT_BUDGET, {"systems": 41, "limit": 40}), "more than 40 strict systems"),
    (Reason(ReasonCode.FM_ROW_BUDGET, {"step": 2, "of": 3, "rows": 5000, "budget": 4000}),
     "Fourier–Motzkin step 2 of 3 needs 5000 rows (budget 4000)"),
    (Reason(ReasonCode.REDUCTION_STOPPED), "time budget exhausted: the reduction stopped (every step so far is exact)"),
    # the hypotheses of Theorem 8.2, in the words the analysis wrote before they were data
    (Reason(ReasonCode.H0_HOLDS, {"n1": 3}), "3 distinct layer-1 hyperplanes, no zero row A_j, no zero column of V"),
    (Reason(ReasonCode.W_DEGENERATE_ROWS, {"items": [["zero-row", "A", "a", 1, None],
                                                     ["proportional", "A", "a", 2, 3], ["zero-column", "V", "c", 1, None],
                                                     ["zero-column", "V", "c", 2, None]], "more": 2}),
     "A_1 = 0; (A_2, a_2) and (A_3, a_3) are proportional; V_(:,1) = 0; V_(:,2) = 0 and 2 more"),
    (Reason(ReasonCode.W_DEGENERATE_ROWS, {"items": [["zero-row", "A", "a", 2, None]], "more": 0}), "A_2 = 0"),
    (Reason(ReasonCode.H1_COUNT, {"full": 0, "regions": 7}), "0 of 7 nonempty layer-1 regions are full"),
    (Reason(ReasonCode.REGION_NOT_FULL, {"signs": "+-+", "why": Reason(ReasonCode.F_CONSTANT, {"k": 2})}),
     "+-+: g_2 is constant on R_s (F1)"),
    (Reason(ReasonCode.F_NO_ZERO, {"k": 1, "y": ["1/2", "0", "3"]}),
     "g_1 has no zero in R_s (F2; Motzkin y = (1/2, 0, 3))"),
    (Reason(ReasonCode.F_PROPORTIONAL, {"k": 1, "k2": 3}), "g_1 and g_3 are proportional on R_s (F3)"),
    (Reason(ReasonCode.H23_STATS, {"full": 4, "edges": 5, "rigid": 2}),
     "4 full regions, 5 edges between them, 2 rigid"),
    (Reason(ReasonCode.H23_NO_COMPONENT, {"n1": 3, "best": 2}),
     "no component of rigid edges carries all 3 labels (at most 2)"),
    (Reason(ReasonCode.H23_COMPONENT, {"size": 4}), "component 𝒞 of 4 full regions carries every label"),
    (Reason(ReasonCode.H23_EDGE_SET, {"edges": 3}), "certificate edge set E: 3 rigid edges"),
    (Reason(ReasonCode.H4_BY_COUNT, {"counts": [2, 3]}),
     "bend flats per H_j: [2, 3]; by Lemma 10.12's count (sorted, b_(m) > m), no set I of layer-1 neurons has its "
     "flats covered by |I| other hyperplanes"),
    (Reason(ReasonCode.H4_NO_COVER, {"counts": [1, 3], "candidates": 6}),
     "bend flats per H_j: [1, 3]; 6 candidate hyperplanes; no set I of layer-1 neurons has its flats covered by |I| "
     "other hyperplanes"),
    (Reason(ReasonCode.H4_COVERED, {"I": [1, 2], "flats": 3, "cover": [[[["0", "1/2"], 1], [["1", "1"], 2]],
                                                                       [[["-1", "0"], 1]]]}),
     "I = {1, 2}: the 3 bend flats on H_1, H_2 are covered by 2 hyperplane(s) other than the H_i (a hyperplane "
     "through the flats (0, 1/2) on H_1, (1, 1) on H_2; a hyperplane through the flat (-1, 0) on H_1)"),
    (Reason(ReasonCode.H4_FLAT_COUNTS, {"counts": [1, 1]}), "bend flats per H_j: [1, 1]"),
    # why the three-hidden-layer certificate (docs/mathematics.md §12.11) was not found
    (Reason(ReasonCode.THREE_HIDDEN_LAYERS, {"theorem": Reason(ReasonCode.D3_WIDE, {"n0": 3, "n2": 3})}),
     "Three hidden layers: n2 = 3 >= n0 = 3: there are no clash points, and no theorem identifies layer 1 of an "
     "arbitrary competitor (docs/mathematics.md Remark 12.40)"),
    (Reason(ReasonCode.D3_CLASH_INPUT, {"n0": 4}),
     "the clash points of Theorem 12.37 are enumerated for input dimension 3 only (n0 = 4)"),
    (Reason(ReasonCode.D3_NO_CP, {"points": 9, "m": [0, 2, 1]}),
     "(CP) of Theorem 12.37 is not shown: 9 clash points of edge bend flats give m_i = [0, 2, 1], and (CP-L) needs "
     "m_(k) >= k for the sorted values"),
    (Reason(ReasonCode.D3_HYPOTHESIS, {"step": D3Step.RIGID_EDGES}),
     "the hypotheses of Corollary 12.15 are not shown: no connected set of rigid layer-1 edges carries every label "
     "(Theorem 12.14)"),
    (Reason(ReasonCode.D3_FLIPS, {"layers": [[1, True], [3, False]]}),
     "the flip families are not all shown trivial: hidden layer 1: a flip set exists; hidden layer 3: undecided"),
    (Reason(ReasonCode.D3_TIMEOUT, {"step": D3Step.CLASH_POINTS}),
     "the time ran out while looking for the clash points of Theorem 12.37"),
    # a failed hypothesis as reasons, and as the words a certificate written before them holds: the same line
    (Reason(ReasonCode.HYPOTHESIS_FAILS, {"hypothesis": "H1", "detail": Reason(ReasonCode.H1_COUNT, {
        "full": 0, "regions": 7}), "notes": [Reason(ReasonCode.REGION_NOT_FULL, {
            "signs": "+-", "why": Reason(ReasonCode.F_PROPORTIONAL, {"k": 1, "k2": 2})})]}),
     "the hypotheses of docs/mathematics.md §8, Theorem 8.2 and Corollary 8.3 fail: H1: 0 of 7 nonempty layer-1 "
     "regions are full; "
     "+-: g_1 and g_2 are proportional on R_s (F3)"),
    (Reason(ReasonCode.HYPOTHESIS_FAILS, {"hypothesis": "H1", "detail": "0 of 7 nonempty layer-1 regions are full",
                                          "notes": ["+-: g_1 and g_2 are proportional on R_s (F3)"]}),
     "the hypotheses of docs/mathematics.md §8, Theorem 8.2 and Corollary 8.3 fail: H1: 0 of 7 nonempty layer-1 "
     "regions are full; "
     "+-: g_1 and g_2 are proportional on R_s (F3)"),
]


@pytest.mark.parametrize("reason, words", WORDED)
def test_every_reason_has_the_words_reluid_wrote(reason, words):
    assert sentence(reason) == words == sentence(reason.to_dict())


def test_every_code_is_worded():
    worded = {r.code for r, _ in WORDED}
    worded |= {Reason(**x).code for r, _ in WORDED for x in _nested(r.to_dict())}
    assert worded == set(ReasonCode)


def _nested(d):
    """Every reason nested in the parameters of ``d`` (a ``{"code", "params"}`` dict), at any depth."""
    stack = list(d["params"].values())
    while stack:
        x = stack.pop()
        if isinstance(x, dict) and "code" in x:
            yield x
            stack += x["params"].values()
        elif isinstance(x, list):
            stack += x


def test_a_later_sentence_does_not_repeat_the_architecture():
    fd = Reason(ReasonCode.FUNDIM, {"architecture": ARCH, "detail": FD})
    assert sentences([NO_MECHANISM, fd])[1] == "Functional dimension: " + FD.replace("architecture (2, 3, 3, 1), ", "")
    assert sentences([fd])[0] == sentence(fd)                      # said once: here for the first time
    assert text([NO_MECHANISM, fd]) == sentence(NO_MECHANISM) + ". " + sentence(fd)      # one line says it all


def test_short_and_facts():
    assert short([NO_MECHANISM]) == "no mechanism of hidden symmetry certified: no mechanism found"
    assert short([Reason(ReasonCode.FLIP_SET_SEARCH_UNKNOWN, {"detail": "timeout (a; b); 3 cases left"})]) == \
        "flip-set search gave no answer: timeout (a; b)"
    assert short([]) == ""
    two = Reason(ReasonCode.TWO_HIDDEN_LAYERS, {"theorem": H1})
    assert facts([NO_MECHANISM, two, BUDGET]) == ["Theorem 8.2 not applicable: H1: 0 of 7 nonempty layer-1 regions "
                                                  "are full", "t" + sentence(BUDGET)[1:]]
    ran_out = Reason(ReasonCode.FLIP_SET_SEARCH_UNKNOWN, {"detail": "the time ran out while building the formula"})
    assert facts([ran_out]) == [sentence(ran_out)]
    assert facts([Reason(ReasonCode.TWO_HIDDEN_LAYERS, {"theorem": Reason(ReasonCode.INPUT_DIMENSION_ONE)})]) == []


@pytest.mark.parametrize("reason", [
    Reason("a-newer-code", {"n": 3}),
    Reason(ReasonCode.TIME_BUDGET, {}),
    Reason(ReasonCode.THEOREM_82_BUDGET, {"stopped": "x", "decided": [], "regions": 0, "full": 0, "flats": 0,
                                          "tested": 0, "n1": 10 ** 12}),
    Reason(ReasonCode.TWO_HIDDEN_LAYERS, {"theorem": "not a reason"}),
    Reason(ReasonCode.FUNDIM_MEMORY, {"estimate_gb": "1/0", "cap_gb": []}),
])
def test_reasons_a_certificate_may_carry_are_shown_never_a_crash(reason):
    """A reason read from a certificate is data from outside: shown as it stands, never evaluated at any cost."""
    said = sentence(reason)
    assert said.startswith(str(reason.code) + " (")
    assert facts([reason]) == ([said] if reason.code == ReasonCode.TIME_BUDGET else [])
    assert said.startswith(short([reason])) and text([reason]) == said


def test_a_reason_is_a_hashable_value():
    """Results hold reasons; equal reasons (whatever the order of their parameters) hash alike, nested ones too."""
    a = Reason(ReasonCode.FARKAS_TIMEOUT, {"seconds": 0.5, "open": 1})
    b = Reason("farkas-timeout", {"open": 1, "seconds": 0.5})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    outer = Reason(ReasonCode.EQUIV_UNDECIDED, {"notes": [a], "orbits": "different architectures"})
    again = Reason(**outer.to_dict())
    assert again == outer and hash(again) == hash(outer)
    assert a != Reason(ReasonCode.FARKAS_TIMEOUT, {"seconds": 0.5, "open": 2})
