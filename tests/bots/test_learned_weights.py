"""The learned policy's shipped weights (scopa_sim.bots.learned_weights): the manifest and
the files agree, they load once, and every way they can be missing or wrong is a one-line
error; the policy through its faces (registry, bot, configuration of a run)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.bots import learned_weights as W
from scopa_sim.bots.base import KernelBot
from scopa_sim.bots.learned import model_digest
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import FileError, PolicyError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.rules import PRESETS, Rules
from scopa_sim.game.state import HandState

SCOPA = Rules.make("scopa")


def test_the_shipped_weights_match_their_manifest() -> None:
    """Every manifest entry names a file of its SHA-256 whose model vector has the
    entry's digest, layout and hidden width, trained under its preset's rules."""
    entries = W.manifest()
    assert set(entries) == set(PRESETS)  # every preset has weights, Cirulla's included
    for preset, e in entries.items():
        blob = (W.WEIGHTS_DIR / e.file).read_bytes()
        assert hashlib.sha256(blob).hexdigest() == e.sha256
        rules = Rules.make(preset)
        m = W.load_weights(rules)
        assert model_digest(m) == e.digest
        size = KLC.model_size_cirulla if rules.cirulla else KL.model_size
        assert m.shape[0] == size(e.hidden) and m.dtype == np.float64
        assert e.version == (KLC.VERSION if rules.cirulla else KL.VERSION)
        assert e.rules == Rules.make(preset).digest()
        assert e.decisions > 0 and e.cpu_seconds > 0 and e.command


def test_weights_load_once_per_process() -> None:
    """The same array every time (a worker loads them once)."""
    assert W.load_weights(SCOPA) is W.load_weights(Rules.make("scopa"))


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "weights"
    shutil.copytree(W.WEIGHTS_DIR, d)
    return d


def test_a_missing_or_corrupt_file_is_a_file_error_naming_it_and_its_digest(
    tmp_path: Path,
) -> None:
    d = _copy(tmp_path)
    sha = W.manifest()["scopa"].sha256
    f = d / "scopa.npy"
    blob = bytearray(f.read_bytes())
    blob[-1] ^= 1
    f.write_bytes(bytes(blob))
    with pytest.raises(FileError, match=f"scopa.npy: learned weights corrupt.*{sha}") as e:
        W.load_weights(SCOPA, d)
    assert "\n" not in str(e.value)
    f.unlink()
    with pytest.raises(FileError, match=f"scopa.npy: learned weights missing.*{sha}"):
        W.load_weights(SCOPA, d)


def test_cirulla_weights_of_scopas_layout_are_refused(tmp_path: Path) -> None:
    """A Cirulla preset's entry must name a model of Cirulla's layout (version 2): a Scopa
    model there (its SHA-256 right) is a FileError naming the file and the layout."""
    d = _copy(tmp_path)
    shutil.copy(d / "scopa.npy", d / "cirulla.npy")
    doc = json.loads((d / W.MANIFEST).read_text())
    entry = doc["presets"]["cirulla"]
    entry["sha256"] = hashlib.sha256((d / "cirulla.npy").read_bytes()).hexdigest()
    (d / W.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(FileError, match=r"cirulla\.npy: not a learned model vector of layout "
                       "version 2"):  # fmt: skip
        W.load_weights(Rules.make("cirulla"), d)


def test_cirulla_derived_rules_play_their_presets_weights() -> None:
    derived = Rules.make("cirulla", overrides=["matta=play"])
    assert W.base_preset(derived) == "cirulla"
    assert W.load_weights(derived) is W.load_weights(Rules.make("cirulla"))


def test_a_bad_manifest_is_a_file_error(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    (d / W.MANIFEST).write_text("{not json")
    with pytest.raises(FileError, match="manifest is not JSON"):
        W.manifest(d)
    d2 = _copy(tmp_path / "b")
    doc = json.loads((d2 / W.MANIFEST).read_text())
    doc["presets"]["scopa"]["sha256"] = 5
    (d2 / W.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(FileError, match="'sha256'"):
        W.manifest(d2)


def test_a_preset_without_weights_names_the_command_that_trains_them(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    doc = json.loads((d / W.MANIFEST).read_text())
    doc["presets"].pop("escoba", None)
    (d / W.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(PolicyError, match="`scopa-sim train --preset escoba`"):
        W.load_weights(Rules.make("escoba"), d)


def test_a_preset_with_options_changed_plays_its_base_presets_weights() -> None:
    """The preset of the same structure with the fewest differing options: `scopa` for
    `scopa` with napola, `scopa-15` for `scopa-15` without compulsory capture."""
    derived = Rules.make("scopa", overrides=["remainder_to=dealer"])
    assert derived.preset_name() is None and W.base_preset(derived) == "scopa"
    assert W.load_weights(derived) is W.load_weights(SCOPA)
    assert W.weights_entry(derived) == W.manifest()["scopa"]
    fifteen = Rules.make("scopa-15", overrides=["capture_compulsory=false"])
    assert W.base_preset(fifteen) == "scopa-15"
    assert W.base_preset(Rules.make("scopa", overrides=["deck=36", "re_bello=true"])) == "scopa-36"
    # one option from `asso-piglia-tutto`, two from `scopa`
    assert W.base_preset(Rules.make("scopa", overrides=["ace_sweep=true", "re_bello=true"])) == (
        "asso-piglia-tutto"
    )


def test_a_derived_rule_set_whose_base_has_no_weights_names_the_command(
    tmp_path: Path,
) -> None:
    d = _copy(tmp_path)
    doc = json.loads((d / W.MANIFEST).read_text())
    doc["presets"].pop("escoba", None)
    (d / W.MANIFEST).write_text(json.dumps(doc))
    rules = Rules.make("escoba", overrides=["four_sevens_point=true"])
    with pytest.raises(PolicyError, match="`scopa-sim train --preset escoba`") as e:
        W.load_weights(rules, d)
    assert "\n" not in str(e.value)


def test_rules_of_a_structure_no_preset_has_have_no_weights() -> None:
    rules = Rules.make("scopa", overrides=["players=3", "hand_size=4"])
    assert W.base_preset(rules) is None
    with pytest.raises(PolicyError, match="no preset has the structure") as e:
        W.load_weights(rules)
    assert "\n" not in str(e.value)


def test_weights_trained_under_other_rules_are_refused(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    doc = json.loads((d / W.MANIFEST).read_text())
    doc["presets"]["scopa"]["rules"] = "0" * 16
    (d / W.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(PolicyError, match=r"other rules.*scopa-sim train --preset scopa"):
        W.load_weights(SCOPA, d)


def test_learned_is_a_kernel_policy_with_one_parameter() -> None:
    spec = PolicySpec.parse("learned")
    assert spec.is_kernel and spec.code == K.POLICY_LEARNED == KL.LEARNED
    with pytest.raises(PolicyError, match=r"unknown parameter 'exact'.*allowed: worlds"):
        PolicySpec.parse("learned:exact=0")


def test_the_bot_plays_the_kernels_choice() -> None:
    """KernelBot('learned') picks what the step kernels' chooser picks (the model, the
    exact endgame where the information set is one world), chosen play first."""
    bot = KernelBot("learned")
    bot.prepare(SCOPA)
    model = W.load_weights(SCOPA)
    for seed in (4, 5, 6):
        _play_a_hand(bot, model, HandState.deal(SCOPA, dealer=seed % 2, seed=seed))
    with pytest.raises(PolicyError, match="no preset has the structure"):
        KernelBot("learned").prepare(Rules.make("scopa", overrides=["players=3", "hand_size=4"]))


def _play_a_hand(bot: KernelBot, model: np.ndarray, state: HandState) -> None:
    """Play the hand with ``bot``, checking each choice against the kernels'."""
    while not state.is_over:
        stats = bot.analyse(state, 11 + state.plays_made)
        assert stats[0].chosen and sum(s.chosen for s in stats) == 1
        vec, r = InfoSet(state).vector, state._r
        bc = np.empty(K.MAX_PLAYS, np.int64)
        bt = np.empty(K.MAX_PLAYS, np.int64)
        n = K.legal_plays(vec, r, bc, bt, np.empty(K.SCRATCH, np.int64))
        rng = K.new_rng(K.derive_seed(11 + state.plays_made, 5, 0, 0))
        i = KL.harness_choice(vec, r, KL.LEARNED + KL.EXACT, model, rng, bc, bt, n)
        assert (stats[0].play.card, stats[0].play.take) == (bc[i], bt[i])
        # the seat's information set only: the true deal (stock order, hidden hands) agrees
        rng = K.new_rng(K.derive_seed(11 + state.plays_made, 5, 0, 0))
        j = KL.harness_choice(state._vec.copy(), r, KL.LEARNED + KL.EXACT, model, rng, bc, bt, n)
        assert j == i
        state.push(stats[0].play)


