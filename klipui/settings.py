"""What the app remembers between runs (the theme), in the user config folder.

`ui.json` in `$XDG_CONFIG_HOME/klipui` (platformdirs' user config folder) is written by the app
alone, atomically; the hand-edited `config.toml` beside it is never touched. A missing or
damaged file is read as no settings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from klipui.session.atomic import replace_atomic

FILE_NAME = "ui.json"


def settings_path() -> Path:
    """`ui.json` in the user config folder (honours XDG_CONFIG_HOME)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("klipui", appauthor=False)) / FILE_NAME


def load_settings(path: Path | None = None) -> dict[str, Any]:
    """The saved settings; {} when there are none or the file cannot be read as an object."""
    try:
        value = json.loads((path or settings_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def save_setting(key: str, value: Any, path: Path | None = None) -> None:
    """Set one setting, keeping the others; the file is replaced atomically."""
    target = path or settings_path()
    settings = load_settings(target)
    settings[key] = value
    text = json.dumps(settings, indent=2, sort_keys=True) + "\n"
    replace_atomic(target, [text.encode("utf-8")])
