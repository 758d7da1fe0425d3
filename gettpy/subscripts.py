"""Parse einsum subscripts (string or sublist form) into per-operand mode lists and output modes.

Modes are strings: a letter for a named mode, ``"...0"``, ``"...1"``, ... for the dimensions an
ellipsis stands for (numbered from the right, so that they broadcast like numpy's trailing
alignment). The parser checks everything that can be checked from the subscripts and the operands'
ranks; extents are the front end's business.
"""
from __future__ import annotations

import operator
import string
from dataclasses import dataclass

from .errors import SubscriptError, SubscriptTypeError

LETTERS = string.ascii_letters
#: numpy's sublist form numbers labels 0-25 as 'A'-'Z' and 26-51 as 'a'-'z' (so ASCII order = int order)
SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase
ELLIPSIS = "..."


@dataclass(frozen=True, slots=True)
class Subscripts:
    """Parsed subscripts: one tuple of modes per operand and the output modes."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]


def _ellipsis_modes(n: int) -> tuple[str, ...]:
    return tuple(f"...{i}" for i in range(n - 1, -1, -1))


def _split_term(term: str, where: str) -> list[str]:
    """Labels of one term with '...' kept as one token."""
    if term.count(ELLIPSIS) > 1:
        raise SubscriptError(f"{where}: '...' appears more than once in {term!r}")
    out: list[str] = []
    i = 0
    while i < len(term):
        if term.startswith(ELLIPSIS, i):
            out.append(ELLIPSIS)
            i += 3
            continue
        ch = term[i]
        if ch not in LETTERS:
            raise SubscriptError(f"{where}: invalid character {ch!r} in {term!r} (subscripts are letters a-z, "
                                 f"A-Z and '...')")
        out.append(ch)
        i += 1
    return out


def _label(s, where: str) -> int:
    """A sublist entry as an int (Python or numpy integer, as numpy takes them); bools are refused."""
    if isinstance(s, bool) or getattr(s, "dtype", None) is not None and s.dtype.kind == "b":
        raise SubscriptTypeError(f"{where}: sublist entries must be ints or Ellipsis, got the bool {s!r}")
    try:
        v = operator.index(s)
    except TypeError:
        raise SubscriptTypeError(f"{where}: sublist entries must be ints or Ellipsis, got {s!r} "
                                 f"({type(s).__name__})") from None
    if not -(2**63) <= v < 2**63:  # (numpy converts an entry to a C long: a wider int is a TypeError there)
        raise SubscriptTypeError(f"{where}: sublist entry {v} does not fit a 64-bit integer")
    return v


def _sublist_term(sub, where: str) -> list[str]:
    if isinstance(sub, str | bytes) or not hasattr(sub, "__iter__"):
        raise SubscriptTypeError(f"{where}: the subscripts of an operand in the sublist form must be a list, "
                                 f"tuple or 1-d array of ints (or Ellipsis), got {type(sub).__name__} {sub!r}")
    out = []
    for s in list(sub):
        if s is Ellipsis:
            out.append(ELLIPSIS)
            continue
        v = _label(s, where)
        if not 0 <= v < len(LETTERS):
            raise SubscriptError(f"{where}: sublist entries must be ints in [0, {len(LETTERS)}) or Ellipsis, "
                                 f"got {v}")
        out.append(SUBLIST_LETTERS[v])
    if out.count(ELLIPSIS) > 1:
        raise SubscriptError(f"{where}: Ellipsis appears more than once")
    return out


def decode_subscripts(args: tuple) -> tuple:
    """`args` with a bytes subscripts string decoded as ASCII (numpy takes bytes subscripts too)."""
    if args and isinstance(args[0], bytearray | memoryview):
        raise SubscriptTypeError(f"subscripts must be a str or bytes (or the sublist form), got "
                                 f"{type(args[0]).__name__} {bytes(args[0])!r}")
    if args and isinstance(args[0], bytes):
        try:
            return (args[0].decode("ascii"), *args[1:])
        except UnicodeDecodeError:
            raise SubscriptError(f"subscripts {args[0]!r}: bytes subscripts must be ASCII") from None
    return args


def split_operands(args) -> tuple[list[list[str]], list[str] | None, list]:
    """(input terms, output term or None, operands) from einsum's positional arguments."""
    if not args:
        raise SubscriptError("einsum needs subscripts and at least one operand")
    args = decode_subscripts(args)
    if isinstance(args[0], str):
        subs, operands = args[0], list(args[1:])
        if "->" in subs:
            if subs.count("->") > 1:
                raise SubscriptError(f"subscripts {subs!r}: '->' appears more than once")
            lhs, rhs = subs.split("->")
        else:
            lhs, rhs = subs, None
        if "-" in lhs or ">" in lhs or (rhs is not None and ("-" in rhs or ">" in rhs)):
            raise SubscriptError(f"subscripts {subs!r}: '-' and '>' are allowed only as '->'")
        for part in (lhs, rhs or ""):  # (numpy's rule, before spaces go: every '.' is one of an unbroken '...')
            if part.replace("...", "").count("."):
                raise SubscriptError(f"subscripts {subs!r}: a '.' that is not part of an ellipsis ('...')")
        lhs, rhs = lhs.replace(" ", ""), None if rhs is None else rhs.replace(" ", "")
        terms = lhs.split(",")
        if len(terms) != len(operands):
            raise SubscriptError(f"subscripts {subs!r} name {len(terms)} operand(s) but {len(operands)} "
                                 f"were given")
        ins = [_split_term(t, f"operand {i}") for i, t in enumerate(terms)]
        out = None if rhs is None else _split_term(rhs, "output")
        return ins, out, operands
    # sublist form: op0, sub0, op1, sub1, ..., [out]
    items = list(args)
    out = None
    if len(items) % 2 == 1:
        out = _sublist_term(items.pop(), "output")
    operands = items[0::2]
    ins = [_sublist_term(s, f"operand {i}") for i, s in enumerate(items[1::2])]
    return ins, out, operands


