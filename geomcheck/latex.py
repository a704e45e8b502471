"""LaTeX for every geomcheck object, and typeset derivations.

``latex(obj)`` uses the object's ``_latex`` hook (so ``sympy.latex`` works on
them too); forms print with ``\\wedge`` and named differentials ``\\mathrm{d}q_{1}``.

This module imports none of the classes it prints (they import it): as for sympy's
printers, an object says how it prints through its methods.

- ``_latex(printer)``: its LaTeX (what :func:`latex` returns);
- ``_latex_coefficients()``: ``(noun, coefficients)``, what it is called ("form") and the
  coefficient expressions whose size decides whether :func:`summarize` typesets it;
- ``_latex_terms()``: the ``(coefficient, LaTeX of a basis element)`` pairs whose signed sum
  it is, for :func:`in_lines`, or None when it is not such a sum of scalar coefficients.

>>> import geomcheck as gc
>>> M = gc.Chart("q p")
>>> q, p = M.coords
>>> gc.latex(M.d(q) ^ M.d(p))
'\\\\mathrm{d}q \\\\wedge \\\\mathrm{d}p'
>>> gc.latex(2 * q * M.d(p))
'2 q \\\\, \\\\mathrm{d}p'
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass, field
from typing import Any

import sympy

__all__ = [
    "latex", "Derivation", "document", "compile_pdf", "pdflatex_available", "summarize", "summarize_map", "tex_text",
    "expression_size", "MAP_NODES", "summarize_text", "distinct_nodes",
]


def latex(obj: Any) -> str:
    """LaTeX of a geomcheck object or sympy expression (math mode, no delimiters)."""
    hook = getattr(obj, "_latex", None)
    if hook is not None and not isinstance(obj, sympy.Basic):
        return hook(None)
    return sympy.latex(obj)


def distinct_nodes(expr):
    """Every distinct subexpression of ``expr``, each once, in the order ``sympy.preorder_traversal``
    first meets it; a repeated subexpression is not walked again (time proportional to the DAG,
    not to the tree, which a composition of many steps makes exponentially larger).

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> e = sympy.sin(x + y) * sympy.cos(x + y)
    >>> [str(n) for n in distinct_nodes(e)] == [str(n) for n in dict.fromkeys(sympy.preorder_traversal(e))]
    True
    """
    seen = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        if isinstance(node, sympy.Basic):
            stack.extend(reversed(node.args))


#: objects with more nodes than this are summarized, not typeset, in derivations
SUMMARY_LIMIT = 300


def _roots(obj) -> list:
    """The expressions whose size :func:`expression_size` adds up."""
    if isinstance(obj, sympy.Basic) and not isinstance(obj, sympy.MatrixBase):
        return [obj]
    if isinstance(obj, (int, float, complex, str)):
        return [sympy.sympify(obj)]
    if isinstance(obj, dict):
        obj = obj.values()
    out = []
    for item in obj:
        out.extend(_roots(item))
    return out


def expression_size(expr, limit: int | None = None, *, distinct: bool = False) -> int:
    """The size of an expression in nodes, counted through its DAG and stopping past ``limit``.

    By default the size is the number of nodes of the expression *tree* (what
    ``sympy.preorder_traversal`` visits, and what printing it costs), but a subexpression
    that occurs many times is measured once and its size reused, so the count costs
    time proportional to the distinct subexpressions met, never to the tree.  With
    ``distinct=True`` the size is the number of distinct subexpression objects (the
    DAG's size, what holding or differentiating it costs).

    ``sympy.count_ops`` walks the whole tree every time: on a composition of many steps
    (whose tree is exponentially larger than its DAG) it takes minutes just to decide
    that an expression is too large to typeset.

    Parameters
    ----------
    expr : sympy expression, number, matrix, or an iterable or dict of them
        What to measure; an iterable's sizes add up (shared subexpressions measured once).
    limit : int, optional
        Stop counting once the size exceeds ``limit``: the work is then proportional to
        ``limit``, not to the expression.  None counts everything.
    distinct : bool
        Count distinct subexpressions (the DAG) instead of tree nodes.

    Returns
    -------
    int
        The size when it is at most ``limit``; otherwise ``limit + 1`` (read as
        "more than ``limit``").

    Raises
    ------
    InvalidArgumentError
        ``limit`` is not a nonnegative integer.

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> expression_size(x + 2*y)        # Add(x, Mul(2, y)): 5 nodes
    5
    >>> e = x
    >>> for _ in range(60):              # a tree of about 2**61 nodes, a DAG of 181
    ...     e = sympy.sin(e) + sympy.cos(e)
    >>> expression_size(e, 1000)
    1001
    >>> 181 <= expression_size(e, distinct=True) <= 183    # 3 per level, and x (sympy's cache may copy one)
    True
    >>> expression_size([x + y, x + y, y], 100)
    7
    """
    from .errors import InvalidArgumentError

    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidArgumentError(f"expression_size: limit must be an integer >= 0 or None, got {limit!r}")
    cap = float("inf") if limit is None else limit
    # sizes of finished subexpressions, keyed by identity (structural keys would hash whole trees)
    size = {}
    keep = []  # the keys are ids: keep every measured object alive while they are compared
    total = 0
    for root in _roots(expr):
        if id(root) in size:
            total += 0 if distinct else size[id(root)]
            if total > cap:
                return limit + 1
            continue
        # iterative post-order (deep expressions overflow Python's recursion); ``total``
        # counts every node accounted so far, so each step of the loop raises it by at least
        # one and the loop stops after about ``limit`` steps
        stack = [(root, iter(root.args), total)]
        keep.append(root)
        total += 1
        while stack:
            if total > cap:
                return limit + 1
            node, args, start = stack[-1]
            for a in args:
                k = id(a)
                if k in size:
                    if not distinct:
                        total += size[k]
                        if total > cap:
                            return limit + 1
                    continue
                keep.append(a)
                stack.append((a, iter(a.args), total))
                total += 1
                break
            else:
                stack.pop()
                size[id(node)] = total - start
    return total


def _nodes_over(exprs, limit) -> int | None:
    """``limit + 1`` when ``exprs`` has more than ``limit`` tree nodes, else None."""
    n = expression_size(list(exprs), limit)
    return n if n > limit else None


#: explicit maps with more nodes than this are summarized, not typeset, in derivations
MAP_NODES = 400


def summarize_map(phi, limit: int = MAP_NODES) -> str:
    r"""LaTeX of a map, or a one-line summary when it is explicit and too large to be read.

    An implicit map (its equations) is typeset as it is: its derivations show the equations
    the certificate solved.

    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> print(summarize_map(gc.Map(M, M, [sum(q**k for k in range(500)), p])))
    \text{(explicit, more than 400 nodes)}
    """
    exprs = getattr(phi, "exprs", None)
    if exprs is not None and expression_size(list(exprs), limit) > limit:
        return r"\text{(explicit, more than %d nodes)}" % limit
    return latex(phi)


def summarize_text(obj, limit: int = SUMMARY_LIMIT) -> str:
    """``str(obj)`` for a message, or a one-line note when ``obj`` has more than ``limit`` nodes.

    The size is counted first with :func:`expression_size` (at most about ``limit`` steps),
    so a huge expression is never printed just to be cut or dropped: its note costs
    O(``limit``).  Forms and vector fields are measured by their coefficients.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> summarize_text(x**2 + 1)
    'x**2 + 1'
    >>> summarize_text(sum(x**k for k in range(200)))
    '(an expression of more than 300 nodes)'
    """
    coefficients = getattr(obj, "_latex_coefficients", None)
    if coefficients is not None:
        what, parts = coefficients()
        if _nodes_over(parts, limit):
            return "(a %s with %d components, more than %d nodes)" % (what, len(parts), limit)
        return str(obj)
    if isinstance(obj, (sympy.Basic, int, float)) and _nodes_over([obj], limit):
        return "(an expression of more than %d nodes)" % limit
    return str(obj)


def summarize(obj, limit: int = SUMMARY_LIMIT) -> str:
    r"""LaTeX of ``obj``, or a one-line summary when it is too large to be read.

    Forms, vector fields, matrices and expressions are measured by their expression
    tree nodes (:func:`expression_size`, so a huge expression costs only ``limit`` steps).

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> print(summarize(x**2))
    x^{2}
    >>> print(summarize(sum(x**k for k in range(200))))
    \text{(an expression of more than 300 nodes)}
    """
    coefficients = getattr(obj, "_latex_coefficients", None)
    if coefficients is not None:
        what, parts = coefficients()
        if _nodes_over(parts, limit):
            return r"\text{(a %s with %d components, more than %d nodes)}" % (what, len(parts), limit)
        return latex(obj)
    if isinstance(obj, sympy.MatrixBase):
        if 0 in obj.shape:
            return r"\text{(none: a %d x %d matrix)}" % obj.shape
        if max(obj.shape) > 8 or _nodes_over(list(obj), limit):
            return r"\text{(a %d x %d matrix)}" % obj.shape
        return sympy.latex(obj)
    if isinstance(obj, sympy.Basic) or isinstance(obj, (int, float)):
        e = sympy.sympify(obj)
        if _nodes_over([e], limit):
            return r"\text{(an expression of more than %d nodes)}" % limit
        return latex(e)
    return latex(obj)


# ----------------------------------------------------------------------------- fitting math to a page

#: characters of typeset math (as :func:`math_width` counts them) that fit one line of the
#: report (11 pt, 17 cm text width), with a margin for the estimate's error
LINE_CHARS = 66
#: inline math wider than this share of a line is displayed instead
INLINE_SHARE = 0.4

_COMMAND = re.compile(r"\\[A-Za-z]+")
_ZERO_WIDTH = {r"\left", r"\right", r"\mathrm", r"\operatorname", r"\text", r"\mathbf", r"\quad",
               r"\qquad", r"\displaystyle", r"\limits", r"\big", r"\Big", r"\,", r"\!", r"\;"}


_GLYPH_WIDTH = {"+": 2.4, "-": 2.4, "=": 2.8, "<": 2.8, ">": 2.8, ",": 1.4, "(": 0.8, ")": 0.8, "'": 0.5}


def math_width(tex: str) -> float:
    """An estimate (in characters) of how wide ``tex`` typesets: a fraction is as wide as its wider
    part, scripts count 0.7, commands count as one glyph, binary operators and relations with
    their spaces.  Checked against pdflatex by the report's margin tests."""
    def width(i, end_char=None):
        total = 0.0
        while i < len(tex):
            ch = tex[i]
            if ch == "}" and end_char == "}":
                return total, i + 1
            if ch == "\\":
                m = _COMMAND.match(tex, i)
                if m is None:  # \, \{ and friends
                    total += 0.0 if tex[i + 1:i + 2] in (",", "!", ";", " ") else 1.0
                    i += 2
                    continue
                name = m.group(0)
                i = m.end()
                env = _MATRIX_BEGIN.match(tex, i) if name == r"\begin" else None
                if env is not None:
                    end = _matrix_end(tex, env.end(), env.group(1))
                    total += _matrix_width(tex[env.end():end])
                    i = end + len(r"\end{%s}" % env.group(1))
                    continue
                if name in (r"\frac", r"\dfrac", r"\tfrac") and tex[i:i + 1] == "{":
                    a, i = width(i + 1, "}")
                    while i < len(tex) and tex[i] == " ":
                        i += 1
                    b, i = width(i + 1, "}") if tex[i:i + 1] == "{" else (0.0, i)
                    total += max(a, b) + 0.5
                elif name == r"\text" and tex[i:i + 1] == "{":
                    depth, j = 1, i + 1
                    while j < len(tex) and depth:
                        depth += {"{": 1, "}": -1}.get(tex[j], 0)
                        j += 1
                    total += j - i - 2      # text: every character, spaces too
                    i = j
                elif name in _ZERO_WIDTH:
                    pass
                else:
                    total += 1.0
                continue
            if ch in "^_":
                if tex[i + 1:i + 2] == "{":
                    w, i = width(i + 2, "}")
                    total += 0.7 * w
                else:
                    total += 0.7
                    i += 2
                continue
            if ch == "{":
                w, i = width(i + 1, "}")
                total += w
                continue
            if ch in "&} ":
                i += 1
                continue
            # TeX sets binary operators and relations with space on both sides
            total += _GLYPH_WIDTH.get(ch, 1.0)
            i += 1
        return total, i

    return width(0)[0]


_MATRIX_BEGIN = re.compile(r"\{((?:p|b|v|V|small)?matrix)\}")
#: the space between two columns of a matrix, and its delimiters, in characters
_MATRIX_COLUMN_SEP = 2.0
_MATRIX_DELIMITERS = 2.0


def _matrix_end(tex: str, start: int, env: str) -> int:
    """The position of the ``\\end{env}`` closing a matrix whose body starts at ``start``."""
    depth, i = 1, start
    opener, closer = r"\begin{%s}" % env, r"\end{%s}" % env
    while True:
        b, e = tex.find(opener, i), tex.find(closer, i)
        if e < 0:
            return len(tex)
        if 0 <= b < e:
            depth, i = depth + 1, b + len(opener)
            continue
        depth -= 1
        if depth == 0:
            return e
        i = e + len(closer)


def _matrix_width(body: str) -> float:
    """A matrix is as wide as its widest entry in each column, plus the space between columns."""
    columns = {}
    for row in _split_rows(body):
        cells = _split_at(row, "&")
        for c, cell in enumerate(cells):
            columns[c] = max(columns.get(c, 0.0), math_width(cell))
    widths = list(columns.values())
    return sum(widths) + _MATRIX_COLUMN_SEP * max(len(widths) - 1, 0) + _MATRIX_DELIMITERS


_OPEN = re.compile(r"\\left\b|\\begin\{[^}]*\}|\{")
_CLOSE = re.compile(r"\\right\b|\\end\{[^}]*\}|\}")


def _scan(text: str):
    r"""``(position, depth)`` of each character outside every brace, ``\left...\right`` and
    ``\begin...\end`` group (depth 0), skipping the group delimiters themselves."""
    depth, i = 0, 0
    while i < len(text):
        m = _OPEN.match(text, i)
        if m:
            depth, i = depth + 1, m.end()
            continue
        m = _CLOSE.match(text, i)
        if m:
            depth, i = depth - 1, m.end()
            continue
        if text[i] == "\\":
            m = _COMMAND.match(text, i)
            end = m.end() if m else i + 2
            if depth == 0:
                yield i, text[i:end]
            i = end
            continue
        if depth == 0:
            yield i, text[i]
        i += 1


def _split_rows(body: str) -> list:
    r"""The lines of an alignment: split at its own ``\\``, not at those of a nested environment."""
    return _split_at(body, "\\\\")


def _split_at(text: str, separator: str) -> list:
    """``text`` split at the top-level occurrences of ``separator`` (not inside braces)."""
    out, start = [], 0
    for k in (i for i, tok in _scan(text) if tok == separator):
        out.append(text[start:k])
        start = k + len(separator)
    out.append(text[start:])
    return out


def top_level_breaks(line: str) -> list:
    """Positions of the binary + and - signs outside every group (where a long sum may break)."""
    out, prev = [], None
    for i, tok in _scan(line):
        if tok in "+-" and prev is not None:
            # after a group (a fraction, a script, a parenthesis) the sign is binary, as after a letter
            j = i - 1
            while j >= 0 and line[j] == " ":
                j -= 1
            closed = j >= 0 and line[j] in "})]'"
            if closed or not (prev in "=&{(^_+-,<>:" or prev.startswith("\\")):
                out.append(i)
        if not tok.isspace():
            prev = tok
    return out


def _too_wide(tex: str) -> str:
    return r"\text{(too wide: %d characters of \LaTeX)}" % len(tex)


def _break_sum(rhs: str, limit: float) -> list:
    """``rhs`` as rows no wider than ``limit``, broken at its top-level signs; a piece still too
    wide is named by its size instead of printed (keeping its leading sign or relation)."""
    pieces, start = [], 0
    for k in top_level_breaks(rhs):
        pieces.append(rhs[start:k])
        start = k
    pieces.append(rhs[start:])
    rows, current = [], ""
    for piece in pieces:
        if current.strip() and math_width(current + piece) > limit:
            rows.append(current)
            current = piece
        else:
            current += piece
    rows.append(current)
    fitted = []
    for row in rows:
        if math_width(row) > limit:
            stripped = row.lstrip()
            relation = re.match(r"(=|\\mapsto|\\le|\\ge|<|>)\s*", stripped)
            lead = relation.group(0) if relation else (stripped[:1] if stripped[:1] in "+-" else "")
            row = lead + " " + _too_wide(row)
        fitted.append(row)
    return fitted


def _fit_rows(rows: list, limit: float) -> list:
    """The rows of one alignment, fitted to ``limit`` as a whole: an alignment is as wide as its
    widest left part plus its widest right part, so all rows are treated alike."""
    nested = [re.fullmatch(r"(\s*[^&]*&\S*\s*)?\\begin\{aligned\}(.*)\\end\{aligned\}\s*", r, flags=re.S)
              for r in rows]
    if len(rows) == 1 and nested[0] is not None:     # a map's components: fit its own rows
        head = nested[0].group(1) or ""
        inner = _fit_rows(_split_rows(nested[0].group(2)), limit - math_width(head))
        return [head + r"\begin{aligned}" + r" \\ ".join(inner) + r"\end{aligned}"]
    split = []
    for r in rows:
        amp = next((i for i, tok in _scan(r) if tok == "&"), None)
        split.append((r[:amp], r[amp + 1:]) if amp is not None else (None, r))
    left = max((math_width(a) for a, _ in split if a is not None), default=0.0)
    right = max(math_width(b) for _, b in split)
    if left + right <= limit:
        return rows
    out = []
    if left <= limit / 3:      # short left-hand sides ("R", a pullback): keep them, break the right
        for a, b in split:
            parts = _break_sum(b, limit - left - 3)
            out.append(r" \\ &\quad ".join([(a + "&" if a is not None else "") + parts[0]] + parts[1:]))
        return out
    for a, b in split:         # wide left parts ("... &= 0"): the whole of each row right of the point
        parts = _break_sum((a or "") + b, limit - 3)
        out.append(r" \\ &\quad ".join(["&" + parts[0]] + parts[1:]))
    return out


def fit_to_width(fragment: str, chars: float = LINE_CHARS) -> str:
    r"""``fragment`` with every displayed ``align*`` line fitted to ``chars`` characters.

    A line wider than that is broken at its top-level signs into continuation lines (the lines
    of a nested ``aligned`` one by one), and a term that is still too wide is replaced by a
    note of its size; inline ``$...$`` math longer than a share of the line is displayed
    (it could not break at the margin), and replaced by the note when it is too wide even so.  For a
    page: the full derivation stays in :meth:`latex`.

    >>> x = sympy.Symbol("x")
    >>> wide = r"\begin{align*}R &= " + latex(sum(x**k / (k + 1) for k in range(60))) + r"\end{align*}"
    >>> fitted = fit_to_width(wide)
    >>> body = fitted[len(r"\begin{align*}"):-len(r"\end{align*}")]
    >>> all(math_width(line) <= LINE_CHARS for line in body.split(r"\\"))
    True
    """
    def fit_block(m):
        return r"\begin{align*}" + r"\\".join(_fit_rows(_split_rows(m.group(1)), chars)) + r"\end{align*}"

    def fit_inline(m):
        width = math_width(m.group(1))
        if width <= chars * INLINE_SHARE:
            return m.group(0)
        # a long formula in running text cannot break where it meets the margin: displayed
        return r"\[" + (m.group(1) if width <= chars else _too_wide(m.group(1))) + r"\]"

    def fit_text_line(line):
        if re.match(r"\s*\\(paragraph|(sub)*section)\*?\{", line):
            return line       # a heading's argument cannot hold a display
        return re.sub(r"(?<!\\)\$([^$]+)\$", fit_inline, line)

    out = re.sub(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", fit_block, fragment, flags=re.S)
    return "\n".join(fit_text_line(line) for line in out.split("\n"))


_TEX_ESCAPES = str.maketrans({
    "\\": r"\textbackslash{}", "_": r"\_", "^": r"\^{}", "%": r"\%", "&": r"\&",
    "#": r"\#", "{": r"\{", "}": r"\}", "$": r"\$", "~": r"\~{}",
    # OT1 text fonts have no < > |: they would print as inverted punctuation
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
})


def tex_text(s) -> str:
    r"""Plain text made safe inside LaTeX text mode (one pass: escapes are not escaped again).

    >>> print(tex_text("a_1 & 50% < 2"))
    a\_1 \& 50\% \textless{} 2
    """
    return str(s).translate(_TEX_ESCAPES)


def _signed_terms(items):
    """Join (coefficient, tail) pairs as a signed sum; coefficient 1 and -1 are elided."""
    out = _signed_pieces(items)
    return "".join(out) if out else "0"


def _signed_pieces(items) -> list:
    """The terms of :func:`_signed_terms`, each with its sign (the first without a leading plus)."""
    out = []
    for coeff, tail in items:
        neg = coeff.could_extract_minus_sign()
        c = -coeff if neg else coeff
        if not tail:
            body = sympy.latex(c)
        elif c == 1:
            body = tail
        else:
            cl = sympy.latex(c)
            if isinstance(c, sympy.Add):
                cl = r"\left(" + cl + r"\right)"
            body = cl + r" \, " + tail
        if not out:
            out.append(("- " if neg else "") + body)
        else:
            out.append((" - " if neg else " + ") + body)
    return out


def in_lines(obj, per_line: int = 4, most: int = 40) -> str:
    r"""LaTeX of a form or vector field for the right-hand side of an ``align*`` row, in lines.

    A long sum on one line overflows the page (and beyond some length TeX's measuring of the
    row fails with "Dimension too large"), so the terms go ``per_line`` to a line, continued
    with ``\ &\quad``; beyond ``most`` terms the rest is counted, not shown.  Other objects are
    :func:`summarize` d.

    >>> import geomcheck as gc
    >>> M = gc.Chart("q1 q2 q3 q4 q5 p1 p2 p3 p4 p5")
    >>> w = sum((M.d(a) ^ M.d(b) for a, b in zip(M.coords[:5], M.coords[5:])), 0 * M.d(M.coords[0]))
    >>> print(in_lines(w, per_line=2, most=3))
    \mathrm{d}q_{1} \wedge \mathrm{d}p_{1} + \mathrm{d}q_{2} \wedge \mathrm{d}p_{2} \\ &\quad + \mathrm{d}q_{3} \wedge \mathrm{d}p_{3} + \dots \text{ (5 terms in all)}
    """
    terms = getattr(obj, "_latex_terms", None)
    items = terms() if terms is not None else None
    if items is None:
        return summarize(obj)
    if _nodes_over([c for c, _ in items], 4 * SUMMARY_LIMIT):
        return summarize(obj, 4 * SUMMARY_LIMIT)
    pieces = _signed_pieces(items)
    if not pieces:
        return "0"
    shown = pieces[:most]
    lines = ["".join(shown[k:k + per_line]) for k in range(0, len(shown), per_line)]
    text = r" \\ &\quad".join(lines)
    if len(pieces) > most:
        text += r" + \dots \text{ (%d terms in all)}" % len(pieces)
    return text


def differential(symbol) -> str:
    return r"\mathrm{d}" + sympy.latex(symbol)


def form_terms(form) -> list:
    """``(coefficient, dx^I)`` for each component of a form, in the order printed."""
    coords = form.chart.coords
    return [(form.terms[key], r" \wedge ".join(differential(coords[i]) for i in key))
            for key in sorted(form.terms, key=lambda k: (len(k), k))]


def form_latex(form) -> str:
    return _signed_terms(form_terms(form))


def _odd_polynomial_latex(odd, terms) -> str:
    """A term dict ``{odd indices: coefficient}`` written in the odd coordinates ``odd``."""
    items = [(terms[key], " ".join(sympy.latex(odd[i]) for i in key))
             for key in sorted(terms, key=lambda k: (len(k), k))]
    return _signed_terms(items)


def superfunction_latex(f) -> str:
    return _odd_polynomial_latex(f.chart.odd, f.terms)


def vector_field_terms(X) -> list:
    """``(coefficient, d/dx)`` for each component of a vector field, in the order printed; a
    component that is a polynomial in odd coordinates is one term with coefficient 1."""
    coords = X.chart.coords
    components = X.component_terms()
    items = []
    for i in sorted(components):
        partial = r"\frac{\partial}{\partial " + sympy.latex(coords[i]) + "}"
        terms = components[i]
        if list(terms) == [()]:
            items.append((terms[()], partial))
        else:
            body = _odd_polynomial_latex(X.chart.odd, terms)
            items.append((sympy.S.One, r"\left(" + body + r"\right) " + partial))
    return items


def vector_field_latex(X) -> str:
    return _signed_terms(vector_field_terms(X))


def map_latex(phi) -> str:
    lines = []
    for y, e in zip(phi.target_symbols, phi.exprs):
        lines.append(sympy.latex(y) + r" &\mapsto " + sympy.latex(e))
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def implicit_map_latex(psi) -> str:
    lines = [sympy.latex(e) + r" &= 0" for e in psi.equations]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def document(body: str) -> str:
    """A standalone LaTeX document around a body of derivations."""
    return (
        "\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\begin{document}\n"
        + body
        + "\n\\end{document}\n"
    )


def pdflatex_available() -> bool:
    """Whether a ``pdflatex`` executable is on the PATH."""
    import shutil

    return shutil.which("pdflatex") is not None


#: the files one pdflatex pass writes and the next one reads
AUXILIARY_SUFFIXES = (".aux", ".toc", ".lof", ".lot", ".out")
#: lines of an ``.aux`` file that no later pass of a document without lists or references reads:
#: ``\relax``, the page count the kernel records, and entries for a list whose file was never opened
_INERT_AUX_LINE = re.compile(r"\\relax\s*|\\gdef\s*\\@abspage@last\{\d+\}\s*|\\@writefile\{(toc|lof|lot)\}.*")


def _auxiliary_state(directory, first=False):
    """What the next pdflatex pass over ``doc.tex`` in ``directory`` reads from the last one.

    Before the first pass nothing was written.  After it, an ``.aux`` file of inert lines only
    (see :data:`_INERT_AUX_LINE`; the lists its ``\\@writefile`` lines feed were never opened, or
    their file would exist) reads as nothing too, so that a document with no cross-reference is
    compiled once.
    """
    if first:
        return {}
    state = {}
    for suffix in AUXILIARY_SUFFIXES:
        f = directory / ("doc" + suffix)
        if f.exists():
            state[suffix] = f.read_bytes()
    aux = state.get(".aux")
    if aux is not None and set(state) == {".aux"}:
        text = aux.decode("latin-1")
        if all(_INERT_AUX_LINE.fullmatch(line) for line in text.splitlines() if line.strip()):
            return {}
    return state


def compile_pdf(source: str, path, *, timeout: float = 120.0, resources=None, passes: int = 2, log=None):
    """Compile a LaTeX document with pdflatex and write the PDF to ``path`` atomically.

    pdflatex runs in a private temporary directory until the document is stable, at most
    ``passes`` times: another pass is run only when the auxiliary files it would read (``.aux``,
    ``.toc``, ``.lof``, ``.lot``, ``.out``) differ from those the last pass read, as latexmk
    decides.  A first pass that writes nothing a later pass reads (no label, citation or page
    reference, no list such as a table of contents) is therefore the only one: a one-page
    derivation costs one pdflatex run, not two.  ``path`` is replaced only when pdflatex
    succeeded, so a failure never leaves a half-written PDF behind.

    Parameters
    ----------
    source : str
        A whole document (see :func:`document`).
    path : str or os.PathLike
        Where the PDF goes.
    timeout : float
        Seconds allowed for each pdflatex run.
    resources : str or os.PathLike, optional
        A directory searched for included files (figures), as if the document lived there.
    passes : int
        The most pdflatex runs (2 resolve references; a table of contents with page numbers
        needs 3); fewer are run when the document is stable earlier (see above).
    log : str or os.PathLike, optional
        Where to copy pdflatex's log of the last pass (to check for overfull boxes, say).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    LatexCompileError
        pdflatex is missing, timed out, or reported an error (the first error line and
        its context from the log are quoted).
    """
    import os
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    from .errors import LatexCompileError

    if not isinstance(source, str) or "\\begin{document}" not in source:
        raise LatexCompileError("compile_pdf expects a whole LaTeX document (see geomcheck.latex.document)")
    exe = shutil.which("pdflatex")
    if exe is None:
        raise LatexCompileError(
            "pdflatex was not found on the PATH; install it (Debian: texlive-latex-base"
            " texlive-latex-recommended) to compile derivations"
        )
    path = Path(path)
    env = dict(os.environ)
    if resources is not None:
        # a trailing path separator keeps TeX's default search path after ours
        env["TEXINPUTS"] = str(Path(resources).resolve()) + "//" + os.pathsep + env.get("TEXINPUTS", "")
    with tempfile.TemporaryDirectory(prefix="geomcheck-tex-") as tmp:
        tex = Path(tmp) / "doc.tex"
        tex.write_text(source, encoding="utf-8")
        read = _auxiliary_state(Path(tmp), first=True)
        for _ in range(max(1, passes)):
            try:
                run = subprocess.run(
                    [exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                    cwd=tmp, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, env=env,
                )
            except subprocess.TimeoutExpired:
                raise LatexCompileError(f"pdflatex did not finish within {timeout} s") from None
            if run.returncode != 0:
                log = (Path(tmp) / "doc.log")
                text = log.read_text(errors="replace") if log.exists() else run.stdout.decode(errors="replace")
                lines = text.splitlines()
                first = next((i for i, ln in enumerate(lines) if ln.startswith("!")), None)
                excerpt = "\n".join(lines[first:first + 6]) if first is not None else "\n".join(lines[-15:])
                raise LatexCompileError(f"pdflatex failed on the generated document:\n{excerpt}")
            written = _auxiliary_state(Path(tmp))
            if written == read:
                break           # the next pass would read what this one read: its output is this one's
            read = written
        pdf = Path(tmp) / "doc.pdf"
        if log is not None:
            shutil.copyfile(Path(tmp) / "doc.log", log)
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(path.name + ".partial")
        shutil.copyfile(pdf, staging)
        os.replace(staging, path)
    return path


@dataclass(frozen=True)
class Step:
    """One step of a derivation: a sentence and a displayed formula."""

    text: str
    math: str = ""


@dataclass(frozen=True)
class Derivation:
    """A typeset derivation: a title, steps and a conclusion.

    ``latex()`` gives a fragment for a paper; ``document()`` a standalone file.
    """

    title: str
    steps: tuple = field(default_factory=tuple)
    conclusion: str = ""

    def add(self, text: str, math: str = "") -> "Derivation":
        return Derivation(self.title, self.steps + (Step(text, math),), self.conclusion)

    def concluding(self, conclusion: str) -> "Derivation":
        return Derivation(self.title, self.steps, conclusion)

    def latex(self) -> str:
        out = [r"\paragraph{" + self.title + "}"]
        for s in self.steps:
            out.append(s.text)
            if s.math:
                out.append(r"\begin{align*}" + s.math + r"\end{align*}")
        if self.conclusion:
            out.append(self.conclusion)
        return "\n".join(out) + "\n"

    def document(self) -> str:
        return document(self.latex())

    def __str__(self):
        lines = [self.title]
        lines += [f"  {s.text}" for s in self.steps]
        if self.conclusion:
            lines.append(f"  {self.conclusion}")
        return "\n".join(lines)


class _CallableModule(types.ModuleType):
    """``geomcheck.latex`` is this module and, called, the function :func:`latex`: so that both
    ``gc.latex(obj)`` and ``import geomcheck.latex as L`` give what they say."""

    def __call__(self, obj: Any) -> str:
        return latex(obj)


sys.modules[__name__].__class__ = _CallableModule
