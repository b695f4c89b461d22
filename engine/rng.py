"""A seeded, portable random generator.

Every random decision of the engine (shuffles, role draws, random play-outs) comes from this
module, never from :mod:`random`, whose algorithms are not promised to stay the same across
Python versions. The generator is SplitMix64 (Steele, Lea & Flood 2014; the seeding generator
of xoshiro): 64-bit state, ``state += 0x9E3779B97F4A7C15`` then a fixed mix. Bounded integers
use rejection sampling (no modulo bias) and shuffles are Fisher–Yates from the last index
down. Same seed → same sequence on every platform and every Python ≥ 3.11.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Rng:
    """SplitMix64. Any Python int seeds it (taken modulo 2**64)."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next_u64(self) -> int:
        self._state = z = (self._state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling on the top bits."""
        if n <= 0:
            raise ValueError("n must be positive")
        if n == 1:
            return 0
        shift = 64 - (n - 1).bit_length()
        # next_u64 inlined (same draws, same results): this is the play-outs' hot path.
        state = self._state
        while True:
            state = (state + _GAMMA) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            r = (z ^ (z >> 31)) >> shift
            if r < n:
                self._state = state
                return r

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place, from the last index down (``below(i + 1)`` inlined)."""
        state = self._state
        for i in range(len(items) - 1, 0, -1):
            shift = 64 - i.bit_length()
            while True:
                state = (state + _GAMMA) & _MASK
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                j = (z ^ (z >> 31)) >> shift
                if j <= i:
                    break
            items[i], items[j] = items[j], items[i]
        self._state = state

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]
