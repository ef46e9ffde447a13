"""The render harness (harness/render.py) can fail: a valid diagram is drawn as an <svg>, a broken one reports
Mermaid's parse error (and is not drawn), a table renders as a <table>, and the Markdown-to-HTML step escapes a
diagram's text as GitHub hands it to Mermaid. Needs Chromium and the npm mermaid package (bootstrap.sh); no provider,
no sandbox. Screenshots land in acceptance-tests/out/render/harness-*.png.
"""
import pytest

from harness import render

VALID = """\
flowchart LR
  n1["domain unit unit-a"] --> n2["team-a — project #quot;project-a#quot;"]
  n2 --> n3["cluster shared-gpus"]
  classDef pass fill:#dafbe1,stroke:#1a7f37
  class n1,n2,n3 pass
"""
BROKEN = "flowchart LR\n a-->\n"


def fenced(diagram: str) -> str:
    return f"```mermaid\n{diagram}```\n"


@pytest.fixture(autouse=True)
def tools():
    render.require_tools()


def test_a_valid_diagram_is_drawn():
    result = render.render_markdown(f"## A diagram\n\n{fenced(VALID)}", "harness-valid")
    assert result.mermaid_version.startswith("11."), result.mermaid_version
    assert len(result.diagrams) == 1
    (diagram,) = result.diagrams
    assert diagram.error is None and diagram.svg, diagram
    assert diagram.source == VALID  # what Mermaid read is the text as written: the escaping was undone
    # Mermaid's own escape for a quote inside a quoted label (a backslash is no escape there) came out as a quote.
    assert '"project-a"' in result.dom_path.read_text()
    result.assert_ok()
    assert result.screenshot.stat().st_size > 5_000  # a drawn page, not a blank one


def test_a_broken_diagram_reports_the_parse_error():
    result = render.render_markdown(f"{fenced(VALID)}\n{fenced(BROKEN)}", "harness-broken")
    good, bad = result.diagrams
    assert good.ok
    assert not bad.ok and not bad.svg
    assert bad.error and "Parse error on line" in bad.error, bad.error
    assert result.errors == [f"diagram 2: {bad.error}"]
    with pytest.raises(AssertionError, match="Parse error on line"):
        result.assert_ok()


def test_a_table_renders_as_a_table():
    text = "| layer | rules |\n| --- | --- |\n| Organization | ✅ [ORG-1](rules.md#org-1) |\n"
    result = render.render_markdown(text, "harness-table")
    assert result.tables == 1
    assert result.diagrams == ()
    assert "<table>" in render.to_html(text)
    assert render.render_markdown("| not a table\n", "harness-no-table").tables == 0


def test_mermaid_blocks_become_pre_mermaid_with_escaped_text():
    body = render.to_html(fenced('flowchart LR\n  a["<b>&"] --> b\n') + "\n```sh\necho hi\n```\n")
    assert '<pre class="mermaid">flowchart LR\n  a[&quot;&lt;b&gt;&amp;&quot;] --&gt; b\n</pre>' in body, body
    assert '<code class="language-sh">' in body  # other fenced blocks stay code
