"""The learned policy's training pipeline (:func:`scopa_sim.sim.training.train`): the same
arguments give the same weights, an interrupted training resumes to them, a damaged
piece is computed again, and bad input is refused before any work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scopa_sim.bots import learned as BL
from scopa_sim.errors import FileError, InputError
from scopa_sim.game.rules import Rules
from scopa_sim.sim import training as T

TINY = {"hands": 24, "chunk": 8, "worlds": 2, "hidden": 4, "epochs": 2, "pairs": 20}


def tiny(preset: str = "scopa", **kw: object) -> T.TrainConfig:
    return T.TrainConfig(preset=preset, **{**TINY, "seed": 5, **kw})  # type: ignore[arg-type]


def test_a_training_records_its_weights_samples_and_results(tmp_path: Path) -> None:
    cfg = tiny()
    lines: list[str] = []
    doc = T.train(cfg, tmp_path / "a", say=lines.append)
    model = T.load_model(tmp_path / "a" / "model.npy")
    assert doc["digest"] == BL.model_digest(model)
    assert doc["decisions"] > 0 and doc["plays"] > doc["decisions"]
    assert doc["command"] == cfg.command(tmp_path / "a")
    assert doc["cpu_seconds"]["train"] > 0 and doc["rules"] == Rules.make("scopa").as_dict()
    assert set(doc["results"]) == {"expert", "expert+exact"}
    for r in doc["results"].values():
        assert r["low"] <= r["estimate"] <= r["high"] and r["n"] == 20
    assert len(lines) == 3 + 1 + 2  # three data pieces, the fit, two evaluations
    assert json.loads((tmp_path / "a" / "train.json").read_text()) == doc
    # the same arguments elsewhere: the same weights; another seed: others
    assert T.train(cfg, tmp_path / "b")["digest"] == doc["digest"]
    assert T.train(tiny(seed=6, eval_seed=7), tmp_path / "c")["digest"] != doc["digest"]


class Stop(KeyboardInterrupt):
    pass


def test_an_interrupted_training_resumes_to_the_same_weights(tmp_path: Path) -> None:
    cfg = tiny()
    whole = T.train(cfg, tmp_path / "whole")

    def stop_after_first_piece(line: str) -> None:
        if "data 1/" in line:
            raise Stop

    with pytest.raises(Stop):
        T.train(cfg, tmp_path / "cut", say=stop_after_first_piece)
    assert len(list((tmp_path / "cut" / "data").glob("*.npz"))) == 1
    assert not (tmp_path / "cut" / "model.npy").exists()
    lines: list[str] = []
    again = T.train(cfg, tmp_path / "cut", say=lines.append)
    assert again["digest"] == whole["digest"] and again["results"] == whole["results"]
    # a damaged piece is computed again (the same samples), a finished run reused
    piece = sorted((tmp_path / "cut" / "data").glob("*.npz"))[1]
    piece.write_bytes(piece.read_bytes()[:100])
    assert T.train(cfg, tmp_path / "cut")["digest"] == whole["digest"]


def test_a_training_ships_its_weights_into_a_manifest(tmp_path: Path) -> None:
    out, dest = tmp_path / "run", tmp_path / "weights"
    doc = T.train(tiny("scopa-3"), out)
    (dest).mkdir()
    (dest / "manifest.json").write_text(json.dumps({"format": 1, "presets": {"scopa": {}}}))
    entry = T.ship(out, dest)
    manifest = json.loads((dest / "manifest.json").read_text())
    assert set(manifest["presets"]) == {"scopa", "scopa-3"}
    assert manifest["presets"]["scopa-3"] == entry
    assert entry["digest"] == doc["digest"] and entry["file"] == "scopa-3.npy"
    assert entry["n_sparse"] == BL.N_SPARSE and entry["hidden"] == 4
    assert entry["rules"] == Rules.make("scopa-3").digest()
    assert entry["rules_options"] == Rules.make("scopa-3").as_dict()
    assert BL.model_digest(np.load(dest / "scopa-3.npy")) == doc["digest"]
    with pytest.raises(FileError, match="no finished training"):
        T.ship(tmp_path / "none", dest)


def test_three_sides_are_measured_against_the_baseline_seat_by_seat() -> None:
    rules = Rules.make("scopa-3")
    same = T.versus_samples(rules, BL.new_model(0, 0), "expert", 30, 1)
    assert same.shape == (30,) and np.allclose(same, 0.0)  # the new model plays as expert


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"preset": "nope"}, "unknown preset"),
        ({"preset": "cirulla", "search_hands": 10}, "not on Cirulla's"),
        ({"hands": 0}, "hands must be in"),
        ({"chunk": -1}, "chunk must be in"),
        ({"rate": 1.5}, "rate must be in"),
        ({"pairs": 1}, "pairs must be in"),
        ({"eval_seed": 5}, "eval-seed must differ"),
    ],
)
def test_bad_configurations_are_refused_before_any_work(
    tmp_path: Path, change: dict, words: str
) -> None:
    fields = {**TINY, "seed": 5, "preset": "scopa", **change}
    with pytest.raises(InputError, match=words):
        T.train(T.TrainConfig(**fields), tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_a_directory_of_another_training_or_of_other_files_is_refused(tmp_path: Path) -> None:
    T.train(tiny(), tmp_path / "a")
    with pytest.raises(InputError, match=r"another training .*chunk"):
        T.train(tiny(chunk=4), tmp_path / "a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        T.train(tiny(), tmp_path / "b")
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="cannot write the training directory"):
        T.train(tiny(), tmp_path / "file")


def test_versus_plays_through_the_bots_when_asked() -> None:
    e = T.versus(Rules.make("scopa-4"), BL.new_model(0, 0), "expert", 4, 1, exact=True, bots=True)
    assert e.n == 4 and e.estimate == 0.0  # a new model plays as the expert bot


def test_another_fit_of_the_same_data_reuses_the_data_pieces(tmp_path: Path) -> None:
    T.train(tiny(), tmp_path / "a")
    pieces = {p: p.stat().st_mtime_ns for p in (tmp_path / "a" / "data").iterdir()}
    doc = T.train(tiny(lr=0.002, pairs=10), tmp_path / "a")
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "a" / "data").iterdir()} == pieces
    assert doc["digest"] == T.train(tiny(lr=0.002, pairs=10), tmp_path / "b")["digest"]
    assert doc["results"]["expert"]["n"] == 10
    first = T.train(tiny(), tmp_path / "a")  # and back: the first model again
    assert first["digest"] == T.train(tiny(), tmp_path / "c")["digest"] != doc["digest"]


def test_the_pieces_are_readable_as_files_open_makes_them(tmp_path: Path) -> None:
    T.train(tiny(), tmp_path / "a")
    for p in [tmp_path / "a" / "model.npy", *(tmp_path / "a" / "data").iterdir()]:
        assert p.stat().st_mode & 0o044 == 0o044 & ~T._umask(), p


def test_more_hands_reuse_the_pieces_made(tmp_path: Path) -> None:
    T.train(tiny(hands=16), tmp_path / "a")
    pieces = {p: p.stat().st_mtime_ns for p in (tmp_path / "a" / "data").iterdir()}
    assert len(pieces) == 2
    doc = T.train(tiny(), tmp_path / "a")  # 24 hands: a third piece
    assert doc["digest"] == T.train(tiny(), tmp_path / "b")["digest"]
    assert all(p.stat().st_mtime_ns == t for p, t in pieces.items())


def test_label_errors_take_the_noise_off() -> None:
    """Labels that are the truth plus independent noise, a model off the truth by a known
    amount: the noise is the noise's variance, the model's error the mean squared
    centred offset, the big labels' error about zero and the expert's about its offset."""
    g = np.random.default_rng(5)
    decisions, plays = 4000, 3
    dec = np.repeat(np.arange(decisions), plays)
    truth = g.normal(0.0, 1.0, dec.size)
    off = np.tile([0.1, -0.1, 0.0], decisions)  # centred per decision: 0.02 / 3 a play
    x = np.column_stack([dec, truth + g.normal(0, 0.3, dec.size),
                         truth + g.normal(0, 0.3, dec.size), truth + g.normal(0, 0.3 / 8, dec.size),
                         truth + off, truth + 2 * off])  # fmt: skip
    assert x.shape[1] == len(T.LABEL_COLUMNS)
    res = T.label_errors(x, 1, 64)
    assert res["decisions"] == decisions and res["plays"] == dec.size
    # a label's noise, centred per decision of three plays: 0.09 * 2 / 3
    assert res["noise"] == pytest.approx(0.06, rel=0.05)
    lo, hi = res["noise_ci"]
    assert lo < res["noise"] < hi
    assert res["model_error"] == pytest.approx(0.02 / 3, abs=0.003)
    assert res["model_error_big"] == pytest.approx(0.02 / 3, abs=0.001)
    assert res["expert_error_big"] == pytest.approx(0.08 / 3, abs=0.002)
    assert abs(res["big_error"]) < 0.003
    assert res["model_less_expert_big"] == pytest.approx(-0.02, abs=0.002)
