"""The ``scopa-sim`` command line (click app): help, variants, play and replay."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli

from scopa_sim import PRESETS, __version__

# RULES.md §7: every option key, in order (the reference's defaults list them).
OPTION_KEYS = tuple(ref.DEFAULT_RULES)


def run(*args: str, input: str | bytes | None = None) -> Result:
    """Invoke the app; never a traceback, and any exception is a clean exit."""
    result = CliRunner().invoke(cli, list(args), input=input, prog_name="scopa-sim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    assert "Traceback" not in result.stderr
    return result


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Error")]


def usage_error(result: Result, *named: str) -> str:
    """A usage error: exit 2, one 'Error: ...' line naming every text of ``named``."""
    assert result.exit_code == 2, result.output
    errors = error_lines(result)
    assert len(errors) == 1, result.stderr
    for text in named:
        assert text in errors[0], errors[0]
    return errors[0]


# --------------------------------------------------------------------------- help
#: Every command, those imported only when used included.
COMMANDS = cli.list_commands(click.Context(cli))


def test_group_help() -> None:
    for flag in ("-h", "--help"):
        result = run(flag)
        assert result.exit_code == 0
        assert "Usage: scopa-sim" in result.output
        for name in COMMANDS:
            assert name in result.output


def test_no_command_shows_usage() -> None:
    result = run()
    assert result.exit_code in (0, 2)
    assert "Usage: scopa-sim" in result.output


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("name", COMMANDS)
def test_command_help(name: str, flag: str) -> None:
    result = run(name, flag)
    assert result.exit_code == 0, result.output
    assert f"Usage: scopa-sim {name}" in result.output
    assert "-h, --help" in result.output


def test_expected_commands() -> None:
    """Every command is listed and loads (most are imported only when used)."""
    ctx = click.Context(cli)
    names = set(cli.list_commands(ctx))
    assert {"play", "replay", "variants", "simulate", "study", "advise", "report"} <= names
    for name in names:
        assert isinstance(cli.get_command(ctx, name), click.Command)


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag: str) -> None:
    result = run(flag)
    assert result.exit_code == 0
    assert __version__ in result.output
    assert "scopa-sim" in result.output


def test_unknown_command() -> None:
    result = run("nope")
    assert result.exit_code == 2
    assert "nope" in result.stderr


# --------------------------------------------------------------------------- variants
def test_variants_lists_every_preset() -> None:
    result = run("variants")
    assert result.exit_code == 0
    names = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert names == list(PRESETS)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_variants_prints_every_option(preset: str) -> None:
    result = run("variants", preset)
    assert result.exit_code == 0
    options = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    cirulla = tuple(ref.SECTION_10_DEFAULTS) if options["capture_mode"] == "cirulla" else ()
    assert tuple(options) == OPTION_KEYS + cirulla
    assert preset in result.stdout.splitlines()[0]
    for value in options.values():
        assert value == value.lower()


def test_variants_scopa_defaults() -> None:
    result = run("variants", "scopa")
    options = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert options == {
        "players": "2",
        "teams": "false",
        "deck": "40",
        "hand_size": "3",
        "table_cards": "4",
        "kings_redeal": "true",
        "capture_rule": "card",
        "sum_capture": "any",
        "remainder_to": "last_capturer",
        "ace_sweep": "false",
        "ace_sweep_scopa": "true",
        "last_play_scopa": "false",
        "primiera": "classic",
        "primiera_missing_suit": "exclude",
        "re_bello": "false",
        "napola": "false",
        "napola_scoring": "length",
        "napola_all_denari_wins": "false",
        "target": "11",
        "capture_mode": "scopa",
        "capture_compulsory": "true",
        "opening_fifteen": "false",
        "opening_fifteen_to": "dealer",
        "four_sevens_point": "false",
    }


def test_variants_with_rule_overrides() -> None:
    result = run("variants", "scopa", "--rule", "players=4")
    assert result.exit_code == 0
    assert "players = 4" in result.stdout
    assert "teams = true" in result.stdout
    result = run("variants", "scopone", "--rule", "target=21", "--rule", "teams=false")
    assert "target = 21" in result.stdout and "teams = false" in result.stdout


def test_variants_fifteen_presets() -> None:
    """RULES.md §7: the two presets of the sum-to-fifteen family (§9)."""
    result = run("variants", "escoba")
    options = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert {k: options[k] for k in ("capture_mode", "capture_compulsory", "opening_fifteen")} == {
        "capture_mode": "fifteen",
        "capture_compulsory": "false",
        "opening_fifteen": "true",
    }
    assert (options["kings_redeal"], options["target"]) == ("false", "15")
    result = run("variants", "scopa-15")
    options = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert options["capture_mode"] == "fifteen" and options["opening_fifteen"] == "false"


def test_fifteen_preset_bad_overrides() -> None:
    """The §9 combinations are rejected from a preset too, in one line."""
    usage_error(run("play", "--preset", "escoba", "--rule", "table_cards=0"), "'opening_fifteen'")
    usage_error(run("play", "--preset", "escoba", "--rule", "capture_mode=scopa"), "fifteen")
    usage_error(
        run("variants", "asso-piglia-tutto", "--rule", "capture_mode=fifteen"), "'ace_sweep'"
    )


def test_variants_unknown_preset() -> None:
    result = run("variants", "scopa-99")
    usage_error(result, "'scopa-99'")
    assert result.stdout == ""


def test_variants_bad_rule() -> None:
    usage_error(run("variants", "scopa", "--rule", "players=5"), "'players'", "allowed")


# --------------------------------------------------------------------------- play
def test_play_then_replay(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = run("play", "--matches", "2", "--seed", "5", "--record", str(path))
    assert result.exit_code == 0, result.output
    assert "2 matches" in result.stdout
    assert "seed 5" in result.stdout
    assert str(path) in result.stdout
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and all(json.loads(x)["format"] == "scopa-record/1" for x in lines)
    assert json.loads(lines[-1])["winner"] is not None

    result = run("replay", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"valid: {len(lines)} hands in 2 matches (2 finished)")
    assert "wins:" in result.stdout
    quiet = run("replay", "-q", str(path))
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_play_same_seed_same_records(tmp_path: Path) -> None:
    files = []
    for i, seed in enumerate(["7", "7", "8"]):
        path = tmp_path / f"r{i}.jsonl"
        args = ["play", "--matches", "2", "--seed", seed, "--record", str(path)]
        assert run(*args, "--rule", "target=5").exit_code == 0
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert files[0] != files[2]


@pytest.mark.parametrize(
    ("preset", "policies"),
    [
        ("scopa", ["greedy", "random"]),
        ("scopa", ["greedy"]),
        ("scopa-3", ["random", "greedy", "random"]),
        ("scopone", ["greedy", "random", "greedy", "random"]),
    ],
)
def test_play_policies_per_seat(preset: str, policies: list[str]) -> None:
    args = ["play", "--preset", preset, "--rule", "target=3"]
    for p in policies:
        args += ["--policy", p]
    result = run(*args)
    assert result.exit_code == 0, result.output
    players = {"scopa": 2, "scopa-3": 3, "scopone": 4}[preset]
    seats = policies if len(policies) > 1 else policies * players
    expected = ", ".join(f"seat {i}: {p}" for i, p in enumerate(seats))
    assert f"policies: {expected}\n" in result.stdout


def test_play_wrong_number_of_policies() -> None:
    result = run("play", "--policy", "greedy", "--policy", "random", "--policy", "random")
    usage_error(result, "--policy", "(2)")
    result = run("play", "--preset", "scopa-4", "--policy", "greedy", "--policy", "random")
    usage_error(result, "(4)")


def test_play_unknown_policy() -> None:
    usage_error(run("play", "--policy", "smart"), "'smart'", "random", "greedy")


@pytest.mark.parametrize(
    ("rules", "named"),
    [
        (["colour=red"], ["'colour'"]),
        (["players=5"], ["'players'"]),
        (["players=two"], ["'players'"]),
        (["deck=52"], ["'deck'"]),
        (["kings_redeal=maybe"], ["'kings_redeal'"]),
        (["capture_rule=always"], ["'capture_rule'"]),
        (["target=0"], ["'target'"]),
        (["hand_size=11"], ["'hand_size'"]),
        (["players=3", "deck=36"], ["'deck'", "'players'"]),
        (["teams=true"], ["'teams'"]),
        (["players=3", "teams=true"], ["'teams'"]),
        (["deck=36", "napola=true"], ["'napola'"]),
        (["players=4", "hand_size=10"], ["'hand_size'"]),
        (["capture_mode=15"], ["'capture_mode'", "scopa, fifteen"]),
        (["capture_mode=fifteen", "ace_sweep=true"], ["'ace_sweep'", "capture_mode=fifteen"]),
        (["opening_fifteen=true"], ["'opening_fifteen'", "capture_mode=fifteen"]),
        (
            ["capture_mode=fifteen", "opening_fifteen=true", "table_cards=0"],
            ["'opening_fifteen'", "table_cards=0"],
        ),
        (["capture_compulsory=sometimes"], ["'capture_compulsory'", "true, false"]),
    ],
)
def test_play_bad_rule(rules: list[str], named: list[str]) -> None:
    args = ["play"]
    for r in rules:
        args += ["--rule", r]
    result = run(*args)
    usage_error(result, *named, "allowed")
    assert result.stdout == ""


def test_play_bad_rule_syntax_and_preset() -> None:
    usage_error(run("play", "--rule", "players"), "'players'", "key=value")
    usage_error(run("play", "--preset", "briscola"), "'briscola'")


def test_play_bad_matches_and_seed() -> None:
    assert run("play", "--matches", "0").exit_code == 2
    assert run("play", "--seed", "-1").exit_code == 2
    assert run("play", "--seed", "x").exit_code == 2


def test_play_record_to_stdout() -> None:
    result = run("play", "--matches", "2", "--seed", "1", "--record", "-", "--rule", "target=3")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records and {r["match"] for r in records} == {0, 1}
    assert "2 matches" in result.stderr
    assert "2 matches" not in result.stdout
    # What went to stdout replays as a valid file.
    replay = run("replay", "-", input=result.stdout)
    assert replay.exit_code == 0, replay.output
    assert replay.stdout.startswith(f"valid: {len(records)} hands in 2 matches")


def test_play_unwritable_record_path(tmp_path: Path) -> None:
    path = tmp_path / "missing-dir" / "games.jsonl"
    error = usage_error(run("play", "--record", str(path)), str(path))
    assert "cannot write" in error
    assert not path.exists()
    usage_error(run("play", "--record", str(tmp_path)), str(tmp_path))


# --------------------------------------------------------------------------- replay
@pytest.fixture(scope="module")
def record_text() -> str:
    result = run("play", "--matches", "3", "--seed", "11", "--record", "-", "--rule", "target=4")
    assert result.exit_code == 0
    return result.stdout


def test_replay_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    usage_error(run("replay", str(path)), str(path))


def test_replay_directory(tmp_path: Path) -> None:
    usage_error(run("replay", str(tmp_path)), "directory")


def test_replay_no_argument() -> None:
    assert run("replay").exit_code == 2


def test_replay_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd" * 10)
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert "not a text (UTF-8) file" in result.stderr
    assert str(path) in result.stderr


def test_replay_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert "no records" in result.stdout


def test_replay_stdin(record_text: str) -> None:
    result = run("replay", "-", input=record_text)
    assert result.exit_code == 0, result.output
    assert "valid:" in result.stdout and "3 matches (3 finished)" in result.stdout


def test_replay_invalid_file(tmp_path: Path, record_text: str) -> None:
    objs = [json.loads(x) for x in record_text.splitlines()]
    objs[1]["score"][0]["denari"] += 1
    objs[-1]["format"] = "scopa-record/2"
    lines = [json.dumps(o) for o in objs]
    lines.insert(2, "{not json")
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("replay", str(path))
    assert result.exit_code == 1
    out = result.stdout.splitlines()
    assert out and all(re.match(r"^line \d+: \S", line) for line in out), out
    numbers = [int(line.split()[1].rstrip(":")) for line in out]
    assert numbers[:2] == [2, 3]
    assert numbers[-1] == len(lines)
    assert "denari" in out[0]
    assert "malformed JSON" in out[1]
    assert "scopa-record/2" in out[-1]
    assert re.search(r"\d+ violations? in \d+ lines?", result.stderr)
    # Same through stdin.
    piped = run("replay", "-", input=path.read_text(encoding="utf-8"))
    assert piped.exit_code == 1 and piped.stdout == result.stdout


def test_replay_unfinished(tmp_path: Path, record_text: str) -> None:
    lines = record_text.splitlines()
    assert json.loads(lines[-2])["winner"] is None, "the seed should give a last match of 2+ hands"
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert f"line {len(lines) - 1}: the file ends inside a match" in result.stdout
    result = run("replay", "--allow-unfinished", str(path))
    assert result.exit_code == 0, result.output
    assert "(2 finished)" in result.stdout


@pytest.mark.parametrize(
    "text",
    [
        "hello\n",
        "[]\n",
        "{}\n",
        '{"format": "scopa-record/1"}\n',
        "\n\n",
        "[" * 50_000 + "\n",
        "[" * 5_000 + "]" * 5_000 + "\n",
        '{"format": "scopa-record/1", "rules": {"players": [2]}}\n',
    ],
)
def test_replay_garbage_never_crashes(tmp_path: Path, text: str) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text(text, encoding="utf-8")
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert all(
        re.match(r"^line \d+: \S", line) or line == "the file holds no records"
        for line in result.stdout.splitlines()
    )


# --------------------------------------------------------------------------- the real executable
def scopa_sim_exe() -> str:
    exe = Path(sys.executable).parent / "scopa-sim"
    if exe.exists():
        return str(exe)
    found = shutil.which("scopa-sim")
    if found is None:  # pragma: no cover
        pytest.skip("the scopa-sim executable is not installed")
    return found


@pytest.mark.slow
def test_installed_entry_point() -> None:
    exe = scopa_sim_exe()
    ok = subprocess.run([exe, "variants"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert [line.split()[0] for line in ok.stdout.splitlines()] == list(PRESETS)
    assert ok.stderr == ""

    bad = subprocess.run(
        [exe, "play", "--rule", "players=5"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert "Traceback" not in bad.stderr
    errors = [line for line in bad.stderr.splitlines() if line.startswith("Error")]
    assert errors == ["Error: bad value 5 for option 'players'; allowed: 2, 3, 4"]


@pytest.mark.slow
def test_simulate_from_the_executable_ends_complete(tmp_path: Path) -> None:
    """The executable ends without the interpreter's teardown, after all is written."""
    import polars as pl

    out = tmp_path / "run"
    args = ["simulate", "--hands", "300", "--seed", "4", "--out", str(out)]
    done = subprocess.run([scopa_sim_exe(), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("300 hands in ") and done.stdout.endswith("manifest.json)\n")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and manifest["rows"] == 300
    assert pl.scan_parquet(out / "shards" / "*.parquet").select(pl.len()).collect().item() == 300


class _Exited(Exception):
    pass


@pytest.mark.parametrize(
    ("code", "dask_loaded", "fast"),
    [(0, False, True), (None, False, True), (1, False, False), (2, False, False),
     (0, True, False)],
)  # fmt: skip
def test_main_skips_teardown_only_after_success_without_dask(
    monkeypatch: pytest.MonkeyPatch, code: int | None, dask_loaded: bool, fast: bool
) -> None:
    import scopa_sim_cli.main as cm

    def command(**kwargs: object) -> None:
        raise SystemExit(code)

    def exit_now(status: int) -> None:
        raise _Exited(status)

    monkeypatch.setattr(cm.cli, "main", command)
    monkeypatch.setattr(cm.os, "_exit", exit_now)
    if dask_loaded:
        monkeypatch.setitem(sys.modules, "distributed", object())
    else:
        monkeypatch.delitem(sys.modules, "distributed", raising=False)
    with pytest.raises(_Exited if fast else SystemExit) as info:
        cm.main()
    assert info.value.args[0] == (0 if fast else code)


@pytest.mark.slow
def test_start_up_savings_stay_in_the_cli_process() -> None:
    """The command line skips numba's BLAS probe, yet scipy still imports and the
    statistics that use it work."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    code = (
        "import scopa_sim_cli, numba.np.arraymath as am, scipy.stats, scipy.linalg.cython_blas, os;"
        "print(am._HAVE_BLAS, os.environ['OPENBLAS_NUM_THREADS'],"
        " round(float(scipy.stats.norm.ppf(0.975)), 2))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["False", "1", "1.96"]


# --------------------------------------------------------------------------- Cirulla
@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "--preset", "cirulla", "--policy", "eval", "--hands", "2", "--out", "{tmp}"),
        ("equity", "--preset", "cirulla-3", "--out", "{tmp}/eq.json"),
    ],
)
def test_cirulla_is_refused_in_one_line_where_the_engine_does_not_play_it(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    """RULES.md §10: what does not play Cirulla yet (the evaluator as a player) or cannot
    (a match-equity table of three sides) says so in one line, exit status 2, and writes
    nothing (issue 42)."""
    result = run(*(a.format(tmp=tmp_path) for a in args))
    if args[0] == "simulate":
        usage_error(result, "capture_mode=cirulla", "does not play")
    else:
        usage_error(result, "needs two sides", "not 3")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("preset", "policy", "unit"),
    [("cirulla", "random", "--hands"), ("cirulla-3", "greedy", "--hands"),
     ("cirulla-4", "expert", "--matches"), ("cirulla", "expert", "--matches")],
)  # fmt: skip
def test_cirulla_simulates_with_its_items(preset: str, policy: str, unit: str, tmp_path: Path):
    """``simulate --preset cirulla*`` with the jitted policies writes Cirulla's items
    (grande, piccola, declarations) in columns of their own, counted in the points, and
    ``analyze`` shows them."""
    import polars as pl

    out = tmp_path / "run"
    result = run("simulate", "--preset", preset, "--policy", policy, unit, "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = pl.read_parquet(out / "shards")
    sides = int(rows["sides"][0])
    items = ("scope", "cards", "denari", "settebello", "primiera", "re_bello", "grande",
             "piccola", "declarations")  # fmt: skip
    for k in range(sides):
        parts = sum(rows[f"s{k}_{i}"] for i in items)
        assert (parts == rows[f"s{k}_points"]).all()
    assert rows["s0_declarations"].dtype == pl.Int16
    if unit == "--matches":
        assert rows["winner"].drop_nulls().len() == 3
    text = run("analyze", str(out))
    assert text.exit_code == 0 and "grande" in text.output and "declarations" in text.output
    # its deals are not dealt again (void deals, the opening count): one line
    usage_error(run("analyze", str(out), "--by", "table_sum"), "Cirulla", "not dealt again")


def test_cirulla_variants_show_its_options() -> None:
    result = run("variants", "cirulla", "--rule", "matta=play")
    assert result.exit_code == 0
    options = dict(line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    assert options["capture_mode"] == "cirulla" and options["matta"] == "play"
    assert options["target"] == "51" and options["piccola_max"] == "6"
