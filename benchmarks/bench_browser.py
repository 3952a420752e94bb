"""Benchmark referee's browser checks; prints a table, then the figures as JSON.

    python benchmarks/bench_browser.py [--runs 15]

(a) one check on a warm browser vs the same steps in a bare Playwright script on the same browser
    (target: ratio <= 1.10); (b) 4 checks at once vs 4 in sequence (target: ratio <= 1.0);
(c) cold start: pool creation + first check; (d) PSS of the browser's processes, idle and while
4 checks run; (e) what a served app's private network adds to an evaluation: making the network,
and a browser launched in it (the driver shared) for its first check, against a check on the
shared warm browser.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Browser, expect

from referee.tools.browser.check import run_browser_check
from referee.tools.browser.pool import BrowserPool
from referee.tools.models.checks import BrowserCheck
from referee.tools.process import wait_for_url
from referee.tools.sandbox.network import private_network

TESTS = Path(__file__).resolve().parent.parent / "tests"
FIXTURES = TESTS / "fixtures" / "browser"
sys.path.insert(0, str(TESTS))  # the tests' fixture server: the pages the tests drive
from browser_pages import served_fixtures  # noqa: E402

CHECK = {
    "kind": "browser",
    "url": "/button.html",
    "steps": [{"action": "click", "selector": "#go"}],
    "expect": [
        {"type": "visible", "text": "Clicked"},
        {"type": "title_contains", "value": "Button"},
    ],
}


async def referee_check(pool: BrowserPool, base: str, out: Path, name: str = "bench") -> None:
    outcome = await run_browser_check(
        pool, BrowserCheck.model_validate(CHECK), base_url=base, artifacts_dir=out, name=name
    )
    if outcome.status != "pass":
        raise RuntimeError(f"benchmark check did not pass: {outcome.reason}")


async def bare_script(browser: Browser, base: str, out: Path, aria: bool) -> None:
    """The same steps by hand: what a one-off Playwright script would do."""
    ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = await ctx.new_page()
        await page.goto(base + "button.html")
        await page.locator("#go").click()
        await expect(page.get_by_text("Clicked")).to_be_visible()
        await expect(page).to_have_title("Button page")
        await page.screenshot(path=out / "bare.png", full_page=True)
        if aria:
            await page.locator("body").aria_snapshot()
    finally:
        await ctx.close()


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime (+ reaped children's) of ``pids``, in seconds: a load-insensitive cost."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def all_pids(pool: BrowserPool) -> list[int]:
    return [os.getpid(), *driver_pids(), *pool.pids()]


async def measured(pool: BrowserPool, fn: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (Python, driver and browser) of one run of ``fn``."""
    pids = all_pids(pool)
    cpu, started = cpu_seconds(pids), time.perf_counter()
    await fn()
    wall = time.perf_counter() - started
    return wall, cpu_seconds(all_pids(pool)) - cpu


async def warm_ratio(pool: BrowserPool, base: str, out: Path, runs: int) -> dict[str, float]:
    """(a): interleave the variants, rotating their order, so load and teardown hit them alike."""
    browser = await pool.browser()
    variants: dict[str, Callable[[], Awaitable[object]]] = {
        "check": lambda: referee_check(pool, base, out),
        "bare": lambda: bare_script(browser, base, out, aria=False),
        "bare_aria": lambda: bare_script(browser, base, out, aria=True),
    }
    wall: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    keys = list(variants)
    for i in range(runs):
        # A closed context's renderer exits in the background; rotating shares that cost fairly.
        for key in keys[i % len(keys) :] + keys[: i % len(keys)]:
            w, c = await measured(pool, variants[key])
            wall[key].append(w)
            cpu[key].append(c)
    med = {k: statistics.median(v) for k, v in wall.items()}
    cpu_total = {k: sum(v) for k, v in cpu.items()}
    return {
        "check_s": med["check"],
        "bare_s": med["bare"],
        "bare_with_aria_s": med["bare_aria"],
        "ratio_vs_bare": med["check"] / med["bare"],
        "ratio_vs_bare_with_aria": med["check"] / med["bare_aria"],
        "cpu_per_run_check_s": cpu_total["check"] / runs,
        "cpu_per_run_bare_s": cpu_total["bare"] / runs,
        "cpu_ratio_vs_bare": cpu_total["check"] / cpu_total["bare"],
        "cpu_ratio_vs_bare_with_aria": cpu_total["check"] / cpu_total["bare_aria"],
    }


async def four(pool: BrowserPool, base: str, out: Path, concurrent: bool) -> float:
    started = time.perf_counter()
    if concurrent:
        async with anyio.create_task_group() as tg:
            for i in range(4):
                tg.start_soon(referee_check, pool, base, out, f"c{i}")
    else:
        for i in range(4):
            await referee_check(pool, base, out, f"s{i}")
    return time.perf_counter() - started


