"""One reader of record files (``records.record.open_record``): replay, a position of a
record, review and ``api.record_lines`` give the same reason for the same bad file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scopa_sim import api
from scopa_sim.errors import FileError, PositionError, RecordError, ReviewError, ScopaError
from scopa_sim.records.record import open_record, position_from_record, read_record_lines


def _reasons(path: str) -> dict[str, str]:
    """The message each front door gives for ``path``, without its own prefix."""
    out = {}
    calls = {
        "replay": lambda: api.replay(path),
        "position": lambda: position_from_record(f"{path}:1:0"),
        "review": lambda: api.review(path),
        "record_lines": lambda: api.record_lines(path),
    }
    for name, call in calls.items():
        with pytest.raises(ScopaError) as e:
            call()
        out[name] = str(e.value).removeprefix("position: ")
    return out


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: d / "none.jsonl", "no such file: "),
        (lambda d: d, "is a directory"),
        (lambda d: (d / "bin.jsonl").write_bytes(b"\xff\xfe\x00{") and d / "bin.jsonl", "UTF-8"),
    ],
    ids=["missing", "directory", "binary"],
)
def test_every_front_door_gives_the_reader_s_reason(tmp_path: Path, make, says: str) -> None:
    path = str(make(tmp_path))
    reasons = _reasons(path)
    assert all(says in r for r in reasons.values()), reasons
    regular = {k: v for k, v in reasons.items() if k != "replay"}  # replay reads a pipe
    assert len(set(regular.values())) == 1, reasons


def test_a_pipe_is_refused_at_once_where_a_regular_file_is_needed(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="named pipe"):
        read_record_lines(fifo)
    with pytest.raises(PositionError, match="named pipe"):
        position_from_record(f"{fifo}:1:0")
    with pytest.raises(ReviewError, match="named pipe"):
        api.review(str(fifo))


def test_the_reader_expands_home_and_bounds_the_size(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "g.jsonl").write_text("a\nb\n", encoding="utf-8")
    assert read_record_lines("~/g.jsonl") == ["a", "b"]
    with pytest.raises(FileError, match="larger than 3 bytes"):
        read_record_lines("~/g.jsonl", limit=3)
    with open_record(tmp_path / "g.jsonl") as (stream, shown):
        assert shown.endswith("g.jsonl") and stream.readline() == "a\n"
    (tmp_path / "bad.jsonl").write_bytes(b"ok\n\xff\n")
    with pytest.raises(RecordError, match="not a text"), open_record(tmp_path / "bad.jsonl") as f:
        f[0].read()
