"""One notebook's grade as an HTML fragment: the report a student reads in nbgrader's feedback.

Minimal version (issue 11 needs ``render_html``); the self-check issue's fuller report
replaces it with the same signature.
"""
from html import escape


def render_html(result):
    """HTML fragment for one ``grade.NotebookResult``: the total, notes, and a table of checks.

    Every text that comes from a submission or a check (names, messages, notes) is
    escaped with ``html.escape``, so the fragment can be placed in any page.

    Args:
        result: a ``grade.NotebookResult``.
    Returns:
        ``str``: a ``<div class="autograder-report">`` element.
    """
    rows = "\n".join(
        f"<tr><td>{escape(c.name)}</td><td>{c.score:g}</td><td>{c.max_score:g}</td>"
        f"<td><pre>{escape(c.output or 'passed')}</pre></td></tr>" for c in result.checks)
    notes = "".join(f"<li>{escape(n)}</li>" for n in result.notes)
    return (f'<div class="autograder-report">\n'
            f"<h3>{escape(result.notebook)}: {result.score:g} of {result.max_score:g} points</h3>\n"
            + (f"<ul>{notes}</ul>\n" if notes else "")
            + "<table>\n<tr><th>check</th><th>points</th><th>max</th><th>message</th></tr>\n"
            f"{rows}\n</table>\n</div>")
