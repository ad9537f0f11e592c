"""The labs' view states, without Textual: each key one change, rules in milliseconds."""

from __future__ import annotations

from tui_course import specs
from tui_course.maths.explore import AttentionSetup
from tui_course.render.attention import controls
from tui_course.views.attention import AttentionExplorer
from tui_course.views.pe import PEExplorer


def test_the_query_row_wraps_and_stays_within_a_shorter_sentence() -> None:
    explorer = AttentionExplorer(AttentionSetup("The train left the station"), row=4)
    assert explorer.query_word == "station"
    assert explorer.move(1).query_word == "The"
    shorter = explorer.with_sentence("The train")
    assert (shorter.query, shorter.query_word) == (1, "train")
    assert shorter.move(1).query == 0


def test_switches_change_the_setup_and_say_so() -> None:
    explorer = AttentionExplorer(AttentionSetup("The train left"))
    switched = explorer.toggle_scale().toggle_causal().cycle_heads()
    assert (switched.setup.scale, switched.setup.causal, switched.setup.heads) == (False, True, 2)
    items, tail = controls(switched)
    assert items[0] == "query 'The' (up/down, click)" and tail == ""
    assert items[1:4] == ["s scale off", "c causal on", "m heads 2"]
    heads = [explorer.cycle_heads(), explorer.cycle_heads().cycle_heads()]
    assert [h.setup.heads for h in heads] == [2, 4]
    assert heads[1].result is not None and heads[1].result.weights.shape[0] == 4


def test_no_words_is_a_problem_line_not_an_error() -> None:
    empty = AttentionExplorer(AttentionSetup("   "), editable=True)
    assert empty.result is None and empty.query_word is None
    assert empty.move(1) is empty
    items, tail = controls(empty)
    assert tail == "type at least one word" and not items[0].startswith("query")


def test_a_lesson_figure_switches_to_each_sets_own_words() -> None:
    lesson = AttentionExplorer(AttentionSetup("The train left the station on time"))
    cat = lesson.cycle_embeddings()
    assert cat.setup.embeddings == "toy-cat-sat" and cat.setup.sentence != lesson.setup.sentence
    typed = AttentionExplorer(AttentionSetup("my own words"), editable=True).cycle_embeddings()
    assert typed.setup.sentence == "my own words"  # the student's sentence stays


def test_pe_explorer_stays_in_bounds_and_keeps_the_compared_row_within() -> None:
    explorer = PEExplorer.of(10, 8)
    assert explorer.select(-1).selected == 9
    fewer = explorer.select(-1).more_positions(-1)
    assert (fewer.positions, fewer.selected) == (9, 8)
    top = PEExplorer.of(specs.POSITIONS.high + 5, specs.DIM.high)
    assert top.more_positions(1).positions == specs.POSITIONS.high
    assert top.wider(2).dim == specs.DIM.high
    assert explorer.encoding.shape == (10, 8) and explorer.similarity.shape == (10, 10)
    assert explorer.select_row(99) is explorer


def test_a_pass_for_an_older_sentence_is_never_shown() -> None:
    from tui_course.realmodel.attention import attention_of
    from tui_course.render.real_model import EMPTY_SENTENCE, lab_notes, lab_status
    from tui_course.views.real_model import LabState, RealModelLab

    lab = RealModelLab("a b", None, LabState(), attention_of).started().typed("a b c")
    stale = lab.computed(lab.generation - 1, "no model here")
    assert stale.loading and not stale.running and stale.figure.problem is None
    fresh = stale.started().computed(stale.generation, "no model here")
    assert not fresh.loading and fresh.figure.problem == "no model here"
    assert lab_status(fresh.figure, fresh.loading) == "no sentence yet"
    assert lab_notes(fresh.figure, fresh.sentence).endswith("cannot run here: no model here")
    assert lab_notes(LabState(), "  ") == EMPTY_SENTENCE
    assert fresh.move_query(1) is fresh and fresh.ask_link("it").figure.links == (
        "type two words of the sentence, e.g. it animal",
    )


def test_the_lab_lets_go_of_a_pass_once_and_a_lesson_figure_takes_its_answer() -> None:
    from tui_course.realmodel.attention import attention_of
    from tui_course.views.real_model import LabState, RealFigure, RealModelLab

    lab = RealModelLab("a b", None, LabState(), attention_of)
    running = lab.started()
    assert running.running and not running.stopped().running
    assert lab.stopped() is lab  # nothing running: no new state, nothing to draw

    figure = RealFigure()
    assert figure.loading and figure.real is None
    failed = figure.failed("no model here")
    assert not failed.loading and failed.problem == "no model here"
