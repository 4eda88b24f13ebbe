"""The processes below a command, read from Linux's /proc: what the tests of a killed or
interrupted command check is left running."""

from __future__ import annotations

from pathlib import Path

#: The states of a process that has ended: a zombie (not yet reaped) or dead.
ENDED = ("Z", "X")


def tree(pid: int) -> dict[int, int]:
    """The live processes below ``pid``, each with its depth (1: a child)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ENDED:
            parents[int(stat.parent.name)] = int(fields[1])
    depth: dict[int, int] = {}
    frontier, level = {pid}, 0
    while frontier:
        level += 1
        frontier = {p for p, pp in parents.items() if pp in frontier} - depth.keys()
        depth.update(dict.fromkeys(frontier, level))
    return depth


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    return set(tree(pid))


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ENDED
