"""Render Markdown as a reader sees it: HTML in headless Chromium, with Mermaid's own script drawing the diagrams.

The governance report is Markdown for a pull-request comment, with a ```mermaid diagram that GitHub draws. GitHub's
renderer can't run here, so this is the nearest stand-in we can own:

1. Markdown -> HTML with Python-Markdown's `tables` and `fenced_code` extensions (the converter REPORT.md names).
   A ```mermaid block becomes `<pre class="mermaid">` holding the diagram text HTML-escaped, as GitHub hands it to
   Mermaid (fenced_code already escapes it; only the wrapper changes).
2. A page around it loads `mermaid.min.js` from the npm `mermaid` package that bootstrap.sh installs (by file path:
   no network), then for each diagram calls `mermaid.parse` (which throws Mermaid's parse error) and draws the ones
   that parse with `mermaid.run`. It writes the outcome as JSON into the DOM (`<script id="render-result">`).
3. Chromium (Debian's `chromium`) headless: once with `--dump-dom` to read that outcome after the page's scripts have
   run (`--virtual-time-budget` lets them finish without a real-time sleep), once with `--screenshot` for a PNG a
   person can look at, sized to the page's height from the first run.

`render_markdown(text, name)` returns a `Rendered`: per diagram ok / Mermaid's error text and whether an `<svg>` was
drawn, the number of `<table>`s, and the paths of the HTML, the DOM Chromium left and the screenshot under
acceptance-tests/out/render/.
"""
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import markdown
import pytest

ACCEPTANCE = Path(__file__).resolve().parents[1]
OUT = ACCEPTANCE / "out" / "render"
# Where bootstrap.sh runs `npm ci` for acceptance-tests/render/package-lock.json (outside the clone, like the venv,
# so a fresh clone on the same machine reuses it).
DEFAULT_RENDER_DIR = Path.home() / ".cache" / "terraform-provider-hyperpod" / "render"
WIDTH = 1280
RESULT_ID = "render-result"
# fenced_code writes a ```mermaid block as <pre><code class="language-mermaid">…</code></pre>, its text escaped.
_MERMAID_BLOCK = re.compile(r'<pre><code class="language-mermaid">(.*?)</code></pre>', re.S)
_RESULT = re.compile(rf'<script[^>]*\bid="{RESULT_ID}"[^>]*>(.*?)</script>', re.S)


class RenderToolMissing(RuntimeError):
    """Chromium or Mermaid's script is not installed (bootstrap.sh installs both)."""


@dataclass(frozen=True)
class Diagram:
    source: str  # the diagram text as Mermaid read it (unescaped)
    error: str | None  # Mermaid's parse error, None when it parsed
    svg: bool  # an <svg> was drawn for it

    @property
    def ok(self) -> bool:
        return self.error is None and self.svg


@dataclass(frozen=True)
class Rendered:
    html_path: Path
    dom_path: Path  # the page as Chromium left it (drawn <svg>s included): what the assertions read
    screenshot: Path
    mermaid_version: str
    diagrams: tuple[Diagram, ...]
    tables: int  # <table> elements in the rendered page

    @property
    def errors(self) -> list[str]:
        return [f"diagram {i + 1}: {d.error or 'parsed, but no <svg> was drawn'}"
                for i, d in enumerate(self.diagrams) if not d.ok]

    def assert_ok(self) -> None:
        """Every diagram parsed and was drawn; the message quotes Mermaid's errors and the diagram text."""
        bad = [(i, d) for i, d in enumerate(self.diagrams) if not d.ok]
        assert not bad, "\n\n".join(
            f"diagram {i + 1} of {self.html_path.name}: {d.error or 'no <svg> drawn'}\n{d.source}" for i, d in bad)


def render_dir() -> Path:
    return Path(os.environ.get("HYPERPOD_RENDER_DIR") or DEFAULT_RENDER_DIR)


def mermaid_script() -> Path:
    return render_dir() / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


def mermaid_version() -> str:
    """The installed package's version (the IIFE build does not expose it)."""
    return json.loads((render_dir() / "node_modules" / "mermaid" / "package.json").read_text())["version"]


def chromium() -> str:
    found = os.environ.get("HYPERPOD_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise RenderToolMissing("no chromium on PATH: run acceptance-tests/bootstrap.sh (apt-get install chromium)")
    return found


def require_tools() -> None:
    """Skip the calling test when Chromium or Mermaid is missing; fail in CI (env CI set), where bootstrap.sh must
    have installed them, so a missing install step cannot pass as a skip."""
    try:
        chromium()
        if not mermaid_script().is_file():
            raise RenderToolMissing(f"no {mermaid_script()}: run acceptance-tests/bootstrap.sh (npm ci of "
                                    f"acceptance-tests/render/package-lock.json into {render_dir()})")
    except RenderToolMissing as missing:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"CI: {missing}", pytrace=False)
        pytest.skip(str(missing))


def to_html(text: str) -> str:
    """The Markdown's body as HTML: tables, fenced code, and each ```mermaid block as <pre class="mermaid">."""
    body = markdown.markdown(text, extensions=["tables", "fenced_code"])
    return _MERMAID_BLOCK.sub(lambda m: f'<pre class="mermaid">{m.group(1)}</pre>', body)