async def concurrency_ratio(pool: BrowserPool, base: str, out: Path, runs: int) -> dict[str, float]:
    """(b): 4 at once (the pool lets 2 pages run) vs 4 one after another."""
    conc, seq = [], []
    for _ in range(max(3, runs // 3)):
        conc.append(await four(pool, base, out, concurrent=True))
        seq.append(await four(pool, base, out, concurrent=False))
    c, s = statistics.median(conc), statistics.median(seq)
    return {"concurrent_4_s": c, "sequential_4_s": s, "ratio": c / s}


async def cold_start(base: str, out: Path, runs: int) -> dict[str, float]:
    """(c): a new pool (driver + Chromium launch) and its first check."""
    samples = []
    for _ in range(max(3, runs // 3)):
        started = time.perf_counter()
        async with BrowserPool() as pool:
            await referee_check(pool, base, out)
            samples.append(time.perf_counter() - started)
    return {"cold_first_check_s": statistics.median(samples)}


async def private_start(shared: BrowserPool, out: Path, runs: int) -> dict[str, float]:
    """(e): the network, then a joined pool's launch and first check; the app's own start is
    left out (an evaluation pays it on either network)."""
    made, first = [], []
    port = "8931"
    app = [sys.executable, "-m", "http.server", port, "--bind", "127.0.0.1", "-d", str(FIXTURES)]
    for _ in range(max(3, runs // 3)):
        started = time.perf_counter()
        async with private_network("unshare", "nsenter") as network:
            made.append(time.perf_counter() - started)
            server = await anyio.open_process([*network.enter, *app])
            base = f"http://127.0.0.1:{port}/"
            ready = await wait_for_url(base, 20, connect=network.connect)
            assert ready.ready, ready.reason
            started = time.perf_counter()
            async with shared.joined(network) as pool:
                await referee_check(pool, base, out)
                first.append(time.perf_counter() - started)
            server.kill()
            await server.wait()
            await server.aclose()
    return {
        "network_s": statistics.median(made),
        "joined_first_check_s": statistics.median(first),
    }


def pss_kib(pids: list[int]) -> int:
    """Sum of Pss over ``pids`` from /proc/<pid>/smaps_rollup (shared pages counted once)."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="utf-8")
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:"))
    return total


def driver_pids() -> list[int]:
    """The Node driver Playwright spawned from this process."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text(encoding="utf-8")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
            found.append(int(entry))
    return found


async def memory(pool: BrowserPool, base: str, out: Path) -> dict[str, float]:
    """(d): PSS idle, and the peak sampled every 20 ms while 4 checks run."""
    idle = pss_kib(pool.pids())
    peak = 0
    done = anyio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, pss_kib(pool.pids()))
            await anyio.sleep(0.02)

    async with anyio.create_task_group() as tg:
        tg.start_soon(sample)
        await four(pool, base, out, concurrent=True)
        done.set()
    return {
        "browser_pss_idle_mib": idle / 1024,
        "browser_pss_peak_4_checks_mib": peak / 1024,
        "driver_pss_mib": pss_kib(driver_pids()) / 1024,
        "python_pss_mib": pss_kib([os.getpid()]) / 1024,
    }


async def main(runs: int) -> dict[str, Any]:
    with served_fixtures() as base, tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        cold = await cold_start(base, out, runs)
        async with BrowserPool() as pool:
            await referee_check(pool, base, out)  # warm up
            warm = await warm_ratio(pool, base, out, runs)
            conc = await concurrency_ratio(pool, base, out, runs)
            mem = await memory(pool, base, out)
            private = await private_start(pool, out, runs)
    return {
        "runs": runs,
        "cpus": os.cpu_count(),
        "warm": warm,
        "concurrency": conc,
        "cold": cold,
        "memory": mem,
        "private": private,
    }


def table(results: dict[str, Any]) -> str:
    warm, conc, cold, mem, private = (
        results["warm"],
        results["concurrency"],
        results["cold"],
        results["memory"],
        results["private"],
    )
    added = private["network_s"] + private["joined_first_check_s"] - warm["check_s"]
    rows = [
        ("(a) check on a warm browser", f"{warm['check_s']:.3f} s", ""),
        ("    bare script, same steps", f"{warm['bare_s']:.3f} s", ""),
        ("    bare script + ARIA snapshot", f"{warm['bare_with_aria_s']:.3f} s", ""),
        ("    ratio check / bare", f"{warm['ratio_vs_bare']:.2f}", "<= 1.10"),
        ("    ratio check / bare + ARIA", f"{warm['ratio_vs_bare_with_aria']:.2f}", "<= 1.10"),
        ("    CPU per run: check", f"{warm['cpu_per_run_check_s']:.3f} s", ""),
        ("    CPU per run: bare", f"{warm['cpu_per_run_bare_s']:.3f} s", ""),
        ("    CPU ratio check / bare", f"{warm['cpu_ratio_vs_bare']:.2f}", ""),
        ("    CPU ratio check / bare + ARIA", f"{warm['cpu_ratio_vs_bare_with_aria']:.2f}", ""),
        ("(b) 4 checks at once", f"{conc['concurrent_4_s']:.3f} s", ""),
        ("    4 checks in sequence", f"{conc['sequential_4_s']:.3f} s", ""),
        ("    ratio at once / in sequence", f"{conc['ratio']:.2f}", "<= 1.0"),
        ("(c) cold: pool + first check", f"{cold['cold_first_check_s']:.3f} s", ""),
        ("(d) browser PSS idle", f"{mem['browser_pss_idle_mib']:.0f} MiB", ""),
        ("    browser PSS peak, 4 checks", f"{mem['browser_pss_peak_4_checks_mib']:.0f} MiB", ""),
        ("    Node driver PSS", f"{mem['driver_pss_mib']:.0f} MiB", ""),
        ("    Python PSS", f"{mem['python_pss_mib']:.0f} MiB", ""),
        ("(e) private network: make it", f"{private['network_s']:.3f} s", ""),
        ("    joined browser + first check", f"{private['joined_first_check_s']:.3f} s", ""),
        ("    added per evaluation", f"{added:.3f} s", "vs a warm shared check"),
    ]
    return "\n".join(f"{a:<36} {b:>10}  {c}" for a, b, c in rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="samples per warm variant")
    args = parser.parse_args()
    figures = anyio.run(main, args.runs)
    print(table(figures))
    json.dump(figures, sys.stdout, indent=2)
    print()
