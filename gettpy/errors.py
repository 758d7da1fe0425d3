"""gettpy's exceptions.

Every error names the operand, the mode and the values at fault. They subclass ValueError or TypeError
so that code written against numpy's einsum keeps catching them.
"""
from __future__ import annotations


class GettpyError(Exception):
    """Base class of every error gettpy raises on purpose."""


class SubscriptError(GettpyError, ValueError):
    """The subscripts string or sublist is malformed or does not match the operands."""


class ShapeError(GettpyError, ValueError):
    """Extents disagree between operands, or `out` has the wrong shape (a wrong rank is a SubscriptError)."""


class LayoutError(GettpyError, ValueError):
    """An operand's strides cannot be expressed as element strides, or the output overlaps itself."""


class DtypeError(GettpyError, TypeError):
    """A dtype is not supported, or `out` has the wrong dtype."""


class KernelError(GettpyError, RuntimeError):
    """Compiling or launching a kernel failed."""


class OpError(GettpyError, ValueError):
    """An op or semiring specification is unknown or malformed (a name, a parameter, a numpy twin)."""
