"""Checking a student's code: the one API the CLI, the UI and class recheck call.

    checker = CodeChecker()          # keeps a warm sandboxed worker ready
    verdict = checker.check(question, code)
    checker.close()

or `check(question, code)` for a one-off. check() blocks (a few hundredths of a second
warm); the UI calls it off its event loop (a thread worker). It is thread-safe.

The student's code runs in a sandbox child (tui_course.sandbox); the reference and
mistake variants, trusted code shipped with the content, run in a child of their own
under the same limits (so a looping or greedy reference is stopped too) and have ended,
their results held in this process, before the student's code is sent; the pure judge
(content.code_check) compares in this process.

Importing this module loads no NumPy: the CLI makes its CodeChecker first, so the
sandbox's child starts (and imports NumPy on the other core) while this process is
still loading the course. Given the student's data folder, a checker remembers there
the sandbox probe (sandbox.level) and, for each question and seed, the cases' inputs
and the reference's results (reference_cache), the latter only when checks run under
bwrap, where student code cannot reach that folder. With those remembered, a check
that passes never loads NumPy in this process (content.code_check's plain_pass); the
first check, a failing one and one without bwrap do.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_course.sandbox.level import Level, LevelReport, forget_probe, sandbox_level
from tui_course.sandbox.limits import Limits
from tui_course.sandbox.runner import CaseResult, RunResult, Worker

if TYPE_CHECKING:
    from tui_course.content.code_check import CodeVerdict
    from tui_course.content.code_model import CodeAttempt, CodeSpec
    from tui_course.content.models import Question

START_WAIT_SECONDS = 10.0  # a spare the starter thread is starting: Popen, not NumPy's import
CACHE_FOLDER = "check-cache"  # in the data folder: the remembered probe, reference results

_ORDER = {Level.NONE: 0, Level.LIMITS: 1, Level.BWRAP: 2}


class ReferenceFailed(Exception):
    """The trusted side failed (a content bug): reported as path:line by validate."""


class SandboxUnavailable(ReferenceFailed):
    """The reference's sandbox could not start: the machine's problem, not the content's."""


@dataclass(frozen=True)
class Expected:
    """The trusted side's results for one set of inputs."""

    inputs: list[list[Any]]  # per case: arrays (Packed when remembered, else ndarrays), numbers
    reference: tuple[CaseResult, ...]
    variants: dict[int, tuple[CaseResult, ...]]  # mistake index -> results


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", errors="surrogatepass")).hexdigest()


# Checks that are no attempt: the starter left unfinished, or code that does not parse.
FREE_STAGES = frozenset({"unfinished", "syntax"})


def counts_as_attempt(verdict: CodeVerdict) -> bool:
    """Whether a check is recorded, in the app and by `attn-tui check` alike: not when the
    starter is unfinished or the code does not parse (like an answer that cannot be read,
    it costs no try), nor when the sandbox or the question could not run it."""
    from tui_course.content.code_check import Outcome

    return verdict.outcome is not Outcome.UNAVAILABLE and verdict.stage not in FREE_STAGES


def attempt_of(code: str, verdict: CodeVerdict) -> CodeAttempt:
    """What the store keeps of a check (QuizSession.answer_code takes it)."""
    from tui_course.content.code_model import CodeAttempt

    return CodeAttempt(
        code=code,
        sha256=code_hash(code),
        outcome=str(verdict.outcome),
        mistake=verdict.mistake,
        cases_failed=verdict.cases_failed,
        sandbox=str(verdict.level),
        seconds=round(verdict.seconds, 4),
    )


def required_level() -> Level:
    """On a class server (a class folder in the site config) student code runs only under
    bwrap, unless the site config says `allow_code_without_bwrap = true`. The machine-wide
    config counts whatever $ATTN_TUI_CONFIG names: a student with a shell cannot undo the
    site's rule from their own environment (the strictest of the two wins)."""
    from tui_course import paths
    from tui_course.paths import site_config_path

    for path in dict.fromkeys((paths.SITE_CONFIG_PATH, site_config_path())):
        if _needs_bwrap(path):
            return Level.BWRAP
    return Level.LIMITS


