"""Every guide page is listed where a reader looks for guides: the README, the docs' index, the
site's navigation. A new guide is otherwise found only by browsing the folder."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = sorted(path.name for path in (ROOT / "docs" / "guides").glob("*.md"))


@pytest.mark.parametrize(
    ("page", "link"),
    [
        ("README.md", "(docs/guides/{})"),
        ("docs/index.md", "(guides/{})"),
        ("mkdocs.yml", " guides/{}"),
    ],
)
def test_every_guide_is_listed(page: str, link: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert GUIDES, "no guides found"
    assert [name for name in GUIDES if link.format(name) not in text] == []
