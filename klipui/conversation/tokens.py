"""Token estimates (kept here for the public API; they live in `klipui.session.tokens`, which
the session engine needs without importing this package)."""

from __future__ import annotations

from klipui.session.tokens import (
    CHARS_PER_TOKEN,
    Counter,
    estimate_tokens,
    quick_estimate,
    use_counter,
)

__all__ = ["CHARS_PER_TOKEN", "Counter", "estimate_tokens", "quick_estimate", "use_counter"]
