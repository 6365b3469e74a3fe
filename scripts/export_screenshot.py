"""Write `screenshots/export-html.png`: the HTML export of the bundled Claude Code demo session,
rendered headless.

    python scripts/export_screenshot.py [--out screenshots/export-html.png] [--width 900]

Needs WeasyPrint (HTML → PDF, with the system's Pango) and pypdfium2 (PDF → PNG), which are not
klipui dependencies: `pip install weasyprint pypdfium2`. WeasyPrint is a print renderer: the
`<details>` sections would print open, so a style keeps them closed as a browser shows them, and
the page is cut into A4-high slices; the first slices are stacked into one picture.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEMO = next((ROOT / "klipui" / "demo" / "sessions" / "claude").rglob("*.jsonl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "screenshots" / "export-html.png"))
    parser.add_argument("--pages", type=int, default=2, help="pages stacked in the picture")
    args = parser.parse_args()
    import pypdfium2
    import weasyprint
    from PIL import Image

    from klipui.export import export_text
    from klipui.redact import Redactor
    from klipui.session import open_session

    page = export_text(open_session(DEMO), "html", turns=[1, 2], redactor=Redactor())
    screen = (
        "@page { size: 210mm 297mm; margin: 8mm; } body { max-width: none; }"
        " details:not([open]) > :not(summary) { display: none; }"  # closed, as a browser shows
    )
    pdf = weasyprint.HTML(string=page).write_pdf(stylesheets=[weasyprint.CSS(string=screen)])
    document = pypdfium2.PdfDocument(pdf)
    images = [
        document[i].render(scale=1.4).to_pil().convert("RGB")
        for i in range(min(args.pages, len(document)))
    ]
    picture = Image.new("RGB", (images[0].width, sum(i.height for i in images)), "white")
    top = 0
    for image in images:
        picture.paste(image, (0, top))
        top += image.height
    picture.save(args.out, optimize=True)
    print(f"wrote {args.out} ({picture.width}x{picture.height})")


if __name__ == "__main__":
    main()
