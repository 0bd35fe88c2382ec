"""The README shows before it tells, and its documentation holds together: it opens with pictures of the
console (Textual's SVG screenshots, in the repository), every relative link and picture of the README and
`docs/` resolves (a file that exists, a heading that exists for a `#fragment`), and every file of `docs/` is
reachable from the README."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def links(page: Path) -> list[str]:
    """The link targets of a page, code blocks left out (a `](` there is code, not a link)."""
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def anchors(page: Path) -> set[str]:
    """The fragments GitHub gives the page's headings (lower case, punctuation dropped, spaces as -)."""
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")


def test_every_relative_link_and_picture_resolves_to_a_file_and_a_heading() -> None:
    broken = []
    for page in PAGES:
        for target in filter(relative, links(page)):
            path, _, fragment = target.partition("#")
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
        for fragment in (target[1:] for target in links(page) if target.startswith("#")):
            if fragment not in anchors(page):
                broken.append(f"{page.relative_to(ROOT)}: #{fragment} (no such heading)")
    assert broken == []


def test_the_readme_opens_with_pictures_of_the_console_made_by_textual() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    before_the_first_section = readme.split("\n## ", 1)[0]
    pictures = re.findall(r"!\[[^\]]+\]\((docs/pictures/[\w-]+\.svg)\)", before_the_first_section)
    assert pictures == ["docs/pictures/dashboard.svg", "docs/pictures/ad-break.svg", "docs/pictures/fleet.svg"]
    for picture in pictures:
        svg = (ROOT / picture).read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg") and "Generated with Rich" in svg, picture
        assert "omeconsole" in svg or "default" in svg, f"{picture} shows no console"
    ad_break = (ROOT / "docs/pictures/ad-break.svg").read_text(encoding="utf-8")
    assert re.search(r"AD&#160;\d:\d\d|AD \d:\d\d", ad_break), "the ad-break picture shows no break"


def test_every_documentation_page_is_reachable_from_the_readme() -> None:
    readme_links = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")
                    if relative(target)}
    for page in PAGES[1:]:
        assert page.resolve() in readme_links, f"{page.relative_to(ROOT)} is not linked from the README"


def test_every_config_example_of_the_docs_is_a_config_that_validates(tmp_path: Path) -> None:
    from omeconsole.core.config_check import validate_config_file

    examples = [(page, block) for page in PAGES if page.name != "simulator.md"  # scenario files there
                for block in re.findall(r"^```toml\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)]
    assert len(examples) >= 6
    for index, (page, block) in enumerate(examples):
        path = tmp_path / f"example-{index}.toml"
        path.write_text(block, encoding="utf-8")
        assert validate_config_file(path) == [], f"{page.relative_to(ROOT)}, example {index + 1}"
