"""Records (``core.record``): what a value type promises its users."""

from __future__ import annotations

import copy
from typing import ClassVar

import pytest

from mcpcost.core.record import Record, field, fields, replace
from tests.helpers.paths import PACKAGE


class Point(Record, frozen=True):
    x: int
    y: int = 0


class Bag(Record, frozen=True, kw_only=True):
    name: str
    items: list[str] = field(default_factory=list)
    limit: ClassVar[int] = 3  # a class constant, not a field


class Counter(Record):
    count: int = 0


class Handle(Record, frozen=True, eq=False):
    label: str


class Version(Record, frozen=True, order=True):
    major: int
    minor: int


class Checked(Record, frozen=True):
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")


class Custom(Record, frozen=True):
    key: str
    ignored: str = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Custom) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Custom<{self.key}>"


class Base(Record, frozen=True):
    a: int


class Derived(Base, frozen=True):
    b: int = 2


def test_fields_are_set_positionally_or_by_keyword_with_defaults() -> None:
    assert (Point(1).x, Point(1).y) == (1, 0)
    assert Point(1, 2) == Point(x=1, y=2) == Point(y=2, x=1)
    assert fields(Point) == ("x", "y") == fields(Point(1))
    assert vars(Point(3, 4)) == {"x": 3, "y": 4}


def test_wrong_arguments_fail_as_a_function_call_would() -> None:
    with pytest.raises(TypeError, match="missing the argument 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected argument 'z'"):
        Point(1, z=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values for 'x'"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 2 positional arguments, 3 given"):
        Point(1, 2, 3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        Bag("x")  # type: ignore[call-arg]


def test_a_default_factory_makes_a_fresh_value_for_each_instance() -> None:
    one, two = Bag(name="a"), Bag(name="b")
    one.items.append("x")
    assert two.items == [] and one.items == ["x"]
    assert fields(Bag) == ("name", "items")  # the ClassVar is not a field
    assert Bag.limit == 3


def test_a_frozen_record_refuses_changes_and_hashes_by_value() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError, match="immutable"):
        p.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del p.x
    assert p.x == 1
    assert hash(p) == hash(Point(1, 2)) and len({p, Point(1, 2), Point(2, 1)}) == 2


def test_a_mutable_record_can_change_and_is_not_hashable() -> None:
    c = Counter()
    c.count += 1
    assert c == Counter(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(c)


def test_equality_needs_the_same_type() -> None:
    class OtherPoint(Record, frozen=True):
        x: int
        y: int = 0

    other: object = OtherPoint(1, 2)
    assert Point(1, 2) != other
    assert Point(1, 2) != (1, 2)  # type: ignore[comparison-overlap]
    assert Base(1) != Derived(1)


def test_eq_false_keeps_identity() -> None:
    a = Handle("h")
    assert a == a and a != Handle("h")
    assert len({a, Handle("h")}) == 2


def test_order_compares_fields_in_declaration_order() -> None:
    assert Version(1, 9) < Version(2, 0) <= Version(2, 0) < Version(2, 1)
    assert sorted([Version(2, 0), Version(1, 5), Version(1, 2)]) == [
        Version(1, 2),
        Version(1, 5),
        Version(2, 0),
    ]
    with pytest.raises(TypeError):
        _ = Version(1, 0) < Point(1, 0)  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = Point(1, 0) < Point(2, 0)  # type: ignore[operator]


def test_post_init_runs_on_creation_and_on_replace() -> None:
    ok = Checked(1, 2)
    with pytest.raises(ValueError, match="low above high"):
        Checked(3, 2)
    with pytest.raises(ValueError, match="low above high"):
        replace(ok, low=5)


def test_replace_copies_with_changes_and_refuses_unknown_fields() -> None:
    bag = Bag(name="a", items=["x"])
    renamed = replace(bag, name="b")
    assert renamed == Bag(name="b", items=["x"]) and bag.name == "a"
    assert renamed.items is bag.items  # a shallow copy, as dataclasses.replace makes
    with pytest.raises(TypeError, match="no field 'colour'"):
        replace(bag, colour="red")


def test_methods_the_class_writes_itself_are_kept() -> None:
    assert Custom("k", "a") == Custom("k", "b")
    assert hash(Custom("k", "a")) == hash(Custom("k", "b"))
    assert repr(Custom("k")) == "Custom<k>"


def test_repr_names_every_field() -> None:
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert repr(Bag(name="n")) == "Bag(name='n', items=[])"


def test_a_subclass_adds_fields_after_its_base() -> None:
    d = Derived(1)
    assert fields(d) == ("a", "b") and (d.a, d.b) == (1, 2)
    assert Derived(1, 3) == Derived(a=1, b=3)


def test_copies_are_equal_and_independent() -> None:
    bag = Bag(name="a", items=["x"])
    shallow, deep = copy.copy(bag), copy.deepcopy(bag)
    assert shallow == bag == deep
    assert shallow.items is bag.items and deep.items is not bag.items


def test_the_package_makes_value_types_one_way() -> None:
    # one home for records: equality, hashing and repr (and the secret masking built on repr)
    # behave the same everywhere, and no import pays for a dataclass's generated code
    import ast

    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}"
                for n in names
                if n.split(".")[0] in _OTHER_WAYS
                and not (
                    n == "dataclasses" and path.relative_to(PACKAGE).as_posix() in _DATACLASSES
                )
            ]
    assert offenders == []


# modules written as plain frozen dataclasses (slots, keyword-only): the form records move to
_DATACLASSES = {
    "core/attribution.py",
    "author/snapshot.py",
    "author/gate_file.py",
    "author/budget_gates.py",
    "author/snapshot_run.py",
    "author/fixes.py",
}


_OTHER_WAYS = {"dataclasses", "msgspec", "attrs", "attr", "pydantic"}
