"""The documentation: README stays a front page, every page is reachable from it, the tables
generated from the code match it, and each measured figure is written in one place."""
import re

import pytest

from autograder.core.registry import PROJECT_ROOT
from autograder.course import docs_tables

README = PROJECT_ROOT / "README.md"
DOCS = PROJECT_ROOT / "docs"
README_MAX_BYTES = 6 * 1024


def test_readme_is_a_front_page_of_at_most_6_kb():
    assert len(README.read_bytes()) <= README_MAX_BYTES


def test_every_docs_page_is_linked_from_readme():
    links = set(re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)", README.read_text(encoding="utf-8")))
    pages = {f"docs/{p.name}" for p in DOCS.glob("*.md")}
    assert pages and pages <= links, sorted(pages - links)


def test_readme_test_command_is_what_ci_runs():
    readme = README.read_text(encoding="utf-8")
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in readme and "bash scripts/demo.sh" in readme
    assert re.search(r"^bash scripts/test\.sh\b", ci, re.M), ci
    assert "--slow" in (PROJECT_ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")  # both tiers


def test_links_between_docs_pages_resolve():
    for page in [README, *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if page == README:
                continue  # README also links pages other branches add (test above: all present ones)
            assert (page.parent / target).is_file(), f"{page.name} links {target}"


def test_generated_tables_match_the_code():
    assert docs_tables.stale_pages() == [], "run python -m autograder build"


def test_the_limits_table_has_every_field_with_its_default(tmp_path):
    import dataclasses

    from autograder.sandbox.limits import Limits
    table = docs_tables.limits_table()
    for f in dataclasses.fields(Limits):
        assert f"| `{f.name}` |" in table
    # values as a reader wants them, computed independently of the code's formatter
    assert f"| `call_seconds` | {Limits.call_seconds:g} s |" in table
    assert f"| `memory_bytes` | {Limits.memory_bytes // 2 ** 30} GiB |" in table
    assert f"| `scratch_bytes` | {Limits.scratch_bytes // 2 ** 20} MiB |" in table
    # a page whose section is out of date is found, and rewritten when asked
    for page, generators in docs_tables.SECTIONS.items():
        names = "\n".join(f"<!-- generated: {n} -->\nOUT-OF-DATE TEXT\n{docs_tables.END}" for n in generators)
        (tmp_path / page).write_text(f"# page\n{names}\ntail\n", encoding="utf-8")
    assert sorted(docs_tables.stale_pages(tmp_path, write=True)) == sorted(docs_tables.SECTIONS)
    assert docs_tables.stale_pages(tmp_path) == []
    assert "OUT-OF-DATE TEXT" not in (tmp_path / "grading.md").read_text() and "tail" in (tmp_path / "grading.md").read_text()
    with pytest.raises(ValueError):
        docs_tables.render("no sections here", {"limits": docs_tables.limits_table})


FIGURE = re.compile(r"\b\d[\d,]*(?:\.\d+)?(?: ?(?:ms|s|MB|minutes)\b|x\b)")


def test_each_measured_figure_is_written_once():
    """Figures measured by the benchmarks live in docs/benchmarks.md and nowhere else."""
    measured = set(FIGURE.findall((DOCS / "benchmarks.md").read_text(encoding="utf-8")))
    assert {"580.8 s", "33 ms", "16.5x"} <= measured  # the pattern sees them
    for page in [README, *DOCS.glob("*.md")]:
        if page.name == "benchmarks.md":
            continue
        again = measured & set(FIGURE.findall(page.read_text(encoding="utf-8")))
        assert not again, f"{page.name} repeats {sorted(again)}"


def test_the_parity_corpus_size_written_is_the_corpus_size():
    from autograder.demo.corpus import corpus
    written = re.findall(r"parity corpus, (\d+)\s+notebooks", (DOCS / "grading.md").read_text(encoding="utf-8"))
    assert written == [str(len(corpus()))]


def test_the_time_budget_written_is_the_default():
    from autograder.gradescope.container import DEFAULT_TIME_BUDGET
    assert f"(default {DEFAULT_TIME_BUDGET:g} s," in (DOCS / "gradescope.md").read_text(encoding="utf-8")
