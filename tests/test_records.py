"""The one strict decoder every on-disk record goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash import records


class Sample(records.Record, frozen=True):
    name: str
    count: int
    flag: bool = False


def test_decode_accepts_a_valid_record_and_ignores_unknown_fields() -> None:
    got = records.decode(Sample, '{"name": "a", "count": 2, "later": [1]}', source="s.json")
    assert got == Sample(name="a", count=2)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"name": "a", "count": "2"}', "count"),
        ('{"name": "a", "count": 2, "flag": 1}', "flag"),
        ('{"count": 2}', "name"),
        ("[1, 2]", "not a JSON object"),
        ("{", "not valid JSON"),
        ("[" * 100 + "]" * 100, "nested"),
    ],
)
def test_decode_names_the_source_and_the_field(text: str, fragment: str) -> None:
    with pytest.raises(records.RecordError) as caught:
        records.decode(Sample, text, source="/state/s.json")
    assert "/state/s.json" in str(caught.value)
    assert fragment in str(caught.value)


def test_bad_utf8_is_a_record_error() -> None:
    with pytest.raises(records.RecordError, match="s.json"):
        records.decode(Sample, b'{"name": "\xff"}', source="s.json")


def test_write_then_read_round_trips_privately(tmp_path: Path) -> None:
    path = tmp_path / "d" / "r.json"
    records.write(path, Sample(name="x", count=1, flag=True))
    assert path.stat().st_mode & 0o777 == 0o600
    assert records.read(Sample, path, cap=4096) == Sample(name="x", count=1, flag=True)
    assert records.read(Sample, tmp_path / "absent.json", cap=4096) is None
