"""How the hub's collect reads a submission folder (``walk_submission`` in scripts/hub_exchange.py),
quickly, as the user running the tests: what is copied, what is left out and why, and the time
of record. The same class as real unix students on a hub: ``test_hub_attacks.py`` (slow)."""
import datetime
import importlib.util
import os
import time

import pytest

from autograder.core.registry import PROJECT_ROOT

spec = importlib.util.spec_from_file_location("hub_exchange", PROJECT_ROOT / "scripts" / "hub_exchange.py")
hub_exchange = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hub_exchange)


def _walk(src, dest=None, **kwargs):
    skipped = []
    fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY)
    try:
        latest = hub_exchange.walk_submission(
            fd, os.geteuid(), dest=str(dest) if dest else None, wanted=kwargs.pop("wanted", lambda n, f: True),
            skipped=skipped, max_file=kwargs.pop("max_file", 10_000), max_total=kwargs.pop("max_total", 100_000))
    finally:
        os.close(fd)
    return latest, skipped


def test_files_and_folders_are_copied_and_nothing_else_is_followed_or_opened(tmp_path):
    src, dest = tmp_path / "sub", tmp_path / "out"
    (src / "deeper").mkdir(parents=True)
    dest.mkdir()
    (src / "work.ipynb").write_text("{}")
    (src / "deeper" / "notes.ipynb").write_text("[]")
    secret = tmp_path / "secret.ipynb"
    secret.write_text("the solutions")
    (src / "linked.ipynb").symlink_to(secret)
    (src / "zero.ipynb").symlink_to("/dev/zero")
    (src / "folder-link").symlink_to(tmp_path)
    os.mkfifo(src / "fifo.ipynb")
    os.link(src / "work.ipynb", tmp_path / "second-name")
    (src / "big.ipynb").write_bytes(b"x" * 20_000)
    _, skipped = _walk(src, dest)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == ["deeper", "deeper/notes.ipynb"]
    said = "\n".join(skipped)
    for why in ("'linked.ipynb' is a symbolic link", "'zero.ipynb' is a symbolic link", "'folder-link' is a symbolic link",
                "'fifo.ipynb' is a FIFO", "'work.ipynb' has 2 links", "'big.ipynb' is 20000 bytes"):
        assert why in said, (why, said)


def test_depth_entries_and_total_are_bounded(tmp_path):
    deep = tmp_path / "deep"
    (deep / "/".join(["d"] * (hub_exchange.MAX_DEPTH + 2))).mkdir(parents=True)
    _, skipped = _walk(deep)
    assert any("folders deep" in s for s in skipped)
    heavy = tmp_path / "heavy"
    heavy.mkdir()
    for i in range(3):
        (heavy / f"{i}.ipynb").write_bytes(b"x" * 6_000)
    with pytest.raises(hub_exchange.Refused, match="over the 10000 bytes"):
        _walk(heavy, max_file=8_000, max_total=10_000)


def test_the_time_of_record_is_when_the_submission_last_changed_unless_the_claim_is_just_before(tmp_path):
    src = tmp_path / "sub"
    src.mkdir()
    (src / "work.ipynb").write_text("{}")
    long_ago = time.time() - 86_400
    os.utime(src / "work.ipynb", (long_ago, long_ago))  # mtime is the student's to set; ctime is not
    latest, _ = _walk(src)
    changed = datetime.datetime.fromtimestamp(latest, datetime.timezone.utc).replace(tzinfo=None)
    assert abs((changed - datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)).total_seconds()) < 3600
    record = hub_exchange.ExchangeCollect._time_of_record
    just_before = changed - datetime.timedelta(seconds=hub_exchange.CLAIM_SLACK_SECONDS - 1)
    assert record(just_before, latest) == just_before  # nbgrader's own submit: the claim is kept
    assert record(changed - datetime.timedelta(hours=1), latest) == changed  # backdated: replaced
    assert record(datetime.datetime(2099, 1, 1), latest) == changed  # in the future: replaced


def test_a_name_shown_in_a_log_line_has_no_control_character():
    shown = hub_exchange.shown("eve+ps+\x1b]0;owned\x07<b>\u202e")
    assert shown.isascii() and "\x1b" not in shown and "\\x1b" in shown and "\\u202e" in shown


def test_the_time_in_a_submissions_name_is_read_whatever_random_string_follows_it():
    """nbgrader's submit names a folder ``<student>+<assignment>+<time>+<12 characters of URL-safe
    base64>``; dateutil alone reads a tail such as ``+3KqEYpQADLtH`` as a zone three hours off."""
    import base64

    claimed = datetime.datetime(2026, 12, 4, 0, 26, 12, 976037)
    when = "2026-12-04 00:26:12.976037 UTC"
    tails = ["3KqEYpQADLtH", "4_LVfOcrzxoy", "9hFPAVkUZpET", "-_Ab12Cd34Ef"]
    tails += [base64.urlsafe_b64encode(os.urandom(9)).decode("ascii") for _ in range(2000)]
    wrong = {t: hub_exchange.ExchangeCollect._parse_time(f"{when}+{t}") for t in tails}
    assert {t: v for t, v in wrong.items() if v != claimed} == {}
    # without a random string (add_random_string off)
    assert hub_exchange.ExchangeCollect._parse_time(when) == claimed
    assert hub_exchange.ExchangeCollect._parse_time("not a time+3KqEYpQADLtH") is None
