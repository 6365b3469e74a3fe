"""klipui: browse, shrink and clip coding-agent sessions."""

__version__ = "0.1.0"
