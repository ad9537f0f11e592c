"""Lesson and quiz Markdown as plain lines in reading order, parsed by markdown-it (the
parser family the app's Markdown view uses): no markup characters left to be read out."""

from __future__ import annotations

from tui_course.content.markdown import inline_text, reading_parser


def markdown_lines(text: str) -> list[str]:
    """Paragraphs, headings, lists, quotes, code and tables, a blank line between blocks.
    A table is read row by row, each cell with its column's name."""
    tokens = reading_parser().parse(text)
    lines: list[str] = []
    lists: list[list[int]] = []  # for each open list: [next number] (or [-1] for bullets)
    quote = 0
    table_head: list[str] = []
    row: list[str] = []
    in_head = False
    pending_marker = ""

    def indent() -> str:
        return "  " * (len(lists) - 1 if lists else 0) + "  " * quote

    def add(block: str) -> None:
        nonlocal pending_marker
        for number, part in enumerate(block.split("\n")):
            marker = pending_marker if number == 0 else " " * len(pending_marker)
            lines.append(f"{indent()}{marker}{part}".rstrip())
        pending_marker = ""

    def gap() -> None:
        if lines and lines[-1] != "" and not lists:
            lines.append("")

    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            gap()
        elif kind == "inline" and not (row or in_head):
            add(inline_text(token.children))
        elif kind in ("paragraph_close", "heading_close"):
            gap()
        elif kind == "bullet_list_open":
            lists.append([-1])
        elif kind == "ordered_list_open":
            lists.append([int(token.attrs.get("start", 1) or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                gap()
        elif kind == "list_item_open" and lists:
            number = lists[-1][0]
            pending_marker = "- " if number < 0 else f"{number}. "
            if number >= 0:
                lists[-1][0] += 1
        elif kind == "blockquote_open":
            quote += 1
        elif kind == "blockquote_close":
            quote -= 1
        elif kind in ("fence", "code_block"):
            gap()
            language = token.info.split()[0].lower() if token.info.split() else ""
            what = "figure" if language in ("text", "") else "code"
            named = f" ({language})" if what == "code" and language else ""
            lines.append(f"{indent()}{what.capitalize()}{named}:")
            for code in token.content.rstrip("\n").split("\n"):
                lines.append(f"{indent()}    {code}".rstrip())
            lines.append(f"{indent()}End of {what}.")
            gap()
        elif kind == "hr":
            gap()
        elif kind == "html_block":
            add(token.content.rstrip("\n"))
            gap()
        elif kind == "thead_open":
            in_head, table_head = True, []
            gap()
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open":
            row = []
        elif kind in ("th_open", "td_open"):
            row.append("")
        elif kind == "inline" and (in_head or row):
            if row:
                row[-1] = inline_text(token.children)
        elif kind == "tr_close":
            if in_head:
                table_head = list(row)
            else:
                cells = [
                    f"{table_head[i]}: {cell}" if i < len(table_head) and table_head[i] else cell
                    for i, cell in enumerate(row)
                ]
                add("; ".join(cells) + ".")
            row = []
        elif kind == "table_close":
            gap()
    while lines and lines[-1] == "":
        lines.pop()
    return lines
