"""Markdown and HTML export: every sample in every format, a hostile session, fences, detail."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from klipui.cli import main
from klipui.export import build_document, export_text
from klipui.export.markdown import _fenced
from klipui.redact import Redactor
from klipui.session import open_session
from tests.conftest import sample_files
from tests.hostile_support import hostile_copy

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "h5",
    "h6", "p", "nav", "ol", "ul", "li", "a", "em", "strong", "main", "section", "div", "span",
    "details", "summary", "pre", "code", "footer", "blockquote", "hr", "br", "table", "thead",
    "tbody", "tr", "th", "td", "s",
}  # fmt: skip
HOSTILE = [
    "<script>alert(1)</script>",
    "</details></pre><script src=https://evil.example/x.js></script>",
    '<img src=x onerror="alert(2)">',
    "[click](javascript:alert(3)) ![track](https://evil.example/t.png) <https://evil.example>",
    '<a href="https://evil.example" onclick="steal()">x</a>',
    '" onmouseover="alert(4)" x=\'',
    "</style><style>body{background:url(https://evil.example/bg)}</style>",
    "\u202eexe.txt\u202c and \x1b]0;title\x07 and \x1b[31mred",
    "<!-- comment --><iframe src=https://evil.example></iframe>",
    "&lt;script&gt;alert(5)&lt;/script&gt; &#x3C;script>",
    "<svg/onload=alert(6)>",
    "<meta http-equiv=refresh content='0;url=https://evil.example'>",
]


class Audit(HTMLParser):
    """Every tag, attribute and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def audit(page: str) -> Audit:
    parser = Audit()
    parser.feed(page)
    parser.close()
    return parser


def assert_inert(page: str) -> Audit:
    """No script, no handler, no remote or script URL, only the page's own tags."""
    found = audit(page)
    assert set(found.tags) <= ALLOWED_TAGS, set(found.tags) - ALLOWED_TAGS
    assert found.tags.count("style") == 1
    assert found.tags.count("meta") == 4
    for tag, name, value in found.attrs:
        assert not name.startswith("on"), (tag, name, value)
        assert name not in ("src", "srcset", "action", "formaction", "background"), (tag, name)
        if name == "href":
            assert value is not None and re.fullmatch(r"#(turn-\d+|top)", value), value
        if name == "style":
            raise AssertionError(f"inline style attribute on {tag}")
    return found


