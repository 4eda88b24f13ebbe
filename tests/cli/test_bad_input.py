"""The second bad-input sweep (issue 25): each input that got a traceback, a hang or
silently wrong output is a one-line error now (or, for the blank lines at the end of a
record file, accepted). Each test runs the command that showed the fault."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.errors import FileError, RecordError
from scopa_sim.files import output, read_text, write_text
from scopa_sim.records.record import MAX_LINE, check_lines, iter_lines

EXE = str(Path(sys.executable).with_name("scopa-sim"))


def command(*args: str, stdin: object = subprocess.DEVNULL, env: dict | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:  # fmt: skip
    return subprocess.run(
        [EXE, *args], stdin=stdin, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode not in (0, None), done
    err = done.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("Error: ") and all(w in err for w in words), err
    return err


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("records")
    res = CliRunner().invoke(cli, ["play", "--matches", "1", "--seed", "2", "--policy",
                                   "greedy", "--record", str(d / "g.jsonl")])  # fmt: skip
    assert res.exit_code == 0, res.output
    return d / "g.jsonl"


def test_a_record_file_ending_in_blank_lines_is_accepted(record: Path, tmp_path: Path) -> None:
    f = tmp_path / "blank.jsonl"
    f.write_text(record.read_text() + "\n\n  \n")
    res = CliRunner().invoke(cli, ["replay", str(f)])
    assert res.exit_code == 0 and res.output.startswith("valid: "), res.output
    lines = record.read_text().splitlines()
    inside = [lines[0], "", *lines[1:]]  # a blank line between records is still one
    assert check_lines(inside).errors == [(2, "empty line")]
    assert check_lines(["", " "]).errors == [(0, "the file holds no records")]


@pytest.mark.slow
def test_a_device_read_as_records_is_refused_not_read_forever() -> None:
    done = command("replay", "/dev/zero", timeout=60)
    one_line(done, "line 1 is longer than", "not a scopa-record/1 line")
    with open("/dev/zero", encoding="utf-8") as f, pytest.raises(RecordError):
        next(iter_lines(f, limit=1000))
    with pytest.raises(FileError, match="device or socket, not a regular file"):
        read_text("/dev/zero", limit=1000)  # read_text takes regular files only
    assert MAX_LINE >= 1 << 20


@pytest.mark.slow
def test_replay_of_a_closed_standard_input_is_one_line() -> None:
    done = subprocess.run(f"exec 0<&-; {EXE} replay -", shell=True, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    one_line(done, "standard input is closed")


@pytest.mark.slow
def test_an_invalid_numba_setting_is_one_line_at_start() -> None:
    done = command("variants", env={"NUMBA_NUM_THREADS": "0"})
    assert done.returncode == 2
    one_line(done, "invalid numba setting", "NUMBA_NUM_THREADS")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_writing_to_a_full_device_is_one_line(tmp_path: Path) -> None:
    one_line(command("play", "--matches", "1", "--record", "/dev/full"),
             "cannot write /dev/full", "No space left")  # fmt: skip
    with open("/dev/full", "w") as full:
        shown = subprocess.run([EXE, "variants"], stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=60)  # fmt: skip
    one_line(shown, "cannot write standard output")
    with pytest.raises(FileError, match="cannot write /dev/full"), output("/dev/full") as f:
        f.write("x" * 100_000)
    with pytest.raises(FileError, match=r"cannot write .*missing"):
        write_text(tmp_path / "missing" / "x.md", "text")
    assert write_text(tmp_path / "ok.md", "text").read_text() == "text"
    assert [p.name for p in tmp_path.iterdir()] == ["ok.md"]  # no temporary file left


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("runs") / "a run with spaces"
    res = CliRunner().invoke(cli, ["simulate", "--hands", "400", "--seed", "1", "--out",
                                   str(d), "-q", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    return d


def test_the_same_run_twice_is_refused(run_dir: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), str(run_dir)])
    assert res.exit_code == 2 and "given twice" in res.output and "count twice" in res.output
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in run_dir.rglob("*"):
        target = copy / f.relative_to(run_dir)
        if f.is_dir():
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(f.read_bytes())
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), str(copy)])
    assert res.exit_code == 2 and "are the same run" in res.output


def test_match_statistics_of_a_run_of_hands_are_refused(run_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), "--metric", "matches"])
    assert res.exit_code == 2 and "no finished match" in res.output
    assert CliRunner().invoke(cli, ["analyze", str(run_dir), "--metric", "margin"]).exit_code == 0


def test_the_command_to_reproduce_keeps_a_path_with_spaces_whole(run_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), "--json"])
    assert res.exit_code == 0, res.output
    text = json.dumps(json.loads(res.stdout))
    assert "--out '" in text and "a run with spaces'" in text


def test_a_position_of_a_match_already_won_is_refused() -> None:
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import check_match_totals

    base = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--policy",
            "ismcts:iterations=20", "--totals"]  # fmt: skip
    res = CliRunner().invoke(cli, [*base, "12,3"])
    assert res.exit_code == 2 and "side 0 has already won the match to 11" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert CliRunner().invoke(cli, [*base, "11,11"]).exit_code == 0  # a tie plays on
    rules = Rules.make("scopa")
    assert check_match_totals(rules, [10, 3]) == (10, 3)
    with pytest.raises(ValueError, match="side 1 has already won"):
        check_match_totals(rules, [3, 11])


# --------------------------------------------------------------------------- issue 25, item 3
def test_the_same_hand_twice_is_refused_by_review(record: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.jsonl"
    copy.write_text(record.read_text())
    cases = [
        ([str(record), "1", "1"], f"{record} line 1 and {record} line 1 are the same hand "
                                   "(match 0 hand 0)"),
        ([str(record), "1-2", "2"], f"{record} line 2 and {record} line 2 are the same hand "
                                    "(match 0 hand 1)"),
        ([str(record), str(copy)], f"{record} line 1 and {copy} line 1 are the same hand "
                                   "(match 0 hand 0)"),
    ]  # fmt: skip
    for args, says in cases:
        res = CliRunner().invoke(cli, ["review", *args, "-q"])
        assert res.exit_code == 2, res.output
        assert says in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output


def _strict_json(text: str) -> dict:
    """JSON as the standard has it: NaN and Infinity (Python's extensions) refused."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON output")

    return json.loads(text, parse_constant=refuse)


def test_intervals_from_one_world_are_not_estimated_and_label_nothing(
    record: Path, tmp_path: Path
) -> None:
    html = tmp_path / "r.html"
    base = ["review", str(record), "1", "--policy", "eval:worlds=1", "-q", "--workers", "1"]
    res = CliRunner().invoke(cli, [*base, "--json", "--html", str(html)])
    assert res.exit_code == 0, res.output
    doc = _strict_json(res.stdout)
    graded = [d for d in doc["decisions"] if not d["forced"]]
    sampled = [d for d in graded if not d["exact"]]
    assert sampled and all(d["interval"] == "not estimated" for d in sampled)
    assert all(d["loss_ci"] == [None, None] and d["label"] is None for d in sampled)
    assert any(d["loss"] > 0 for d in sampled)  # losses there are, labels none
    assert all(d["interval"] == "exact" for d in graded if d["exact"])
    assert sum(s[k] for s in doc["summary"]["seats"].values() for k in ("mistake", "blunder")) == (
        sum(d["label"] in ("mistake", "blunder") for d in graded)
    )
    page = html.read_text(encoding="utf-8")
    assert "not estimated" in page
    legend = 2 * len(doc["thresholds"])  # the legend and the summary's column heads
    assert page.count('class="lab"') == legend + sum(d["label"] is not None for d in graded)
    text = CliRunner().invoke(cli, base)
    assert text.exit_code == 0, text.output
    rows = [ln for ln in text.output.splitlines() if "not estimated" in ln and "[" not in ln]
    assert rows and not any(w in ln for ln in rows for w in ("blunder", "mistake", "inacc"))
    # from enough worlds the same hand has intervals
    res = CliRunner().invoke(cli, [*base[:4], "eval:worlds=12", "-q", "--json"])
    assert {d["interval"] for d in _strict_json(res.stdout)["decisions"]} >= {"95%"}


def test_advise_reports_intervals_from_too_few_samples_as_not_estimated(tmp_path: Path) -> None:
    pos = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD"]
    table = tmp_path / "t.json"  # a small match-equity table (the default takes 3 s)
    assert CliRunner().invoke(cli, ["equity", "--hands", "300", "--out", str(table)]).exit_code == 0
    for policy, n in [
        ("eval:worlds=1", 1),
        ("pimc:worlds=3,depth=1", 3),
        ("ismcts:iterations=4", None),  # unvisited plays: mean NaN
        (f"ismcts:iterations=4,objective=match,equity={table}", None),  # and P(win) NaN
    ]:
        res = CliRunner().invoke(cli, [*pos, "--policy", policy, "--json"])
        assert res.exit_code == 0, res.output
        plays = _strict_json(res.stdout)["plays"]
        assert all(p["interval"] == "not estimated" and p["ci_low"] is None for p in plays)
        assert n is None or all(p["n"] == n for p in plays)
        text = CliRunner().invoke(cli, [*pos, "--policy", policy])
        assert "not estimated" in text.output and "inf" not in text.output, text.output
    res = CliRunner().invoke(cli, [*pos, "--policy", "eval:worlds=12", "--json"])
    assert {p["interval"] for p in _strict_json(res.stdout)["plays"]} == {"95%"}


def test_a_perfect_information_answer_says_it_is_one(record: Path) -> None:
    from scopa_sim.bots.advise import advise, perfect_information_world, position_from_cards
    from scopa_sim.bots.search import SolverBot
    from scopa_sim.game.cards import CardSet
    from scopa_sim.game.infoset import InfoSet
    from scopa_sim.game.rules import Rules

    pos = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--policy",
           "solver:depth=2"]  # fmt: skip
    docs = []
    for seed in ("1", "2"):
        res = CliRunner().invoke(cli, [*pos, "--seed", seed, "--json"])
        assert res.exit_code == 0, res.output
        doc = _strict_json(res.stdout)
        pi = doc["perfect_information"]
        assert pi["layout"] == "sampled" and pi["seed"] == int(seed) and not pi["exact"]
        assert len(pi["hands"]["1"].split()) == 3 and len(pi["stock"]) == 30
        assert all(p["interval"] == "not estimated" for p in doc["plays"])
        docs.append(pi)
    assert docs[0] != docs[1]  # another seed, another layout
    text = CliRunner().invoke(cli, [*pos, "--seed", "1"]).output
    assert "perfect-information answer" in text and "(seed 1)" in text
    assert "seat 1 holds [" in text and "not your expected margins" in text
    # the layout drawn is a world of the seat's information set
    state = position_from_cards(Rules.make("scopa"), CardSet.parse("7D 3S KH"),
                                CardSet.parse("7C 5H 2S AD"))  # fmt: skip
    world, layout = perfect_information_world(state, 5)
    assert InfoSet(world).information_state_string() == InfoSet(state).information_state_string()
    assert layout.kind == "sampled" and advise(state, SolverBot(depth=1), 5).layout == layout
    # a position of a record: the recorded layout; the last round: nothing hidden, exact
    res = CliRunner().invoke(cli, ["advise", "--position", f"{record}:1:24", "--policy",
                                   "solver", "--json"])  # fmt: skip
    assert _strict_json(res.stdout)["perfect_information"]["layout"] == "recorded", res.output
    res = CliRunner().invoke(cli, ["advise", "--position", f"{record}:1:31", "--policy", "solver"])
    assert "no card is hidden from you" in res.output and "values are exact" in res.output
    assert "  exact" in res.output
    res = CliRunner().invoke(cli, ["advise", "--position", f"{record}:1:31", "--policy", "solver",
                                   "--json"])  # fmt: skip
    doc = _strict_json(res.stdout)
    assert doc["perfect_information"]["exact"]
    assert {p["interval"] for p in doc["plays"]} == {"exact"}
    # a fair bot's answer has no layout
    res = CliRunner().invoke(cli, [*pos[:5], "--policy", "pimc:worlds=12,depth=1", "--json"])
    assert "perfect_information" not in _strict_json(res.stdout)