def _needs_bwrap(path: Path) -> bool:
    try:
        if not path.exists() and path != _env_config_path():
            return False
    except OSError:
        return True  # cannot tell: be strict rather than open
    from tui_course.classroom.config import ConfigError, load_site_config

    try:
        site = load_site_config(path)
    except (ConfigError, OSError):  # a broken site config: be strict rather than open
        return True
    return site.class_dir is not None and not site.allow_code_without_bwrap


def _env_config_path() -> Path | None:
    import os

    from tui_course.paths import SITE_CONFIG_ENV, site_config_path

    return site_config_path() if os.environ.get(SITE_CONFIG_ENV) else None


def private_dirs() -> tuple[Path, ...]:
    """Folders a check must never see, even where a system bind would hold them: the
    student's data folder, the class folder and the course content (with its references).
    (Homes and every site-packages are hidden by the sandbox itself.)"""
    from tui_course.paths import data_dir, default_content_dir, site_config_path

    found = [data_dir(), default_content_dir()]
    if not site_config_path().exists():  # no class folder (and no config module to load)
        return tuple(found)
    from tui_course.classroom.config import ConfigError, load_site_config

    try:
        site = load_site_config()
    except (ConfigError, OSError):
        site = None
    if site is not None and site.class_dir is not None:
        found.append(site.class_dir)
    return tuple(found)


def refusal(report: LevelReport | None = None, minimum: Level | None = None) -> str | None:
    """Why student code must not run here (one line), or None: the machine has no sandbox
    at all, or it is a class server whose site config asks for bwrap and bwrap cannot run.
    Checks, class recheck and lesson listings all ask this."""
    report = report or sandbox_level()
    minimum = required_level() if minimum is None else minimum
    if report.level is Level.NONE:
        return f"Code cannot be run here: {report.detail}"
    if _ORDER[report.level] < _ORDER[minimum]:
        return (
            "Code checks are switched off on this class server until bubblewrap works "
            f"({report.detail}); fix: {report.fix}"
        )
    return None


def _spec(question: Question) -> CodeSpec:
    if question.code is None:  # only a code question has a spec
        raise ValueError("not a code question")
    return question.code


def _call_maths(name: str, inputs: Sequence[Sequence[Any]]) -> tuple[CaseResult, ...]:
    """A reference from tui_course.maths: our own bounded library, called in-process."""
    module_name, _, function_name = name.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    results = []
    for args in inputs:
        try:
            value = function(*[a.copy() if hasattr(a, "copy") else a for a in args])
        except Exception as error:
            detail = {"type": type(error).__name__, "message": str(error)}
            results.append(CaseResult("exception", (), (), detail))
            continue
        outputs = value if isinstance(value, tuple) else (value,)
        results.append(CaseResult("ok", tuple(outputs)))
    return tuple(results)


def compute_expected(
    spec: CodeSpec,
    seed_offset: int = 0,
    limits: Limits | None = None,
    report: LevelReport | None = None,
    cache_dir: Path | None = None,
) -> Expected:
    """Run the reference and every variant on the cases. Raises ReferenceFailed.

    `cache_dir`: where results are remembered between runs (reference_cache), read and
    written here, in the trusted process, never by a child; None: always computed."""
    from tui_course.codecheck import reference_cache
    from tui_course.content.code_model import MATHS_PREFIX

    names = [spec.reference] + [m.variant for m in spec.mistakes if m.variant is not None]
    indices = [index for index, m in enumerate(spec.mistakes) if m.variant is not None]
    in_module = [n for n in names if not n.startswith(MATHS_PREFIX)]
    source = ""
    if in_module:
        assert spec.module is not None  # the loader insists on it
        try:
            source = spec.module.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ReferenceFailed(f"cannot read {spec.module_shown}: {error}") from None
    limits = limits or Limits()
    key = None
    if cache_dir is not None:
        key = reference_cache.cache_key(spec, names, source, seed_offset, limits)
        remembered = reference_cache.read_results(cache_dir, key, names, len(spec.cases))
        if remembered is not None:
            return _expected(spec, *remembered, indices)
    from tui_course.content.code_inputs import build_inputs

    inputs = build_inputs(spec, seed_offset)
    results = _results(spec, names, in_module, source, inputs, limits, report)
    expected = _expected(spec, inputs, results, indices)
    if cache_dir is not None and key is not None:
        reference_cache.write_results(cache_dir, key, names, inputs, results)
    return expected


