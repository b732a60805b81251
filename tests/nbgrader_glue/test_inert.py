"""A hostile notebook made inert (autograder/nbgrader_glue/inert.py), judged on the pages
rendered from it: formgrader's submission view (nbgrader 0.9.6's own ``formgrade`` template,
which never sanitizes markdown) and nbconvert's ``lab`` and ``classic`` HTML (which
``generate_feedback``'s template extends), through nbconvert's HTMLExporter. The rendered page is read with Python's own HTML parser,
independently of the sanitizer: no event handler, script, frame, SVG, style or form of the
student's survives, no link or image points anywhere but http(s), mailto or raster data, and
the honest text of the answer is still there."""
import html.parser
import re
from pathlib import Path

import nbformat
import pytest

from autograder.nbgrader_glue.inert import inert_markdown, inert_notebook

MARK = "lmrt_pwned"  # what every payload would run; it must appear in no script, handler or URL
JS = f"window.{MARK}=1"

MARKDOWN = "\n\n".join([
    "# My answer\n\nThe softmax turns *scores* into weights; `a < b` and $a<b$ stay.",
    f"<img src=x onerror=\"{JS}\">",
    f"<script>{JS}</script>",
    f"<svg onload=\"{JS}\"><circle r=3 /></svg>",
    f"<iframe src=\"javascript:{JS}\"></iframe>",
    f"[click](javascript:{JS}) and [also](JaVaScRiPt:{JS}) and <a href=\"jav&#x09;ascript:{JS}\">tab</a>",
    f"<a href=\"data:text/html,<script>{JS}</script>\">data</a>",
    f"<style>body{{background:url('javascript:{JS}')}}</style>",
    f"<form action=\"javascript:{JS}\"><button>go</button></form>",
    f"<math><mtext><table><mglyph><style><img src=x onerror=\"{JS}\"></style></mglyph></table></mtext></math>",
    f"<object data=\"javascript:{JS}\"></object><embed src=\"javascript:{JS}\">",
    f"<!-- --><img src=x onerror=\"{JS}\"> <!-->",
    "![plot](attachment:plot.svg) ![ok](attachment:dot.png)",
])
SVG = f'<svg xmlns="http://www.w3.org/2000/svg" onload="{JS}"><script>{JS}</script></svg>'


def _hostile_notebook():
    import base64
    md = nbformat.v4.new_markdown_cell(MARKDOWN, attachments={
        "plot.svg": {"image/svg+xml": base64.b64encode(SVG.encode()).decode()},
        "dot.png": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}})
    md.metadata["tags"] = [f'x"><img src=x onerror="{JS}">']
    md.metadata["nbgrader"] = {"solution": True, "grade": False, "locked": False, "schema_version": 3,
                               "grade_id": f'a"><img src=x onerror="{JS}">'}
    code = nbformat.v4.new_code_cell("answer = 1")
    code.metadata["jupyter"] = {"source_hidden": True}
    code.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": f"<img src=x onerror=\"{JS}\">", "image/svg+xml": SVG, "application/javascript": JS,
        "text/vnd.mermaid": f"<img src=x onerror=\"{JS}\">", "text/markdown": f"<script>{JS}</script>",
        "text/plain": "1"})]
    raw = nbformat.v4.new_raw_cell(f"<img src=x onerror=\"{JS}\">", metadata={"raw_mimetype": "text/html"})
    nb = nbformat.v4.new_notebook(cells=[md, code, raw])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {"x": f"</script><script>{JS}</script>"}, "version_major": 2, "version_minor": 0}}
    return nb


