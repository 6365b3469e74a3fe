"""The export screen: pick kind, detail, redaction and path; preview what redaction replaces."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from klipui.export import DETAILS, KINDS, build_document, default_name, write_export
from klipui.export.html import render_html
from klipui.export.markdown import render_markdown
from klipui.export.preview import Hunk, redaction_preview
from klipui.redact import Redactor
from klipui.screens.base import KlipuiScreen
from klipui.session.display import clean_line
from klipui.session.model import Session

SHOWN_HUNKS = 200


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; Escape answers no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "dismiss(True)", "Yes"),
        Binding("n,escape", "dismiss(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(Text(clean_line(self.question)), markup=False)
            yield Label("y: yes   n: no", id="confirm-keys")


class ExportScreen(KlipuiScreen):
    """Export the selected turns (or all) as Markdown or HTML, with a redaction preview."""

    BINDING_GROUP_TITLE = "Export"
    HELP = (
        "Export the selected turns (all turns when none is selected) as Markdown or one "
        "self-contained HTML page. With redaction on, the panes show each place a secret would "
        "be replaced: left as exported, right the original, with the reason for each. The file "
        "is written atomically; an existing file is replaced only after you confirm."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "kind", "Kind"),
        Binding("d", "detail", "Detail"),
        Binding("r", "redact", "Redact"),
        Binding("h", "redact_home", "Home as ~", show=False),
        Binding("m", "redact_emails", "E-mails", show=False),
        Binding("p", "path", "Path"),
        Binding("w,ctrl+s", "write", "Write"),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, session: Session, turns: list[int] | None = None) -> None:
        super().__init__()
        self.session = session
        self.turns = turns or None
        self.kind = "html"
        self.detail = "full"
        self.redact = True
        self.home = False
        self.emails = False
        self.redactor = Redactor()
        self._edited_path = False

    def compose(self) -> ComposeResult:
        yield Static(id="export-settings", markup=False)
        yield Input(value=self._default_path(), id="export-path", select_on_focus=False)
        yield Static(id="export-summary", markup=False)
        with Horizontal(id="export-heads"):
            yield Static(Text("As exported", style="bold"), classes="export-head")
            yield Static(Text("Original", style="bold"), classes="export-head")
        yield VerticalScroll(id="export-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#export-preview").focus()
        self._refresh()

    def _default_path(self) -> str:
        return str(Path.cwd() / default_name(self.session, self.kind, redacted=self.redact))

    def _refresh(self) -> None:
        count = len(self.turns) if self.turns else len(self.session.turns)
        which = f"{count} selected" if self.turns else f"all {count}"
        settings = Text()
        settings.append(f"Export {which} turn{'s' if count != 1 else ''} as ")
        settings.append(self.kind.upper() if self.kind == "html" else "Markdown", style="bold")
        settings.append("  detail ")
        settings.append(self.detail, style="bold")
        settings.append("  redaction ")
        settings.append("on" if self.redact else "off", style="bold")
        if self.redact:
            extras = [
                name for on, name in ((self.home, "home as ~"), (self.emails, "e-mails")) if on
            ]
            settings.append(f" (+ {', '.join(extras)})" if extras else "  (h: home, m: e-mails)")
        self.query_one("#export-settings", Static).update(settings)
        if not self._edited_path:
            self.query_one("#export-path", Input).value = self._default_path()
        if self.redact:
            self.query_one("#export-summary", Static).update(Text("Looking for secrets…"))
        self._preview()

    @work(exclusive=True, thread=True, group="export-preview", name="redaction preview")
    def _preview(self) -> None:
        if not self.redact:
            self.app.call_from_thread(self._show_preview, None)
            return
        doc = build_document(self.session, turns=self.turns, detail=self.detail)
        hunks = redaction_preview(doc, self.redactor, limit=SHOWN_HUNKS)
        self.app.call_from_thread(self._show_preview, hunks)

    def _show_preview(self, hunks: list[Hunk] | None) -> None:
        summary = self.query_one("#export-summary", Static)
        pane = self.query_one("#export-preview", VerticalScroll)
        pane.remove_children()
        self.query_one("#export-heads").display = bool(hunks)
        if hunks is None:
            summary.update(Text("Redaction off: the export holds the texts as they are."))
            return
        kinds: dict[str, int] = {}
        for hunk in hunks:
            for finding in hunk.findings:
                kinds[finding.kind] = kinds.get(finding.kind, 0) + 1
        if not hunks:
            summary.update(Text("Redaction on: no secret found in what is exported."))
            return
        listed = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        more = f" (first {SHOWN_HUNKS} places)" if len(hunks) >= SHOWN_HUNKS else ""
        summary.update(Text(f"Redaction on: {sum(kinds.values())} replacements{more}: {listed}"))
        pane.mount_all([_hunk_widget(hunk) for hunk in hunks])

    def action_kind(self) -> None:
        self.kind = KINDS[(KINDS.index(self.kind) + 1) % len(KINDS)]
        self._refresh()

    def action_detail(self) -> None:
        self.detail = DETAILS[(DETAILS.index(self.detail) + 1) % len(DETAILS)]
        self._refresh()

    def action_redact(self) -> None:
        self.redact = not self.redact
        self._refresh()

    def action_redact_home(self) -> None:
        self.home = not self.home
        self._new_redactor()

    def action_redact_emails(self) -> None:
        self.emails = not self.emails
        self._new_redactor()

    def _new_redactor(self) -> None:
        self.redactor = Redactor(home=self.home, emails=self.emails)
        self.redact = True
        self._refresh()

    def action_path(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Changed, "#export-path")
    def _path_changed(self, event: Input.Changed) -> None:
        if event.input.has_focus:
            self._edited_path = True

    @on(Input.Submitted, "#export-path")
    def _path_submitted(self) -> None:
        self.query_one("#export-preview").focus()
        self.action_write()

    def action_back(self) -> None:
        if self.query_one("#export-path", Input).has_focus:
            self.query_one("#export-preview").focus()
            return
        self.app.pop_screen()

    def action_write(self) -> None:
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self.notify("Give a path to write to (p).", severity="warning")
            return
        path = Path(raw).expanduser()
        if path.is_dir():
            path = path / default_name(self.session, self.kind, redacted=self.redact)
        if path.exists():

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(path, True)

            self.app.push_screen(ConfirmScreen(f"{path} exists. Replace it?"), answered)
            return
        self._write(path, False)

    @work(exclusive=True, thread=True, group="export-write", name="writing the export")
    def _write(self, path: Path, overwrite: bool) -> None:
        self.app.call_from_thread(self.notify, f"Writing {path.name}…", timeout=2)
        redactor = self.redactor if self.redact else None
        doc = build_document(self.session, turns=self.turns, detail=self.detail, redactor=redactor)
        text = render_html(doc) if self.kind == "html" else render_markdown(doc)
        try:
            write_export(path, text, overwrite=overwrite)
        except FileExistsError:
            self.app.call_from_thread(
                self.notify, f"{path}: already exists, not overwritten", severity="error"
            )
            return
        except OSError as error:
            self.app.call_from_thread(
                self.notify, f"{path}: {error.strerror or error}", severity="error"
            )
            return
        turns = len(doc.turns)
        self.app.call_from_thread(
            self.notify, f"Wrote {turns} turn{'s' if turns != 1 else ''} to {path}"
        )


def _hunk_widget(hunk: Hunk) -> Vertical:
    """A hunk as a header (where, why) and its two panes, replaced and replacing text marked."""
    reasons = Text(f"{clean_line(hunk.where)}, line {hunk.first_line}: ", style="bold")
    reasons.append("; ".join(f"{f.placeholder} ← {f.reason}" for f in hunk.findings))
    left = Text("\n".join(clean_line(line) for line in hunk.redacted))
    left.highlight_regex(r"\[REDACTED [^\]]*\]|~", "bold reverse")
    right = Text("\n".join(clean_line(line) for line in hunk.original))
    right.highlight_words([clean_line(f.secret) for f in hunk.findings], "bold reverse")
    return Vertical(
        Static(reasons, classes="export-why", markup=False),
        Horizontal(
            Static(left, classes="export-left", markup=False),
            Static(right, classes="export-right", markup=False),
            classes="export-pair",
        ),
        classes="export-hunk",
    )
