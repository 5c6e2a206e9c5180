"""Records: the package's value types (a measurement, a server spec, a report row...).

A record class lists its fields as annotations, with optional defaults::

    class Row(Record, frozen=True, kw_only=True):
        name: str
        tokens: int = 0
        notes: list[str] = field(default_factory=list)

and gets ``__init__`` (positional and keyword, or keyword only), ``__eq__`` (same type, equal
fields), ``__hash__`` (frozen records), ordering (``order=True``), ``__repr__`` and
``__post_init__`` support. Type checkers see it as a dataclass (``dataclass_transform``).

Why not :mod:`dataclasses`: a dataclass compiles its methods from generated source when the class
is made, about 0.75 ms per class on Python 3.11, and a command makes dozens of classes before it
can start its first server. Here the methods are shared functions that read a per-class layout,
so making a record class costs about 0.03 ms (most of it Python making any class) and importing
this module costs no more than ``typing``. Instances keep their fields in ``__dict__``, so ``copy`` and ``vars`` work as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, TypeVar, cast, dataclass_transform

_MISSING = object()
# what a comparison returns for another type (Python then tries the other operand's method)
_NOT_IMPLEMENTED = cast(bool, NotImplemented)


class _Factory:
    """A field's default made fresh for every instance (``field(default_factory=...)``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], Any]) -> Any:
    """A field whose default is ``default_factory()``, made anew for each instance."""
    return _Factory(default_factory)


class _Layout:
    """What the shared methods need to know about one record class."""

    __slots__ = ("defaults", "factories", "frozen", "name_set", "names", "positional", "post_init")

    def __init__(
        self,
        names: tuple[str, ...],
        positional: tuple[str, ...],
        defaults: dict[str, Any],
        factories: dict[str, Callable[[], Any]],
        frozen: bool,
        post_init: Callable[[Any], None] | None,
    ) -> None:
        self.names = names
        self.name_set = frozenset(names)
        self.positional = positional
        self.defaults = defaults
        self.factories = factories
        self.frozen = frozen
        self.post_init = post_init


def _is_class_var(annotation: object) -> bool:
    if type(annotation) is str:  # the usual case: postponed annotations
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return getattr(annotation, "__origin__", annotation) is ClassVar


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """A record's field names, in declaration order (a base class's first)."""
    return record._record_layout.names


def replace(record: R, **changes: Any) -> R:
    """A copy of ``record`` with some fields changed (``__post_init__`` runs on the copy)."""
    layout = record._record_layout
    unknown = changes.keys() - set(layout.names)
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    values = {name: record.__dict__[name] for name in layout.names}
    values.update(changes)
    return type(record)(**values)


def _record_init(self: Any, *args: Any, **kwargs: Any) -> None:
    layout = self._record_layout
    if len(args) > len(layout.positional):
        raise TypeError(
            f"{type(self).__name__}() takes {len(layout.positional)} positional arguments, "
            f"{len(args)} given"
        )
    values = dict(zip(layout.positional, args, strict=False))
    if kwargs:
        if args and not values.keys().isdisjoint(kwargs):
            twice = sorted(values.keys() & kwargs.keys())[0]
            raise TypeError(f"{type(self).__name__}() got multiple values for {twice!r}")
        values.update(kwargs)
    if len(values) != len(layout.names) or not layout.name_set.issuperset(values):
        _fill_defaults(type(self).__name__, layout, values)
    # declaration order in __dict__, so vars() lists fields as declared
    self.__dict__.update((name, values[name]) for name in layout.names)
    if layout.post_init is not None:
        layout.post_init(self)


def _fill_defaults(class_name: str, layout: _Layout, values: dict[str, Any]) -> None:
    unknown = values.keys() - layout.name_set
    if unknown:
        raise TypeError(f"{class_name}() got an unexpected argument {sorted(unknown)[0]!r}")
    for name in layout.names:
        if name in values:
            continue
        if name in layout.defaults:
            values[name] = layout.defaults[name]
        elif name in layout.factories:
            values[name] = layout.factories[name]()
        else:
            raise TypeError(f"{class_name}() is missing the argument {name!r}")


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")


