"""The pad / unpad copy kernel's index type (gettpy.kernels.pad.source), on the CPU: a 32-bit index must never pass
2^31 - 1 anywhere in the grid-stride loop, including the step that takes a thread past the end (a wrapped, negative
index still passes `i < total` and writes below the output)."""
from __future__ import annotations

import math
import re

import pytest

from gettpy.kernels.pad import source

INT_MAX = 2**31 - 1


def _index_type(src: str) -> str:
    return re.search(r"for \((long long|int) i =", src).group(1)


def _largest_index(total: int, threads: int = 256, most_blocks: int = 65535 * 8) -> int:
    """The largest value a thread's index takes in the loop: its last index below `total` plus the grid's stride."""
    stride = min(-(-total // threads), most_blocks) * threads
    return total - 1 + stride


@pytest.mark.parametrize("shape", [(45000, 45000), (2**31 - 2,), (46000, 40000), (1 << 20, 1900), (1 << 30,),
                                   (1000, 1000), (7,), (INT_MAX - 524280 * 256 - 1,), (INT_MAX - 524280 * 256 + 1,)])
def test_the_index_is_64_bit_wherever_a_32_bit_one_would_wrap(shape):
    src = source(shape, (1,) * len(shape), shape, 2)
    kind = _index_type(src)
    if kind == "int":
        assert _largest_index(math.prod(shape)) <= INT_MAX
    if shape == (45000, 45000):  # (2.025e9 elements: a thread's step past the end passes 2^31 - 1)
        assert kind == "long long"
    if shape in ((1000, 1000), (7,)):  # (small copies keep 32-bit arithmetic)
        assert kind == "int"


def test_a_long_source_span_is_64_bit():
    """A source whose offsets pass 2^31 - 1 (a strided view of a large buffer) indexes in 64 bits at any total."""
    src = source((10, 10), (1, 300_000_000), (16, 16), 4)
    assert _index_type(src) == "long long" and "r % 16" in src
