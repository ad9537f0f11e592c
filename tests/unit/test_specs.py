"""One table of limits: lesson blocks, the command line and the training form agree with it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tui_course import specs
from tui_course.commands.parser import build_parser
from tui_course.content.errors import ContentError
from tui_course.content.lessons import load_lesson

PE_BLOCK = [("positions", specs.POSITIONS), ("dim", specs.DIM), ("start", specs.START)]


def lesson_with_block(tmp_path: Path, block: str, body: str) -> Path:
    path = tmp_path / "lesson.md"
    path.write_text(
        f'+++\nid = "x"\ntitle = "X"\norder = 1\n+++\n\nText.\n\n```{block}\n{body}\n```\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(("key", "spec"), PE_BLOCK)
def test_pe_block_accepts_the_limits_and_rejects_one_past(
    tmp_path: Path, key: str, spec: specs.IntSpec
) -> None:
    load_lesson(lesson_with_block(tmp_path, "pe-table", f"{key} = {spec.high}"))
    load_lesson(lesson_with_block(tmp_path, "pe-table", f"{key} = {spec.low}"))
    with pytest.raises(ContentError) as error:
        load_lesson(lesson_with_block(tmp_path, "pe-table", f"{key} = {spec.high + 1}"))
    assert error.value.line == 10
    assert f"'{key}' must be {spec.allowed()}, got {spec.high + 1}" in str(error.value)


def test_attention_block_heads_and_embeddings_come_from_the_specs(tmp_path: Path) -> None:
    for heads in specs.ATTENTION_HEADS.choices:
        load_lesson(
            lesson_with_block(tmp_path, "attention", f'embeddings = "toy-it"\nheads = {heads}')
        )
    with pytest.raises(ContentError, match="'heads' must be 1, 2 or 4, got 3"):
        load_lesson(lesson_with_block(tmp_path, "attention", 'embeddings = "toy-it"\nheads = 3'))
    with pytest.raises(ContentError, match="unknown embeddings 'glove'"):
        load_lesson(lesson_with_block(tmp_path, "attention", 'embeddings = "glove"'))


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


FLAGS = [
    ("pe", "--positions", specs.POSITIONS),
    ("pe", "--dim", specs.DIM),
    ("pe", "--start", specs.START),
    ("train", "--length", specs.LENGTH),
    ("train", "--epochs", specs.EPOCHS),
    ("train", "--batch-size", specs.BATCH_SIZE),
    ("train", "--seed", specs.SEED),
    ("train", "--threads", specs.THREADS),
    ("train", "--train-size", specs.TRAIN_SIZE),
    ("train", "--test-size", specs.TEST_SIZE),
]


@pytest.mark.parametrize(("command", "flag", "spec"), FLAGS)
def test_cli_flags_take_default_and_limits_from_the_specs(
    command: str, flag: str, spec: specs.IntSpec, capsys: pytest.CaptureFixture[str]
) -> None:
    name = flag.removeprefix("--").replace("-", "_")
    assert getattr(parse(command), name) == spec.default
    assert getattr(parse(command, flag, str(spec.high)), name) == spec.high
    assert getattr(parse(command, flag, str(spec.low)), name) == spec.low
    with pytest.raises(SystemExit):
        parse(command, flag, str(spec.high + 1))
    message = capsys.readouterr().err
    assert f"argument {flag}: must be {spec.allowed()}, got {spec.high + 1}" in message


@pytest.mark.parametrize("command", ["pe", "attention", "train"])
def test_cli_help_shows_defaults_ranges_and_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse(command, "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert f"example: attn-tui {command} " in text
    for spec in {
        "pe": [specs.POSITIONS, specs.DIM, specs.START],
        "attention": [specs.ATTENTION_HEADS],
        "train": list(specs.TRAINING_FORM),
    }[command]:
        assert " ".join(spec.flag_help().split()) in text


def test_attention_heads_flag_uses_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse("attention", "--heads", "4").heads == 4
    with pytest.raises(SystemExit):
        parse("attention", "--heads", "3")
    assert "must be 1, 2 or 4, got 3" in capsys.readouterr().err


def test_training_caps_are_the_measured_ones() -> None:
    """bench/training_memory.py measured these caps inside 2 GB; raising one needs a new run."""
    assert (specs.LENGTH.high, specs.BATCH_SIZE.high, specs.THREADS.high) == (120, 512, 8)
    assert (specs.TRAIN_SIZE.high, specs.TEST_SIZE.high) == (50_000, 10_000)


def test_spec_steps_clamp_and_cycle() -> None:
    assert specs.POSITIONS.step(specs.POSITIONS.high, 1) == specs.POSITIONS.high
    assert specs.DIM.step(1, -2) == 1
    assert specs.ATTENTION_HEADS.step(4, 1) == 1
    assert specs.ATTENTION_HEADS.step(1, 1) == 2
    assert specs.ATTENTION_HEADS.clamp(3) == 2
    assert specs.EPOCHS.problem(True) == "'epochs' must be a whole number"


def test_specs_and_the_command_line_do_not_import_numpy() -> None:
    script = (
        "import json, sys\nimport tui_course.specs, tui_course.cli, tui_course.commands.parser\n"
        "tui_course.commands.parser.build_parser()\nprint(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "numpy" not in json.loads(result.stdout)


def test_real_model_layer_and_head_flags_name_their_range(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--layer and --head said only "from 1"; their limit is the model's own count (checked
    once it is loaded, tests/unit/test_attention_model_cli.py), as in a lesson's block."""
    with pytest.raises(SystemExit):
        parse("attention", "--help")
    text = " ".join(capsys.readouterr().out.split())
    assert "--layer L the real model's layer, from 1, up to the model's own count (6 in" in text
    assert "--head H the head within that layer, from 1, up to the model's own count (12 in" in text
