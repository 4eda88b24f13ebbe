"""Malformed input to the play/replay/advise/tournament/variants/advantage commands: each
case is one `Error: ...` line and a non-zero exit status, never a traceback or silently
wrong numbers (issue 14). The commands that showed each fault are the regression tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scopa_sim_cli.main import cli

from scopa_sim.bots.advise import PositionError, check_scope, position_from_cards
from scopa_sim.bots.registry import PolicyError, PolicySpec
from scopa_sim.errors import RulesError
from scopa_sim.game.cards import CardSet
from scopa_sim.game.rules import Rules, parse_overrides

P = CardSet.parse
#: A search policy small enough for tests that reach the search.
FAST = ["--policy", "ismcts:iterations=20"]


def run(*args: str, input: str | bytes | None = None) -> Result:
    """Invoke the app: never a traceback, any exception a clean exit."""
    res = CliRunner().invoke(cli, list(args), input=input, prog_name="scopa-sim")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    assert "Traceback" not in res.output
    return res


def one_line_error(res: Result, *named: str) -> str:
    """A failure with exactly one line of output, `Error: ...`, naming every ``named``."""
    assert res.exit_code not in (0, None), res.output
    # click's own usage errors come with a "Usage:" and a "Try ... --help" line
    lines = [ln for ln in res.output.strip().splitlines() if not ln.startswith(("Usage:", "Try "))]
    lines = [ln for ln in lines if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two matches of 2-player scopa as a record file."""
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    assert run("play", "--matches", "2", "--seed", "3", "--record", str(path)).exit_code == 0
    return path


# --------------------------------------------------------------------------- scope counts
def test_advise_scope_at_the_start_of_a_hand_is_an_error() -> None:
    """`advise --scope 50,0` on a fresh hand reported a margin of +51.5."""
    res = run("advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--scope", "50,0", *FAST)
    one_line_error(res, "impossible position", "your side cannot have 50 scope", "at most 0")
    res = run("advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--scope", "0,1", *FAST)
    one_line_error(res, "the other side cannot have 1 scope")


def test_scope_bounded_by_plays_and_pile() -> None:
    r = Rules.make()
    # Seat 0 holds 2 and the other 1: the other side led, so 2 plays to 1 have been made.
    kw = {"opponent_cards": 1, "mine": P("AD 2D 3D 4D"), "theirs": P("KC QC")}
    st_ = position_from_cards(r, P("7D 3S"), P("5H"), scope=(1, 1), **kw)
    assert st_.scope == [1, 1]
    with pytest.raises(PositionError, match="your side cannot have 2 scope: it has made 1 play"):
        position_from_cards(r, P("7D 3S"), P("5H"), scope=(2, 1), **kw)
    # Two plays but only 2 cards in the pile: one scopa at most.
    with pytest.raises(PositionError, match=r"other side cannot have 2 scope.*2 captured"):
        position_from_cards(r, P("7D 3S"), P("5H"), scope=(0, 2), **kw)
    check_scope(st_)  # the check itself, on a possible position


def test_advise_accepts_possible_scope() -> None:
    args = ["--hand", "7D 3S", "--table", "5H", "--mine", "AD 2D 3D 4D", "--theirs", "KC QC"]
    res = run("advise", *args, "--scope", "1,1", "--json", *FAST)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["plays"]


@pytest.mark.parametrize("scope", ["1", "1,2,3", "a,b", "-1,0", "1.5,0", ",", "", "1,²"])
def test_advise_bad_scope_text(scope: str) -> None:
    one_line_error(run("advise", "--hand", "7D", "--scope", scope, *FAST), "--scope")


# --------------------------------------------------------------------------- repeated keys
def test_repeated_policy_parameter_is_an_error() -> None:
    res = run("play", "--policy", "ismcts:iterations=10,iterations=20")
    one_line_error(res, "'iterations' given twice")
    with pytest.raises(PolicyError, match="given twice"):
        PolicySpec.parse("pimc:worlds=2, worlds=2")
    assert PolicySpec.parse("pimc:worlds=2,depth=2").params == (("worlds", "2"), ("depth", "2"))


