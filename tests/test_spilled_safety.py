"""Spilled-original references are untrusted: only the agents' own spill files are ever read.

Each case is a crafted preview (as a hostile session would hold it) and checks what
`klipui.session.spilled` does with it: secrets, devices, FIFOs, symlinks and `../` stay unread;
the real layouts of Claude Code, dsh, pi, neovate and klipui's spill store still load.
"""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path

import pytest

from klipui.session.spilled import (
    NOT_FOLLOWED,
    Original,
    SpillFolders,
    SpillRef,
    find_reference,
    load_original,
)
from klipui.shrink import FileSpillStore

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"
SAMPLES_DIR = Path(__file__).resolve().parent / "fixtures" / "samples"


@pytest.fixture
def folders(tmp_path: Path) -> SpillFolders:
    temp = tmp_path / "tmp"
    temp.mkdir()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    return SpillFolders((temp,), home, tmp_path / "spill")


@pytest.fixture
def key(folders: SpillFolders) -> Path:
    path = folders.home / ".ssh" / "id_ed25519"
    path.write_text(SECRET, encoding="utf-8")
    path.chmod(0o600)
    return path


def _previews(path: str) -> list[str]:
    """The same path in each reference shape an agent writes."""
    return [
        f"head\n\n(Omitted 9 bytes. Full formatted result stored at: {path}. Use read.)",
        f"tail\n\n[Showing lines 1-2 of 9. Full output: {path}]",
        f"head\n\n...5 lines truncated...\n\nFull output saved to: {path}\nUse Grep",
        f"<persisted-output>\nOutput too large. Full output saved to: {path}\n</persisted-output>",
    ]


def _load(text: str, folders: SpillFolders, session: Path | None = None) -> Original | None:
    ref = find_reference(text, session, "toolu_1")
    return None if ref is None else load_original(ref, session_path=session, folders=folders)


def _refused(loaded: Original | None) -> bool:
    return loaded is None or (loaded.text is None and (loaded.problem or "").startswith("not"))


def _claude_session(root: Path) -> tuple[Path, Path]:
    session = root / "projects" / "-work-app" / "5f0c6e9e-1a2b-4c3d-9e8f-0123456789ab.jsonl"
    results = session.parent / session.stem / "tool-results"
    results.mkdir(parents=True)
    session.write_text("{}\n", encoding="utf-8")
    return session, results


@pytest.mark.parametrize("target", ["key", "key.txt", "/etc/shadow", "/proc/self/environ"])
def test_files_outside_the_agents_folders_are_never_read(
    target: str, folders: SpillFolders, key: Path, tmp_path: Path
) -> None:
    if target.startswith("key"):
        path = key if target == "key" else key.with_suffix(".txt")
        path.write_text(SECRET, encoding="utf-8")
    else:
        path = Path(target)
    session, _ = _claude_session(tmp_path)
    for preview in _previews(str(path)):
        loaded = _load(preview, folders, session)
        assert loaded is None or loaded.text is None, preview
        if loaded is not None and loaded.ref.path == path:
            assert loaded.problem == NOT_FOLLOWED
            assert str(path) in loaded.describe()


def test_dev_zero_is_refused_at_once(folders: SpillFolders) -> None:
    for preview in _previews("/dev/zero"):
        assert _refused(_load(preview, folders))
    link = folders.temp[0] / "pi-bash-0123456789abcdef.log"
    link.symlink_to("/dev/zero")
    loaded = _load(f"[Showing lines 1-2 of 9. Full output: {link}]", folders)
    assert loaded is not None and loaded.problem == NOT_FOLLOWED


