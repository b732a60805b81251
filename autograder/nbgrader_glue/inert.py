"""A submitted notebook made inert for every page that renders it: nothing a student wrote runs
in the browser of whoever reads it (formgrader, ``nbgrader generate_feedback``, JupyterLab).

What a student controls in a notebook is markup (markdown cells, raw cells, attachments),
outputs, and metadata (cell tags, ids, nbgrader's grade ids, notebook metadata such as
widget state). nbgrader's formgrader renders the ``autograded/`` copy with a template of
its own (``formgrade/index.html.j2``) whose markdown cells go through nbconvert's
``markdown2html`` with raw HTML and ``javascript:`` links kept and no sanitising, whatever
``HTMLExporter.sanitize_html`` says, and it writes grade ids into element ids; nbconvert's
templates also write cell tags into ``class`` attributes unescaped. So the copy itself is
made inert before anything renders it (``inert_notebook``):

* every markdown cell becomes its own rendering: nbconvert's ``markdown2html`` (the renderer
  formgrader uses) cleaned by bleach with an allowlist of the tags markdown produces
  (``MARKDOWN_TAGS``; links only to http, https and mailto; images only as PNG, JPEG or GIF
  data from the cell's attachments), on one line inside a ``<div>``, which markdown passes
  through untouched: no raw HTML, script, event handler, SVG or ``javascript:`` link remains;
* attachments are dropped once inlined; outputs are cleared (the grader adds its own);
* cell metadata keeps only nbgrader's, and only with a grade id of letters, digits, ``_``
  and ``-``; an id that is not a valid nbformat cell id is replaced;
* notebook metadata keeps only the kernelspec and the language's name;
* raw cells keep their text with no MIME type, which nbconvert escapes.
"""
from __future__ import annotations

import collections
import re
import uuid

MARKDOWN_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "img", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td",
    "th", "thead", "tr", "ul"})
LINK_PROTOCOLS = frozenset({"http", "https", "mailto"})
SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif")
_ATTACHMENT = re.compile(r"attachment:([^\s\"')]+)")
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
_IMAGE_URL = "https://attachment.invalid/"  # where an inlined attachment stands until bleach is done


def _attribute_allowed(tag, name, value):
    if name in ("title", "alt", "class"):
        return True
    if tag == "a" and name == "href":
        return True  # bleach then keeps it only for LINK_PROTOCOLS and relative links
    if tag == "img" and name == "src":
        return value.startswith(_IMAGE_URL)  # only inert_markdown's stand-ins are then replaced
    if tag in ("td", "th") and name == "align":
        return True
    return tag in ("h1", "h2", "h3", "h4", "h5", "h6") and name == "id"


def inert_markdown(source: str, attachments: dict | None = None) -> str:
    """Markdown ``source`` as markdown that renders to the same text and cannot run anything.

    Args:
        source: a markdown cell's text (``str``).
        attachments: the cell's ``attachments`` (``{name: {mime: base64}}``) or None; PNG,
            JPEG and GIF ones referenced as ``attachment:name`` are inlined as data, others
            are left out.
    Returns:
        ``str``: one line of sanitized HTML inside ``<div class="student-markdown">``.
    """
    import bleach
    from nbconvert.filters.markdown import markdown2html

    images = []  # data URIs of the attachments shown, put in after bleach (which keeps no data:)
    stand_in = f"{_IMAGE_URL}{uuid.uuid4().hex}/"  # unguessable: a student's own URL never matches

    def inline(match):
        bundle = (attachments or {}).get(match.group(1)) or {}
        for mime in IMAGE_TYPES:
            data = bundle.get(mime)
            if isinstance(data, str) and _BASE64.match(data):
                images.append(f"data:{mime};base64,{''.join(data.split())}")
                return f"{stand_in}{len(images) - 1}"
        return "#attachment-left-out"

    html = markdown2html(_ATTACHMENT.sub(inline, source))
    clean = bleach.clean(html, tags=MARKDOWN_TAGS, attributes=_attribute_allowed, protocols=LINK_PROTOCOLS,
                         strip=True, strip_comments=True)
    for i, uri in enumerate(images):
        clean = clean.replace(f'src="{stand_in}{i}"', f'src="{uri}"')
    # One line: markdown passes an HTML block through only up to a blank line, and a line
    # break is the same character written as a reference (inside <pre> too).
    return '<div class="student-markdown">' + clean.replace("\r", "").replace("\n", "&#10;") + "</div>"


