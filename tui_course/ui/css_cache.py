"""Textual's parsed CSS kept in the student's data folder, so a start reads it instead of
parsing every widget's CSS and app.tcss again.

Textual parses each CSS source (app.tcss, every widget class's DEFAULT_CSS) once per
process into rule sets, keeping them in its stylesheet's `_parse_cache`. Parsing is most of
what the app's first frame pays for its CSS (about 15 ms of CPU, the theme's variables
tokenised first; a bare Textual app pays about 10): ParseCache stands in for that dict and
also answers from the rule sets a previous start of this account parsed. They are found
by Textual's own key (the CSS text itself, where it came from, its flags), and only while
the theme's variables are those they were parsed under (Textual substitutes them as it
parses; the file keeps them), so any change to a source or the theme parses it again; the
file as a whole holds only for the Python, Textual and Rich files it was written by.
(No digest: hashlib's OpenSSL would cost a start more than the CSS text in the file.)

Read only if it is a regular file of this user that no one else can read or write
(paths.read_private_file), written whole without following links (0600). Its pickle names
one thing, this module's _make, and every object in it is _make(class name, arguments)
for a class defined in one of Textual's CSS modules: a loaded file can build those
objects and nothing else, and never holds a class itself (the pickle's BUILD on a class
would set that class's attributes for the whole process). While a file is unpickled it is
renamed aside, so a start that dies or hangs on it (a crafted pickle can make a dict of
colliding keys take minutes) leaves nothing to load next time. Nothing here is ever
needed: any failure means "parse it", as Textual would; and after a crash the file is
removed (commands/launch.py), in case what was read back is what failed.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import sys
from dataclasses import fields, is_dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.css.model import RuleSet
    from textual.css.stylesheet import Stylesheet

CACHE_NAME = "css-cache.pickle"
FORMAT = 1
MAX_CACHE_BYTES = 512 * 1024  # the shipped course with every view opened: 72 sources, 210 KB
MAX_ENTRIES = 512  # sources kept (the app and all its views have 72)

# Textual's own key for a source: (css, read_from, is_default_rules, tie_breaker, scope).
Key = tuple[str, Any, bool, int, str]
Variables = tuple[tuple[str, str], ...]
# What the file holds: the theme's variables, and the sources parsed under them.
Stored = tuple[Variables, dict[Key, list["RuleSet"]]]

# The modules whose classes make up Textual's parsed CSS: _make builds only classes
# defined in one of them (not ones they import, such as functools.partial).
_ALLOWED_MODULES = frozenset(
    {
        "textual.color",
        "textual.css.model",
        "textual.css.scalar",
        "textual.css.styles",
        "textual.css.types",
        "textual.geometry",
        "textual.layouts.grid",
        "textual.layouts.horizontal",
        "textual.layouts.stream",
        "textual.layouts.vertical",
    }
)


# The code that makes the parsed objects, besides the CSS itself; their folders are in the
# key too (a file added or removed there changes its folder's times).
_MAKERS = (
    "textual",
    "textual._color_constants",
    "textual.color",
    "textual.css.constants",
    "textual.css.model",
    "textual.css.parse",
    "textual.css.scalar",
    "textual.css.styles",
    "textual.css._styles_builder",
    "textual.css.tokenize",
    "textual.css.tokenizer",
    "rich.style",
)


def versions() -> tuple[object, ...]:
    """The file's key: this format, the Python, and each module that makes the parsed
    objects with its file's inode, size and times (a reinstalled or edited Textual or
    Rich writes new files). importlib.metadata would cost more than the cache saves."""
    paths: list[str] = []
    for name in _MAKERS:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            return ()  # not imported: the key cannot be known, so the file is never used
        paths.append(path)
    paths += sorted({os.path.dirname(path) for path in paths})
    made_by: list[object] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            return ()
        made_by.append((path, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return (FORMAT, sys.version, tuple(made_by))


class ParseCache:
    """A stand-in for a Stylesheet's `_parse_cache` (Textual reads it with [key], fills it
    with [key] = rules and empties it with clear() when the variables change) that also
    answers from `stored` while the stylesheet's variables are the ones it was parsed
    with, and keeps what it parsed anew under them for save()."""

    def __init__(self, stylesheet: Stylesheet, stored: Stored, path: Path) -> None:
        self._stylesheet = stylesheet
        self.path = path  # the file save() writes
        self._memory: dict[Key, list[RuleSet]] = {}
        self.variables, self.stored = stored
        self.new: dict[Key, list[RuleSet]] = {}
        self.used: set[Key] = set()
        self._same_variables: bool | None = None  # as `variables`: worked out on first use

    def _current(self) -> bool:
        """The stylesheet's variables are those of `stored` (or nothing is stored yet)."""
        if self._same_variables is None:
            current = _variables(self._stylesheet)
            if current != self.variables and not self.used:
                # nothing read from the file yet: it is another theme's, start one for this
                self.variables, self.stored = current, {}
            self._same_variables = current == self.variables
        return self._same_variables

    def __getitem__(self, key: Key) -> list[RuleSet]:
        try:
            return self._memory[key]
        except KeyError:
            pass
        if not self._current():
            raise KeyError(key)
        rules = self.stored[key]  # KeyError: Textual parses it
        self.used.add(key)
        self._memory[key] = rules
        return rules

    def __setitem__(self, key: Key, rules: list[RuleSet]) -> None:
        self._memory[key] = rules
        # kept for the file if parsed under its variables, and whole (a broken source is
        # reported again next time, not read back)
        if self._current() and not any(rule.errors for rule in rules):
            self.new[key] = rules
            self.used.add(key)

    def clear(self) -> None:
        """New variables (another theme): what is parsed from now on is parsed under them."""
        self._memory.clear()
        self._same_variables = None

    def to_save(self) -> dict[Key, list[RuleSet]] | None:
        """What the file should hold now, or None when it holds it already: this session's
        sources first, then the others it had, up to MAX_ENTRIES."""
        if not self.new:
            return None
        entries = {**self.stored, **self.new}  # both under self.variables
        kept = [key for key in entries if key in self.used]
        kept += [key for key in entries if key not in self.used]
        return {key: entries[key] for key in kept[:MAX_ENTRIES]}

    def save(self) -> None:
        """Write what was parsed anew, with what the file had, whole (a reader sees the old
        file or the new one); any failure (a full or read-only disk) leaves it as it was."""
        from tui_course.paths import write_file_safely

        entries = self.to_save()
        key = versions()
        if entries is None or not key:
            return
        buffer = io.BytesIO()
        try:
            pickler = _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump(key)
            pickler.dump((self.variables, entries))
            write_file_safely(self.path, buffer.getvalue(), mode=0o600)
        except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
            return
        self.stored = entries
        self.new = {}


