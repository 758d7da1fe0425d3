"""gettpy's exceptions.

Every error names the operand, the mode and the values at fault. They subclass ValueError or TypeError
so that code written against numpy's einsum keeps catching them.
"""
from __future__ import annotations


class GettpyError(Exception):
    """Base class of every error gettpy raises on purpose."""


class SubscriptError(GettpyError, ValueError):
    """The subscripts string or sublist is malformed or does not match the operands."""


class SubscriptTypeError(SubscriptError, TypeError):
    """The subscripts are of a type einsum does not take (not a string, a sublist that is not a sequence,
    a sublist entry that is neither an int nor Ellipsis): numpy raises TypeError here."""


class PathError(SubscriptError, RuntimeError):
    """An explicit contraction path (``optimize=["einsum_path", ...]``) does not fit the operands: numpy
    raises RuntimeError here, and the error is also a SubscriptError (ValueError)."""


class PathIndexError(PathError, IndexError):
    """An explicit path names an operand position that is not alive at that step: also an IndexError, the class
    numpy raises there."""


class ArgumentError(GettpyError, TypeError):
    """An argument has a type the function does not take (`out` that is not an array, `optimize=3.5`,
    an unknown keyword), as numpy's TypeError."""


class OptionError(GettpyError, ValueError):
    """An argument of the right type has a value outside the accepted set (``order='W'``,
    ``casting='blah'``, an unknown path strategy), as numpy's ValueError."""


class StrategyError(OptionError, KeyError):
    """`optimize` names no path strategy: also a KeyError, the class numpy raises for an unknown name."""

    __str__ = Exception.__str__  # (KeyError's would print the message as a quoted repr)


class ShapeError(GettpyError, ValueError):
    """Extents disagree between operands, or `out` has the wrong shape (a wrong rank is a SubscriptError)."""


class AxisError(ShapeError, IndexError):
    """An axis number out of range (tensordot's `axes`): a ValueError and an IndexError, as numpy's AxisError,
    and the IndexError numpy's tensordot raises there."""


class LayoutError(GettpyError, ValueError):
    """An operand's strides cannot be expressed as element strides, or the output overlaps itself or is
    read-only."""


class DtypeError(GettpyError, TypeError):
    """A dtype is not supported, or `out` has the wrong dtype."""


class KernelError(GettpyError, RuntimeError):
    """Compiling or launching a kernel failed."""


class OpError(GettpyError, ValueError):
    """An op or semiring specification is unknown or malformed (a name, a parameter, a numpy twin)."""



class OpTypeError(OpError, TypeError):
    """`ops` is not a sequence of one op per operand (a TypeError, as a wrong argument type is in numpy)."""