class _Page(html.parser.HTMLParser):
    """What a browser would act on in a page: element names, attributes, script text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.scripts, self.text, self._in_script = [], [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend((tag, k, v or "") for k, v in attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


def _render(nb, template):
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config
    config = Config()
    config.HTMLExporter.template_name = template
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    # generate_feedback's own setting (nbgrader/converters/generate_feedback.py): bootstrap's CSS
    config.HTMLExporter.extra_template_paths = [str(Path(handlers.template_path).parent / "static" / "node_modules"
                                                    / "bootstrap" / "dist" / "css")]
    resources = {"assignment_id": "attention", "notebook_id": "attention", "submission_id": "s1", "index": 0,
                 "total": 1, "base_url": "/user/teacher", "student": "eve", "last_name": "", "first_name": "",
                 "notebook_path": "autograded/eve/attention/attention.ipynb"}
    body, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=resources)
    page = _Page()
    page.feed(body)
    return page, body


def _assert_inert(page, template):
    for tag, name, value in page.attrs:
        # nbgrader's own page has handlers (onclick="toggle_name(true);"); none is the student's
        assert not (name.lower().startswith("on") and MARK in value), (tag, name, value)
        if name.lower() in ("href", "src", "action", "data", "formaction", "xlink:href"):
            url = "".join(value.split()).lower()
            assert not url.startswith(("javascript:", "vbscript:")), (tag, name, value)
            assert not url.startswith("data:") or url.startswith(("data:image/png", "data:image/jpeg")), (tag, name, value)
    assert not any(MARK in s for s in page.scripts), [s for s in page.scripts if MARK in s]
    baseline, _ = _render(nbformat.v4.new_notebook(), template)  # the template's own elements
    for tag in ("iframe", "object", "embed", "svg", "form", "math", "style", "script"):
        assert page.tags.count(tag) == baseline.tags.count(tag), tag


def test_the_hostile_notebook_really_attacks_nbgraders_pages():
    """The same notebook unmade: formgrader's page carries the payloads (so the test can fail)."""
    page, _ = _render(_hostile_notebook(), "formgrade")
    with pytest.raises(AssertionError):
        _assert_inert(page, "formgrade")
    assert any(name == "onerror" for _, name, _ in page.attrs)


@pytest.mark.parametrize("template", ["formgrade", "lab", "classic"])
def test_nothing_a_student_wrote_runs_on_formgraders_or_nbconverts_pages(template):
    nb = inert_notebook(_hostile_notebook())
    nbformat.validate(nb)  # still a notebook nbgrader and JupyterLab read
    page, body = _render(nb, template)
    _assert_inert(page, template)
    text = " ".join(page.text)
    assert "My answer" in text and "into weights" in text  # the honest part still reads
    assert "data:image/png;base64,iVBOR" in body  # a raster attachment still shows
    assert re.search(r"answer\s+=\s+1", text)  # the code a source_hidden tag would have hidden is shown


def test_metadata_is_reduced_to_what_nbgrader_needs():
    nb = inert_notebook(_hostile_notebook())
    assert set(nb.metadata) == {"kernelspec"}
    md, code, raw = nb.cells
    assert md.metadata == {} and code.metadata == {} and raw.metadata == {}  # unsafe grade id, tags, source_hidden
    assert code.outputs == [] and "attachments" not in md
    bad_id = _hostile_notebook()
    bad_id.cells[0]["id"] = f'"><script>{JS}</script>'  # nbformat's validator would refuse it; nbformat.read does not
    assert re.fullmatch(r"[A-Za-z0-9_-]+", inert_notebook(bad_id).cells[0]["id"])
    good = nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": "cell-1a2b", "solution": True}})
    assert inert_notebook(nbformat.v4.new_notebook(cells=[good])).cells[0].metadata["nbgrader"]["grade_id"] == "cell-1a2b"


def test_the_same_markdown_in_two_notebooks_is_made_inert_alike():
    text = "# Title\n\n<script>alert(1)</script> *kept* [link](javascript:alert(1))"
    first = inert_notebook(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)]))
    second = inert_notebook(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)]))
    assert first.cells[0].source == second.cells[0].source == inert_markdown(text)
    assert "<script" not in first.cells[0].source and 'href="javascript' not in first.cells[0].source