def test_repeated_rule_is_an_error() -> None:
    res = run("play", "--rule", "players=3", "--rule", "players=4")
    one_line_error(res, "'players' given twice")
    one_line_error(run("variants", "scopa", "--rule", "target=5", "--rule", " target=5"), "twice")
    with pytest.raises(RulesError, match="given twice"):
        parse_overrides(["deck=36", "deck=40"])
    assert parse_overrides(["deck=36", "target=5"]) == {"deck": 36, "target": 5}


# --------------------------------------------------------------------------- --position
def test_advise_position_on_a_binary_file(tmp_path: Path) -> None:
    """`advise --position FILE:L:P` on a binary file raised UnicodeDecodeError."""
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    one_line_error(run("advise", "--position", f"{binary}:1:1"), "not a text (UTF-8)")


@pytest.mark.parametrize(
    ("suffix", "message"),
    [
        (":0:0", "has lines 1..8, not 0"),
        (":9:0", "has lines 1..8, not 9"),
        (":99999999999999999999999:0", "not 99999999999999999999999"),
        (":1:-1", "expected FILE.jsonl:LINE:PLAY"),
        (":x:1", "expected FILE.jsonl:LINE:PLAY"),
        (":1:1.5", "expected FILE.jsonl:LINE:PLAY"),
        (":1:²", "expected FILE.jsonl:LINE:PLAY"),
        (":1", "expected FILE.jsonl:LINE:PLAY"),
        ("", "expected FILE.jsonl:LINE:PLAY"),
        (":1:36", "the hand has plays 0..35, not 36"),
    ],
)
def test_advise_position_bad_line_or_play(records: Path, suffix: str, message: str) -> None:
    one_line_error(run("advise", "--position", f"{records}{suffix}"), message)


def test_advise_position_bad_files(tmp_path: Path, records: Path) -> None:
    one_line_error(run("advise", "--position", f"{tmp_path / 'none'}:1:0"), "no such file")
    one_line_error(run("advise", "--position", f"{tmp_path}:1:0"), "is a directory")
    one_line_error(run("advise", "--position", ":1:0"), "expected FILE")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    one_line_error(run("advise", "--position", f"{empty}:1:0"), "is empty")
    junk = tmp_path / "junk.jsonl"
    lines = records.read_text().splitlines()
    obj = json.loads(lines[0])
    bad = [
        "hello",
        "[]",
        "{}",
        "[" * 50_000,
        json.dumps({**obj, "dealer": "0"}),
        json.dumps({**obj, "deals": 7}),
        json.dumps({**obj, "rules": {**obj["rules"], "players": 9}}),
        json.dumps({**obj, "plays": [{"card": 7, "take": []}] * 3}),
        json.dumps({**obj, "plays": [{"card": "7D", "take": ["KS"]}] * 3}),
    ]
    junk.write_text("\n".join(bad) + "\n")
    for i in range(1, len(bad) + 1):
        one_line_error(run("advise", "--position", f"{junk}:{i}:1"), f"line {i}")


def test_advise_position_excludes_the_card_options(records: Path) -> None:
    pos = ["advise", "--position", f"{records}:1:3"]
    for extra in (["--hand", "7D"], ["--table", "7D"], ["--scope", "0,0"], ["--preset", "scopa"]):
        one_line_error(run(*pos, *extra), f"drop {extra[0][2:]}")
    one_line_error(run(*pos, "--rule", "target=5"), "drop rules")


def test_advise_position_from_the_record(records: Path) -> None:
    res = run("advise", "--position", f"{records}:2:4", "--json", *FAST)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["plays"]


