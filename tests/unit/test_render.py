"""Golden text for the figures, as students see them in lessons and on the command line."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from tui_course.content.blocks.attention import AttentionParams
from tui_course.content.blocks.params import ParamsParams
from tui_course.content.blocks.pe_table import PETableParams
from tui_course.content.segments import BlockSegment
from tui_course.render.blocks import render_block
from tui_course.render.heatmap import format_percent, heatmap_cells, heatmap_text, shade


def test_heatmap_golden() -> None:
    text = heatmap_text(heatmap_cells([[0.5, 0.5], [0.1, 0.9]], ["a", "bb"], ["a", "bb"], 1))
    assert text == (
        "        a    bb\n"
        " a  ++ 50 ++ 50\n"
        ">bb .. 10 @@ 90\n"
        "          ^^^^^\n"
        "weights in %; shade ' ' = 0 ... '@' = 90; ^ strongest key for 'bb'"
    )


def test_format_and_shade() -> None:
    assert format_percent(0.314) == " 31"
    assert format_percent(1.0) == "100"
    assert shade(0.0, 1.0) == " " and shade(1.0, 1.0) == "@" and shade(0.5, 1.0) == "="
    assert shade(0.75, 1.0, low=0.5) == "=" and shade(0.5, 1.0, low=0.5) == " "


def test_figure_a_block_golden() -> None:
    block = BlockSegment(
        "attention",
        AttentionParams("toy-cat-sat", query="sat", output=True, loop_check=True),
        1,
    )
    lines = render_block(block).splitlines()
    assert lines[:-1] == (
        [
            "toy-cat-sat, d = 3, one head: Q = K = V = the vectors",
            "scores / sqrt(3)",
            "",
            "        the   cat   sat  down",
            " the  @@ 32 %% 30 ++ 19 ++ 18",
            " cat  @@ 31 %% 29 ** 20 ++ 19",
            ">sat  ** 20 ** 21 %% 30 %% 29",
            " down ** 20 ** 21 %% 29 %% 30",
            "                  ^^^^^",
            "weights in %; shade ' ' = 0 ... '@' = 32; ^ strongest key for 'sat'",
            "",
            "Weights of 'sat' (sum 1.00):",
            "  the  0.20 ####",
            "  cat  0.21 ####",
            "  sat  0.30 ######  <- strongest",
            "  down 0.29 ######",
            "",
            "New 'sat' = [0.419, 0.523, 0.147]",
            "",
            "Loop and vectorised versions (scaled, 1 head): identical",
        ]
    )
    gap = float(lines[-1].removeprefix("(largest difference ").removesuffix(")"))
    assert gap < 1e-12


def test_pe_table_golden() -> None:
    assert render_block(BlockSegment("pe-table", PETableParams(positions=2, dim=4), 1)) == (
        "Sinusoidal PE, d_model = 4, positions 0 to 1\n"
        "\n"
        "pos  sin 0 cos 1 sin 2 cos 3\n"
        "  0  0.000 1.000 0.000 1.000\n"
        "  1  0.841 0.540 0.010 1.000"
    )


def test_params_block_totals_the_lab_model() -> None:
    params = render_block(BlockSegment("params", ParamsParams(), 1)).splitlines()
    assert params[-1].split() == ["Total", "trainable", "parameters", "14,049"]


def test_causal_block_shows_zero_weights_above_the_diagonal() -> None:
    text = render_block(BlockSegment("attention", AttentionParams("toy-it", causal=True), 1))
    first_row = text.splitlines()[4]
    assert first_row == " the @@100     0     0     0"
    assert "causal mask" in text.splitlines()[1]


def test_position_similarity_block_is_signed_with_a_shade_legend() -> None:
    block = BlockSegment(
        "pe-table", PETableParams(positions=3, dim=64, table=False, similarity=True), 1
    )
    assert render_block(block).splitlines() == [
        "Sinusoidal PE, d_model = 64, positions 0 to 2",
        "",
        "Cosine similarity of positions:",
        "         0       1       2",
        " 0 ## 1.00 ## 0.97 ## 0.88",
        " 1 ## 0.97 ## 1.00 ## 0.97",
        " 2 ## 0.88 ## 0.97 ## 1.00",
        "cosine similarity from -1 to +1; shade order "
        "-1 '=' '-' '~' ',' ' ' (0) '.' ':' '+' '#' +1",
    ]


def test_long_sentences_are_windowed_around_the_selected_row() -> None:
    import numpy as np

    labels = [f"w{i}" for i in range(64)]
    weights = np.full((64, 64), 1 / 64)
    weights[40] = 0.0
    weights[40, 45] = 1.0
    text = heatmap_text(
        heatmap_cells(weights, labels, labels, selected=40, max_rows=5, max_columns=4)
    )
    lines = text.splitlines()
    assert [line.split()[0] for line in lines[1:6]] == ["w38", "w39", ">w40", "w41", "w42"]
    assert lines[0].split() == ["w43", "w44", "w45", "w46"]
    assert lines[3].split()[1:] == ["0", "0", "@@100", "0"]
    assert lines[-1].endswith("; ^ strongest key for 'w40'; rows 39-43 and columns 44-47 of 64")
    assert lines[-2] == " " * 17 + "^^^^^"  # under w45, the third column shown
    assert all(len(line) <= 40 for line in lines[:-2])


def test_rich_heatmap_has_the_same_characters_as_plain() -> None:
    from tui_course.render.heatmap import heatmap_rich

    cells = heatmap_cells([[0.5, 0.5], [0.1, 0.9]], ["a", "bb"], ["a", "bb"], selected=1)
    assert heatmap_rich(cells).plain == heatmap_text(cells)


def test_weight_bars_unicode_and_limit() -> None:
    from tui_course.render.heatmap import weight_bars

    text = weight_bars([0.1, 0.6, 0.3], ["a", "b", "c"], width=10, limit=2, ascii_only=False)
    assert text.splitlines() == [
        "  b 0.60 \u2588\u2588\u2588\u2588\u2588\u2588  \u2190 strongest",
        "  c 0.30 \u2588\u2588\u2588",
        "  ... 1 weaker keys not listed",
    ]


def test_line_plot_grows_from_the_left() -> None:
    from tui_course.render.plot import line_plot

    lines = line_plot({"a": [0.0, 1.0]}, width=10, height=3, total=4).splitlines()
    assert lines == [
        "1.00 |   *",
        "     |",
        "0.00 |*",
        "     +----------",
        "      1  epoch 4",
        "      * a",
    ]


def test_wide_labels_align_by_terminal_cells() -> None:
    from rich.cells import cell_len

    labels = ["猫", "😀", "cat", "東京駅です"]
    weights = np.full((4, 4), 0.25)
    weights[1] = [0.1, 0.6, 0.2, 0.1]
    lines = heatmap_text(heatmap_cells(weights, labels, labels, selected=1)).splitlines()
    rows = lines[1:5]
    assert len({cell_len(line) for line in [lines[0], *rows]}) == 1
    assert rows[1].startswith(">😀")
    caret = lines[5]
    assert cell_len(rows[1][: rows[1].index("@@")]) == len(caret) - len(caret.lstrip())
    assert lines[0].split() == ["猫", "😀", "cat", "東京駅です"]  # room enough: whole words


def test_narrow_wide_labels_are_numbered_and_named_by_cells() -> None:
    from rich.cells import cell_len

    labels = ["猫", "😀", "cat", "東京駅です"]
    weights = np.full((4, 4), 0.25)
    weights[1] = [0.1, 0.6, 0.2, 0.1]
    lines = heatmap_text(heatmap_cells(weights, labels, labels, selected=1, width=40)).splitlines()
    assert lines[0].split() == ["1", "2", "3", "4"]
    assert len({cell_len(line) for line in lines[:5]}) == 1
    assert lines[6] == "keys: 1 猫  2 😀  3 cat  4 東京駅です"
    assert all(cell_len(line) <= 40 for line in lines)


def test_signed_shades_keep_the_sign() -> None:
    from tui_course.render.heatmap import DIVERGING_RAMP, format_signed, signed_shade

    assert [signed_shade(v) for v in (-1.0, -0.42, 0.0, 0.42, 1.0)] == ["=", "~", " ", ":", "#"]
    assert DIVERGING_RAMP.index(signed_shade(-0.6)) < DIVERGING_RAMP.index(signed_shade(-0.1))
    assert format_signed(-0.416) == "-0.42" and format_signed(-0.001) == " 0.00"


def test_kept_columns_survive_windowing() -> None:
    labels = [str(i + 1) for i in range(30)]
    weights = np.full((30, 30), 1 / 30)
    weights[29, 20] = 0.5
    lines = heatmap_text(
        heatmap_cells(weights, labels, labels, 29, max_rows=4, max_columns=6, keep_columns=(0, 29))
    ).splitlines()
    assert lines[0].split() == ["1", "19", "20", "21", "22", "30"]
    assert lines[4].split()[7:9] == ["@@", "50"]
    assert lines[5] == " " * 22 + "^^^^^"  # under '21', the fourth column shown
    assert lines[-1].endswith("rows 27-30 and columns 1, 19-22, 30 of 30")
    narrow = heatmap_cells(weights, labels, labels, 29, max_columns=2, keep_columns=(0, 29))
    assert heatmap_text(narrow).splitlines()[0].split() == ["1", "30"]


def test_lesson_2_claim_train_looks_most_at_station_after_itself() -> None:
    from tui_course.maths.explore import AttentionSetup, explore_attention

    result = explore_attention(AttentionSetup("The train left the station on time"))
    row = result.weights[0, 1]
    order = [result.tokens[i] for i in np.argsort(-row)]
    assert order[:2] == ["train", "station"]


def sentence_weights(labels: list[str], strongest: int) -> np.ndarray:
    weights = np.full((len(labels), len(labels)), 0.5 / (len(labels) - 1))
    weights[:, strongest] = 0.5
    return weights


LONG_SENTENCE = [
    *["The", "animal", "didn't", "cross", "the", "street"],
    *["because", "it", "was", "too", "tired"],
]


def test_whole_words_when_the_width_has_room() -> None:
    weights = sentence_weights(LONG_SENTENCE, 2)
    text = heatmap_text(heatmap_cells(weights, LONG_SENTENCE, LONG_SENTENCE, 0, width=120))
    lines = text.splitlines()
    assert lines[0].split() == LONG_SENTENCE
    assert "street  because" in lines[0]  # a spare cell between whole words when it fits
    assert "~" not in text and "keys:" not in text and "columns" not in text
    header_end = lines[0].index("didn't") + len("didn't")
    caret = lines[len(LONG_SENTENCE) + 1]
    assert caret.strip() == "^^^^^" and len(caret) == header_end  # under 'didn't', right-aligned
    assert lines[1][header_end - 5 : header_end] == "@@ 50"
    assert all(len(line) <= 120 for line in lines)


def key_line_names(lines: list[str]) -> dict[str, str]:
    """Number -> word from the 'keys:' line and the indented lines that continue it."""
    start = next(index for index, line in enumerate(lines) if line.startswith("keys: "))
    text = lines[start].removeprefix("keys: ")
    for line in lines[start + 1 :]:
        if not line.startswith("      "):
            break
        text += "  " + line.strip()
    return dict(pair.split(" ", 1) for pair in text.split("  "))


def test_compact_numbered_columns_with_a_key_line_when_narrow() -> None:
    weights = sentence_weights(LONG_SENTENCE, 2)
    for width in (76, 60):
        lines = heatmap_text(
            heatmap_cells(weights, LONG_SENTENCE, LONG_SENTENCE, 0, width=width)
        ).splitlines()
        numbers = lines[0].split()
        assert all(len(line) <= width for line in lines), width
        named = key_line_names(lines)
        assert [named[number] for number in numbers] == [
            LONG_SENTENCE[int(number) - 1] for number in numbers
        ]
        assert len(named) == len(numbers)
    lines = heatmap_text(heatmap_cells(weights, LONG_SENTENCE, LONG_SENTENCE, 0, width=76))
    assert lines.splitlines()[0].split() == [str(n) for n in range(1, 12)]  # all 11 fit
    assert "columns" not in lines
    narrow = heatmap_text(heatmap_cells(weights, LONG_SENTENCE, LONG_SENTENCE, 0, width=60))
    assert "columns 1-8 of 11" in narrow  # windowing only when compact columns do not fit


def test_short_words_stay_in_compact_columns_without_a_key_line() -> None:
    labels = ["a", "bb", "ccc"]
    text = heatmap_text(heatmap_cells(sentence_weights(labels, 1), labels, labels, 0, width=30))
    assert text.splitlines()[0].split() == labels and "keys:" not in text


def test_markup_and_escape_codes_in_labels_stay_plain_text() -> None:
    from tui_course.render.heatmap import heatmap_rich

    labels = ["[bold]x[/bold]", "\x1b[31mred", "[@click=app.quit]q", "ok"]
    weights = sentence_weights(labels, 0)
    for width in (None, 30):
        cells = heatmap_cells(weights, labels, labels, 1, width=width)
        rich = heatmap_rich(cells)
        assert rich.plain == heatmap_text(cells)
        assert "\x1b" not in rich.plain
        assert "[bold]x[/bold]" in rich.plain and "[31mred" in rich.plain


def test_narrow_legends_and_key_lines_wrap_inside_the_width() -> None:
    from tui_course.render.heatmap import DIVERGING_RAMP

    labels = [str(position) for position in range(10)]
    similarity = np.eye(10) - 0.5 * np.eye(10, k=1) - 0.5 * np.eye(10, k=-1)
    for width in (38, 24):
        lines = heatmap_text(
            heatmap_cells(similarity, labels, labels, 0, signed=True, width=width)
        ).splitlines()
        assert all(len(line) <= width for line in lines), width
        legend = " ".join(lines[lines.index(next(x for x in lines if "^" in x)) + 1 :])
        order = re.search(r"shade order -1 (.*) \+1", legend)
        assert order is not None
        shades = re.findall(r"'(.)'", order.group(1))
        assert "".join(shades) == DIVERGING_RAMP  # every shade, in order, nothing cut
    words = ["a", "b" * 40, "c"]
    lines = heatmap_text(
        heatmap_cells(sentence_weights(words, 0), words, words, 0, width=30)
    ).splitlines()
    assert all(len(line) <= 30 for line in lines)
    assert any(line.startswith("      2 bbbb") and line.endswith("~") for line in lines)


def test_a_block_sentence_past_the_word_limit_is_refused_not_cut() -> None:
    """validate passed a 70-word block (the view kept 64, with a note) and then said its
    query, word 70, 'is not a word of the sentence'. The limit is specs.SENTENCE_WORDS."""
    from tui_course import specs
    from tui_course.render.blocks import BlockError

    limit = specs.SENTENCE_WORDS.high
    words = [f"w{i}" for i in range(limit + 6)]
    block = BlockSegment(
        "attention", AttentionParams("hashed", sentence=" ".join(words), query=words[-1]), 1
    )
    with pytest.raises(BlockError, match=f"'sentence' has {limit + 6} words; a figure takes at"):
        render_block(block)
    at_limit = AttentionParams("hashed", sentence=" ".join(words[:limit]), query="w0")
    assert "Weights of 'w0'" in render_block(BlockSegment("attention", at_limit, 1))
    result = subprocess.run(
        [sys.executable, "-m", "tui_course", "attention", "--embeddings", "hashed", *words],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"attn-tui: attention: error: WORD: at most {limit} words, got 70\n"


def test_similarity_map_marks_the_most_alike_other_position_by_its_label() -> None:
    """'^ strongest key' under a row's own 1.00 said nothing; 'columns 1-9' named
    positions 0-8."""
    from tui_course.maths.positional import position_similarity, positional_encoding

    similarity = position_similarity(positional_encoding(10, 8))
    labels = [str(position) for position in range(10)]
    lines = heatmap_text(
        heatmap_cells(similarity, labels, labels, 0, signed=True, width=76)
    ).splitlines()
    assert lines[0].split()[0] == "0"  # the row's own column stays on screen
    assert "^ most alike to '0', itself aside" in lines[-1]
    assert "rows 0-9 and columns 0, 2-9 of 10" in lines[-1]
    marker = next(line for line in lines if "^^" in line)
    column = lines[0].split()[(marker.index("^") - 3) // 8]
    assert column == str(int(np.argmax(similarity[0, 1:])) + 1)  # 6: 0.95


def test_pe_report_fits_a_60_column_terminal() -> None:
    """`attn-tui pe --dim 16 --similarity` at 60 columns wrapped every row into the next."""
    from tui_course.maths.positional import positional_encoding
    from tui_course.render.positional import pe_report

    text = pe_report(12, 16, shaded=True, similarity=True, width=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    blocks = text.split("\n\n")
    tables = [block for block in blocks if block.startswith("pos   sin")]
    assert [block.splitlines()[0].split()[1:3] for block in tables] == [
        ["sin", "0"],
        ["sin", "8"],
    ]
    numbers = [[float(cell) for cell in line.split()[1:]] for line in tables[1].splitlines()[1:]]
    assert np.allclose(numbers, np.round(positional_encoding(12, 16)[:, 8:], 3))
    assert "rows 1-12 and columns" not in text  # positions are named by their labels
    assert "columns 0-6 of 12" in text
    assert pe_report(12, 16, similarity=True) == pe_report(12, 16, similarity=True, width=None)
    assert max(len(line) for line in pe_report(12, 16, similarity=True).splitlines()) > 60


def test_cells_that_print_the_same_percentage_get_the_same_shade() -> None:
    """'cat == 50 ++ 50': 0.496 and 0.504 both print 50 but were shaded apart."""
    weights = np.array([[1.0, 0.0], [0.496, 0.504]])
    lines = heatmap_text(heatmap_cells(weights, ["a", "b"], ["a", "b"], 1)).splitlines()
    row = next(line for line in lines if line.startswith(">b"))
    cells = row.split()[1:]
    assert cells[1] == "50" and cells[3] == "50"
    assert cells[0] == cells[2]  # the same shade characters
