"""A seeded, portable random generator.

Every random decision of the engine (shuffles, role draws, random play-outs) comes from this
module, never from :mod:`random`, whose algorithms are not promised to stay the same across
Python versions. The generator is SplitMix64 (Steele, Lea & Flood 2014; the seeding generator
of xoshiro): 64-bit state, ``state += 0x9E3779B97F4A7C15`` then a fixed mix. Bounded integers
use rejection sampling (no modulo bias); a shuffle is Fisher–Yates from the last index down,
its draws read from a SHAKE-256 stream keyed by one output (see :meth:`Rng.shuffle`). Same
seed → same sequence on every platform and every Python ≥ 3.11.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import MutableSequence, Sequence
from itertools import repeat
from operator import and_, mul, rshift
from typing import Protocol, TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_SHUFFLE_KEY = b"numrules shuffle "


class _Stream(Protocol):
    def digest(self, length: int, /) -> bytes: ...


def _words(stream: _Stream, count: int) -> tuple[int, ...]:
    """The first `count` little-endian 32-bit words of a SHAKE stream."""
    return struct.unpack(f"<{count}I", stream.digest(4 * count))


def _fisher_yates(items: MutableSequence[T], stop: int, stream: _Stream) -> None:
    """Swap each position from the last down to `stop` with a lower one drawn from `stream`.

    The draw for position i is the high word of ``word * (i + 1)`` unless its low word falls
    below ``i + 1`` (then maybe rejected: see `_fisher_yates_exact`). When no low word among
    the products does (all but about one shuffle in a million), the products and the draws are
    made by C-level maps and the Python loop only swaps.
    """
    n = len(items)
    words = _words(stream, n - stop + 16)
    products = list(map(mul, words, range(n, stop, -1)))  # as many as positions drawn
    low = min(map(and_, products, repeat(0xFFFFFFFF)), default=n)
    if low < n:  # a draw may be rejected: go word by word
        _fisher_yates_exact(items, stop, stream, words)
        return
    for i, j in zip(range(n - 1, stop - 1, -1), map(rshift, products, repeat(32)), strict=True):
        items[i], items[j] = items[j], items[i]


def _fisher_yates_exact(
    items: MutableSequence[T], stop: int, stream: _Stream, words: tuple[int, ...]
) -> None:
    """`_fisher_yates` word by word from the stream's first `words`, with Lemire's rejection
    (exact: no modulo bias), reading further into the stream when they run out."""
    n = len(items)
    k = 0
    for i in range(n - 1, stop - 1, -1):
        bound = i + 1
        m = words[k] * bound
        k += 1
        if (m & 0xFFFFFFFF) < bound:  # rarely (p < 2**-24): maybe rejected
            threshold = 0x100000000 % bound
            while (m & 0xFFFFFFFF) < threshold:
                if k + n > len(words):
                    words = _words(stream, 2 * len(words))
                m = words[k] * bound
                k += 1
        j = m >> 32
        items[i], items[j] = items[j], items[i]


class Rng:
    """SplitMix64. Any Python int seeds it (taken modulo 2**64)."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    @property
    def state(self) -> int:
        """The generator's whole state: ``Rng(rng.state)`` draws on as `rng` does (a stored
        round's state keeps it)."""
        return self._state

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

    def shuffle(self, items: MutableSequence[T], last: int | None = None) -> None:
        """Fisher–Yates in place, from the last index down, on words of one stream.

        With `last`, only the last `last` positions are drawn: they hold a uniform random
        ordered sample of the items (a deal that leaves cards out draws only those it deals);
        the positions before them keep the rest in no particular order.

        One output of the generator keys a SHAKE-256 stream (FIPS 202, in :mod:`hashlib`), read
        as little-endian 32-bit words. The draw of ``j`` in ``[0, i]`` is the high word of
        ``word * (i + 1)``; while its low word falls below ``2**32 mod (i + 1)`` the next word
        is taken instead (Lemire 2019: exact, no modulo bias). The randomness is made by two
        C calls; the Python loop only multiplies and swaps (deals are the rounds' set-up cost).
        """
        n = len(items)
        stop = 1 if last is None else max(1, n - last)  # the lowest position drawn
        if stop < n:
            key = _SHUFFLE_KEY + self.next_u64().to_bytes(8, "little")
            _fisher_yates(items, stop, hashlib.shake_256(key))

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]
