"""The converse of Ramakrishnan 2026, Proposition 24 fails: a rigid parameter outside its set."""

from __future__ import annotations

from reluid.verdicts import Outcome

from ._framework import RAMAKRISHNAN, SEED_R, Checks, Statement, fmt_theta, fmt_vec, shallow
from reluid.analysis.shallow.zariski import evaluate
from reluid.api import certify, check as check_certificate
from ._lemmas import hidden_symmetry_1d, v4_violation_candidate


def check(max_n, timeout):
    c = Checks(timeout)
    n = 2
    exclude = []
    for attempt in range(5):
        res = v4_violation_candidate(n, exclude=exclude, timeout=c.budget())
        if res.outcome is not Outcome.FOUND:
            c.z3_sat("z3 candidate search", res)
            return c.unknown_outcome("No candidate was found.", f"z3 answered {res.answer}")
        mod = res.model
        v = [mod[f"v{i + 1}"] for i in range(n)]
        a = [mod[f"a{i + 1}"] for i in range(n)]
        b = [mod[f"b{i + 1}"] for i in range(n)]
        exclude.append((v, a, b))
        theta = shallow(v, a, b, 0)
        ev = evaluate(theta)
        cert = certify(theta, timeout=c.budget())
        rep = check_certificate(cert)
        semantic = hidden_symmetry_1d(n, condition="none", theta=(v, a, b), timeout=c.budget())
        if (ev.outcome is Outcome.FOUND and cert.verdict.value == "no-hidden-symmetries" and rep.valid
                and semantic.outcome is Outcome.NONE):
            break
        c.line(f"candidate {attempt + 1} (θ = {fmt_theta(theta)}) did not survive the re-check; excluded")
    else:
        return c.unknown_outcome("No candidate survived.", "five candidates failed the re-check")
    c.trust.add("z3")
    c.line(f"z3 search (attempt {attempt + 1}), m = 1, n = 2: V1–V3 hold, V4 fails for a mixed-sign β, "
           "no β ∈ {0, 1}² ∖ 0 vanishes: sat")
    beta = ev.family("V4").violations[0].index
    c.exact(f"θ violates Proposition 24 (reluid.analysis.shallow.zariski.evaluate: Σ β(i) v_i a_i = 0 for "
            f"β = {fmt_vec(beta)})", True)
    c.exact("reluid.certify: verdict no-hidden-symmetries; reluid.check (the independent checker, no solver "
            "or search code) accepts the certificate by its own derivation rule", True)
    c.z3_unsat("z3, independent confirmation with θ fixed: ∃ θ′ ∉ H_2·θ with ρ(θ′) = ρ(θ)", semantic)
    text = (f"θ = ({fmt_theta(theta)}) violates Proposition 24's condition (β = {fmt_vec(beta)} gives "
            "Σ β(i) v_i a_i = 0) but has no hidden symmetries: reluid's certificate (the flip-set criterion of "
            "docs/mathematics.md §2, decided by exact enumeration) is accepted by the independent checker, and the bounded "
            "z3 search over all θ′ ∈ Ω(1, 2, 1) finds no other parameter realising ρ(θ). Like σ(x) + σ(x + 1): "
            "a β with mixed signs cancels, but flipping the neurons in {i : β(i) = 1} or {i : β(i) = −1} "
            "changes the linear part.")
    c.remark("The exact criterion on the generic stratum (v_i ≠ 0, a_i ≠ 0, rows pairwise independent) is the "
             "absence of a flip set F ≠ ∅ with Σ_{i∈F} v_i a_i = 0, i.e. only β ∈ {0, 1}ⁿ matter "
             "(docs/mathematics.md §2); Proposition 24's condition is sufficient, not necessary.")
    return c.counterexample(
        "Search found a parameter outside Proposition 24's set that has no hidden symmetries; the "
        "converse of Proposition 24 fails.", text, True, [("theta", theta)])


STATEMENT = Statement(
    name="ramakrishnan_proposition_24_converse",
    title="Converse of Proposition 24",
    paper=RAMAKRISHNAN,
    reference=f"{SEED_R}, §5, Proposition 24 (converse; docs/mathematics.md §2)",
    statement="If θ ∈ Ω(m, n, 1) has no hidden symmetries, then v_i ≠ 0, the rows (a_i, b_i) are pairwise "
              "linearly independent and Σ_i β(i) v_i a_i ≠ 0 for every β ∈ {0, ±1}ⁿ ∖ 0.",
    method="z3 proposes θ ∈ Ω(1, 2, 1) (a_i = ±1, small integers) satisfying V1–V3 but with a mixed-sign β "
           "vanishing; reluid then re-checks it: Proposition 24's condition fails (exact), reluid.certify "
           "returns no-hidden-symmetries with a certificate the independent checker accepts without any "
           "solver claim, and a z3 search over all θ′ with θ fixed confirms that no θ′ outside the orbit "
           "realises ρ(θ).",
    sizes="m = 1, n = 2.",
    expected="counterexample",
    check=check,
    order=(5, 24, 1),
)
