"""Key-to-glyph latency of the web view (`zirv session web --control`) in a real
headless Chromium, next to the terminal client (`zirv session attach`) on the same
runtime session, in one run.

    python bench/web_latency.py [--keys 200] [--gap-ms 40]

Needs Playwright (`pip install playwright`; no browser download: it drives the
system's Chromium, Debian's `chromium`). One headless runtime (`zirv session
serve`) holds one shell session running `cat`:

- terminal: `zirv session attach ID` in bench/ptyterm.py's terminal, measured as
  bench/latency.py measures (key written → its glyph drawn back to the terminal).
- web: the page of `zirv session web --session ID --control`, Playwright typing
  each key as a user's keyboard would. The clock starts in the page at the key's
  first event (`keydown`, or `beforeinput` for a glyph typed as text) and stops
  when xterm.js (textual-serve's terminal) is handed output containing the glyph:
  the same end point as the terminal client's (output reaching the terminal).
  The time to the next animation frame after it is shown too.

Goal (the speed issue): the web view ≤ 2x the attached terminal client, p50 and p99.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import latency  # noqa: E402
import session_latency  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

# textual-serve's page assigns `fitAddon` on the object that holds the xterm.js
# terminal; catching that assignment finds the terminal (as the suite's browser
# test does), and wrapping its `write` sees every chunk of output it is handed.
CAPTURE = """
window.__zirv = {pending: null, start: 0, done: [], page: null};
Object.defineProperty(Object.prototype, 'fitAddon', {
  configurable: true,
  set(value) {
    const page = this;
    window.__zirv.page = page;
    Object.defineProperty(this, 'fitAddon', {
      value, writable: true, configurable: true, enumerable: true});
    const hook = () => {
      const term = page.terminal;
      if (!term || term.__zirvHooked) return;
      term.__zirvHooked = true;
      const decoder = new TextDecoder();
      const write = term.write.bind(term);
      term.write = (data, callback) => {
        const z = window.__zirv;
        if (z.pending !== null && z.start > 0) {
          const text = typeof data === 'string' ? data : decoder.decode(data, {stream: true});
          if (text.includes(z.pending)) {
            const start = z.start, handed = performance.now() - start;
            z.pending = null;
            requestAnimationFrame(() => z.done.push([handed, performance.now() - start]));
          }
        }
        return write(data, callback);
      };
    };
    hook();
    const timer = setInterval(() => { hook(); if (page.terminal) clearInterval(timer); }, 5);
  },
});
// The first event a key raises in the page starts its clock: `keydown` for a key
// on the keyboard's layout, `beforeinput` for one typed as text (a non-ASCII glyph).
for (const kind of ['keydown', 'beforeinput', 'input']) {
  document.addEventListener(kind, () => {
    const z = window.__zirv;
    if (z.pending !== null && z.start === 0) z.start = performance.now();
  }, true);
}
"""
SCREEN = """(() => {
  const page = window.__zirv.page;
  if (!page || !page.terminal) return '';
  const buffer = page.terminal.buffer.active, rows = [];
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y);
    rows.push(line ? line.translateToString(true) : '');
  }
  return rows.join('\\n');
})()"""


def terminal_client(sid: str, keys: int, env: dict[str, str], repo: Path) -> list[float]:
    argv = [sys.executable, "-m", "zirv_dash.session.cli", "session", "attach", sid]
    old = os.getcwd()
    os.chdir(repo)
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    os.chdir(old)
    try:
        term.read_for(3.0)
        return latency.measure(term, keys)
    finally:
        term.close()


def web_server(sid: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    code = "import sys\nfrom zirv_dash.session.web import web_main\n"
    code += "raise SystemExit(web_main(sys.argv[1:]))\n"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "--session", sid, "--control"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", proc.stdout.readline())
    if not found:
        proc.kill()
        raise SystemExit("zirv session web printed no link")
    return proc, found.group(0)


def web_client(url: str, keys: int, gap: float) -> tuple[list[float], list[float]]:
    """(key → output handed to xterm.js, key → the next frame after it), ms."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("needs Chromium (Debian: apt-get install chromium)")
    handed: list[float] = []
    painted: list[float] = []
    with sync_playwright() as play:
        browser = play.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 700})
            page.add_init_script(CAPTURE)
            page.goto(url)
            deadline = time.monotonic() + 60
            while "controlling" not in str(page.evaluate(SCREEN)):
                if time.monotonic() > deadline:
                    raise SystemExit("the page never took the controller seat")
                time.sleep(0.1)
            page.evaluate("window.__zirv.page.terminal.focus()")
            time.sleep(1.0)
            for i in range(keys):
                glyph = latency.GLYPHS[i % latency.PER_LINE]
                page.evaluate(f"window.__zirv.start = 0; window.__zirv.pending = {glyph!r}")
                page.keyboard.type(glyph)
                try:
                    page.wait_for_function("window.__zirv.done.length > 0", timeout=2000)
                    to_terminal, to_frame = page.evaluate("window.__zirv.done.shift()")
                    handed.append(float(to_terminal))
                    painted.append(float(to_frame))
                except Exception:  # noqa: BLE001 - a lost key is counted, not fatal
                    page.evaluate("window.__zirv.pending = null")
                if i % latency.PER_LINE == latency.PER_LINE - 1:
                    page.keyboard.press("Enter")
                    time.sleep(0.05)
                time.sleep(gap)
        finally:
            browser.close()
    return handed, painted


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--gap-ms", type=float, default=40.0, help="pause between keys")
    args = parser.parse_args()
    latency.GAP = args.gap_ms / 1000
    from zirv_dash.session import blocking

    with tempfile.TemporaryDirectory(prefix="zwl-", dir="/tmp") as tmpdir:
        tmp = Path(tmpdir)
        repo = tmp / "repo"
        repo.mkdir()
        state = tmp / "state"
        env = latency.base_env(state)
        env["PYTHONPATH"] = str(HERE.parent)
        os.environ["ZIRV_CTX_STATE_DIR"] = str(state)  # this process's client calls
        serve = session_latency._serve(repo, env, session_latency.HEADLESS)
        web: subprocess.Popen[str] | None = None
        try:
            params = {"harness": "shell", "columns": latency.COLS, "rows": latency.ROWS}
            sid = blocking.call("session.start", params)["session"]["id"]
            blocking.call("session.send_input", {"session": sid, "text": "cat\r"})
            terminal = terminal_client(sid, args.keys, env, repo)
            web, url = web_server(sid, env)
            browser, painted = web_client(url, args.keys, args.gap_ms / 1000)
        finally:
            if web is not None and web.poll() is None:
                web.terminate()
                web.wait(20)
            session_latency._unserve(serve)
    print(f"key-to-glyph latency, {args.keys} keys, one every {args.gap_ms:.0f} ms (ms)")
    print(f"{'client':<22}{'p50':>8}{'p99':>8}{'lost':>6}")
    rows = (
        ("terminal (attach)", terminal),
        ("web (--control)", browser),
        ("web, to next frame", painted),
    )
    for name, values in rows:
        p50, p99 = percentile(values, 50), percentile(values, 99)
        print(f"{name:<22}{p50:8.1f}{p99:8.1f}{args.keys - len(values):>6}")
    if terminal and browser:
        r50 = percentile(browser, 50) / percentile(terminal, 50)
        r99 = percentile(browser, 99) / percentile(terminal, 99)
        met = "met" if r50 <= 2 and r99 <= 2 else "NOT met"
        print(f"web over terminal: p50 {r50:.2f}x, p99 {r99:.2f}x (goal ≤ 2x: {met})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