# --------------------------------------------------------------------------- fuzzing
_TEXT = st.text(
    alphabet=st.sampled_from(list("7DSHCAKJQ0123456789 ,:=x-♦♠\x00é")), min_size=0, max_size=12
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=_TEXT, table=_TEXT, scope=_TEXT)
def test_advise_card_text_never_crashes(hand: str, table: str, scope: str) -> None:
    res = run("advise", "--hand", hand, "--table", table, "--scope", scope, *FAST)
    if res.exit_code != 0:
        one_line_error(res)


@settings(max_examples=60, deadline=None)
@given(text=_TEXT)
def test_policy_text_never_crashes(text: str) -> None:
    res = run("play", "--policy", text, "--rule", "target=1")
    if res.exit_code != 0:
        one_line_error(res)


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(["players", "target", "deck", "teams", "x", ""]), value=_TEXT)
def test_rule_text_never_crashes(key: str, value: str) -> None:
    res = run("variants", "scopa", "--rule", f"{key}={value}")
    if res.exit_code != 0:
        one_line_error(res)


# --------------------------------------------------------------------------- replay --show
def test_replay_show_prints_a_hand_play_by_play(records: Path) -> None:
    res = run("replay", str(records), "--show", "3")
    assert res.exit_code == 0, res.output
    obj = json.loads(records.read_text().splitlines()[2])
    lines = res.output.splitlines()
    assert lines[0] == "line 3:"
    assert lines[1].startswith(f"match {obj['match']}, hand {obj['hand']}: scopa")
    plays = [line for line in lines if re.match(r"^ *\d+\. seat ", line)]
    assert len(plays) == len(obj["plays"])
    for text, p in zip(plays, obj["plays"], strict=True):
        assert f"seat {p['seat']} [" in text and p["card"] in text
        verb = "takes " + " ".join(str(CardSet.parse(p["take"])).split()) if p["take"] else "laid"
        assert verb in text, text
    scope = sum(s["scope"] for s in obj["score"])
    assert sum("SCOPA" in line for line in plays) == scope
    totals = "-".join(str(t) for t in obj["totals_after"])
    assert lines[-1].startswith(f"totals after: {totals};")
    assert sum(line.startswith("deal ") for line in lines) == len(obj["deals"])


def test_replay_show_every_hand_and_stdin(records: Path) -> None:
    n = len(records.read_text().splitlines())
    res = run("replay", str(records), "--show")
    assert res.exit_code == 0, res.output
    assert [ln for ln in res.output.splitlines() if ln.startswith("line ")] == [
        f"line {i}:" for i in range(1, n + 1)
    ]
    res = run("replay", "-", "--show", "2", input=records.read_text())
    assert res.exit_code == 0 and res.output.startswith("line 2:\nmatch 0, hand 1")


@pytest.mark.parametrize(
    ("line", "message"),
    [("0", "expected a line number from 1"), ("x", "expected a line number"),
     ("1.5", "expected a line number"), ("9", "has lines 1..8"), ("²", "expected a line")],
)  # fmt: skip
def test_replay_show_bad_line(records: Path, line: str, message: str) -> None:
    one_line_error(run("replay", str(records), "--show", line), message)


def test_replay_show_bad_files(tmp_path: Path, records: Path) -> None:
    empty, binary, bad = tmp_path / "e.jsonl", tmp_path / "b.jsonl", tmp_path / "bad.jsonl"
    empty.write_text("")
    binary.write_bytes(bytes(range(256)))
    obj = json.loads(records.read_text().splitlines()[0])
    obj["plays"][0]["card"] = "KS" if obj["plays"][0]["card"] != "KS" else "KD"
    bad.write_text("{}\n" + json.dumps(obj) + "\n[[[\n")
    one_line_error(run("replay", str(empty), "--show"), "holds no records")
    one_line_error(run("replay", str(binary), "--show", "1"), "not a text (UTF-8) file")
    one_line_error(run("replay", str(tmp_path / "none"), "--show"), "no such file")
    one_line_error(run("replay", str(bad), "--show", "1"), "line 1: format is None")
    one_line_error(run("replay", str(bad), "--show", "2"), "line 2: play 0")
    one_line_error(run("replay", str(bad), "--show", "3"), "line 3: malformed JSON")
    res = run("replay", str(bad), "--show")  # the first bad line stops the listing
    assert res.exit_code == 1 and res.output.splitlines()[-1].startswith("Error: line 1:")


