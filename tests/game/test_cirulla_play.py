"""Cirulla's plays (RULES.md §10): the value named for the matta and the declaration, in
:class:`~scopa_sim.game.play.Play`, its text and its kernel word; every other play is as
it was."""

from __future__ import annotations

import pytest

from scopa_sim import CardError, CardSet, Play
from scopa_sim import _engine as K


def test_other_plays_are_as_they_were() -> None:
    p = Play.parse("7D x 5H 2S")
    assert p == Play(p.card, p.take) and (p.value, p.declaration, p.meta) == (0, 0, 0)
    assert str(p) == "7D x 5H 2S" and repr(p) == "Play.parse('7D x 5H 2S')"
    assert sorted([Play.parse("KD"), Play.parse("AD x AC"), Play.parse("AD")]) == [
        Play.parse("AD"),
        Play.parse("AD x AC"),
        Play.parse("KD"),
    ]
    assert hash(Play.parse("3S")) == hash(Play(CardSet.parse("3S").cards()[0]))


@pytest.mark.parametrize(
    ("text", "value", "declaration"),
    [("7H=5 x 3D 2C", 5, 0), ("2S +3", 0, 3), ("7H=1 x 3D 2C 4S +3", 1, 3),
     ("7H=1", 1, 0), ("6C x 2D 3S +10", 0, 10), ("7H x 7C", 0, 0)],
)  # fmt: skip
def test_named_values_and_declarations_read_back(text: str, value: int, declaration: int):
    p = Play.parse(text)
    assert (p.value, p.declaration) == (value, declaration)
    assert str(p) == text and Play.parse(str(p)) == p
    assert Play.from_meta(p.card, p.take, p.meta) == p
    assert p.meta & K.META_VALUE == value and p.meta >> K.META_DECLARATION == declaration


@pytest.mark.parametrize(
    ("text", "named"),
    [("7D=5 x 2C 3D", "cannot name a value"), ("7H=11", "1..10"), ("7H=x", "=1 .. =10"),
     ("2S +4", "3, 10"), ("2S +", "+3 or +10"), ("7H=0 +3", "=1 .. =10")],
)  # fmt: skip
def test_malformed_cirulla_plays_are_refused_in_one_line(text: str, named: str) -> None:
    with pytest.raises(CardError) as info:
        Play.parse(text)
    assert named in str(info.value) and "\n" not in str(info.value)
