"""An archive of every agent's sessions that the agents cannot delete.

`run_archive()` copies every session file (with its sub-agent files and the originals of big
tool outputs kept beside it) into the archive folder, zstd-compressed and incremental, never
changing the agents' folders. Discovery lists archived sessions with the others
(`merge_archived`), the newer of an original and its copy once. `schedule_text` and the
`install_*` functions set up a daily run when the user asks.
"""

from klipui.archive.layout import default_archive_dir, known_agents
from klipui.archive.listing import is_archived, merge_archived
from klipui.archive.run import ArchiveBusy, ArchiveInside, ArchiveReport, run_archive
from klipui.archive.schedule import install_cron, install_systemd, schedule_text
from klipui.archive.sources import Source, find_sources

__all__ = [
    "ArchiveBusy",
    "ArchiveInside",
    "ArchiveReport",
    "Source",
    "default_archive_dir",
    "find_sources",
    "install_cron",
    "install_systemd",
    "is_archived",
    "known_agents",
    "merge_archived",
    "run_archive",
    "schedule_text",
]