# --------------------------------------------------------------------------- found by fuzzing
@pytest.mark.parametrize(
    "param", ["ismcts:iterations=99999999999999999999", "pimc:worlds=2147483648"]
)
def test_policy_counts_beyond_32_bits_are_errors(param: str) -> None:
    """These raised numpy's 'Maximum allowed dimension exceeded' in the middle of a match."""
    res = run("play", "--policy", param.replace("2**31", str(2**31)))
    one_line_error(res, "at most 2147483647")


def test_out_of_memory_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import scopa_sim.sim.match

    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("Unable to allocate 59.6 GiB")

    monkeypatch.setattr(scopa_sim.sim.match, "play_match", no_memory)
    one_line_error(run("play"), "not enough memory (Unable to allocate 59.6 GiB)")


@pytest.mark.parametrize("sprt", ["nan,1", "0,1e400", "-inf,inf", "0,nan"])
def test_tournament_sprt_bounds_must_be_finite(sprt: str) -> None:
    res = run("tournament", "--policy", "greedy", "--policy", "random", "--sprt", sprt)
    one_line_error(res, "must be finite")


@settings(max_examples=40, deadline=None)
@given(text=_TEXT)
def test_tournament_sprt_text_never_crashes(text: str) -> None:
    args = ["tournament", "--policy", "greedy", "--policy", "random", "--deals", "2"]
    res = run(*args, "--sprt", text)
    if res.exit_code != 0:
        one_line_error(res)


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_advise_refuses_a_policy_without_values(policy: str) -> None:
    """`advise --policy random` printed +nan margins with n = 0."""
    res = run("advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--policy", policy)
    one_line_error(res, "search policy", "gives no values")


def test_play_record_to_an_empty_name_is_an_error() -> None:
    """`play --record ''` wrote nothing and said nothing."""
    one_line_error(run("play", "--record", ""), "--record ''")


def test_replay_show_empty_stdin_and_bom(tmp_path: Path, records: Path) -> None:
    one_line_error(run("replay", "-", "--show", input=""), "standard input holds no records")
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + records.read_bytes())  # a file saved by a Windows editor
    assert run("replay", str(bom)).exit_code == 0
    assert run("replay", str(bom), "--show", "1").exit_code == 0
    assert run("advise", "--position", f"{bom}:1:0", *FAST).exit_code == 0


@settings(max_examples=30, deadline=None)
@given(line=_TEXT)
def test_replay_show_line_never_crashes(records: Path, line: str) -> None:
    res = run("replay", str(records), "--show", line)
    if res.exit_code != 0:
        one_line_error(res)


@pytest.mark.slow
def test_tournament_workers_beyond_the_deals() -> None:
    r = Rules.make()
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    from scopa_sim.sim.tournament import run_tournament

    assert run_tournament(r, specs, 3, seed=1, workers=64) == run_tournament(r, specs, 3, seed=1)