def parse(args, ndims: list[int] | None = None) -> tuple[Subscripts, list]:
    """Parse einsum's positional arguments; `ndims` defaults to the operands' ``ndim``."""
    ins, out, operands = split_operands(args)
    if ndims is None:
        ndims = [getattr(x, "ndim", 0) for x in operands]
    inputs = []
    n_ell = 0
    for i, (term, nd) in enumerate(zip(ins, ndims, strict=True)):
        named = [t for t in term if t != ELLIPSIS]
        if ELLIPSIS in term:
            k = nd - len(named)
            if k < 0:
                raise SubscriptError(f"operand {i}: subscripts {''.join(term)!r} name {len(named)} modes but "
                                     f"the operand has only {nd} dimensions")
            n_ell = max(n_ell, k)
            pos = term.index(ELLIPSIS)
            term = term[:pos] + list(_ellipsis_modes(k)) + term[pos + 1:]
        elif len(term) != nd:
            raise SubscriptError(f"operand {i}: subscripts {''.join(term)!r} name {len(term)} modes but the "
                                 f"operand has {nd} dimension(s)")
        inputs.append(tuple(term))
    all_named = [m for t in inputs for m in t if not m.startswith(ELLIPSIS)]
    if out is None:
        counts = {m: all_named.count(m) for m in set(all_named)}
        output = _ellipsis_modes(n_ell) + tuple(sorted(m for m, c in counts.items() if c == 1))
    else:
        output_l: list[str] = []
        for m in out:
            if m == ELLIPSIS:
                output_l.extend(_ellipsis_modes(n_ell))
            elif m not in all_named:
                raise SubscriptError(f"output mode {m!r} does not appear in any input operand")
            elif m in output_l:
                raise SubscriptError(f"output mode {m!r} appears more than once in the output")
            else:
                output_l.append(m)
        if ELLIPSIS not in out and n_ell:
            raise SubscriptError(f"the inputs' '...' stands for {n_ell} dimension(s) but the output has no '...' "
                                 f"to receive them (numpy's default einsum refuses this too; its optimized path "
                                 f"sums them): add '...' to the output to keep them, or name them with letters "
                                 f"to sum them")
        output = tuple(output_l)
    return Subscripts(tuple(inputs), output), operands
