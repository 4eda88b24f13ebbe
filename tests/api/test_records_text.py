"""Record text and record files as the board hands them to the use-case layer:
:func:`scopa_sim.api.review` of record lines held in memory (the same review as of the
file), and :func:`scopa_sim.api.record_lines`, which reads regular files only, with a
bound, and answers every bad path with a one-line FileError."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from helpers.board import make_records

from scopa_sim.api import record_lines, review
from scopa_sim.errors import FileError, InputError, RecordError, ReviewError


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_records(tmp_path_factory.mktemp("records") / "games.jsonl")


def test_a_review_of_text_is_the_review_of_its_file(records: Path) -> None:
    lines = records.read_text().splitlines()
    of_file = review(str(records), "2", policy="eval:worlds=8", seed=3, workers=1)
    of_text = review(
        text=lines[1], name=str(records), first_line=2, policy="eval:worlds=8", seed=3, workers=1
    )
    assert of_text.to_dict() == of_file.to_dict()
    assert of_text.margin_plot(0, 320, 100).startswith("<svg")
    with pytest.raises(InputError, match=r"hands 0\.\.0"):
        of_text.margin_plot(1)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"text": "not json"}, "line 1: not a valid scopa-record/1 hand: malformed JSON"),
        ({"text": "\n\n"}, "holds no hand"),
        ({"text": 5}, "a str of record lines"),
        ({"text": "{}", "first_line": 0}, "first line"),
    ],
)
def test_bad_record_text_is_one_line(kwargs: dict, words: str) -> None:
    with pytest.raises((ReviewError, InputError), match=words):
        review(**kwargs)


def test_review_takes_files_or_text_not_both(records: Path) -> None:
    with pytest.raises(ReviewError, match="not both"):
        review(str(records), text=records.read_text())


def test_record_lines_reads_a_record_file(records: Path) -> None:
    lines = record_lines(records)
    assert lines == records.read_text().splitlines()
    assert all(json.loads(x)["format"] for x in lines)


def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    box: list[BaseException] = []
    t = threading.Thread(target=lambda: _catch(box, fifo), daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a named pipe waited for a writer"
    assert isinstance(box[0], FileError) and "named pipe" in str(box[0])


def _catch(box: list[BaseException], path: Path) -> None:
    try:
        record_lines(path)
    except BaseException as e:
        box.append(e)


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/dev/zero", "not a regular file"),
        ("x\ud800y.jsonl", "cannot name a file"),
        ("~nosuchuser/x.jsonl", "no such file"),
        ("a" * 1000, "File name too long"),
        ("a\x00b", "NUL"),
        (".", "a directory"),
    ],
)
def test_bad_paths_are_one_line_file_errors(path: str, words: str) -> None:
    with pytest.raises(FileError, match=words) as e:
        record_lines(path)
    assert len(str(e.value)) < 300 and "\n" not in str(e.value)


def test_a_file_over_the_bound_is_refused_and_binary_is_not_a_record(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(FileError, match="larger than 1,000 bytes"):
        record_lines(big, max_bytes=1000)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00secret")
    with pytest.raises(RecordError, match="not a text") as e:
        record_lines(binary)
    assert "secret" not in str(e.value)
