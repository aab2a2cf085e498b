"""An HTML report as a browser's parser sees it: elements, attributes, tables and text."""

from html.parser import HTMLParser


class Page(HTMLParser):
    """Every element with its attributes, every table as rows of cell texts, all the text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[list[list[str]]] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        """The attributes of every element named `name`."""
        return [attrs for tag, attrs in self.elements if tag == name]

    def table_with(self, header: list[str]) -> list[list[str]]:
        """The rows (header first) of the one table whose header is `header`."""
        [found] = [table for table in self.tables if table and table[0] == header]
        return found

    def attribute_values(self, name: str) -> list[str]:
        """The value of attribute `name` wherever it appears."""
        return [str(attrs[name]) for _, attrs in self.elements if name in attrs]


def markdown_table(markdown: str, heading: str) -> list[list[str]]:
    """The table under `## heading` as rows of cells (header first, the --- rule left out).

    For tables whose cells hold no escaped `|` (numbers, plain labels).
    """
    body = markdown.split(f"## {heading}\n\n", 1)[1].split("\n\n", 1)[0]
    lines = [line for line in body.splitlines() if not line.startswith("|---")]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
