"""Code questions read from a quiz's TOML (`kind = "code"`), checked key by key (path:line).

The parsing half of content.code_model, kept apart so the plain data (which the
progress store and a cached course need at start) imports no TOML checker.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui_course.content.code_model import (
    MATHS_PREFIX,
    MAX_ARG_ELEMENTS,
    MAX_CASE_ELEMENTS,
    MAX_CASES,
    MAX_CODE_BYTES,
    PROPERTIES,
    ArgSpec,
    CodeCase,
    CodeMistake,
    CodeSpec,
    Dimension,
    dimension,
    dimension_names,
)
from tui_course.content.tomlfile import Field, TableCheck

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
MAX_SIZE = 10_000  # one axis, one size


CODE_FIELDS = {
    "entry": Field((str,), "the name of the function the student writes", required=True),
    "starter": Field((str,), "the code the editor starts with", required=True),
    "reference": Field((str,), "a function of `module` or tui_course.maths.X:name", required=True),
    "module": Field((str,), "a Python file beside the quiz (trusted reference code)"),
    "outputs": Field((list,), "names of the returned arrays", items=str),
    "properties": Field((list,), f"a list of {', '.join(PROPERTIES)}", items=str),
    "solution": Field((str,), "a model solution, shown after a pass or a reveal"),
    "case": Field((list,), "[[question.case]] tables", required=True, items=dict),
}
CASE_FIELDS = {
    "label": Field((str,), "what the case is, shown to the student", required=True),
    "seed": Field((int,), "a whole number seeding the random inputs"),
    "args": Field((list,), "a list of inline tables, one per argument", required=True, items=dict),
    "sizes": Field((dict,), "a table of named sizes, e.g. { n = 3, d = 4 }"),
    "held_out": Field((dict,), "each size's range on held-out seeds, e.g. { n = [1, 6] }"),
}
ARG_FIELDS = {
    "name": Field((str,), "the argument's name", required=True),
    "shape": Field((list,), "a list of whole numbers or size names"),
    "scale": Field((int, float), "a number multiplying the random values"),
    "arange": Field((int, str), "n (or a size name): the whole numbers 0 to n-1"),
    "size": Field((str,), "a whole-number input: a size name or an expression like 2*k+1"),
    "offset": Field((int, float), "a number added to every random value (large and close)"),
    "value": Field((int, float, list), "a number or a nested list of numbers"),
    "held_out": Field(
        (list,), "[low, high]: the value's whole numbers on held-out seeds", items=int
    ),
}
CODE_MISTAKE_FIELDS = {
    "variant": Field((str,), "a function of `module` implementing the mistake"),
    "raises": Field((str,), "an exception class name, e.g. ValueError"),
    "match": Field((str,), "a regular expression the exception's message must match"),
    "feedback": Field((str,), "a string", required=True),
}


def _numbers_only(value: Any) -> bool:
    if isinstance(value, list):
        return all(_numbers_only(item) for item in value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_code(table: dict[str, Any], check: TableCheck, quiz_dir: Path | None) -> CodeSpec:
    """The code part of a `kind = "code"` question, checked key by key (path:line)."""
    for key in ("entry", "reference", "starter"):
        if not str(table[key]).strip():
            raise check.error(f"'{key}' must not be empty", key)
    entry = table["entry"].strip()
    if not _NAME.match(entry):
        raise check.error(f"entry '{entry}' is not a Python function name", "entry")
    if len(table["starter"].encode()) > MAX_CODE_BYTES:
        raise check.error(f"the starter is larger than {MAX_CODE_BYTES // 1024} KB", "starter")
    module, module_shown = None, ""
    if "module" in table:
        name = table["module"].strip()
        if "/" in name or "\\" in name or not name.endswith(".py") or name.startswith("."):
            raise check.error(f"module '{name}' must be a .py file name beside the quiz", "module")
        if quiz_dir is None:
            raise check.error("'module' needs the quiz to be a file", "module")
        module = quiz_dir / name
        module_shown = name
        if not module.is_file():
            raise check.error(f"module '{name}' not found beside the quiz", "module")
    reference = table["reference"].strip()
    _check_function(check, reference, module, "reference")
    properties = tuple(table.get("properties", []))
    for prop in properties:
        if prop not in PROPERTIES:
            raise check.error(
                f"unknown property '{prop}' (known: {', '.join(PROPERTIES)})", "properties"
            )
    outputs = tuple(name.strip() for name in table.get("outputs", ["result"]))
    if not outputs or not all(outputs):
        raise check.error("'outputs' must name at least one array", "outputs")
    cases_raw = table["case"]
    if not 1 <= len(cases_raw) <= MAX_CASES:
        raise check.error(f"needs 1 to {MAX_CASES} [[question.case]] tables", "case")
    cases = tuple(
        _case(
            check.entry("case", index),
            raw,
            index,
        )
        for index, raw in enumerate(cases_raw)
    )
    counts = {len(case.args) for case in cases}
    if len(counts) != 1:
        raise check.error("every case must give the same number of arguments", "case")
    mistakes = tuple(
        _mistake(
            check.entry("mistake", index),
            raw,
            module,
        )
        for index, raw in enumerate(table.get("mistake", []))
    )
    return CodeSpec(
        entry=entry,
        starter=table["starter"],
        reference=reference,
        cases=cases,
        outputs=outputs,
        module=module,
        module_shown=module_shown,
        properties=properties,
        tolerance=float(table.get("tolerance", 1e-6)),
        rel_tolerance=float(table.get("rel_tolerance", 1e-6)),
        solution=table.get("solution", ""),
        mistakes=mistakes,
    )


def _check_function(check: TableCheck, name: str, module: Path | None, key: str) -> None:
    if name.startswith(MATHS_PREFIX):
        module_name, _, function = name.partition(":")
        if (
            not _NAME.match(function)
            or function.startswith("_")
            or not (module_name == MATHS_PREFIX or module_name.startswith(MATHS_PREFIX + "."))
            or not all(_NAME.match(part) for part in module_name.split("."))
        ):
            raise check.error(f"'{key}' must read {MATHS_PREFIX}.<module>:<function>", key)
        return
    if not _NAME.match(name):
        raise check.error(f"'{key}' = '{name}' is not a function name", key)
    if module is None:
        raise check.error(f"'{key}' = '{name}' needs 'module' (the file defining it)", key)


def _case(check: TableCheck, raw: dict[str, Any], index: int) -> CodeCase:
    check.check(raw, CASE_FIELDS)
    label = raw["label"].strip()
    if not label:
        raise check.error("'label' must not be empty", "label")
    sizes, held_out = _sizes(check, raw)
    largest = {name: high for name, _low, high in held_out}
    args = []
    for position, arg in enumerate(raw["args"]):
        where = f"{check.label} argument {position + 1}"
        TableCheck(check.shown, check.lines, check.path, where).check(arg, ARG_FIELDS)
        args.append(_arg(check, arg, position, dict(sizes), largest))
    for chosen in (dict(sizes), largest):
        if sum(arg.elements(chosen) for arg in args) > MAX_CASE_ELEMENTS:
            raise check.error(f"inputs larger than {MAX_CASE_ELEMENTS} numbers in all", "args")
    seed = raw.get("seed", index)
    if not 0 <= seed < 2**32:
        raise check.error("'seed' must be 0 to 2**32 - 1", "seed")
    line = check.lines.line_of(check.path) or 1
    return CodeCase(label, seed, tuple(args), line, sizes, held_out)


def _sizes(
    check: TableCheck, raw: dict[str, Any]
) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int, int], ...]]:
    """The case's named sizes and the range each takes on held-out seeds (both required)."""
    sizes_raw, ranges_raw = raw.get("sizes", {}), raw.get("held_out", {})
    for name in sorted(set(sizes_raw) ^ set(ranges_raw)):
        key = "held_out" if name in sizes_raw else "sizes"
        raise check.error(
            f"size '{name}' needs both a value in 'sizes' and a 'held_out' range", key
        )
    sizes, held_out = [], []
    for name, value in sizes_raw.items():
        if not _NAME.match(name):
            raise check.error(f"size '{name}' is not a name", "sizes")
        if not _whole(value) or not 1 <= value <= MAX_SIZE:
            raise check.error(f"size '{name}' must be a whole number from 1 to {MAX_SIZE}", "sizes")
        span = ranges_raw[name]
        if (
            not isinstance(span, list)
            or len(span) != 2
            or not all(_whole(v) for v in span)
            or not 1 <= span[0] <= span[1] <= MAX_SIZE
        ):
            raise check.error(
                f"held_out range of '{name}' must be [low, high], 1 <= low <= high <= {MAX_SIZE}",
                "held_out",
            )
        sizes.append((name, value))
        held_out.append((name, span[0], span[1]))
    return tuple(sizes), tuple(held_out)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _axis(check: TableCheck, where: str, axis: Any, sizes: dict[str, int]) -> Dimension:
    """A whole number, or an expression of the case's sizes: "n", "h*w", "2*k+1"."""
    if _whole(axis):
        return int(axis)
    if isinstance(axis, str) and re.fullmatch(r"\s*\w+(\s*[*+]\s*\w+)*\s*", axis):
        for name in dimension_names(axis):
            if name not in sizes:
                raise check.error(f"{where}: '{name}' is not one of the case's sizes", "args")
        return axis.strip()
    raise check.error(f"{where}: '{axis}' is not a whole number or an expression of sizes", "args")