# --------------------------------------------------------------------------- issue 25, item 4
LONG_SEARCH = "ismcts:iterations=3000000"  # over a minute a move on this machine
LONG = {
    "advise": ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--policy", LONG_SEARCH],
    "play": ["play", "--policy", LONG_SEARCH],
}


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("name", list(LONG))
def test_ctrl_c_and_sigterm_stop_a_long_search(name: str, sig: int) -> None:
    """The search runs on a worker thread (the kernels release the GIL) and the main
    thread, waiting in slices, takes the signal at once; the process then ends without
    waiting for the search (it ignored Ctrl-C until the move was searched)."""
    proc = subprocess.Popen(
        [EXE, *LONG[name]],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(list(Path(f"/proc/{proc.pid}/task").glob("*"))) < 2:  # the search thread
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(1.0)  # well inside the kernel
        t0 = time.monotonic()
        if sig == signal.SIGINT:
            os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C
        else:
            os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - t0
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    what, status = ("interrupted", 130) if sig == signal.SIGINT else ("terminated (SIGTERM)", 143)
    assert proc.returncode == status, err
    assert err.strip() == f"{what}: {name} stopped before it finished", err
    assert seconds < 3, f"took {seconds:.1f} s to stop"


# --------------------------------------------------------------------------- our own sweep
def test_an_equity_table_device_or_edited_table_is_one_line(tmp_path: Path) -> None:
    ask = ["play", "--policy", "ismcts:iterations=10,objective=match,equity="]
    res = CliRunner().invoke(cli, [*ask[:-1], ask[-1] + "/dev/zero"])  # read without end
    assert res.exit_code == 2 and "/dev/zero is a device" in res.output, res.output  # not read
    table = tmp_path / "t.json"
    assert CliRunner().invoke(cli, ["equity", "--hands", "300", "--out", str(table)]).exit_code == 0
    doc = json.loads(table.read_text())
    doc["hands"] = 7  # the outcome counts say 300
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    res = CliRunner().invoke(cli, [*ask[:-1], ask[-1] + str(edited)])
    assert res.exit_code == 2 and "add up to 300 hands, not the 7" in res.output, res.output


def test_writing_to_a_device_writes_it_and_never_replaces_it(tmp_path: Path) -> None:
    """An atomic write renames a temporary file onto the path: onto a device that
    replaced the device with a regular file (as root: `equity --out /dev/full` said
    'wrote /dev/full'). Through symbolic links here, so that a regression replaces the
    links, not the devices."""
    full, null = tmp_path / "full", tmp_path / "null"
    full.symlink_to("/dev/full")
    null.symlink_to("/dev/null")
    res = CliRunner().invoke(cli, ["equity", "--hands", "300", "--out", str(full)])
    assert res.exit_code == 1 and "No space left on device" in res.output, res.output
    res = CliRunner().invoke(cli, ["equity", "--hands", "300", "--out", str(null)])
    assert res.exit_code == 0, res.output
    assert full.is_symlink() and null.is_symlink()
    assert write_text(null, "x") == null and null.is_symlink()
    with pytest.raises(FileError, match="Is a directory"):
        write_text(tmp_path, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]  # no temporary


@pytest.mark.slow
def test_a_closed_standard_output_is_one_line_not_silence() -> None:
    for args in ("variants", "advise --hand '7D 3S KH' --table '7C 5H 2S AD' --json "
                 "--policy ismcts:iterations=20"):  # fmt: skip
        done = subprocess.run(f"exec 1>&-; {EXE} {args}", shell=True, capture_output=True,
                              text=True, timeout=60)  # fmt: skip
        assert done.returncode == 1, done
        assert done.stderr.strip() == "Error: cannot write standard output: it is closed", done


@pytest.mark.slow
def test_positions_and_line_ranges_without_end_are_one_line(record: Path) -> None:
    done = command("advise", "--position", "/dev/zero:1:0", timeout=60)
    one_line(done, "position: /dev/zero is a device or socket, not a regular file")
    for args, says in [
        ([str(record), f"1-{10**30}"], f"{record} has lines 1..6, not 7"),
        (["/dev/null"], "/dev/null is a device or socket, not a regular file"),
        ([str(record.parent)], "is a directory, not a regular file"),
    ]:
        res = CliRunner().invoke(cli, ["review", *args, "-q"])
        assert res.exit_code == 2 and says in res.output, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
    res = CliRunner().invoke(cli, ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD",
                                   "--scope", f"{10**30},0"])  # fmt: skip
    assert res.exit_code == 2 and "a side has 0 to 20 scope" in res.output, res.output


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--hands", "10", "--workers", "1000", "--out", "x"],
        ["study", "--workers", "1000"],
        ["tournament", "--policy", "random", "--policy", "greedy", "--workers", "1000"],
        ["review", "x.jsonl", "--workers", "1000"],
        ["warm", "--jobs", "65"],
        ["play", "--matches", str(10**30)],
        ["tournament", "--policy", "random", "--policy", "greedy", "--deals", str(10**30)],
        ["play", "--policy", "ismcts:ms=1e308"],
    ],
    ids=lambda a: " ".join(a[:1] + a[-2:])[:40],
)
def test_huge_counts_workers_and_budgets_are_refused(args: list[str]) -> None:
    """`--workers 1000` started a thousand processes (or a traceback, for `simulate`
    and `study`); counts beyond the seed streams and a budget of 1e308 ms ran without end."""
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "Error: " in res.output, res.output


