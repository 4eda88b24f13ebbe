"""The embedded study: its plan covers every preset and option; a tiny run writes reports."""

from __future__ import annotations

import matplotlib.image as mpimg

from scopa_sim import study as S
from scopa_sim.rules import PRESETS, Rules


def test_plan_covers_every_preset_policy_and_option() -> None:
    runs = S.plan(S.SCALES["full"], seed=0)
    a = {(r.preset, r.policy) for r in runs if r.part == "A"}
    assert a == {(p, pol) for p in PRESETS for pol in ("random", "greedy")}
    assert {r.preset for r in runs if r.part == "B"} == set(PRESETS)
    c = [r for r in runs if r.part == "C"]
    assert c[0].rules == () and all(r.mode == "matches" for r in c)
    toggled = {o.split("=")[0] for r in c for o in r.rules}
    defaults = Rules.make().as_dict()
    assert toggled == set(defaults) - {"players", "teams", "hand_size", "table_cards",
                                       "napola_scoring", "napola_all_denari_wins"}  # fmt: skip
    for r in runs:
        Rules.make(r.preset, r.rules)  # every variant is valid
    assert len({r.name for r in runs}) == len(runs)


def test_tiny_study_writes_reports(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(
        S.SCALES, "tiny", S.Scale(fast_hands=300, search_hands=2, effect_matches=40)
    )
    monkeypatch.setattr(S, "SEARCH_POLICY", "ismcts:iterations=20")
    out = tmp_path / "rep"
    files = S.run_study(out, tmp_path / "runs", "tiny", 1, 1, say=lambda _: None)
    assert [f.name for f in files] == ["report.md"] * 3 + ["README.md"]
    text = (out / "part-c" / "report.md").read_text()
    assert text.startswith("# Part C") and "scopa+deck-36" in text
    for png in (out / "part-a").glob("*.png"):
        assert mpimg.imread(png).ndim == 3
    # a second call reuses the finished runs
    again = S.run_study(out, tmp_path / "runs", "tiny", 1, 1, say=lambda m: print(m))
    assert again == files