# --------------------------------------------------------------------------- whole commands
_VALUES = st.sampled_from(
    ["", "0", "1", "2", "-1", "x", "1e3", "nan", "99999999999999999999", "7D", "7D 7D", "10C",
     "AS 2S", "scopa", "scopa-4", "scopone", "random", "greedy", "pimc:worlds=1,depth=1",
     "ismcts:iterations=5", "ismcts:iterations=5,iterations=6", "players=3", "players=4",
     "target=1", "target=0", "deck=36", "teams=true", "1,0", "0,20", "-", "/nonexistent",
     "/tmp", "\x00", "é", "games.jsonl", "games.jsonl:1:2", "games.jsonl:2:99"]
)  # fmt: skip
_OPTIONS = {
    "play": ["--preset", "--rule", "--matches", "--seed", "--policy", "--record"],
    "replay": ["--show", "--allow-unfinished", "-q"],
    "advise": ["--preset", "--rule", "--hand", "--table", "--mine", "--theirs", "--seen",
               "--scope", "--opponent-cards", "--position", "--policy", "--seed", "--json"],
    "tournament": ["--preset", "--rule", "--policy", "--deals", "--seed", "--sprt",
                   "--alpha", "--beta", "--workers", "--json"],
    "variants": ["--rule"],
    "advantage": ["--preset", "--rule", "--hands", "--seed", "--policy", "--json"],
}  # fmt: skip
_FLAGS = {"--allow-unfinished", "-q", "--json"}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(sorted(_OPTIONS)))
    args = [name]
    if name in ("replay", "variants") and draw(st.booleans()):
        args.append(draw(_VALUES))
    for option in draw(st.lists(st.sampled_from(_OPTIONS[name]), max_size=5)):
        args.append(option)
        if option not in _FLAGS:
            value = draw(_VALUES)
            if option in ("--matches", "--hands", "--deals", "--workers"):
                value = value if not value.isdecimal() or int(value) <= 2 else "2"
            args.append(value)
    return args


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=command_lines())
def test_malformed_command_lines_fail_in_one_line(
    records: Path, tmp_path_factory: pytest.TempPathFactory, args: list[str]
) -> None:
    """Any mix of good and bad options: success, or one `Error:` line (exit 1 or 2);
    `replay` reports violations as `line N: reason` lines, each one line."""
    args = [a.replace("games.jsonl", str(records)) for a in args]
    for i in range(1, len(args)):  # records go to a temporary file, never to the cwd
        if args[i - 1] == "--record" and args[i] not in ("", "-"):
            args[i] = str(tmp_path_factory.mktemp("out") / "r.jsonl")
    res = run(*args)
    assert res.exit_code in (0, 1, 2), (args, res.output)
    if res.exit_code == 0:
        return
    if args[0] == "replay" and "--show" not in args and res.exit_code == 1:
        lines = [ln for ln in res.output.splitlines() if not ln.endswith(("line", "lines"))]
        file_level = r"the file holds no records$"  # an empty file: no line to name
        assert lines and all(
            re.match(rf"^(line \d+: \S|\S+: not a text|{file_level})", ln) for ln in lines
        )
        return
    one_line_error(res)


def test_records_with_numbers_beyond_int64(tmp_path: Path, records: Path) -> None:
    """A record whose rules say target=2^70 made replay raise OverflowError."""
    obj = json.loads(records.read_text().splitlines()[0])
    obj["rules"]["target"] = 2**70
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(obj) + "\n")
    res = run("replay", str(path))
    assert res.exit_code == 1 and res.output.startswith("line 1: "), res.output
    one_line_error(run("replay", str(path), "--show", "1"), "line 1:")
    one_line_error(run("advise", "--position", f"{path}:1:0", *FAST), "line 1")


# --------------------------------------------------------------------------- NUL in a path
@pytest.mark.parametrize(
    "args",
    [
        ["replay", "\x00"],
        ["replay", "a\x00b", "--show"],
        ["play", "--record", "r\x00.jsonl"],
        ["simulate", "--hands", "1", "--out", "run\x00"],
        ["analyze", "run\x00"],
        ["review", "game\x00.jsonl"],
        ["equity", "--out", "t\x00.json"],
        ["study", "--out", "o\x00"],
        [
            "advise",
            "--hand",
            "7D",
            "--table",
            "KD",
            "--policy",
            "ismcts:objective=match,equity=a\x00",
        ],
    ],
    ids=lambda a: a[0],
)
def test_a_path_with_a_nul_character_is_a_one_line_error(args: list[str]) -> None:
    """`replay $'\\x00'` ended in a ValueError traceback (found by the hypothesis test
    below): no file can be named with a NUL, and open() raises ValueError for it."""
    one_line_error(run(*args))