def attach(stylesheet: Stylesheet, data_dir: Path) -> ParseCache:
    """Put a ParseCache, loaded from CACHE_NAME in `data_dir` (empty if it cannot be used),
    in `stylesheet`'s place for parsed sources, before Textual parses any."""
    cache = data_dir / CACHE_NAME
    parse_cache = ParseCache(stylesheet, load(cache), cache)
    stylesheet._parse_cache = parse_cache  # type: ignore[assignment]
    return parse_cache


def forget(data_dir: Path) -> None:
    """Remove the file from `data_dir` (the app crashed: rule sets read back from it may be
    what failed, so the next start parses them as Textual would)."""
    with contextlib.suppress(OSError):
        (data_dir / CACHE_NAME).unlink()


def load(cache: Path) -> Stored:
    """What `cache` holds, or nothing. It is renamed aside while it is unpickled and put
    back only if it was whole: a start killed meanwhile (or one that hung on a crafted
    file) leaves no file to load again, and the one put aside is removed next time."""
    from tui_course.paths import read_private_file

    nothing: Stored = ((), {})
    aside = cache.with_name(f".{cache.name}.loading")
    with contextlib.suppress(OSError):
        os.unlink(aside)  # left by a start that died while loading it
    data = read_private_file(cache, MAX_CACHE_BYTES)
    if data is None:
        return nothing
    try:
        os.rename(cache, aside)
    except OSError:
        return nothing  # gone meanwhile (another session's start has it aside)
    stored: object = nothing
    try:
        unpickler = _Unpickler(io.BytesIO(data))
        key = versions()
        if key and unpickler.load() == key:
            stored = unpickler.load()
    except Exception:  # a damaged or foreign cache: parse instead
        stored = nothing
    whole = stored is not nothing and _well_formed(stored)
    with contextlib.suppress(OSError):
        if whole:
            os.rename(aside, cache)
        else:
            os.unlink(aside)
    return stored if whole else nothing  # type: ignore[return-value]


