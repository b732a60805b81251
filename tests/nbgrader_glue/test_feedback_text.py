"""The feedback notebook's text and the inert markdown kept between runs, made cheap without changing
what is written: ``feedback.notebook_text`` gives ``nbformat.writes``' text and a file nbformat's
validation accepts as it is; ``inert_store`` gives back exactly what ``inert_markdown`` makes, and
only for the markdown two notebooks shared."""
import copy
import json

import nbformat
from nbformat.validator import isvalid

from autograder.core.registry import EXERCISES
from autograder.nbgrader_glue import inert, inert_store
from autograder.nbgrader_glue.feedback import notebook_text


def test_the_text_of_a_released_notebook_is_nbformats():
    for exercise in EXERCISES.values():
        nb = nbformat.read(exercise.release_notebook, as_version=4)
        nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="one\ntwo\n")] if nb.cells[0].cell_type == "code" \
            else []
        nb.metadata["orig_nbformat"] = 3  # transient: nbformat leaves it out of the file
        assert notebook_text(copy.deepcopy(nb)) == nbformat.writes(nb), exercise.name


def test_cells_without_an_id_or_with_a_repeated_one_get_ids_and_the_file_is_valid():
    nb = nbformat.v4.new_notebook()  # (given its cells, new_notebook would repair them itself)
    nb.cells = [nbformat.v4.new_code_cell("a = 1", id="same"), nbformat.v4.new_markdown_cell("*b*", id="same"),
                nbformat.v4.new_code_cell("c = 3")]
    del nb.cells[2]["id"]  # as nbgrader restores a deleted grade cell
    assert not isvalid(json.loads(json.dumps(nb)))
    written = json.loads(notebook_text(nb))
    ids = [c["id"] for c in written["cells"]]
    assert ids[0] == "same" and len(set(ids)) == 3 and all(ids)
    assert isvalid(written)  # nbformat's check, without its repairs
    assert [c["source"] for c in written["cells"]] == [["a = 1"], ["*b*"], ["c = 3"]]


def test_a_notebook_before_cell_ids_is_written_as_nbformat_writes_it():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("text")])
    nb.nbformat_minor = 4
    del nb.cells[0]["id"]
    assert notebook_text(copy.deepcopy(nb)) == nbformat.writes(nb)
    assert "id" not in json.loads(notebook_text(nb))["cells"][0]


def _fresh_process(monkeypatch, folder):
    monkeypatch.setattr(inert_store, "STORE_DIR", folder)
    monkeypatch.setattr(inert_store, "_loaded", None)
    monkeypatch.setattr(inert, "_MEMO", {})
    monkeypatch.setattr(inert, "_USES", inert.collections.Counter())


def _notebook(*texts):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(t) for t in texts])


def test_markdown_two_notebooks_share_is_kept_for_the_next_run_and_comes_back_the_same(tmp_path, monkeypatch):
    shared, own = "# Released\n\nSome *text* <b onclick=x>bold</b>", "my own answer, written once"
    _fresh_process(monkeypatch, tmp_path)
    first = [inert.inert_notebook(_notebook(shared, own)), inert.inert_notebook(_notebook(shared))]
    inert.keep_shared()
    [stored] = tmp_path.glob("*.json")
    kept = json.loads(stored.read_text())
    assert list(kept.values()) == [inert.inert_markdown(shared)]  # not the text one student wrote

    _fresh_process(monkeypatch, tmp_path)
    made = []
    monkeypatch.setattr(inert, "inert_markdown", lambda source, attachments=None: made.append(source) or "")
    again = inert.inert_notebook(_notebook(shared))
    assert made == [] and again.cells[0].source == first[0].cells[0].source == first[1].cells[0].source


def test_a_damaged_store_or_one_of_another_sanitizer_is_not_used(tmp_path, monkeypatch):
    text = "plain *markdown*"
    _fresh_process(monkeypatch, tmp_path)
    (tmp_path / f"{inert_store.fingerprint()}.json").write_text("{not json")
    assert inert.inert_notebook(_notebook(text)).cells[0].source == inert.inert_markdown(text)

    _fresh_process(monkeypatch, tmp_path)
    stale = tmp_path / "0123456789abcdef01234567.json"  # an earlier inert.py's
    stale.write_text(json.dumps({inert_store._key(text): "<script>stale</script>"}))
    (tmp_path / f"{inert_store.fingerprint()}.json").unlink()
    assert inert.inert_notebook(_notebook(text)).cells[0].source == inert.inert_markdown(text)
    inert.inert_notebook(_notebook(text))
    inert.keep_shared()
    assert not stale.exists() and (tmp_path / f"{inert_store.fingerprint()}.json").is_file()


def test_a_store_folder_other_users_may_write_is_neither_read_nor_written(tmp_path, monkeypatch):
    text, folder = "shared *markdown*", tmp_path / "store"
    folder.mkdir()
    folder.chmod(0o777)  # anyone could plant a file here
    planted = folder / f"{inert_store.fingerprint()}.json"
    planted.write_text(json.dumps({inert_store._key(text): "<script>planted</script>"}))
    _fresh_process(monkeypatch, folder)
    assert inert.inert_notebook(_notebook(text, text)).cells[0].source == inert.inert_markdown(text)
    inert.keep_shared()
    assert json.loads(planted.read_text()) == {inert_store._key(text): "<script>planted</script>"}


def test_a_run_that_adds_nothing_leaves_the_store_file_alone(tmp_path, monkeypatch):
    text = "# Shared\n\ntext"
    _fresh_process(monkeypatch, tmp_path)
    inert.inert_notebook(_notebook(text, text))
    inert.keep_shared()
    [stored] = tmp_path.glob("*.json")
    before = stored.stat()
    _fresh_process(monkeypatch, tmp_path)
    inert.inert_notebook(_notebook(text, text))
    inert.keep_shared()
    after = stored.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_the_released_markdown_is_kept_ahead_so_a_first_run_makes_none_inert(tmp_path, monkeypatch):
    # `python -m autograder caches` keeps every released markdown text made inert: a student's
    # notebook that left the released text alone needs nothing made inert in a new process.
    from autograder.core.registry import EXERCISES
    attention = EXERCISES["attention"]
    _fresh_process(monkeypatch, tmp_path)
    released = [c.source for c in nbformat.read(attention.release_notebook, as_version=4).cells
                if c.cell_type == "markdown" and not c.get("attachments")]
    assert inert.keep_released([attention.release_notebook, tmp_path / "missing.ipynb"]) == len(set(released)) > 3
    _fresh_process(monkeypatch, tmp_path)
    made = []
    real = inert.inert_markdown
    monkeypatch.setattr(inert, "inert_markdown", lambda source, attachments=None: made.append(source) or "")
    feedback = inert.inert_notebook(nbformat.read(attention.release_notebook, as_version=4))
    assert made == []
    shown = [c.source for c in feedback.cells if c.cell_type == "markdown"]
    assert shown == [real(text) for text in released]  # what making them inert now gives
