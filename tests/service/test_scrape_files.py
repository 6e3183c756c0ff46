"""A scrape of the multiprocess directory is not failed by a process being born.

A process creates its metrics file, then sizes it; a scrape in between, or
after a process was killed in between, would meet an empty file."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.mmap_dict import MmapedDict, mmap_key

from service.scrape import AllProcesses


def counter_file(directory: Path, pid: int, value: float) -> None:
    name = "cardroom_test_things_total"
    db = MmapedDict(str(directory / f"counter_{pid}.db"))  # type: ignore[no-untyped-call]
    db.write_value(mmap_key(name, name, [], [], "things"), value, 0.0)  # type: ignore[no-untyped-call]
    db.close()  # type: ignore[no-untyped-call]


def test_a_file_not_yet_sized_is_left_out_of_the_scrape(tmp_path: Path) -> None:
    counter_file(tmp_path, 101, 3.0)
    counter_file(tmp_path, 102, 4.0)
    (tmp_path / "counter_103.db").touch()  # created, not yet sized
    (tmp_path / "histogram_103.db").write_bytes(b"\0\0")
    registry = CollectorRegistry()
    registry.register(AllProcesses(str(tmp_path)))
    text = generate_latest(registry).decode()
    assert "cardroom_test_things_total 7.0" in text
