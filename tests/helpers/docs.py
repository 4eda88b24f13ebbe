"""The examples of the documentation: code blocks, the `scopa-sim` command lines of the
shell blocks, and the rule that keeps them fast in the tests.

The rule (the only change made to a command): a count given to ``--hands``,
``--matches`` or ``--deals`` above :data:`LIMITS` (or a page's own limits,
:data:`PAGE_LIMITS`) is replaced by that limit, and the placeholder scheduler address
``tcp://host:8786`` by the address of a Dask scheduler the test starts. Python examples
are written at their small sizes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: The largest count an example is run with, by option.
LIMITS = {"--hands": 2000, "--matches": 20, "--deals": 10}
#: A page's own limits, where its examples need more: the deals guide's luck share is
#: refused below 200,000 hands.
PAGE_LIMITS = {"guide/deals": {"--hands": 200_000}}
SCHEDULER = "tcp://host:8786"


def code_blocks(text: str, languages: tuple[str, ...]) -> list[str]:
    """The bodies of the fenced code blocks in one of ``languages``."""
    pattern = r"^```(\w*)\n(.*?)^```"
    return [body for lang, body in re.findall(pattern, text, re.M | re.S) if lang in languages]


def command_lines(block: str) -> list[str]:
    """The `scopa-sim` command lines of one shell block, continuation lines joined."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        code = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
        if re.search(r"(^|\|\s*)scopa-sim\s", code):
            out.append(re.sub(r"\s+", " ", code))
    return out


def commands(text: str) -> list[str]:
    """The `scopa-sim` command lines of the shell blocks, continuation lines joined."""
    return [c for block in code_blocks(text, SHELL) for c in command_lines(block)]


SHELL = ("sh", "bash", "console")


def examples(text: str) -> Iterator[tuple[str, str]]:
    """The page's examples in order: ``("sh", command line)`` for each `scopa-sim` line of
    a shell block, ``("python", block)`` for each Python block."""
    for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        if lang in SHELL:
            for command in command_lines(body):
                yield "sh", command
        elif lang == "python":
            yield "python", body


def shrink(command: str, scheduler: str, page: str = "") -> str:
    """The command with the tests' rule applied (see the module docstring), on ``page``
    (its :data:`PAGE_LIMITS`)."""
    limits = {**LIMITS, **PAGE_LIMITS.get(page, {})}

    def cut(m: re.Match[str]) -> str:
        return f"{m[1]} {min(int(m[2]), limits[m[1]])}"

    command = re.sub(r"(--hands|--matches|--deals) (\d+)", cut, command)
    return command.replace(SCHEDULER, scheduler)
