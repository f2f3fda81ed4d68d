"""The adapter registry: built-in adapters register with `@adapter`, third-party ones through
the `evalbot.converters` entry points (docs/convert.md, "Adding an adapter")."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, ClassVar, Protocol, TypeVar

from bot.convert.model import Run

ENTRY_POINT_GROUP = "evalbot.converters"


class ConvertError(Exception):
    """The input cannot be converted: message names the file, the field and a fix."""


class Adapter(Protocol):
    """What the registry needs from an adapter class."""

    name: ClassVar[str]  # the `--from` value and the mapping table's `framework:`
    description: ClassVar[str]

    def sniff(self, filename: str, content: bytes, data: Any) -> bool:
        """Whether this output is this adapter's format; `data` is the parsed JSON or None."""
        ...

    def read(self, filename: str, content: bytes, data: Any) -> list[Run]:
        """The runs the output holds; raise ConvertError on a shape it cannot read."""
        ...


_REGISTRY: dict[str, type[Adapter]] = {}
_LOADED: list[bool] = []  # non-empty once the built-in and entry-point adapters are in
A = TypeVar("A", bound=type[Any])


def adapter(cls: A) -> A:
    """Class decorator: register `cls` under `cls.name` (a second adapter of a name is a bug)."""
    name = cls.name
    existing = _REGISTRY.get(name)
    if existing is not None and existing is not cls:
        raise ValueError(f"two converters named {name!r}: {existing!r} and {cls!r}")
    _REGISTRY[name] = cls
    return cls


def _load() -> None:
    """Register the built-in adapters, then third-party ones from the entry-point group."""
    if _LOADED:
        return
    _LOADED.append(True)
    import bot.convert.adapters  # noqa: F401, PLC0415  (registering is importing)

    for point in entry_points(group=ENTRY_POINT_GROUP):
        loaded = point.load()
        if isinstance(loaded, type) and loaded.__name__ and hasattr(loaded, "name"):
            adapter(loaded)


def adapters() -> dict[str, type[Adapter]]:
    """Every registered adapter by name, built-in ones first."""
    _load()
    return dict(_REGISTRY)


def get(name: str) -> Adapter:
    found = adapters().get(name)
    if found is None:
        known = ", ".join(sorted(adapters()))
        raise ConvertError(f"no converter named {name!r} (known: {known})")
    return found()


def detect(filename: str, content: bytes, data: Any) -> Adapter:
    """The one adapter that recognises the output; ambiguity or none is a ConvertError."""
    candidates = [cls() for cls in adapters().values()]
    matches = [found for found in candidates if found.sniff(filename, content, data)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(sorted(adapters()))
    if not matches:
        what = "not JSON, nor" if data is None else "not"
        raise ConvertError(
            f"{filename}: {what} an output format evalbot can read; pass --from NAME ({known})"
        )
    names = ", ".join(match.name for match in matches)
    raise ConvertError(f"{filename}: several converters recognise it ({names}); pass --from NAME")