_MEMO: dict = {}  # {text: inert form} of this process (at most _MEMO_LIMIT)
_MEMO_LIMIT = 4096
_USES: collections.Counter = collections.Counter()  # how many cells of this process had each text


def _inert_text(source: str) -> str:
    """``inert_markdown`` of a cell without attachments, kept: a class's notebooks share most of
    their markdown (the released text), which was sanitized again for every student. Kept in this
    process, and between runs by ``inert_store`` (``keep_shared``)."""
    from autograder.nbgrader_glue import inert_store
    if len(_USES) < 4 * _MEMO_LIMIT:
        _USES[source] += 1
    html = _MEMO.get(source)
    if html is None:
        html = inert_store.lookup(source)
        if html is None:
            html = inert_markdown(source)
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        _MEMO[source] = html
    return html


def keep_shared():
    """Keep on disk (``inert_store``) the inert form of every markdown text that two or more cells of
    this process had: the released text, not a text one student wrote."""
    from autograder.nbgrader_glue import inert_store
    inert_store.keep({text: _MEMO[text] for text, n in _USES.items() if n >= 2 and text in _MEMO})


def keep_released(notebooks) -> int:
    """Keep on disk (``inert_store``) the inert form of every markdown cell of the released
    notebooks ``notebooks`` (paths), as ``python -m autograder caches`` does after a build: the text
    every student's notebook starts with, so the first grade command finds it made inert already.
    Returns how many texts are kept; a notebook that cannot be read is skipped."""
    import nbformat

    from autograder.nbgrader_glue import inert_store
    texts = {}
    for path in notebooks:
        try:
            cells = nbformat.read(path, as_version=4).cells
        except (OSError, ValueError):
            continue
        for cell in cells:
            source = cell.get("source")
            if cell.get("cell_type") == "markdown" and isinstance(source, str) and not cell.get("attachments"):
                texts[source] = _inert_text(source)
    inert_store.keep(texts)
    return len(texts)


def inert_notebook(nb):
    """Make the ``nbformat.NotebookNode`` ``nb`` inert in place (the module's docstring says
    how) and return it."""
    kernelspec = nb.metadata.get("kernelspec")
    language = nb.metadata.get("language_info", {}).get("name")
    nb.metadata = type(nb.metadata)()
    if isinstance(kernelspec, dict):
        nb.metadata["kernelspec"] = {k: str(v) for k, v in kernelspec.items() if k in ("name", "display_name", "language")}
    if isinstance(language, str) and SAFE_ID.match(language):
        nb.metadata["language_info"] = {"name": language}
    seen = set()
    for cell in nb.cells:
        nbgrader = cell.get("metadata", {}).get("nbgrader")
        cell["metadata"] = type(nb.metadata)()
        if isinstance(nbgrader, dict) and isinstance(nbgrader.get("grade_id"), str) \
                and SAFE_ID.match(nbgrader["grade_id"]):
            cell["metadata"]["nbgrader"] = nbgrader
        if "id" in cell and (not isinstance(cell["id"], str) or not SAFE_ID.match(cell["id"]) or cell["id"] in seen):
            cell["id"] = uuid.uuid4().hex[:8]
        if "id" in cell:
            seen.add(cell["id"])
        if cell.get("cell_type") == "markdown":
            source, attachments = cell.get("source", ""), cell.get("attachments")
            cell["source"] = (_inert_text(source) if isinstance(source, str) and not attachments
                              else inert_markdown(source, attachments))
        cell.pop("attachments", None)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb
