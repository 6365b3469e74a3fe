"""Watching a listing: changed files give fresh figures, new files are found, others are not."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import AGENT_WRITTEN

from klipui.session import read_info
from klipui.session.watch import ListingWatch

LINES = (AGENT_WRITTEN / "claude_10turns_compact6.jsonl").read_bytes().splitlines(keepends=True)


def test_changed_and_new_files_only(tmp_path: Path):
    still = tmp_path / "still.jsonl"
    still.write_bytes((AGENT_WRITTEN / "pi_10turns.jsonl").read_bytes())
    grows = tmp_path / "grows.jsonl"
    grows.write_bytes(b"".join(LINES[:12]))
    watch = ListingWatch([tmp_path], [read_info(still), read_info(grows)])
    assert watch.poll(find_new=True).changed == []
    with grows.open("ab") as out:
        out.write(b"".join(LINES[12:40]))
    (tmp_path / "new.jsonl").write_bytes(b"".join(LINES[:20]))
    change = watch.poll()
    assert [i.path for i in change.changed] == [grows] and change.added == []
    assert change.changed[0].turns and change.changed[0].turns > 1 and change.changed[0].exact
    change = watch.poll(find_new=True)
    assert change.changed == [] and [i.path for i in change.added] == [tmp_path / "new.jsonl"]
    assert watch.poll(find_new=True).added == []


def test_a_file_changed_since_it_was_listed_counts_at_the_first_poll(tmp_path: Path):
    grows = tmp_path / "grows.jsonl"
    grows.write_bytes(b"".join(LINES[:12]))
    info = read_info(grows)
    with grows.open("ab") as out:
        out.write(b"".join(LINES[12:40]))
    watch = ListingWatch([tmp_path], [info])
    assert [i.path for i in watch.poll().changed] == [grows]


def test_a_touched_file_is_read_again_and_a_deleted_one_is_left_alone(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(LINES[:12]))
    gone = tmp_path / "gone.jsonl"
    gone.write_bytes(b"".join(LINES[:12]))
    watch = ListingWatch([tmp_path], [read_info(path), read_info(gone)])
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    gone.unlink()
    assert [i.path for i in watch.poll().changed] == [path]
