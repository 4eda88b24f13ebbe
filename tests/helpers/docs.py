"""The examples of the documentation: code blocks, the `scopa-sim` command lines of the
shell blocks, and the documented variables that keep them fast in the tests.

An example that takes minutes at its documented size reads its count from a shell
variable with that size as the default (``--hands ${HANDS:-10000000}``; the variables are
documented in ``docs/guide/play.md``). The tests run every example as written, with
those variables set to :data:`SIZES` (or a page's own, :data:`PAGE_SIZES`), and with the
placeholder scheduler address ``tcp://host:8786`` replaced by the address of a Dask
scheduler the test starts. Python examples are written at their small sizes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: The documented variables, with the values the tests give them.
SIZES = {"HANDS": "2000", "MATCHES": "20", "DEALS": "10"}
#: A page's own values, where its examples need more: the deals guide's luck share is
#: refused below 200,000 hands.
PAGE_SIZES = {"guide/deals": {"HANDS": "200000"}}
#: A use of a documented variable in a command: ``${NAME:-default}``.
VARIABLE = re.compile(r"\$\{(\w+):-(\d+)\}")
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


def sizes(page: str = "") -> dict[str, str]:
    """The documented variables' values for the examples of ``page`` (the README's when
    empty): :data:`SIZES` with the page's :data:`PAGE_SIZES`."""
    return {**SIZES, **PAGE_SIZES.get(page, {})}


def prepare(command: str, scheduler: str) -> str:
    """The command as the tests run it: the placeholder scheduler address replaced by
    ``scheduler``; nothing else changes (the counts come from :func:`sizes`)."""
    return command.replace(SCHEDULER, scheduler)
