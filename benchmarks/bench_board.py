"""The analysis board's speed in a real browser, and its screenshots for the docs.

    python benchmarks/bench_board.py [--positions N] [--policy P] [--json FILE]
                                     [--screenshots DIR] [--quick]

Starts ``scopa-sim board --port 0`` (its worker warmed as at every start), opens it in
Debian's Chromium (Playwright, ``/usr/bin/chromium``), and for ``--positions`` positions
of recorded hands (one match of ``greedy`` against ``random``, seed 7: each hand's
positions before plays 0, 6, 12, ...) pastes the position as ``advise --position``
reads it and clicks *Load*, which sets it up and analyses it. Measured in the page
(``performance.now()``, a check every animation frame): from the click to the first
values on screen (the first stage), and to the final ones (the evaluator done). One
position first, not counted (the worker's first evaluation). The kernels must be cached
(``scopa-sim warm``); the load average is recorded before and after: on a busy machine
the times are longer.

``--screenshots DIR`` also saves each screen (position, game, play, puzzles, and the
position on a phone's screen) as PNG files, for docs/guide/board.md.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import click

from scopa_sim.bots.registry import PolicySpec
from scopa_sim.experiments.common import machine
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import write_records
from scopa_sim.sim import pool as P
from scopa_sim.sim.match import play_match

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: In the page: click ``sel`` and resolve with the milliseconds to the first values on
#: screen and to the final ones (checked every animation frame).
MEASURE = """async (sel) => {
  document.querySelector('#values').innerHTML = '';
  const t0 = performance.now();
  document.querySelector(sel).click();
  const wait = (pred) => new Promise((res, rej) => {
    const check = () => {
      const message = document.querySelector('#message:not([hidden])');
      if (message) rej(message.textContent);
      else if (pred()) res(performance.now() - t0);
      else requestAnimationFrame(check);
    };
    check();
  });
  const first = await wait(() => document.querySelector('#values tr.best'));
  const last = await wait(() => document.querySelector('#values').dataset.final === '1');
  return [first, last];
}"""


def records(folder: Path) -> Path:
    path = folder / "games.jsonl"
    rules = Rules.make("scopa")
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    with path.open("w", encoding="utf-8") as f:
        write_records(f, rules, play_match(rules, specs, seed=7, match=0))
    return path


def positions(path: Path, n: int) -> list[str]:
    """``FILE:LINE:PLAY`` of up to ``n`` positions: before plays 0, 6, 12, ... of each hand."""
    out = []
    for line, text in enumerate(path.read_text().splitlines(), start=1):
        plays = len(json.loads(text)["plays"])
        out += [f"{path}:{line}:{k}" for k in range(0, plays, 6)]
    return out[:n]


def start(cwd: Path) -> tuple[subprocess.Popen[str], str]:
    exe = Path(sys.executable).parent / "scopa-sim"
    proc = subprocess.Popen(
        [str(exe), "board", "--port", "0"],
        cwd=cwd,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=P.dies_with_parent(),  # a killed benchmark leaves no board running
    )
    assert proc.stderr is not None
    m = re.search(r"(http://\S+/)\?token=(\S+)", proc.stderr.readline())
    if not m:
        proc.terminate()
        raise SystemExit("the board did not start")
    base, token = m.groups()
    url = f"{base}?token={token}"  # the page's address (it sets the token's cookie)
    meta = urllib.request.Request(base + "api/meta", headers={"X-Scopa-Token": token})
    for _ in range(600):
        try:
            urllib.request.urlopen(meta, timeout=5).read()
            return proc, url
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the board does not answer")


def shoot(page: Any, folder: Path, path: Path, url: str, browser: Any) -> list[str]:
    """Each screen of the board as a PNG in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []

    def save(name: str, pg: Any = page) -> None:
        pg.screenshot(path=str(folder / name), full_page=False)
        names.append(name)

    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    page.fill("#f-hand", "7D 3S KH")
    page.fill("#f-table", "7C 5H 2S 4D")
    page.fill("#f-mine", "QC 2H 5D AS")
    page.fill("#f-theirs", "6D 4S")
    page.click("#set-position")
    page.wait_for_selector("#values[data-final='1']", timeout=120_000)
    page.click("#hold")
    page.wait_for_selector("#holdings .marg", timeout=60_000)
    page.evaluate("window.scrollTo(0, 0)")
    save("board-position.png")
    page.click("#tab-game")
    page.fill("#rec-path", str(path))
    page.click("#rec-open")
    page.wait_for_selector("#decisions tr[data-play]", timeout=120_000)
    for _ in range(7):
        page.locator("body").press("ArrowRight")
    page.wait_for_timeout(300)
    save("board-game.png")
    page.select_option("#model", "fit")
    page.click("#hold")
    page.wait_for_selector("#holdings .marg", timeout=60_000)
    page.locator("#analysis").screenshot(path=str(folder / "board-holdings.png"))
    names.append("board-holdings.png")
    page.click("#tab-play")
    page.fill("#play-seed", "3")
    page.check("#play-hints")
    page.click("#play-start")
    for _ in range(3):
        page.wait_for_selector("#play-legal button", timeout=60_000)
        page.keyboard.press("1")
    page.wait_for_selector("#play-legal button", timeout=60_000)
    page.wait_for_selector("#values[data-final='1']", timeout=120_000)
    save("board-play.png")
    page.click("#tab-puzzles")
    page.fill("#pz-folder", str(path.parent))
    page.fill("#pz-limit", "4")
    page.click("#pz-build")
    page.wait_for_function("document.querySelector('#pz-status').textContent.includes('from the')",
                           timeout=300_000)  # fmt: skip
    page.wait_for_selector("#pz-legal button", timeout=60_000)
    page.click("#pz-legal button >> nth=0")
    page.wait_for_selector("#pz-answer table")
    save("board-puzzle.png")
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.goto(url)
    phone.wait_for_selector("body[data-ready='1']")
    phone.fill("#f-advise", f"{path}:2:6")
    phone.click("#load-advise")
    phone.wait_for_selector("#values[data-final='1']", timeout=120_000)
    phone.evaluate("window.scrollTo(0, 0)")
    phone.wait_for_timeout(200)
    save("board-phone.png", phone)
    phone.close()
    return names


