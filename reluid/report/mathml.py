"""The handful of formulas reluid's reports use, each in two spellings: plain text and MathML.

A :class:`Formula` carries both, so that one section model feeds the text,
Markdown and HTML renderers: text and Markdown print ``text``, HTML embeds
``mathml`` (a ``<math>`` element, rendered natively by browsers; nothing is
fetched).  :func:`split_formulas` finds the formulas reluid writes into claim
statements and rule texts (``Σ_{i∈F} m_i a_iᵀ = 0`` and its relatives) so
that HTML shows them typeset instead of as raw text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from fractions import Fraction

from reluid.certificates.schema import ClaimKind
from reluid.verdicts import Mechanism

__all__ = ["Formula", "split_formulas", "flip_identity", "flip_identity_numbers", "kink_form", "shallow_function",
           "deep_function", "farkas_condition", "gram_schmidt_bound", "rank_minor", "paper_condition",
           "layer_flip", "sign_premise", "fundim_bound", "fibre_is_orbit", "num", "math"]


@dataclass(frozen=True, slots=True)
class Formula:
    """A formula: ``text`` for text and Markdown, ``mathml`` (a ``<math>`` element) for HTML."""

    text: str
    mathml: str

    def __str__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------
# MathML building blocks (strings)
# ---------------------------------------------------------------------------

def _e(s) -> str:
    return html.escape(str(s), quote=False)


def mi(x, normal: bool = False) -> str:
    return f'<mi mathvariant="normal">{_e(x)}</mi>' if normal else f"<mi>{_e(x)}</mi>"


def mn(x) -> str:
    return f"<mn>{_e(x)}</mn>"


def mo(x, **attrs) -> str:
    a = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f"<mo{a}>{_e(x)}</mo>"


def mtext(x) -> str:
    return f"<mtext>{_e(x)}</mtext>"


def row(*xs) -> str:
    return "<mrow>" + "".join(xs) + "</mrow>"


def sub(a, b) -> str:
    return f"<msub>{a}{b}</msub>"


def sup(a, b) -> str:
    return f"<msup>{a}{b}</msup>"


def subsup(a, b, c) -> str:
    return f"<msubsup>{a}{b}{c}</msubsup>"


def under(a, b) -> str:
    return f"<munder>{a}{b}</munder>"


def underover(a, b, c) -> str:
    return f"<munderover>{a}{b}{c}</munderover>"


def fenced(x, left="(", right=")") -> str:
    return row(mo(left), x, mo(right))


def math(content: str, display: bool = False) -> str:
    d = ' display="block"' if display else ""
    return f'<math{d}>{content}</math>'


def num(q) -> str:
    """A rational as MathML: an integer, −n, or a fraction p/q."""
    q = Fraction(q)
    neg = q < 0
    a = abs(q)
    body = mn(a.numerator) if a.denominator == 1 else f"<mfrac>{mn(a.numerator)}{mn(a.denominator)}</mfrac>"
    return row(mo("−"), body) if neg else body


def _fmt(q) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def column(xs) -> str:
    """A column vector."""
    cells = "".join(f"<mtr><mtd>{num(x)}</mtd></mtr>" for x in xs)
    return fenced(f"<mtable>{cells}</mtable>")


def rowvec(xs) -> str:
    """A row vector (a 1 × m matrix)."""
    cells = "".join(f"<mtd>{num(x)}</mtd>" for x in xs)
    return fenced(f"<mtable><mtr>{cells}</mtr></mtable>")


def matrix(rows) -> str:
    body = "".join("<mtr>" + "".join(f"<mtd>{num(x)}</mtd>" for x in r) + "</mtr>" for r in rows)
    return fenced(f"<mtable>{body}</mtable>")


def _idx(base: str, i: str) -> str:
    return sub(mi(base), mi(i))


SIGMA = mo("∑")
T = mi("T", normal=True)


def _sum_over(lower: str, upper: str | None = None) -> str:
    return underover(SIGMA, lower, upper) if upper is not None else under(SIGMA, lower)


def _in_F() -> str:
    return row(mi("i"), mo("∈"), mi("F"))


def _sigma(arg: str) -> str:
    return row(mi("σ"), fenced(arg))


# ---------------------------------------------------------------------------
# the formulas
# ---------------------------------------------------------------------------

def flip_identity(relation: str = "=") -> Formula:
    """Σ_{i∈F} m_i a_iᵀ = 0: F is a flip set (docs/mathematics.md §2)."""
    body = row(_sum_over(_in_F()), _idx("m", "i"), sup(_idx("a", "i"), T), mo(relation), mn(0))
    return Formula(f"Σ_{{i∈F}} m_i a_iᵀ {relation} 0", math(body))


def flip_identity_numbers(terms, k: int, m: int) -> Formula:
    """Σ_{i∈F} m_i a_iᵀ with the numbers: ``terms`` lists (m_i, a_i); the sum is the zero matrix."""
    text = " + ".join(f"({', '.join(map(_fmt, mi_))})·({', '.join(map(_fmt, ai))})ᵀ" for mi_, ai in terms)
    parts = [row(_sum_over(_in_F()), _idx("m", "i"), sup(_idx("a", "i"), T)), mo("=")]
    for t, (mi_, ai) in enumerate(terms):
        if t:
            parts.append(mo("+"))
        parts.append(row(column(mi_), rowvec(ai)))
    parts += [mo("="), matrix([[0] * m for _ in range(k)])]
    return Formula(f"Σ_{{i∈F}} m_i a_iᵀ = {text} = 0", math(row(*parts), display=True))


def kink_form() -> Formula:
    """The kink form of a shallow network (Ramakrishnan 2026, Theorems 3 and 4)."""
    body = row(mi("ρ"), fenced(mi("θ")), fenced(mi("x")), mo("="), _sum_over(mi("r")), _idx("K", "r"),
               _sigma(row(mi("r"), mo("·"), fenced(row(mi("x"), mo(","), mn(1))))), mo("+"), mi("L"), mi("x"),
               mo("+"), row("<mover>" + mi("c") + mo("¯") + "</mover>"))
    return Formula("ρ(θ)(x) = Σ_r K_r σ(r·(x, 1)) + L x + c̄", math(body, display=True))


def _affine_terms(a, b, var: str = "x") -> tuple[str, str]:
    """a·x + b with the numbers, as (text, MathML); coordinates x_1, x_2, … (x alone when n0 = 1)."""
    text, parts = [], []
    for l, c in enumerate(a):
        c = Fraction(c)
        if not c:
            continue
        xl = var if len(a) == 1 else f"{var}{l + 1}"
        xm = mi(var) if len(a) == 1 else sub(mi(var), mn(l + 1))
        sign = "−" if c < 0 else "+"
        mag = abs(c)
        coef_t = "" if mag == 1 else _fmt(mag)
        coef_m = "" if mag == 1 else num(mag)
        if not text:
            text.append(("−" if c < 0 else "") + coef_t + xl)
            parts.append((mo("−") if c < 0 else "") + coef_m + xm)
        else:
            text.append(f" {sign} {coef_t}{xl}")
            parts.append(mo(sign) + coef_m + xm)
    b = Fraction(b)
    if b or not text:
        if not text:
            text.append(_fmt(b))
            parts.append(num(b))
        else:
            text.append(f" {'−' if b < 0 else '+'} {_fmt(abs(b))}")
            parts.append(mo("−" if b < 0 else "+") + num(abs(b)))
    return "".join(text), row(*parts)


def shallow_function(theta=None) -> Formula:
    """ρ(θ)(x) = Σ_i m_i σ(a_i·x + b_i) + c, with the numbers when θ is small and has one output."""
    general_t = "ρ(θ)(x) = Σ_{i=1}^{n} m_i σ(a_i·x + b_i) + c"
    general = row(mi("ρ"), fenced(mi("θ")), fenced(mi("x")), mo("="),
                  _sum_over(row(mi("i"), mo("="), mn(1)), mi("n")), _idx("m", "i"),
                  _sigma(row(_idx("a", "i"), mo("·"), mi("x"), mo("+"), _idx("b", "i"))), mo("+"), mi("c"))
    if theta is None or theta.k != 1 or theta.n == 0 or theta.n > 8 or theta.m > 4:
        return Formula(general_t, math(general, display=True))
    text, parts = [], []
    for i in range(theta.n):
        w = Fraction(theta.M[0][i])
        if not w:
            continue
        at, am = _affine_terms(theta.A[i], theta.b[i])
        mag = abs(w)
        sign = "−" if w < 0 else "+"
        coef_t = "" if mag == 1 else _fmt(mag)
        coef_m = "" if mag == 1 else num(mag)
        if text:
            text.append(f" {sign} ")
            parts.append(mo(sign))
        elif w < 0:
            text.append("−")
            parts.append(mo("−"))
        text.append(f"{coef_t}σ({at})")
        parts.append(row(coef_m, _sigma(am)))
    c = Fraction(theta.c[0])
    if c or not text:
        text.append(f" {'−' if c < 0 else '+'} {_fmt(abs(c))}" if text else _fmt(c))
        parts.append((mo("−" if c < 0 else "+") if text else "") + num(abs(c) if text else c))
    body = row(general, mo("="), *parts)
    return Formula(f"{general_t} = {''.join(text)}", math(body, display=True))


def deep_function(depth: int) -> Formula:
    """ρ(θ)(x) = W^L σ(⋯ σ(W^1 x + b^1) ⋯) + b^L."""
    L = str(depth)

    def w(l):
        return sup(mi("W"), mn(l) if l.isdigit() else mi(l))

    def b(l):
        return sup(mi("b"), mn(l) if l.isdigit() else mi(l))
    inner = row(w("1"), mi("x"), mo("+"), b("1"))
    if depth == 2:
        body = row(w("2"), _sigma(inner), mo("+"), b("2"))
        text = "ρ(θ)(x) = W^2 σ(W^1 x + b^1) + b^2"
    else:
        body = row(w(L), mi("σ"), mo("("), mo("⋯"), mi("σ"), fenced(row(w("2"), _sigma(inner), mo("+"), b("2"))),
                   mo("⋯"), mo(")"), mo("+"), b(L))
        text = f"ρ(θ)(x) = W^{L} σ(⋯ σ(W^2 σ(W^1 x + b^1) + b^2) ⋯) + b^{L}"
    return Formula(text, math(row(mi("ρ"), fenced(mi("θ")), fenced(mi("x")), mo("="), body), display=True))


def farkas_condition() -> Formula:
    """The Farkas/Motzkin leaf condition (docs/mathematics.md §6.1)."""
    y, mu = _idx("y", "j"), _idx("μ", "k")
    a_j, a_k = _idx("a", "j"), sub(mi("a′"), mi("k"))
    be_j, be_k = _idx("β", "j"), sub(mi("β′"), mi("k"))
    first = row(_sum_over(mi("j")), y, a_j, mo("+"), _sum_over(mi("k")), mu, a_k, mo("="), mn(0))
    s = row(_sum_over(mi("j")), y, be_j, mo("+"), _sum_over(mi("k")), mu, be_k)
    second = row(s, mo("≤"), mn(0))
    third = row(mtext("and"), mspace(), fenced(row(s, mo("<"), mn(0), mspace(), mtext("or"), mspace(), mi("μ"),
                                                   mo("≠"), mn(0))))
    body = row(first, mo(","), mspace(), second, mo(","), mspace(), third, mo(","), mspace(),
               row(mi("y"), mo(","), mi("μ"), mo("≥"), mn(0)))
    text = ("Σ_j y_j a_j + Σ_k μ_k a′_k = 0, Σ_j y_j β_j + Σ_k μ_k β′_k ≤ 0 and (that sum < 0 or μ ≠ 0), "
            "y, μ ≥ 0 (closed rows a_j·x + β_j ≥ 0, strict rows a′_k·x + β′_k > 0)")
    return Formula(text, math(body, display=True))


def mspace(width: str = "0.4em") -> str:
    return f'<mspace width="{width}"/>'


def gram_schmidt_bound(n) -> Formula:
    """min_i ‖b*_i‖² > n: the lattice ker U ∩ Zⁿ has no nonzero vector of squared length ≤ n."""
    bstar = subsup(mi("b"), mi("i"), mo("*"))
    body = row(under(mi("min", normal=True), mi("i")), sup(fenced(bstar, "‖", "‖"), mn(2)), mo(">"),
               mi("n") if n is None else row(mi("n"), mo("="), mn(n)))
    return Formula(f"min_i ‖b*_i‖² > {'n' if n is None else f'n = {n}'}", math(body))


def rank_minor(p) -> Formula:
    """det U_R ≢ 0 (mod p): the selected rows form a nonsingular minor."""
    body = row(mi("det", normal=True), sub(mi("U"), mi("R")), mo("≢"), mn(0), mspace(),
               fenced(row(mi("mod", normal=True), mspace("0.2em"), mn(p) if p is not None else mi("p"))))
    return Formula(f"det U_R ≢ 0 (mod {p if p is not None else 'p'})", math(body))


def paper_condition(holds: bool, beta=None) -> Formula:
    """Σ_i β(i) v_i a_i ≠ 0 for every β ∈ {0, ±1}ⁿ ∖ 0 (holds), or = 0 for the β found (fails)."""
    lhs = row(_sum_over(mi("i")), mi("β"), fenced(mi("i")), _idx("v", "i"), _idx("a", "i"))
    if holds:
        beta_set = row(mi("β"), mo("∈"), sup(fenced(row(mn(0), mo(","), mo("±"), mn(1)), "{", "}"), mi("n")),
                       mo("∖"), mn(0))
        return Formula("Σ β(i) v_i a_i ≠ 0 for every β ∈ {0,±1}ⁿ∖0",
                       math(row(lhs, mo("≠"), mn(0), mspace(), mtext("for every"), mspace(), beta_set)))
    b = list(beta or ())
    return Formula(f"Σ β(i) v_i a_i = 0 for β = {b}",
                   math(row(lhs, mo("="), mn(0), mspace(), mtext("for"), mspace(), mi("β"), mo("="),
                            fenced(row(*sum(([num(x), mo(",")] for x in b), [])[:-1]) if b else "", "(", ")"))))


def layer_flip(l) -> Formula:
    """Σ_{i∈F} W^{l+1}_{:,i} W^l_{i,:} = 0: F is a flip set of hidden layer l."""
    l = int(l)
    up = subsup(mi("W"), row(mo(":"), mo(","), mi("i")), mn(l + 1))
    dn = subsup(mi("W"), row(mi("i"), mo(","), mo(":")), mn(l))
    return Formula(f"Σ_{{i∈F}} W^{l + 1}[:, i] W^{l}[i, :] = 0",
                   math(row(_sum_over(_in_F()), up, dn, mo("="), mn(0))))


def sign_premise(kind: str, layer: int, neurons) -> Formula | None:
    """The premise of a deep mechanism on pre-activations z^l_i(x) (neurons given 0-based, shown from 1)."""
    l = int(layer)
    ns = [int(i) + 1 for i in neurons]

    def z(lay, i):
        return row(subsup(mi("z"), mn(i), mn(lay)), fenced(mi("x")))
    forall = row(mo("∀"), mi("x"), mo("∈"), sup(mi("ℝ", normal=True), sub(mi("n"), mn(0))))
    if kind in (Mechanism.DEAD_NEURON, ClaimKind.DEEP_DEAD_NEURON):
        return Formula(f"z^{l}_{ns[0]}(x) ≤ 0 for all x ∈ ℝ^n0",
                       math(row(z(l, ns[0]), mo("≤"), mn(0), mspace(), forall)))
    if kind in (Mechanism.ALWAYS_ACTIVE, ClaimKind.DEEP_ALWAYS_ACTIVE):
        return Formula(f"z^{l}_{ns[0]}(x) ≥ 0 for all x ∈ ℝ^n0",
                       math(row(z(l, ns[0]), mo("≥"), mn(0), mspace(), forall)))
    if kind in (Mechanism.NEVER_COACTIVE, ClaimKind.DEEP_NEVER_COACTIVE) and len(ns) == 2:
        return Formula(f"no x has z^{l - 1}_{ns[0]}(x) > 0 and z^{l}_{ns[1]}(x) > 0",
                       math(row(mo("¬"), mo("∃"), mi("x"), mo(":"), z(l - 1, ns[0]), mo(">"), mn(0), mo("∧"),
                                z(l, ns[1]), mo(">"), mn(0))))
    return None


def fundim_bound(rank, U, certified: bool) -> Formula:
    """rank J_Z(θ) = r (= U certified, or ≤ dim_fun ≤ U)."""
    J = row(mi("rank", normal=True), mspace("0.2em"), sub(mi("J"), mi("Z")), fenced(mi("θ")))
    d = row(sub(mi("dim", normal=True), mi("fun")), fenced(mi("θ")))
    if certified:
        return Formula(f"dim_fun(θ) = rank J_Z(θ) = {rank} = U",
                       math(row(d, mo("="), J, mo("="), mn(rank), mo("="), mi("U"))))
    return Formula(f"{rank} = rank J_Z(θ) ≤ dim_fun(θ) ≤ U = {U}",
                   math(row(mn(rank), mo("="), J, mo("≤"), d, mo("≤"), mi("U"), mo("="), mn(U))))


def fibre_is_orbit(holds: bool) -> Formula:
    lhs = row(sup(mi("ρ"), row(mo("−"), mn(1))), fenced(row(mi("ρ"), fenced(mi("θ")))))
    rhs = row(sub(mi("H"), mi("n")), mo("·"), mi("θ"))
    rel = "=" if holds else "⊋"
    return Formula(f"ρ⁻¹(ρ(θ)) {rel} H_n·θ", math(row(lhs, mo(rel), rhs)))


# ---------------------------------------------------------------------------
# formulas inside statements
# ---------------------------------------------------------------------------

def _theta_prime() -> str:
    return mi("θ′")


_INLINE = [
    (re.compile(r"Σ_[({]i∈F[)}] m_i a_iᵀ (=|≠) 0"), lambda m: flip_identity(m.group(1))),
    (re.compile(r"c′ = c \+ Σ_\{i∈F\} m_i b_i"), lambda m: Formula(m.group(0), math(row(
        mi("c′"), mo("="), mi("c"), mo("+"), _sum_over(_in_F()), _idx("m", "i"), _idx("b", "i"))))),
    (re.compile(r"Σ β\(i\) v_i a_i = 0 for β = \(([-\d, ]*)\)"),
     lambda m: paper_condition(False, [int(x) for x in m.group(1).split(",") if x.strip()])),
    (re.compile(r"Σ β\(i\) v_i a_i ≠ 0 for every β ∈ \{0,±1\}ⁿ∖0"), lambda m: paper_condition(True)),
    (re.compile(r"Σ β\(i\) v_i a_i = 0 for β = \[([-\d, ]*)\]"),
     lambda m: paper_condition(False, [int(x) for x in m.group(1).split(",") if x.strip()])),
    (re.compile(r"sum over i in F of W\^(\d+)\[:, i\] W\^(\d+)\[i, :\] = 0"), lambda m: layer_flip(m.group(2))),
    (re.compile(r"Σ_\(i∈F\) W\^\(l\+1\)\[:, i\] W\^l\[i, :\] = 0"), lambda m: _layer_flip_general()),
    (re.compile(r"vec\(W\^\{l\+1\}\[:, i\] W\^l\[i, :\]\)"), lambda m: _vec_flip()),
    (re.compile(r"dim_fun\(θ\) = (\d+) = U"), lambda m: Formula(m.group(0), math(row(
        sub(mi("dim", normal=True), mi("fun")), fenced(mi("θ")), mo("="), mn(m.group(1)), mo("="), mi("U"))))),
    (re.compile(r"dim_fun\(θ\) >= (\d+)"), lambda m: Formula(m.group(0), math(row(
        sub(mi("dim", normal=True), mi("fun")), fenced(mi("θ")), mo("≥"), mn(m.group(1)))))),
    (re.compile(r"ρ⁻¹\(ρ\(θ\)\)"), lambda m: Formula(m.group(0), math(row(
        sup(mi("ρ"), row(mo("−"), mn(1))), fenced(row(mi("ρ"), fenced(mi("θ")))))))),
    (re.compile(r"H_n·θ"), lambda m: Formula(m.group(0), math(row(sub(mi("H"), mi("n")), mo("·"), mi("θ"))))),
    (re.compile(r"H_n"), lambda m: Formula(m.group(0), math(sub(mi("H"), mi("n"))))),
    (re.compile(r"θ_F"), lambda m: Formula(m.group(0), math(sub(mi("θ"), mi("F"))))),
    (re.compile(r"θ′"), lambda m: Formula(m.group(0), math(_theta_prime()))),
    (re.compile(r"\(a_i, b_i\)"), lambda m: Formula(m.group(0), math(fenced(row(_idx("a", "i"), mo(","),
                                                                               _idx("b", "i")))))),
    (re.compile(r"(m_i|a_i) ≠ 0"), lambda m: Formula(m.group(0), math(row(_idx(m.group(1)[0], "i"), mo("≠"),
                                                                            mn(0))))),
    (re.compile(r"z\^(\d+)_(\d+) > 0"), lambda m: Formula(m.group(0), math(row(
        subsup(mi("z"), mn(m.group(2)), mn(m.group(1))), mo(">"), mn(0))))),
    (re.compile(r"U = \[vec\(m_1 a_1ᵀ\) … vec\(m_n a_nᵀ\)\]"), lambda m: Formula(m.group(0), math(row(
        mi("U"), mo("="), fenced(row(mi("vec", normal=True), fenced(row(_idx("m", "1"), sup(_idx("a", "1"), T))),
                                     mo("…"), mi("vec", normal=True),
                                     fenced(row(_idx("m", "n"), sup(_idx("a", "n"), T)))), "[", "]"))))),
    (re.compile(r"m_i σ\(a_i x \+ b_i\)"), lambda m: Formula(m.group(0), math(row(
        _idx("m", "i"), _sigma(row(_idx("a", "i"), mi("x"), mo("+"), _idx("b", "i"))))))),
    (re.compile(r"a_i·x \+ b_i = 0"), lambda m: Formula(m.group(0), math(row(
        _idx("a", "i"), mo("·"), mi("x"), mo("+"), _idx("b", "i"), mo("="), mn(0))))),
    (re.compile(r"\b([mab])_(i|n|r)(ᵀ?)(?![\w{])"), lambda m: Formula(m.group(0), math(
        sup(_idx(m.group(1), m.group(2)), T) if m.group(3) else _idx(m.group(1), m.group(2))))),
    (re.compile(r"R\^n0"), lambda m: Formula(m.group(0), math(sup(mi("ℝ", normal=True), sub(mi("n"), mn(0)))))),
    (re.compile(r"rank X\(e\) ≤ q"), lambda m: Formula(m.group(0), math(row(
        mi("rank", normal=True), mspace("0.2em"), mi("X"), fenced(mi("e")), mo("≤"), mi("q"))))),
]


def _layer_flip_general() -> Formula:
    up = subsup(mi("W"), row(mo(":"), mo(","), mi("i")), row(mi("l"), mo("+"), mn(1)))
    dn = subsup(mi("W"), row(mi("i"), mo(","), mo(":")), mi("l"))
    return Formula("Σ_(i∈F) W^(l+1)[:, i] W^l[i, :] = 0", math(row(_sum_over(_in_F()), up, dn, mo("="), mn(0))))


def _vec_flip() -> Formula:
    up = subsup(mi("W"), row(mo(":"), mo(","), mi("i")), row(mi("l"), mo("+"), mn(1)))
    dn = subsup(mi("W"), row(mi("i"), mo(","), mo(":")), mi("l"))
    return Formula("vec(W^{l+1}[:, i] W^l[i, :])", math(row(mi("vec", normal=True), fenced(row(up, dn)))))


def split_formulas(text: str) -> list:
    """``text`` as a list of plain strings and :class:`Formula` objects (the formulas reluid writes)."""
    out: list = []
    pos = 0
    while pos < len(text):
        best = None
        for rx, make in _INLINE:
            m = rx.search(text, pos)
            if m and (best is None or m.start() < best[0].start()):
                best = (m, make)
        if best is None:
            break
        m, make = best
        if m.start() > pos:
            out.append(text[pos:m.start()])
        out.append(make(m))
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out
