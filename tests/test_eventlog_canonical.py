"""canonical_json is orjson where that is safe, json.dumps elsewhere; every stored hash
was taken over json.dumps' spelling, so the two must never differ by a byte."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cirulla.eventlog import GENESIS, LogRecord, canonical_json, chain_hash, verify_chain


def reference(value: Any) -> str:
    """The spelling before orjson, which old logs were hashed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


texts = st.text(
    st.one_of(
        st.characters(max_codepoint=0x7F),  # control characters, DEL
        st.characters(codec="utf-8"),  # anything but lone surrogates
        st.sampled_from('\u2028\u2029\ufeff\uffff\U0001f600"\\/'),
    ),
    max_size=12,
)
#: What the server writes: these mostly take orjson's path.
plain_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(min_value=1e-4, max_value=1e16, exclude_max=True),  # fixed-point spellings
    st.floats(min_value=-1e16, max_value=-1e-4, exclude_min=True),
    st.sampled_from([0.0, -0.0]),
    texts,
)
#: What makes canonical_json fall back to json.
odd_scalars = st.one_of(
    st.integers(),  # beyond 64 bits
    st.floats(),  # NaN, infinities, subnormals, exponents
    st.floats(min_value=-1e-3, max_value=1e-3),  # where orjson's exponents differ
    st.sampled_from([1e-5, 1e-7, 1e-9, 1e-10, 1e15, 1e16, 0.0001, 1.0, -0.0]),
)
plain_json = st.recursive(
    plain_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=20,
)
any_json = st.recursive(
    plain_scalars | odd_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(texts, inner, max_size=5),
        st.dictionaries(st.integers(-100, 100), inner, max_size=3),
    ),
    max_leaves=20,
)
json_like = plain_json | any_json


@settings(max_examples=500, deadline=None)
@given(json_like)
def test_canonical_json_is_byte_identical_to_json_dumps(value: Any) -> None:
    """The fast path must reproduce the reference exactly, fallbacks included."""
    assert canonical_json(value) == reference(value)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(texts, json_like, max_size=6))
def test_chain_hash_is_over_the_reference_text(data: dict[str, Any]) -> None:
    """chain_hash hashes orjson's bytes directly: they must be the reference's UTF-8."""
    body = reference({"version": 3, "type": "move", "data": data, "at": 17})
    expected = hashlib.sha256(f"{GENESIS}\n{body}".encode()).hexdigest()
    assert chain_hash(GENESIS, 3, "move", data, 17) == expected


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("".join(map(chr, range(0x20))), id="control-characters"),
        pytest.param("\b\f\n\r\t\x1f\x00", id="short-and-u00xx-escapes"),
        pytest.param("\x7f\x80\x9f\xa0", id="del-and-c1"),
        pytest.param("\u2028\u2029", id="line-and-paragraph-separators"),
        pytest.param("\U0001f600\U0001d11e", id="non-bmp"),
        pytest.param('"\\/', id="quote-backslash-slash"),
        pytest.param("\ud800", id="lone-surrogate"),
        pytest.param(
            {"é": 1, "z": 2, "\U0001f600": 3, "\uffff": 4, "\ue000": 5, "Z": 6, "": 7, "a\x00": 8},
            id="keys-sorted-by-code-point-not-utf16",
        ),
        pytest.param({2: "a", 10: "b"}, id="int-keys-sorted-as-ints"),
        pytest.param({True: 1, 1.5: 2, 0: 3}, id="other-scalar-keys"),
        pytest.param([-0.0, 0.0, 1.0, 1, 100.0, 0.1, 1 / 3], id="plain-floats"),
        pytest.param([1e15, 1e16, 1.5e16, 1e22, 1e308, 1.7976931348623157e308], id="large-floats"),
        pytest.param([0.0001, 1e-5, 1.5e-5, 1e-6, 1e-7, 9.9e-9, 1e-10], id="small-floats"),
        pytest.param([5e-324, 2.2250738585072014e-308], id="subnormal-and-min-normal"),
        pytest.param([float("nan"), float("inf"), float("-inf")], id="nan-and-infinities"),
        pytest.param({"clock": None, "x": float("nan")}, id="nan-beside-a-real-null"),
        pytest.param(float("nan"), id="bare-nan"),
        pytest.param([2**63 - 1, -(2**63), 2**64 - 1], id="ints-at-64-bits"),
        pytest.param([2**64, -(2**63) - 1, 10**30], id="ints-beyond-64-bits"),
        pytest.param([True, False, None, 0, 1], id="bools-none-and-ints"),
        pytest.param({"a": {}, "b": [], "c": [{}], "d": {"e": [[]]}}, id="nested-empties"),
        pytest.param((1, "x", (2,)), id="tuples"),
        pytest.param({"name": "Anne-Marie", "e+": "1e-5 0.00001 null"}, id="guards-hit-in-strings"),
        pytest.param(json.loads("[" * 300 + "]" * 300), id="deeper-than-orjson-goes"),
    ],
)
def test_canonical_json_pitfalls(value: Any) -> None:
    """Each place where orjson could spell a value otherwise than json."""
    assert canonical_json(value) == reference(value)