def _results(
    spec: CodeSpec,
    names: list[str],
    in_module: list[str],
    source: str,
    inputs: list[list[Any]],
    limits: Limits,
    report: LevelReport | None,
) -> dict[str, tuple[CaseResult, ...]]:
    """Every named function's results: the content's module in a sandboxed child, the
    app's own maths functions here."""
    from tui_course.content.code_model import MATHS_PREFIX

    results: dict[str, tuple[CaseResult, ...]] = {}
    if in_module:
        report = report or sandbox_level()
        if report.level is Level.NONE:
            raise ReferenceFailed(f"cannot run {spec.module_shown}: {report.detail}")
        run = Worker(limits, report).run(source, in_module, inputs)
        if run.status == "unavailable":
            raise SandboxUnavailable(str(run.detail.get("message", "the sandbox cannot start")))
        if run.status != "ok":
            raise ReferenceFailed(f"{spec.module_shown}: {_run_problem(run)}")
        results.update(zip(in_module, run.entries, strict=True))
    for name in names:
        if name.startswith(MATHS_PREFIX):
            try:
                results[name] = _call_maths(name, inputs)
            except (ImportError, AttributeError) as error:
                raise ReferenceFailed(f"cannot load {name}: {error}") from None
    return results


def _expected(
    spec: CodeSpec,
    inputs: list[list[Any]],
    results: dict[str, tuple[CaseResult, ...]],
    indices: list[int],
) -> Expected:
    """The reference must give a result on every case (else the content is broken)."""
    reference = results[spec.reference]
    for label, result in zip((c.label for c in spec.cases), reference, strict=True):
        if result.status != "ok":
            problem = _CASE_PROBLEMS.get(result.status) or (
                f"{result.detail.get('type', result.status)}: {result.detail.get('message', '')}"
            )
            raise ReferenceFailed(
                f"the reference {spec.reference} fails on case '{label}': {problem}"
            )
    variants = {index: results[spec.mistakes[index].variant or ""] for index in indices}
    return Expected(inputs, reference, variants)


_CASE_PROBLEMS = {
    "memory": "it ran out of memory (MemoryError)",
    "not_array": "it does not return a NumPy array of numbers",
    "too_large": "its result is too large",
    "exit": "it calls sys.exit()",
    "missing": "it was stopped before this case",
}


def _run_problem(run: RunResult) -> str:
    if run.status in ("time_limit", "memory_limit", "crashed"):
        return f"stopped ({run.status.replace('_', ' ')})"
    if run.status == "syntax_error":
        return f"line {run.detail.get('line')}: syntax error: {run.detail.get('message')}"
    if run.status == "missing_entry":
        return f"defines no function {run.detail.get('entry')}"
    detail = run.detail
    return f"{detail.get('type', run.status)}: {str(detail.get('message', ''))[:200]}"


def _unavailable(level: Level, message: str) -> CodeVerdict:
    from tui_course.content.code_check import CodeVerdict, Outcome

    return CodeVerdict(Outcome.UNAVAILABLE, "unavailable", message, level)


class CodeChecker:
    """Checks code questions; keeps the trusted results of each question it has seen
    (they never change within a run). Its first sandboxed worker starts at once, so the
    child's start overlaps whatever the caller does before the first check; `warm`: a
    new one is started after each check, ready for the next.

    `data_dir`: the student's data folder, where the sandbox probe and (under bwrap) the
    reference's results are remembered between runs; hidden from the sandbox like the
    default data folder. `hide`: more folders the sandbox must show empty (a course given
    with --content, whose references are the answers; the class folder a recheck reads).

    `start_here`: the first worker is started by the calling thread before the constructor
    returns, not by the starter thread, which would share the interpreter with whatever the
    caller loads meanwhile and start the child later. Only for a thread that lives as long
    as the checker (a command's main thread): see _start_spare on bwrap's parent-death
    signal."""

    def __init__(
        self,
        limits: Limits | None = None,
        report: LevelReport | None = None,
        minimum: Level | None = None,
        warm: bool = True,
        data_dir: Path | None = None,
        hide: Iterable[Path] = (),
        start_here: bool = False,
    ) -> None:
        self.limits = limits or Limits()
        self.cache_dir = data_dir / CACHE_FOLDER if data_dir is not None else None
        self.report = report or sandbox_level(self.cache_dir)
        self.minimum = required_level() if minimum is None else minimum
        self._lock = threading.Lock()
        self._expected: dict[tuple[Any, ...], Expected] = {}
        self._spare: Worker | None = None
        self._spare_changed = threading.Condition(self._lock)
        self._starting = 0  # spares asked of the starter thread and not made yet
        self._requests: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._starter: threading.Thread | None = None
        self._warm = warm
        self._closed = False
        extra = (data_dir,) if data_dir is not None else ()
        self.hidden = tuple(dict.fromkeys((*private_dirs(), *extra, *hide)))
        if not self.allowed:
            return
        if start_here:
            self._spare = Worker(self.limits, self.report, self.hidden)
        else:
            self._start_spare()

    @property
    def level(self) -> Level:
        return self.report.level

    @property
    def allowed(self) -> bool:
        """Whether this machine's level is enough to run student code at all."""
        return refusal(self.report, self.minimum) is None

    @property
    def warning(self) -> str | None:
        """The one line to show beside the editor when checks are not fully sandboxed."""
        return refusal(self.report, self.minimum) or self.report.warning

    def _start_spare(self) -> None:
        """Ask the starter thread for a spare worker. Spares are started by one thread that
        lives as long as this checker: bwrap's --die-with-parent is the kernel's parent-death
        signal, which fires when the *thread* that started bwrap ends, so a spare started by
        a short-lived thread (the app's check and prepare workers) was killed at once."""
        with self._lock:
            if self._closed:
                return
            self._starting += 1
            if self._starter is None:
                self._starter = threading.Thread(
                    target=self._start_spares, name="attn-tui-sandbox-starter", daemon=True
                )
                self._starter.start()
        self._requests.put(True)

    def _start_spares(self) -> None:
        while self._requests.get():
            worker = None
            try:
                worker = Worker(self.limits, self.report, self.hidden)
            finally:
                with self._lock:
                    self._starting -= 1
                    if worker is not None and not self._closed and self._spare is None:
                        self._spare, worker = worker, None
                    self._spare_changed.notify_all()
            if worker is not None:  # closed meanwhile, or a spare already waiting
                worker.close()

    def _take_worker(self) -> Worker:
        """The spare (waiting, if the starter is making it now), else a new worker; one
        started here is used here, by the thread that started it."""
        with self._lock:
            self._spare_changed.wait_for(
                lambda: self._spare is not None or not self._starting, START_WAIT_SECONDS
            )
            worker, self._spare = self._spare, None
        if worker is None or (worker.process is not None and worker.process.poll() is not None):
            if worker is not None:
                worker.close()
            worker = Worker(self.limits, self.report, self.hidden)
        return worker

    def _replace_spare(self) -> None:
        if self._warm and not self._closed:
            self._start_spare()

    def expected(self, question: Question, seed_offset: int = 0) -> Expected:
        """The trusted results for this question (computed once). Raises ReferenceFailed."""
        spec = _spec(question)
        mtime = None
        if spec.module is not None:
            try:
                mtime = spec.module.stat().st_mtime_ns
            except OSError:
                mtime = None
        key = (id(spec), spec.module, mtime, seed_offset)
        with self._lock:
            cached = self._expected.get(key)
        if cached is not None:
            return cached
        # remembered on disk only under bwrap: without namespaces, student code running as
        # this user could write the folder it would be read from
        cache_dir = self.cache_dir if self.level is Level.BWRAP else None
        expected = compute_expected(spec, seed_offset, self.limits, self.report, cache_dir)
        with self._lock:
            self._expected[key] = expected
        return expected

    def prepare(self, question: Question) -> None:
        """Compute a question's trusted results in the background (when the editor opens)."""

        def work() -> None:
            with contextlib.suppress(Exception):  # check() reports it when the student asks
                self.expected(question)

        threading.Thread(target=work, name="attn-tui-reference", daemon=True).start()

    def check(
        self,
        question: Question,
        code: str,
        seed_offset: int = 0,
        on_wait: Callable[[], None] | None = None,
    ) -> CodeVerdict:
        """Run the student's code on every case and judge it. Never raises for bad code.
        `on_wait`: called once this thread starts waiting for the sandbox (Worker.run)."""
        from tui_course.content.code_check import CodeVerdict, Outcome, judge
        from tui_course.content.code_model import MAX_CODE_BYTES

        spec = _spec(question)
        if not self.allowed:
            return _unavailable(self.level, self.warning or self.report.detail)
        if len(code.encode("utf-8", errors="surrogatepass")) > MAX_CODE_BYTES:
            return CodeVerdict(
                Outcome.ERROR,
                "too_long",
                f"Your code is longer than {MAX_CODE_BYTES // 1024} KB; a check takes less.",
                self.level,
            )
        worker = self._take_worker()  # started already, or starting while the reference runs
        try:
            # the trusted results exist, in this process, before the student's code starts:
            # nothing it does can reach the reference's worker, which has already ended
            try:
                expected = self.expected(question, seed_offset)
            except SandboxUnavailable as error:
                self._forget_probe()
                return _unavailable(self.level, f"Code cannot be checked here: {error}")
            except Exception as error:
                message = f"The question itself is broken (tell your teacher): {error}"
                return CodeVerdict(Outcome.UNAVAILABLE, "content", message, self.level)
            run = worker.run(code, spec.entry, expected.inputs, on_wait)
        finally:
            worker.close()
            self._replace_spare()  # after the run: the next child's start does not slow it
        if run.status == "unavailable":  # the sandbox, not the code or the question
            self._forget_probe()
            return judge(spec, code, run, ())
        if seed_offset:  # held-out cases, named by their inputs
            from tui_course.content.code_inputs import held_out_spec

            spec = held_out_spec(spec, seed_offset)
        return judge(spec, code, run, expected.reference, expected.variants)

    def _forget_probe(self) -> None:
        """The sandbox did not start: whatever was remembered about it, probe again next time."""
        if self.cache_dir is not None:
            forget_probe(self.cache_dir)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            spare, self._spare = self._spare, None
        self._requests.put(False)  # the starter thread ends
        if spare is not None:
            spare.close()

    def __enter__(self) -> CodeChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check(
    question: Question,
    code: str,
    seed_offset: int = 0,
    limits: Limits | None = None,
    minimum: Level | None = None,
    data_dir: Path | None = None,
    hide: Iterable[Path] = (),
) -> CodeVerdict:
    """A one-off check: no warm worker kept."""
    with CodeChecker(limits, minimum=minimum, warm=False, data_dir=data_dir, hide=hide) as checker:
        return checker.check(question, code, seed_offset)