# Runs after mermaid.min.js. parse() first, per diagram, because run() replaces a broken diagram by Mermaid's own
# "Syntax error" picture and only reports the first error; parse() gives each diagram's message. The outcome goes
# into the DOM, where --dump-dom reads it; no outcome at all means the script never finished (or never loaded).
_SCRIPT = """
(async () => {
  const out = {loaded: typeof mermaid !== "undefined", diagrams: [], height: 0};
  try {
    if (out.loaded) {
      mermaid.initialize({startOnLoad: false, securityLevel: "strict", theme: "default"});
      const nodes = [...document.querySelectorAll("pre.mermaid")];
      const good = [];
      for (const node of nodes) {
        const entry = {source: node.textContent, error: null, svg: false};
        try { await mermaid.parse(entry.source); good.push(node); }
        catch (e) {
          entry.error = String((e && e.message) || e);
          node.classList.add("broken");
          node.insertAdjacentHTML("beforebegin", "<p class=\\"render-error\\"></p>");
          node.previousElementSibling.textContent = "Mermaid parse error: " + entry.error;
        }
        out.diagrams.push(entry);
      }
      if (good.length) await mermaid.run({nodes: good, suppressErrors: true});
      nodes.forEach((node, i) => { out.diagrams[i].svg = node.querySelector("svg") !== null; });
    }
  } catch (e) { out.failure = String((e && e.stack) || e); }
  out.height = Math.ceil(document.body.getBoundingClientRect().bottom);  // the content's, not the window's
  const tag = document.createElement("script");
  tag.type = "application/json";
  tag.id = "RESULT_ID";
  tag.textContent = JSON.stringify(out).replace(/</g, "\\\\u003c");
  document.body.appendChild(tag);
})();
""".replace("RESULT_ID", RESULT_ID)

# Enough of GitHub's look that a screenshot reads like the PR comment: table borders, code blocks, a narrow column.
_STYLE = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", sans-serif, "Noto Color Emoji"; font-size: 14px;
       line-height: 1.5; color: #1f2328; max-width: 1200px; margin: 16px auto; padding: 0 24px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; background: #f6f8fa; }
pre { padding: 12px; overflow: auto; }
pre.mermaid { background: none; text-align: center; }
pre.mermaid.broken { background: #fff0f0; text-align: left; }
.render-error { color: #d1242f; font-weight: bold; }
"""


def page(text: str, title: str, script: Path) -> str:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>\n'
            f"<style>{_STYLE}</style></head>\n<body>\n{to_html(text)}\n"
            f'<script src="{script.as_uri()}"></script>\n<script>{_SCRIPT}</script>\n</body></html>\n')


def _chromium(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    # A throwaway profile per run: concurrent runs never share (or lock) one. --no-sandbox: CI runs as root.
    with tempfile.TemporaryDirectory(prefix="render-chromium-") as profile:
        return subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--hide-scrollbars", "--allow-file-access-from-files", f"--user-data-dir={profile}",
             "--virtual-time-budget=20000", *args],
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def render_markdown(text: str, name: str, out_dir: Path = OUT) -> Rendered:
    """Render `text` as out_dir/<name>.html in Chromium and screenshot it to out_dir/<name>.png."""
    script = mermaid_script()
    if not script.is_file():
        raise RenderToolMissing(f"no {script}: run acceptance-tests/bootstrap.sh")
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path = (out_dir / f"{name}.html").resolve()
    html_path.write_text(page(text, name, script), encoding="utf-8")

    # The same width as the screenshot: the diagram scales with it, so the height measured here is the PNG's.
    dumped = _chromium("--dump-dom", f"--window-size={WIDTH},400", html_path.as_uri())
    found = _RESULT.search(dumped.stdout)
    assert found, (f"Chromium gave no render result for {html_path} (rc {dumped.returncode}): the page's script did "
                   f"not finish\n--- stderr ---\n{dumped.stderr[-3000:]}")
    dom_path = html_path.with_suffix(".dom.html")
    dom_path.write_text(dumped.stdout, encoding="utf-8")
    result = json.loads(found.group(1))
    assert result["loaded"], f"{script} did not load in {html_path}"
    assert "failure" not in result, f"the render script failed in {html_path}: {result['failure']}"

    screenshot = html_path.with_suffix(".png")
    screenshot.unlink(missing_ok=True)
    height = max(400, min(int(result["height"]) + 32, 16000))
    shot = _chromium(f"--screenshot={screenshot}", f"--window-size={WIDTH},{height}", html_path.as_uri())
    assert screenshot.is_file(), f"no screenshot {screenshot} (rc {shot.returncode})\n{shot.stderr[-3000:]}"

    return Rendered(
        html_path=html_path, dom_path=dom_path, screenshot=screenshot, mermaid_version=mermaid_version(),
        diagrams=tuple(Diagram(d["source"], d["error"], d["svg"]) for d in result["diagrams"]),
        tables=len(re.findall(r"<table[\s>]", dumped.stdout)))