def test_a_run_names_the_weights_only_when_a_seat_plays_learned() -> None:
    """``learned_weights`` (the file's SHA-256) is in a run's identity only when a seat
    plays ``learned``: every other run keeps its run id."""
    plain = SimConfig.make("scopa", SCOPA, ["expert"], "hands", 100, 1)
    assert "learned_weights" not in plain.data_key()
    assert plain.kernel_model.shape == (0,)
    mixed = SimConfig.make("scopa", SCOPA, ["learned", "expert"], "hands", 100, 1)
    key = mixed.data_key()
    assert key["learned_weights"] == W.manifest()["scopa"].sha256
    assert mixed.kernel_model is W.load_weights(SCOPA)
    again = SimConfig.from_json(json.loads(json.dumps(mixed.to_json())))
    assert again.run_id == mixed.run_id
    derived = SimConfig.make(
        "scopa", Rules.make("scopa", overrides=["napola=true"]), ["learned"], "hands", 10, 1
    )
    assert derived.data_key()["learned_weights"] == W.manifest()["scopa"].sha256
    with pytest.raises(PolicyError, match="no preset has the structure"):
        SimConfig.make(
            "scopa",
            Rules.make("scopa", overrides=["players=3", "hand_size=4"]),
            ["learned"],
            "hands",
            10,
            1,
        )