def _arg(
    check: TableCheck,
    arg: dict[str, Any],
    position: int,
    sizes: dict[str, int],
    largest: dict[str, int],
) -> ArgSpec:
    where = f"argument {position + 1} ({arg['name']})"
    given = [key for key in ("shape", "arange", "value", "size") if key in arg]
    if len(given) != 1:
        raise check.error(f"{where}: give exactly one of shape, arange, size, value", "args")
    if "offset" in arg and "shape" not in arg:
        raise check.error(f"{where}: an offset goes with a shape (random values)", "args")
    if "held_out" in arg and "value" not in arg:
        raise check.error(
            f"{where}: a held_out range goes with a value (sizes vary by name)", "args"
        )
    shape = None
    if "shape" in arg:
        shape = tuple(_axis(check, where, axis, sizes) for axis in arg["shape"])
    arange = _axis(check, where, arg["arange"], sizes) if "arange" in arg else None
    size = _axis(check, where, arg["size"], sizes) if "size" in arg else None
    held_out = None
    if "held_out" in arg:
        span = arg["held_out"]
        if len(span) != 2 or span[0] > span[1] or max(abs(v) for v in span) > 10**9:
            raise check.error(f"{where}: held_out must be [low, high] with low <= high", "args")
        held_out = (span[0], span[1])
    spec = ArgSpec(
        name=arg["name"],
        shape=shape,
        scale=float(arg.get("scale", 1.0)),
        offset=float(arg.get("offset", 0.0)),
        arange=arange,
        value=arg.get("value"),
        size=size,
        held_out=held_out,
    )
    for chosen in (sizes, largest):
        if spec.shape is not None and (
            not spec.shape or any(not 1 <= dimension(s, chosen) <= MAX_SIZE for s in spec.shape)
        ):
            raise check.error(f"{where}: a shape of 1 to {MAX_SIZE} along each axis", "args")
        if spec.arange is not None and not 1 <= dimension(spec.arange, chosen) <= MAX_ARG_ELEMENTS:
            raise check.error(f"{where}: arange must be 1 to {MAX_ARG_ELEMENTS}", "args")
        if spec.elements(chosen) > MAX_ARG_ELEMENTS:
            raise check.error(f"{where}: more than {MAX_ARG_ELEMENTS} numbers", "args")
    if spec.value is not None and not _numbers_only(spec.value):
        raise check.error(f"{where}: value must be numbers", "args")
    if not abs(spec.scale) < 1e6:
        raise check.error(f"{where}: scale must be below 1e6", "args")
    if not abs(spec.offset) < 1e6:
        raise check.error(f"{where}: offset must be below 1e6", "args")
    return spec


def _mistake(check: TableCheck, raw: dict[str, Any], module: Path | None) -> CodeMistake:
    check.check(raw, CODE_MISTAKE_FIELDS)
    line = check.lines.line_of(check.path) or 1
    feedback = raw["feedback"].strip()
    if not feedback:
        raise check.error("'feedback' must not be empty", "feedback")
    if ("variant" in raw) == ("raises" in raw):
        raise check.error("a code mistake needs exactly one of 'variant' or 'raises'")
    if "variant" in raw:
        if "match" in raw:
            raise check.error("'match' goes with 'raises', not 'variant'", "match")
        _check_function(check, raw["variant"].strip(), module, "variant")
        return CodeMistake(feedback, line, variant=raw["variant"].strip())
    if not _NAME.match(raw["raises"]):
        raise check.error("'raises' must be an exception class name", "raises")
    pattern = raw.get("match")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as error:
            raise check.error(f"'match' is not a regular expression: {error}", "match") from None
    return CodeMistake(feedback, line, raises=raw["raises"], match=pattern)
