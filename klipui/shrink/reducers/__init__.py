"""Reducers: one module a text shape (see `klipui.shrink.pipeline` for the module contract)."""
