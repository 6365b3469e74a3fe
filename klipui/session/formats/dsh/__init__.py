"""DeepSeek Harness: `$DSH_HOME/sessions/<project key>/<id>/session.jsonl[.zstd]`, whose records
already are session events (a `session` header, then `SessionEvent`s)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from klipui.session.adapter import ChildBody, ModuleAdapter, Root
from klipui.session.formats.dsh import child, lowering
from klipui.session.formats.dsh.lowering import (
    CHUNK_ROWS,
    NO_CWD,
    SESSION_FILE,
    ZSTD_SUFFIX,
    agent,
    encode_id,
    expand_row,
    info,
    latest_title,
    lower,
    name,
    project_key,
    project_name,
    raise_records,
    scan_info,
    session_path,
    sniff,
)
from klipui.session.index import Indexer, RecordIndex
from klipui.session.model import Session, SessionInfo
from klipui.session.resume import ResumeCommand, project_folder, prompt_args, session_id_for


class DshAdapter(ModuleAdapter):
    """DeepSeek Harness session logs."""

    lowering = lowering
    writer = child
    name = "dsh"
    agent = "DeepSeek Harness"
    titled = child.TITLED
    native_events = True
    end_mark = "the log has no turn/end for it"

    def scan_info(self, path: Path) -> SessionInfo | None:
        return lowering.scan_info(path)

    def indexer(self, path: Path, index: RecordIndex) -> Indexer | None:
        from klipui.session.formats.dsh.indexed import DshIndexer

        return DshIndexer(path, index)

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        dsh = Path(environ.get("DSH_HOME") or home / ".dsh")
        return [Root(self.name, dsh / "sessions", "*/*/session.jsonl*")]

    def child_compression(self, path: Path, body: ChildBody) -> str | None:
        return "zstd" if path.name.endswith(ZSTD_SUFFIX) else None

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """`dsh --profile tui --resume <id>` from the session's folder, as its help shows."""
        session_id = session_id_for(session, self.agent)
        cwd = project_folder(session, self.agent)
        note = "dsh 0.1.0 ships no tui profile; `dsh web` resumes it from the browser"
        argv = ("dsh", "--profile", "tui", "--resume", session_id, *prompt_args(prompt))
        return ResumeCommand(self.agent, argv, cwd, note)


ADAPTER = DshAdapter()

__all__ = [
    "ADAPTER",
    "CHUNK_ROWS",
    "NO_CWD",
    "SESSION_FILE",
    "ZSTD_SUFFIX",
    "DshAdapter",
    "agent",
    "encode_id",
    "expand_row",
    "info",
    "latest_title",
    "lower",
    "name",
    "project_key",
    "project_name",
    "raise_records",
    "scan_info",
    "session_path",
    "sniff",
]
