"""The built documentation site as a reader sees it: headless Chromium renders every paper page,
the guide, the results page and three notebooks, and this fails on what a reader would see wrong.

Each page is copied beside itself with a small script appended, loaded by ``chromium --headless
--dump-dom`` with a virtual-time budget (MathJax typesets first: a local copy given by
``--mathjax``/``MATHJAX``, as ``.ci/run`` installs one, else the page's CDN copy where it is
reachable; the script runs after it), and the script writes what it measured into the DOM, which
is read back:

- **raw markup in the text**: ``$``, ``\\frac``, ``\\(``, ``**`` or a TeX command in a text node
  outside code, a literal block, and the maths MathJax renders (``mjx-container``; without
  MathJax also ``span.math``/``div.math``, left as TeX by design); where MathJax ran, a formula it
  could not typeset (an error box ``mjx-merror``, an undefined macro in red);
- **a word broken inside a table cell**: a word of four or more letters whose glyphs lie on two
  lines (``Range.getClientRects``), as "memori zation" did;
- **an image narrower than its stated minimum**: a figure drawn at its natural width ``w`` is shown
  at no less than :data:`MIN_SCALE` of it (below that its 9-pt text, see
  ``transformer_theory.plotting.MIN_FONT``, falls under 9 screen pixels) and ``w`` is at least
  :data:`MIN_NATURAL` pixels;
- **a clipped output**: a notebook output or code block wider than its box (its text cut at the
  column's edge or hidden behind a scrollbar).

Usage: ``python .ci/check_pages.py docs/_build/html [--mathjax NODE_MODULES]`` (about a minute;
exit 1 with one line per problem). ``CHROMIUM`` names the browser (default: ``chromium``,
Debian's package); ``npm install --prefix DIR mathjax@4`` gives ``DIR/node_modules`` for
``--mathjax``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: The pages a reader of each paper opens, and three notebooks (the widest outputs and figures).
PAGES = (
    "index.html",
    "papers/chen_zou2024.html",
    "papers/sanford_peng.html",
    "papers/svete_cotterell2024.html",
    "papers/formal_languages.html",
    "papers/barbero2024.html",
    "papers/conti2024.html",
    "rasp.html",
    "guide.html",
    "results.html",
    "notebooks.html",
    "notebooks/07_collapse_oversquashing.html",
    "notebooks/09_formal_languages.html",
    "notebooks/11_rasp.html",
)

MIN_SCALE = 0.65
"""The smallest shown-to-natural width ratio of an image (9 pt at 110 dpi is 13.75 pixels)."""

MIN_NATURAL = 300
"""The smallest natural width, in pixels, of a figure on a page (icons and badges aside)."""

#: Runs in the page once it has loaded and MathJax (if any) has typeset; writes its findings as
#: JSON into <pre id="tt-page-check">.
SCRIPT = r"""
<script>
(function () {
  function check() {
    var out = {raw: [], broken: [], images: [], clipped: [], merror: 0,
               mathjax: !!(window.MathJax && window.MathJax.startup)};
    // Where MathJax typeset the page, TeX left in a span.math is TeX it could not read (an
    // unbalanced brace): raw. Without MathJax every span.math is left as TeX, by design.
    var skip = "code, pre, script, style, mjx-container, .MathJax, #tt-page-check" +
               (out.mathjax ? "" : ", .math");
    var raw = /\$|\\frac|\\\(|\\\[|\*\*|\\(?:mathbf|mathbb|mathcal|begin|end|le|ge|sum|cdot)\b/;
    var walker = document.createTreeWalker(document.querySelector("article") || document.body,
                                           NodeFilter.SHOW_TEXT);
    var node;
    while ((node = walker.nextNode())) {
      var parent = node.parentElement;
      if (!parent || parent.closest(skip)) continue;
      var m = raw.exec(node.data);
      if (m) out.raw.push(node.data.slice(Math.max(0, m.index - 40), m.index + 40).trim());
      if (!parent.closest("td, th")) continue;
      var word = /[A-Za-z]{4,}/g, w;
      while ((w = word.exec(node.data))) {
        var range = document.createRange();
        range.setStart(node, w.index);
        range.setEnd(node, w.index + w[0].length);
        var tops = {};
        Array.prototype.forEach.call(range.getClientRects(), function (r) {
          if (r.width > 0) tops[Math.round(r.bottom)] = true;
        });
        if (Object.keys(tops).length > 1) out.broken.push(w[0]);
      }
    }
    // an error box, or (MathJax 4's noundefined) an undefined macro shown as red text
    out.merror = document.querySelectorAll(
      'mjx-merror, mjx-container mjx-mtext[style*="color: red"]').length;
    document.querySelectorAll("article img").forEach(function (img) {
      if (!img.naturalWidth || img.closest("a.headerlink")) return;
      if (img.src.indexOf("badge") >= 0 || img.naturalWidth < 64) return;
      out.images.push({src: img.src.split("/").pop(), natural: img.naturalWidth,
                       shown: img.getBoundingClientRect().width});
    });
    document.querySelectorAll("article div.cell_output pre, article div.highlight pre")
      .forEach(function (pre) {
        if (pre.scrollWidth > pre.clientWidth + 2)
          out.clipped.push(pre.textContent.slice(0, 60));
      });
    var pre = document.createElement("pre");
    pre.id = "tt-page-check";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  window.addEventListener("load", function () {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise)
      MathJax.startup.promise.then(check, check);
    else setTimeout(check, 500);
  });
})();
</script>
"""


CDN_MATHJAX = re.compile(
    r'<script[^>]*src="https://cdn\.jsdelivr\.net/npm/mathjax@[^"]*/tex-mml-chtml\.js"'
)
"""The MathJax script Sphinx links from the CDN (``sphinx.ext.mathjax``'s default)."""


def render(page: Path, chromium: str, budget_ms: int = 20000, mathjax: Path | None = None) -> dict:
    """What :data:`SCRIPT` measured on ``page`` rendered 1280 pixels wide. ``mathjax``: a local
    MathJax 4 (a ``node_modules`` folder holding ``mathjax`` and its font
    ``@mathjax/mathjax-newcm-font``) loaded in place of the CDN's, where the CDN is out of reach
    as on CI's machines: then every formula is typeset, and one MathJax cannot typeset fails."""
    probe = page.with_name(page.stem + ".tt-check.html")
    text = page.read_text(encoding="utf-8")
    if mathjax is not None:
        fonts = (mathjax / "@mathjax").resolve().as_uri() + "/%%FONT%%-font"
        config = (  # after the page's own MathJax settings (MyST-NB's processHtmlClass)
            "<script>var M = window.MathJax = window.MathJax || {};"
            f'M.output = Object.assign(M.output || {{}}, {{fontPath: "{fonts}"}});'
            "M.options = Object.assign(M.options || {}, {enableSpeech: false, "
            "enableBraille: false, enableEnrichment: false, enableExplorer: false, "
            "enableComplexity: false, menuOptions: {settings: {enrich: false, speech: false, "
            "braille: false, collapsible: false, assistiveMml: false}}});</script>"
            # the accessibility extensions' speech worker kept MathJax's startup from resolving
        )
        local = (mathjax / "mathjax" / "tex-mml-chtml.js").resolve().as_uri()
        text = CDN_MATHJAX.sub(lambda m: f'{config}<script defer="defer" src="{local}"', text)
    probe.write_text(text.replace("</body>", SCRIPT + "</body>"), encoding="utf-8")
    try:
        done = subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--allow-file-access-from-files",  # a local MathJax starts its worker
                "--hide-scrollbars",
                "--window-size=1280,2000",
                f"--virtual-time-budget={budget_ms}",
                "--dump-dom",
                probe.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        probe.unlink()
    match = re.search(r'<pre id="tt-page-check"[^>]*>(.*?)</pre>', done.stdout, flags=re.S)
    if not match:
        raise RuntimeError(f"{page.name}: the check did not run ({done.stderr.strip()[-300:]})")
    return json.loads(html.unescape(match.group(1)))


def problems(name: str, found: dict) -> list[str]:
    """One line per thing a reader would see wrong on page ``name``."""
    out = [f"{name}: raw markup in the text: {t!r}" for t in found["raw"]]
    out += [f"{name}: a word broken inside a table cell: {w!r}" for w in found["broken"]]
    if found["merror"]:
        out.append(f"{name}: {found['merror']} formulas MathJax could not typeset")
    for img in found["images"]:
        if img["natural"] < MIN_NATURAL:
            out.append(f"{name}: image {img['src']} is {img['natural']} px wide (< {MIN_NATURAL})")
        elif img["shown"] < MIN_SCALE * min(img["natural"], 10_000) - 1:
            out.append(
                f"{name}: image {img['src']} shown {img['shown']:.0f} px wide, under "
                f"{MIN_SCALE} of its {img['natural']} px (its text would be unreadable)"
            )
    out += [f"{name}: an output wider than its box: {t!r}" for t in found["clipped"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site (docs/_build/html)")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), help="pages to check")
    parser.add_argument(
        "--mathjax",
        type=Path,
        default=os.environ.get("MATHJAX") or None,
        help="a node_modules folder holding MathJax 4 and its font, to typeset with in place of "
        "the CDN's (default: $MATHJAX; .ci/run installs one with npm install mathjax@4)",
    )
    args = parser.parse_args(argv)
    if args.mathjax is not None and not (args.mathjax / "mathjax" / "tex-mml-chtml.js").is_file():
        print(f"check_pages: no MathJax at {args.mathjax}", file=sys.stderr)
        return 2
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "chromium"
    if not shutil.which(chromium) and not Path(chromium).exists():
        print(f"check_pages: no browser {chromium!r} (apt-get install chromium)", file=sys.stderr)
        return 2
    bad, mathjax = [], False
    for name in args.pages:
        page = args.site / name
        if not page.exists():
            bad.append(f"{name}: not built")
            continue
        found = render(page, chromium, mathjax=args.mathjax)
        mathjax |= found["mathjax"]
        bad += problems(name, found)
    typeset = "typeset by MathJax" if mathjax else "MathJax unreachable: maths left to span.math"
    print(f"check_pages: {len(args.pages)} pages rendered ({typeset}), {len(bad)} problems")
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