def hostile_claude(path: Path) -> Path:
    """A Claude Code session whose every string carries markup and tricks."""
    payload = "\n".join(HOSTILE)
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s1",
            "timestamp": "2026-12-03T10:00:00Z",
            "message": {"role": "user", "content": f"# prompt {payload}"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s1",
            "timestamp": "2026-12-03T10:00:01Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"thinking {payload}", "signature": "x"},
                    {"type": "text", "text": f"answer {payload}"},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": f"echo '{HOSTILE[1]}' | grep {HOSTILE[2]}"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Edit",
                        "input": {
                            "file_path": HOSTILE[4],
                            "old_string": HOSTILE[5],
                            "new_string": payload,
                        },
                    },
                    {"type": "tool_use", "id": "t3", "name": HOSTILE[6], "input": {"q": payload}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "sessionId": "s1",
            "timestamp": "2026-12-03T10:00:02Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": payload * 40},
                    {"type": "tool_result", "tool_use_id": "t2", "content": payload},
                    {"type": "tool_result", "tool_use_id": "t3", "content": payload},
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "u2",
            "sessionId": "s1",
            "timestamp": "2026-12-03T10:00:03Z",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
            },
        },
        {"type": "summary", "summary": f"title {payload}", "leafUuid": "a2"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_hostile_session_injects_nothing(tmp_path: Path) -> None:
    session = open_session(hostile_claude(tmp_path / "hostile.jsonl"))
    for detail in ("full", "prompts"):
        page = export_text(session, "html", detail=detail)
        found = assert_inert(page)
        text = "".join(found.text)
        assert "<script>alert(1)</script>" in text  # shown as text, not run
        assert "\x1b" not in page and "\u202e" not in page
        assert "[U+202E]" in text
    page = export_text(session, "html")
    assert page.count('<details class="all">') >= 1  # the big result folds with "show all"


@pytest.mark.parametrize("sample", sample_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_hostile_copies_of_every_format(sample: Path, tmp_path: Path) -> None:
    if sample.stat().st_size > 1_000_000:
        pytest.skip("large sample: covered by the smaller ones of its format")
    try:
        path = hostile_copy(sample, tmp_path / sample.name, result="\n".join(HOSTILE))
    except AssertionError:
        pytest.skip("no tool call to make hostile")
    session = open_session(path)
    page = export_text(session, "html")
    assert_inert(page)
    markdown = export_text(session, "markdown")
    assert "\x1b" not in markdown


@pytest.mark.parametrize("sample", sample_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_exports(sample: Path) -> None:
    session = open_session(sample)
    page = export_text(session, "html")
    found = assert_inert(page)
    anchors = {value for tag, name, value in found.attrs if name == "id"}
    assert {f"turn-{n}" for n in range(1, len(session.turns) + 1)} <= anchors
    markdown = export_text(session, "markdown")
    for number in range(1, len(session.turns) + 1):
        assert f"\n## Turn {number}\n" in markdown
    tokens = MarkdownIt("commonmark").parse(markdown)
    titles = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    ours = [title for title in titles if re.fullmatch(r"Turn \d+", title)]
    assert ours == [f"Turn {n}" for n in range(1, len(session.turns) + 1)]  # no fence leaked


def test_detail_levels_keep_what_they_say() -> None:
    sample = next(p for p in sample_files("codex") if "rollout-2025" in p.name)
    session = open_session(sample)
    kinds = {
        detail: {b.kind for t in build_document(session, detail=detail).turns for b in t.blocks}
        for detail in ("full", "no-thinking", "no-tools", "prompts")
    }
    assert {"prompt", "thinking", "tool"} <= kinds["full"]
    assert "thinking" not in kinds["no-thinking"] and "tool" in kinds["no-thinking"]
    assert "tool" not in kinds["no-tools"] and "thinking" in kinds["no-tools"]
    assert kinds["prompts"] <= {"prompt", "answer"}


def test_turn_selection_and_sidechains_and_compaction() -> None:
    sample = next(p for p in sample_files("claude-code") if "sidechains_summary" in p.name)
    session = open_session(sample)
    doc = build_document(session, turns=[2])
    assert [t.number for t in doc.turns] == [2]
    full = build_document(session)
    assert any(b.sidechain for t in full.turns for b in t.blocks)
    dsh = open_session(
        next(p for p in sample_files("dsh") if p.name == "compaction-recovery.jsonl")
    )
    page = export_text(dsh, "html")
    assert 'class="compaction"' in page


def test_edits_become_diffs_and_shell_is_highlighted(tmp_path: Path) -> None:
    session = open_session(hostile_claude(tmp_path / "h.jsonl"))
    page = export_text(session, "html")
    assert '<pre class="diff">' in page and '<span class="add">' in page
    assert '<span class="sh-cmd">echo</span>' in page
    markdown = export_text(session, "markdown")
    assert "```diff\n" in markdown and "```sh\n" in markdown


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("`~ab\n<>&*#-"), max_size=60))
def test_fences_hold_any_backticks(text: str) -> None:
    tokens = MarkdownIt("commonmark").parse(_fenced(text))
    fences = [t for t in tokens if t.type == "fence"]
    assert len(fences) == 1 and len(tokens) == 1
    expected = text if text.endswith("\n") or not text else text + "\n"
    assert fences[0].content == expected


def test_redacted_export_hides_the_secret(tmp_path: Path) -> None:
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    path = hostile_claude(tmp_path / "s.jsonl")
    path.write_text(path.read_text().replace("# prompt", f"# prompt {token}"))
    session = open_session(path)
    plain = export_text(session, "markdown")
    assert token in plain
    redactor = Redactor()
    for kind in ("markdown", "html"):
        text = export_text(session, kind, redactor=redactor)
        assert token not in text and "[REDACTED github-token #1]" in text


def test_cli_writes_new_files_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = next(p for p in sample_files("dsh") if p.name == "multi-turn.jsonl")
    out = tmp_path / "out.html"
    assert main(["export", str(sample), "--as", "html", "--turns", "1", "-o", str(out)]) == 0
    assert_inert(out.read_text())
    before = out.read_bytes()
    assert main(["export", str(sample), "--as", "markdown", "-o", str(out)]) == 1
    assert out.read_bytes() == before
    assert "already exists" in capsys.readouterr().err
    assert main(["export", str(sample), "--as", "markdown", "--turns", "1..", "--redact"]) == 0
    assert "## Turn 1" in capsys.readouterr().out
    assert main(["export", str(sample), "--as", "markdown", "--turns", "1..;"]) == 1
    assert main(["export", str(sample), "--as", "anthropic"]) == 0
    assert '"messages"' in capsys.readouterr().out