def test_a_run_read_back_keeps_the_weights_it_played() -> None:
    """A run's configuration read back names the weights it played, whatever is
    installed; computing it further with other weights is refused with one line."""
    config = SimConfig.make("scopa", SCOPA, ["learned"], "hands", 100, 1)
    doc = json.loads(json.dumps(config.to_json()))
    doc["learned_weights"] = "ab" * 32
    other = SimConfig.from_json(doc)
    assert other.data_key()["learned_weights"] == "ab" * 32 and other.run_id != config.run_id
    with pytest.raises(PolicyError, match="cannot be computed further"):
        _ = other.kernel_model


def test_the_evaluator_rolls_out_with_learned(monkeypatch: pytest.MonkeyPatch) -> None:
    """``eval:rollout=learned`` (the review's and advise's evaluator) finishes its worlds
    with the learned policy: values of every play, the same for the same seed; under
    rules without weights it is refused before any work."""
    from scopa_sim.bots.evaluate import EvalBot

    bot = PolicySpec.parse("eval:worlds=6,rollout=learned").bot()
    assert isinstance(bot, EvalBot)
    bot.prepare(SCOPA)
    state = HandState.deal(SCOPA, dealer=1, seed=8)
    a, b = bot.analyse(state, 3), bot.analyse(state, 3)
    assert [s.mean for s in a] == [s.mean for s in b]
    assert all(np.isfinite(s.mean) for s in a) and len(a) == len(state.legal_plays)
    expert = PolicySpec.parse("eval:worlds=6,rollout=expert").bot().analyse(state, 3)
    assert [s.mean for s in a] != [s.mean for s in expert]
    assert np.isfinite(bot.evaluator.prior(SCOPA, 0)).all()
    without_escoba = {k: e for k, e in W.manifest().items() if k != "escoba"}
    monkeypatch.setattr(W, "manifest", lambda directory=W.WEIGHTS_DIR: without_escoba)
    with pytest.raises(PolicyError, match="scopa-sim train --preset escoba"):
        bot.prepare(Rules.make("escoba"))
