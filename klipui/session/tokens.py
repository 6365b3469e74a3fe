"""Token estimates: a quick characters-per-token figure, with room for an exact counter."""

from __future__ import annotations

from collections.abc import Callable

CHARS_PER_TOKEN = 4

Counter = Callable[[str], int]


def quick_estimate(text: str) -> int:
    """About one token per four characters, rounded up; 0 for empty text."""
    return -(-len(text) // CHARS_PER_TOKEN)


_counter: Counter = quick_estimate


def estimate_tokens(text: str) -> int:
    """Tokens in `text` by the current counter (the quick estimate unless one was plugged in)."""
    return _counter(text)


def use_counter(counter: Counter | None) -> None:
    """Plug in an exact counter (a tokenizer's `len(encode(text))`); None restores the quick one."""
    global _counter
    _counter = counter or quick_estimate