@click.command()
@click.option("--positions", "count", type=int, default=15, show_default=True)
@click.option("--policy", default="eval", show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--screenshots", type=click.Path(file_okay=False))
@click.option("--quick", is_flag=True, help="3 positions (a smoke test).")
def main(count: int, policy: str, json_path: str | None, screenshots: str | None,
         quick: bool) -> None:  # fmt: skip
    from playwright.sync_api import sync_playwright

    if quick:
        count = 3
    with P.interrupt_on_sigterm():  # noqa: SIM117 - the form tests/test_pool.py checks
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            path = records(folder)
            todo = positions(path, count + 1)
            proc, url = start(folder)
            try:
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                    page = browser.new_page(viewport={"width": 1280, "height": 860})
                    page.goto(url)
                    page.wait_for_selector("body[data-ready='1']")
                    page.fill("#policy", policy)
                    load_before = os.getloadavg()
                    times = []
                    for spec in todo:
                        page.fill("#f-advise", spec)
                        first, last = page.evaluate(MEASURE, "#load-advise")
                        times.append({"position": Path(spec).name, "first_s": first / 1000,
                                      "final_s": last / 1000})  # fmt: skip
                    load_after = os.getloadavg()
                    shots = (
                        shoot(page, Path(screenshots), path, url, browser) if screenshots else []
                    )
                    browser.close()
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)
    counted = times[1:]
    first = [t["first_s"] for t in counted]
    final = [t["final_s"] for t in counted]
    doc = {
        "what": "the board: click to the first and the final values on screen, in Chromium",
        "policy": policy,
        "positions": len(counted),
        "first_median_s": statistics.median(first),
        "first_max_s": max(first),
        "final_median_s": statistics.median(final),
        "final_max_s": max(final),
        "load_before": load_before,
        "load_after": load_after,
        "machine": machine(),
        "times": times,
        "screenshots": shots,
    }
    print(f"{len(counted)} positions, policy {policy}: first values median "
          f"{doc['first_median_s']:.3f} s (max {doc['first_max_s']:.3f}), final median "
          f"{doc['final_median_s']:.3f} s (max {doc['final_max_s']:.3f}); load "
          f"{load_before[0]:.2f} -> {load_after[0]:.2f} on {os.cpu_count()} cores")  # fmt: skip
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
