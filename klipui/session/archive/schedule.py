"""Running the archive regularly: a cron line or a systemd user timer, written for the user.

`schedule_text` only builds text. `install_systemd` writes the two unit files into the user's
systemd folder and `install_cron` adds the line to the user's crontab; both run only when the
user asks (`klipui archive --schedule … --install`), never on their own, and neither enables
anything behind the user's back: the command that starts the timer is printed for them.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from klipui.session.atomic import replace_atomic

UNIT = "klipui-archive"
CRON_MARK = "# klipui archive"
KINDS = ("cron", "systemd")


def archive_command(to: Path | None = None) -> list[str]:
    """The command a schedule runs: the `klipui` on PATH, else this Python with `-m klipui`."""
    found = shutil.which("klipui")
    command = [found] if found else [sys.executable, "-m", "klipui"]
    command += ["archive", "--quiet"]
    if to is not None:
        command += ["--to", str(Path(to).absolute())]
    return command


def cron_line(to: Path | None = None, hour: int = 3, minute: int = 17) -> str:
    """A crontab line that archives every day at `hour:minute`."""
    command = shlex.join(archive_command(to))
    return f"{minute} {hour} * * * {command} {CRON_MARK}"


def systemd_units(to: Path | None = None) -> dict[str, str]:
    """The service and timer unit files (by file name) of a daily archive run."""
    command = " ".join(_systemd_quote(part) for part in archive_command(to))
    service = (
        "[Unit]\n"
        "Description=klipui: archive coding-agent sessions\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart={command}\n"
        "Nice=10\n"
        "IOSchedulingClass=idle\n"
    )
    timer = (
        "[Unit]\n"
        "Description=klipui: archive coding-agent sessions daily\n\n"
        "[Timer]\n"
        "OnCalendar=daily\n"
        "RandomizedDelaySec=30m\n"
        "Persistent=true\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{UNIT}.service": service, f"{UNIT}.timer": timer}


def _systemd_quote(part: str) -> str:
    if part and all(c.isalnum() or c in "/._-=:+@," for c in part):
        return part
    escaped = part.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return f'"{escaped}"'


def systemd_folder() -> Path:
    """The user's systemd unit folder (`$XDG_CONFIG_HOME/systemd/user`)."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def schedule_text(kind: str, to: Path | None = None) -> str:
    """What to install for `kind` ("cron" or "systemd"), with the steps, as text to print."""
    if kind == "cron":
        return (
            "# Add this line to your crontab (crontab -e), or rerun with --install:\n"
            f"{cron_line(to)}\n"
        )
    folder = systemd_folder()
    parts = [f"# Save these two files in {folder}/, then run:\n"]
    parts.append(
        f"#   systemctl --user daemon-reload && systemctl --user enable --now {UNIT}.timer\n"
    )
    parts.append("# (or run the same command with --install to have them written)\n")
    for name, text in systemd_units(to).items():
        parts.append(f"\n# --- {name}\n{text}")
    return "".join(parts)


def install_systemd(to: Path | None = None) -> list[Path]:
    """Write the unit files (each replaced atomically); the paths written."""
    folder = systemd_folder()
    written = []
    for name, text in systemd_units(to).items():
        path = folder / name
        replace_atomic(path, [text.encode()], durable=True)
        written.append(path)
    return written


def install_cron(to: Path | None = None) -> str:
    """Add the archive line to the user's crontab (replacing an earlier klipui line); the line.
    OSError when there is no `crontab` command or it fails."""
    crontab = shutil.which("crontab")
    if crontab is None:
        raise OSError(0, "no crontab command on this system", "crontab")
    listed = subprocess.run([crontab, "-l"], capture_output=True, text=True, check=False)
    lines = listed.stdout.splitlines() if listed.returncode == 0 else []
    line = cron_line(to)
    kept = [old for old in lines if not old.rstrip().endswith(CRON_MARK)]
    text = "\n".join([*kept, line]) + "\n"
    done = subprocess.run([crontab, "-"], input=text, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(0, done.stderr.strip() or "crontab refused the line", "crontab")
    return line