def _well_formed(stored: object) -> bool:
    from textual.css.model import RuleSet

    if not isinstance(stored, tuple) or len(stored) != 2:
        return False
    variables, entries = stored
    return (
        isinstance(variables, tuple)
        and all(
            isinstance(pair, tuple) and len(pair) == 2 and all(type(part) is str for part in pair)
            for pair in variables
        )
        and isinstance(entries, dict)
        and all(
            isinstance(key, tuple)
            and len(key) == 5
            and type(key[0]) is str
            and isinstance(rules, list)
            and all(type(rule) is RuleSet for rule in rules)
            for key, rules in entries.items()
        )
    )


def _variables(stylesheet: Stylesheet) -> Variables:
    return tuple(sorted(stylesheet._variables.items()))


def _make(name: str, arguments: tuple[object, ...] = ()) -> object:
    """One object of a class defined in a module of _ALLOWED_MODULES, named "module.Class",
    made from `arguments`: the one callable a cache file names."""
    if type(name) is not str or type(arguments) is not tuple:
        raise pickle.UnpicklingError("not a class name and a tuple of arguments")
    found = _FOUND.get(name)
    if found is None:
        found = _class_named(name)
        _FOUND[name] = found
    return found(*arguments)


_FOUND: dict[str, type] = {}  # the classes _make has found, by name


def _class_named(name: str) -> type:
    module_name, _, class_name = name.rpartition(".")
    module = sys.modules.get(module_name) if module_name in _ALLOWED_MODULES else None
    if module is None and module_name in _ALLOWED_MODULES:
        import importlib

        module = importlib.import_module(module_name)
    found = getattr(module, class_name, None) if class_name.isidentifier() else None
    if not isinstance(found, type) or found.__module__ != module_name:
        raise pickle.UnpicklingError(f"{name} is not part of parsed CSS")
    return found


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        """Every object not of a builtin type as _make(its class's name, arguments): a
        dataclass by its fields (a Selector's and a Styles' __post_init__ then make what
        the pickle would otherwise name as functions), an enum by value, a named tuple by
        its items, anything else by its attributes, set after it is made."""
        if obj is _make:
            return NotImplemented  # by its name, as pickle names a function
        cls = type(obj)
        if isinstance(obj, type) or cls.__module__ not in _ALLOWED_MODULES:
            raise pickle.PicklingError(f"{cls.__module__}.{cls.__qualname__} in parsed CSS")
        name = f"{cls.__module__}.{cls.__qualname__}"
        if isinstance(obj, Enum):
            return _make, (name, (obj.value,))
        if is_dataclass(obj):
            if getattr(obj, "node", None) is not None:  # a node's own styles: not parsed CSS
                raise pickle.PicklingError("styles of a node")
            return _make, (name, tuple(getattr(obj, each.name) for each in fields(obj)))
        if isinstance(obj, tuple):
            return _make, (name, tuple(obj))
        return _make, (name, ()), (vars(obj) or None)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "_make"):
            # a function of its own for each file: the pickle's BUILD could set its
            # attributes, and they must not outlive this load
            return lambda class_name, arguments=(): _make(class_name, arguments)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of parsed CSS")