def _in_thread(call, timeout: float = 10.0):
    """Run `call` in a daemon thread; fail (instead of hanging the suite) when it blocks."""
    box: list[object] = []
    thread = threading.Thread(target=lambda: box.append(call()), daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "reading the reference blocked"
    return box[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_the_spill_folder_is_refused_without_blocking(
    folders: SpillFolders, tmp_path: Path
) -> None:
    fifo = folders.temp[0] / "pi-bash-0123456789abcdef.log"
    os.mkfifo(fifo)
    loaded = _in_thread(lambda: _load(f"x\n[Full output: {fifo}]", folders))
    assert isinstance(loaded, Original) and loaded.text is None
    assert loaded.problem == "not followed: not a regular file"
    session, results = _claude_session(tmp_path)
    os.mkfifo(results / "toolu_1.txt")
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    loaded = _in_thread(lambda: _load(bare, folders, session))
    assert isinstance(loaded, Original) and loaded.problem == "not followed: not a regular file"


def test_symlinks_out_of_the_folder_are_not_followed(
    folders: SpillFolders, key: Path, tmp_path: Path
) -> None:
    session, results = _claude_session(tmp_path)
    (results / "toolu_1.txt").symlink_to(key)
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    loaded = _load(bare, folders, session)
    assert loaded is not None and loaded.problem == NOT_FOLLOWED
    named = f"<persisted-output>\nsaved to: {results / 'toolu_1.txt'}\n</persisted-output>"
    assert _load(named, folders, session).problem == NOT_FOLLOWED  # type: ignore[union-attr]
    # a symlinked folder on the way out is resolved the same way
    dsh_root = folders.temp[0] / "dsh-spill-Ab12"
    dsh_root.mkdir()
    (dsh_root / "session-0123456789ab").symlink_to(key.parent, target_is_directory=True)
    (key.parent / "0a1b2c3d-bash.txt").write_text(SECRET, encoding="utf-8")
    path = dsh_root / "session-0123456789ab" / "0a1b2c3d-bash.txt"
    loaded = _load(f"(Full formatted result stored at: {path}. Use read.)", folders)
    assert loaded is not None and loaded.problem == NOT_FOLLOWED


def test_traversal_in_ids_and_paths(folders: SpillFolders, key: Path, tmp_path: Path) -> None:
    session, results = _claude_session(tmp_path)
    (key.parent / "id.txt").write_text(SECRET, encoding="utf-8")
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    for call_id in ("../../../../home/.ssh/id", "..", "a/b", "x\x00y", ""):
        ref = find_reference(bare, session, call_id)
        assert ref is None or _refused(load_original(ref, session_path=session, folders=folders))
    escape = results / ".." / ".." / ".." / ".." / "home" / ".ssh" / "id.txt"
    named = f"<persisted-output>\nsaved to: {escape}\n</persisted-output>"
    assert _load(named, folders, session).problem == NOT_FOLLOWED  # type: ignore[union-attr]
    dsh = folders.temp[0] / "dsh-x" / "session-ab" / ".." / ".." / ".." / "home/.ssh/id.txt"
    assert _refused(_load(f"Full formatted result stored at: {dsh}", folders))
    assert _refused(_load("[Full output: home/.ssh/id.txt]", folders))  # relative: never


def test_a_hard_link_to_another_file_is_refused(folders: SpillFolders, key: Path) -> None:
    link = folders.temp[0] / "pi-bash-0123456789abcdef.log"
    os.link(key, link)
    loaded = _load(f"[Full output: {link}]", folders)
    assert loaded is not None and loaded.text is None
    assert loaded.problem == "not followed: a file with other hard links"


def test_claude_tool_results_next_to_the_session_load(
    folders: SpillFolders, tmp_path: Path
) -> None:
    session, results = _claude_session(tmp_path)
    (results / "toolu_1.txt").write_text("FULL\n", encoding="utf-8")
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    assert _load(bare, folders, session).text == "FULL\n"  # type: ignore[union-attr]
    named = f"<persisted-output>\nsaved to: {results / 'toolu_1.txt'}\n</persisted-output>"
    assert _load(named, folders, session).text == "FULL\n"  # type: ignore[union-attr]
    # the same file seen from another session is not that session's folder
    other = session.with_name("0e9d8c7b-1a2b-4c3d-9e8f-0123456789ab.jsonl")
    assert _load(named, folders, other).problem == NOT_FOLLOWED  # type: ignore[union-attr]
    # and a sub-agent file reads its parent session's tool results
    agent = session.parent / session.stem / "subagents" / "agent-a1.jsonl"
    agent.parent.mkdir()
    assert _load(named, folders, agent).text == "FULL\n"  # type: ignore[union-attr]


def test_dsh_pi_neovate_and_spill_store_layouts_load(folders: SpillFolders) -> None:
    session_dir = folders.temp[0] / "dsh-spill-Xy9" / "session-5e53dc8acfe4"
    session_dir.mkdir(parents=True)
    (session_dir / "2ce9d7a31a38-bash.txt").write_text("dsh full\n", encoding="utf-8")
    dsh = f"(Omitted 1 bytes. Full formatted result stored at: {session_dir}/2ce9d7a31a38-bash.txt."
    assert _load(dsh, folders).text == "dsh full\n"  # type: ignore[union-attr]
    pi = folders.temp[0] / "pi-bash-a4cd2460b5b4e0be.log"
    pi.write_text("pi full\n", encoding="utf-8")
    assert _load(f"[Showing lines 1-2 of 9. Full output: {pi}]", folders).text == "pi full\n"  # type: ignore[union-attr]
    neovate = folders.home / ".neovate" / "tool-output"
    neovate.mkdir(parents=True)
    (neovate / "tool_s1_1700000000000_abc123.txt").write_text("neo\n", encoding="utf-8")
    text = f"Full output saved to: {neovate}/tool_s1_1700000000000_abc123.txt\nUse Grep"
    assert _load(text, folders).text == "neo\n"  # type: ignore[union-attr]
    locator = FileSpillStore(folders.spill_store).save("the original\n", "bash")
    assert _load(f"cut\n[full output saved as {locator}]", folders).text == "the original\n"  # type: ignore[union-attr]
    # a pi-named file outside the temp folders, or a dsh layout outside them, is not theirs
    elsewhere = folders.home / "pi-bash-a4cd2460b5b4e0be.log"
    elsewhere.write_text("x", encoding="utf-8")
    assert _load(f"[Full output: {elsewhere}]", folders).problem == NOT_FOLLOWED  # type: ignore[union-attr]


def test_missing_files_and_unknown_locators_are_reported(folders: SpillFolders) -> None:
    gone = folders.temp[0] / "dsh-acp-snap-035d1d054" / "session-aa56455bb13a" / "dfff-read.txt"
    loaded = _load(f"Full formatted result stored at: {gone}. Use read", folders)
    assert loaded is not None and loaded.problem == "missing: no longer exists"
    loaded = _load("x [full output saved as spill:bash-000000000000]", folders)
    assert loaded is not None and loaded.problem == "missing: not in the spill store"


def test_a_big_original_is_read_up_to_the_cap_at_a_line_end(folders: SpillFolders) -> None:
    pi = folders.temp[0] / "pi-bash-0123456789abcdef.log"
    lines = [f"line {i:04d} " + "x" * 40 for i in range(200)]
    pi.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = find_reference(f"[Full output: {pi}]")
    assert ref is not None
    loaded = load_original(ref, folders=folders, max_bytes=1000)
    assert loaded.capped and loaded.text is not None
    assert loaded.text.endswith("\n") and len(loaded.text.encode()) <= 1000
    assert loaded.text.splitlines() == lines[: len(loaded.text.splitlines())]
    assert loaded.size == pi.stat().st_size
    assert f"of {pi.stat().st_size:,} bytes" in loaded.describe()
    whole = load_original(ref, folders=folders)
    assert not whole.capped and whole.text == pi.read_text(encoding="utf-8")


def test_escape_sequences_in_a_reference_are_cleaned_in_its_description(
    folders: SpillFolders,
) -> None:
    ref = SpillRef("pi", "/x/\x1b]52;c;Y3VybA==\x07y.log", Path("/x/\x1b]52;c;Y3VybA==\x07y.log"))
    text = load_original(ref, folders=folders).describe()
    assert "\x1b" not in text and "\x07" not in text and NOT_FOLLOWED in text


def test_spill_show_reads_only_regular_files_of_the_store(
    folders: SpillFolders, key: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from klipui.cli import main

    store = FileSpillStore(folders.spill_store)
    locator = store.save("kept\n", "bash")
    spill = ["spill", "--spill-dir", str(store.dir), "show"]
    assert main([*spill, locator]) == 0
    assert capsysbinary.readouterr().out == b"kept\n"
    (store.dir / "bash-aaaaaaaaaaaa.txt").symlink_to(key)
    assert main([*spill, "spill:bash-aaaaaaaaaaaa"]) == 1
    captured = capsysbinary.readouterr()
    assert b"not followed" in captured.err and SECRET.encode() not in captured.out
    if hasattr(os, "mkfifo"):
        os.mkfifo(store.dir / "bash-bbbbbbbbbbbb.txt")
        code = _in_thread(lambda: main([*spill, "spill:bash-bbbbbbbbbbbb"]))
        assert code == 1
        assert b"not a regular file" in capsysbinary.readouterr().err


def _result_texts(session) -> list[tuple[str, str]]:
    """(call id, text) of every tool result of a lowered session."""
    from klipui.session.blocks import blocks_text, message_content

    out = []
    for event in session.events:
        if event.type != "tool/result":
            continue
        for block in message_content(event) or []:
            if isinstance(block, dict) and block.get("type") == "tool-result":
                out.append((str(block.get("toolCallId")), blocks_text(block.get("content"))))
    return out


@pytest.mark.parametrize(
    "target", ["key", "/etc/shadow", "/proc/self/environ", "/dev/zero", "symlink", "fifo"]
)
def test_crafted_session_files_disclose_nothing(
    target: str, folders: SpillFolders, key: Path, tmp_path: Path
) -> None:
    """Real samples whose spill references were rewritten to point at secrets and specials:
    opened and followed as the shrink pane does, nothing is read."""
    from klipui.session import open_session

    session_file, results = _claude_session(tmp_path)
    secret_txt = key.with_suffix(".txt")
    secret_txt.write_text(SECRET, encoding="utf-8")
    place = {"key": secret_txt, "symlink": results / "toolu_002.txt"}.get(target, Path(target))
    if target == "symlink":
        place.symlink_to(secret_txt)
    if target == "fifo":
        place = results / "toolu_002.txt"
        os.mkfifo(place)
    # dsh: the real bash-spill sample, its spill path replaced
    dsh_text = (SAMPLES_DIR / "dsh" / "bash-spill.jsonl").read_text(encoding="utf-8")
    old = "/tmp/dsh-acp-snap-ee77dff02/session-5e53dc8acfe4/2ce9d7a31a38-bash.txt"
    assert old in dsh_text
    dsh = tmp_path / "dsh.jsonl"
    dsh.write_text(dsh_text.replace(old, str(place)), encoding="utf-8")
    # Claude Code: a real sample whose second result became a persisted-output preview
    claude_text = (SAMPLES_DIR / "claude-code" / "cct_sample_session.jsonl").read_text("utf-8")
    preview = f"<persisted-output>\\nOutput too large. Full output saved to: {place}\\n"
    claude_text = claude_text.replace('"content":"[main abc1234', f'"content":"{preview}[main')
    session_file.write_text(claude_text, encoding="utf-8")
    refused = 0
    for path in (dsh, session_file):
        for call_id, text in _result_texts(open_session(path)):
            ref = find_reference(text, path, call_id)
            if ref is None:
                continue
            loaded = _in_thread(
                lambda ref=ref, path=path: load_original(ref, session_path=path, folders=folders)
            )
            assert loaded.text is None, (path.name, ref)
            if ref.path == place:
                assert loaded.problem.startswith("not followed"), loaded.problem
                refused += 1
    assert refused >= (2 if place.suffix == ".txt" else 1)  # dsh, and Claude for a .txt path


def test_a_session_opened_by_a_relative_path_finds_its_tool_results(
    folders: SpillFolders, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, results = _claude_session(tmp_path)
    (results / "toolu_1.txt").write_text("FULL\n", encoding="utf-8")
    monkeypatch.chdir(session.parent)
    relative = Path(session.name)
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    assert _load(bare, folders, relative).text == "FULL\n"  # type: ignore[union-attr]


def test_no_reference_ever_reads_a_file_outside_the_folders(tmp_path: Path) -> None:
    """Every reference of up to three path parts from a set of bases (each kind, `..`,
    symlinked files and folders, agent-like names planted next to the secrets): what loads is
    always a planted legit original, never a secret."""

    temp, home = tmp_path / "tmp", tmp_path / "home"
    folders = SpillFolders((temp,), home, tmp_path / "spill")
    session, results = _claude_session(tmp_path)
    dsh = temp / "dsh-spill-a1" / "session-0123456789ab"
    neovate = home / ".neovate" / "tool-output"
    for folder in (temp, home / ".ssh", dsh, neovate, folders.spill_store):
        folder.mkdir(parents=True, exist_ok=True)
    secret = home / ".ssh" / "id.txt"
    secret.write_text(SECRET, encoding="utf-8")
    for name in ("toolu_1.txt", "0a1b2c3d-bash.txt", "pi-bash-0123456789abcdef.log"):
        (home / ".ssh" / name).write_text(SECRET, encoding="utf-8")  # agent-like names
    legit = {
        results / "toolu_1.txt",
        dsh / "0a1b2c3d-bash.txt",
        temp / "pi-bash-0123456789abcdef.log",
        neovate / "tool_s_1_a.txt",
        folders.spill_store / "bash-0123456789ab.txt",
    }
    for path in legit:
        path.write_text("LEGIT\n", encoding="utf-8")
    for name in ("toolu_2.txt", "0a1b2c3d-link.txt", "pi-bash-fedcba9876543210.log"):
        for folder in (results, dsh, temp):
            (folder / name).symlink_to(secret)
    (dsh.parent / "session-feedfacecafe").symlink_to(home / ".ssh", target_is_directory=True)
    (temp / "dsh-evil").symlink_to(home, target_is_directory=True)
    names = [
        "..",
        "tool-results",
        "dsh-evil",
        "session-0123456789ab",
        "session-feedfacecafe",
        ".ssh",
        "toolu_1.txt",
        "toolu_2.txt",
        "0a1b2c3d-bash.txt",
        "pi-bash-0123456789abcdef.log",
        "pi-bash-fedcba9876543210.log",
    ]
    bases = [temp, home, results, dsh, dsh.parent, session.parent / session.stem]
    loaded_any = 0
    for kind, base, length in itertools.product(("claude", "dsh", "pi"), bases, (1, 2, 3)):
        for segments in itertools.product(names, repeat=length):
            path = base.joinpath(*segments)
            loaded = load_original(
                SpillRef(kind, str(path), path), session_path=session, folders=folders
            )
            if loaded.text is not None:
                assert loaded.text == "LEGIT\n", (kind, path)
                loaded_any += 1
    assert loaded_any  # the walk does reach the legit originals
    for name in names:
        ref = SpillRef("spill", f"spill:{name.removesuffix('.txt')}", None)
        assert load_original(ref, folders=folders).text in (None, "LEGIT\n")
    # the planted tree is what the property needs: legit files load, linked secrets do not
    for path in legit - {folders.spill_store / "bash-0123456789ab.txt"}:
        kind = {results: "claude", dsh: "dsh", temp: "pi", neovate: "pi"}[path.parent]
        ref = SpillRef(kind, str(path), path)
        assert load_original(ref, session_path=session, folders=folders).text == "LEGIT\n"
    for path in (temp / "pi-bash-fedcba9876543210.log", results / "toolu_2.txt"):
        ref = SpillRef("pi" if path.parent == temp else "claude", str(path), path)
        assert load_original(ref, session_path=session, folders=folders).text is None