def test_compare_refuses_a_run_compared_with_itself(run_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["compare", str(run_dir), str(run_dir)])
    assert res.exit_code == 2 and "a run compared with itself differs in nothing" in res.output
    res = CliRunner().invoke(cli, ["compare", "--preset", "scopa", "--preset", "scopa-3",
                                   "--preset", "scopa", "--hands", "10"])  # fmt: skip
    assert res.exit_code == 2 and "preset scopa is given twice" in res.output, res.output


def test_a_run_path_that_is_not_utf8_is_refused_before_it_is_written(tmp_path: Path) -> None:
    """`simulate --out $'r\\xff'` wrote a run that `analyze` could not read (polars takes
    UTF-8 paths only): both say so in one line now, and nothing is written."""
    name = os.fsdecode(b"r\xff")  # as Python gets a Latin-1 name: a surrogate
    res = CliRunner().invoke(cli, ["simulate", "--hands", "10", "-q", "--workers", "1",
                                   "--out", str(tmp_path / name)])  # fmt: skip
    assert res.exit_code != 0 and "r\\xff: the path is not valid UTF-8" in res.output, res.output
    assert not list(tmp_path.iterdir())
    (tmp_path / name).mkdir()
    res = CliRunner().invoke(cli, ["analyze", str(tmp_path / name)])
    assert res.exit_code == 2 and "is not valid UTF-8" in res.output, res.output