@pytest.mark.parametrize("value", [{1: 1, "a": 2}, {b"x": 1}, {1}, object()])
def test_canonical_json_raises_where_json_does(value: Any) -> None:
    """Values json cannot spell still fail, with json's error."""
    with pytest.raises(TypeError):
        reference(value)
    with pytest.raises(TypeError):
        canonical_json(value)


def test_canonical_json_of_subclasses_is_json_s() -> None:
    """orjson is told to refuse subclasses: json reads a dict subclass through items()."""

    class Name(str):
        pass

    class Seconds(float):
        pass

    class Masked(dict[str, Any]):
        def items(self) -> Any:
            return [(k, v) for k, v in super().items() if not k.startswith("_")]

    value = {"name": Name("Zoë"), "s": Seconds(1e-5), Name("k"): [Seconds(2.0)]}
    assert canonical_json(value) == reference(value)
    masked = Masked(shown=1, _hidden=2)
    assert canonical_json(masked) == reference(masked) == '{"shown":1}'


TYPICAL = {
    "config": {
        "name": "Tavolo di Zoë ☕ 𝄞",
        "game": "cirulla",
        "preset": "cirulla",
        "options": {"target": 51, "wild_card": "7H"},
        "players": 4,
        "move_seconds": 60.0,
        "partita_seconds": 1800.5,
        "private": False,
        "bots": {"1": "expert", "3": "easy"},
    },
    "owner": "Jürgen",
    "shuffle": 2,
}
ODD = {
    "config": {
        "name": "Zoë\t\x00\x7f\u2028",
        "handicap": 1e-05,
        "tiny": 1e-07,
        "huge": 1e16,
        "nan": float("nan"),
        "inf": float("-inf"),
        "negzero": -0.0,
    },
    "big": 2**70,
    "seats": {2: "Ana", 10: "Bo"},
}


def test_chain_hash_pinned_to_the_json_implementation() -> None:
    """Digests computed with the json.dumps implementation: old logs still verify."""
    first = chain_hash(GENESIS, 1, "created", TYPICAL, 1763712065123)
    assert first == "1bd94d1c97a67d96e772d66d22b6212e562d4386fbb96392fa0a5804c249d986"
    second = chain_hash(first, 2, "created", ODD, 1763712065124)
    assert second == "35276a6889ed135c1ebf1da976bcd6d3df585dd1b2a6e68de1ec7a266ef6e4f3"


def test_pinned_log_verifies() -> None:
    """A two-record log hashed the old way passes verify_chain."""
    first = LogRecord(
        1,
        "created",
        TYPICAL,
        1763712065123,
        GENESIS,
        "1bd94d1c97a67d96e772d66d22b6212e562d4386fbb96392fa0a5804c249d986",
    )
    second = LogRecord(
        2,
        "created",
        ODD,
        1763712065124,
        first.hash,
        "35276a6889ed135c1ebf1da976bcd6d3df585dd1b2a6e68de1ec7a266ef6e4f3",
    )
    verify_chain([first, second])