def _values(record: Any) -> tuple[Any, ...]:
    state = record.__dict__
    return tuple(state[name] for name in record._record_layout.names)


def _record_eq(self: Any, other: object) -> bool:
    if type(other) is not type(self):
        return _NOT_IMPLEMENTED
    return self is other or bool(_values(self) == _values(other))


def _record_hash(self: Any) -> int:
    return hash(_values(self))


def _record_repr(self: Any) -> str:
    return repr_without(self, ())


def repr_without(record: Record, secret_fields: Iterable[str]) -> str:
    """``Name(field=value, ...)`` of a record with its secret fields left out, so a secret never
    reaches a log or a traceback through ``repr``. A record type with secret fields defines
    ``__repr__`` with this."""
    hidden = frozenset(secret_fields)
    state = record.__dict__
    shown = ", ".join(f"{n}={state[n]!r}" for n in fields(record) if n not in hidden)
    return f"{type(record).__name__}({shown})"


def _comparison(compare: Callable[[tuple[Any, ...], tuple[Any, ...]], bool]) -> Any:
    def method(self: Any, other: object) -> bool:
        if type(other) is not type(self):
            return _NOT_IMPLEMENTED
        return bool(compare(_values(self), _values(other)))

    return method


_ORDERING = {
    "__lt__": _comparison(lambda a, b: a < b),
    "__le__": _comparison(lambda a, b: a <= b),
    "__gt__": _comparison(lambda a, b: a > b),
    "__ge__": _comparison(lambda a, b: a >= b),
}


@dataclass_transform(field_specifiers=(field,))
class _RecordType(type):
    """Makes a record class: its layout and the shared methods go into the namespace before the
    class is created (setting them afterwards would update the type's slots one by one)."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        *,
        frozen: bool = False,
        kw_only: bool = False,
        eq: bool = True,
        order: bool = False,
        **kwargs: Any,
    ) -> _RecordType:
        if not bases:  # Record itself
            return super().__new__(mcs, name, bases, namespace, **kwargs)
        inherited: _Layout | None = next(
            (b.__dict__["_record_layout"] for b in bases if "_record_layout" in b.__dict__), None
        )
        names = list(inherited.names) if inherited else []
        positional = list(inherited.positional) if inherited else []
        defaults = dict(inherited.defaults) if inherited else {}
        factories = dict(inherited.factories) if inherited else {}
        for field_name, annotation in namespace.get("__annotations__", {}).items():
            if _is_class_var(annotation):
                continue
            if field_name not in names:
                names.append(field_name)
                if not kw_only:
                    positional.append(field_name)
            default = namespace.get(field_name, _MISSING)
            if isinstance(default, _Factory):
                factories[field_name] = default.make
                defaults.pop(field_name, None)
            elif default is not _MISSING:
                defaults[field_name] = default
                factories.pop(field_name, None)
        layout = _Layout(
            names=tuple(names),
            positional=tuple(positional),
            defaults=defaults,
            factories=factories,
            frozen=frozen,
            post_init=None,
        )
        namespace["_record_layout"] = layout
        namespace["__init__"] = _record_init
        # methods the class body wrote itself win over the shared ones
        namespace.setdefault("__repr__", _record_repr)
        if eq:
            namespace.setdefault("__eq__", _record_eq)
            # equal records must hash equal: by value when frozen, unhashable when mutable
            namespace.setdefault("__hash__", _record_hash if frozen else None)
        if order:
            for method_name, method in _ORDERING.items():
                namespace.setdefault(method_name, method)
        if frozen:
            namespace["__setattr__"] = _frozen_setattr
            namespace["__delattr__"] = _frozen_delattr
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        layout.post_init = getattr(cls, "__post_init__", None)
        return cls


class Record(metaclass=_RecordType):
    """Base of every record type; see the module's docstring."""

    _record_layout: ClassVar[_Layout]


# bound to the class itself, not its name: a string bound makes typing compile it at import
R = TypeVar("R", bound=Record)
