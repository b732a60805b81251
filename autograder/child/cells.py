"""Running a notebook's cells inside the child, as Restart & Run All runs them in a kernel.

The grader sends the code cells already translated by IPython's input transformer
(``submission/notebook.py``), so ``%magic``, ``!cmd`` and ``obj?`` arrive as calls on
``get_ipython()``. ``Runner`` executes them in order in one namespace, the way IPython's
``run_cell`` does:

* every top-level statement runs (loops, ``if``, prints, asserts, plots), one statement at a
  time; the value of a final expression is kept in ``_`` (IPython displays it);
* a cell that raises stops at that statement and is recorded; later cells still run;
* each cell has a time limit (``cell_timeout``) and the whole run a budget (``budget``);
* output goes to the child's capped streams (``main.py``: counted, never stored or sent);
* matplotlib draws off screen (``MPLBACKEND=Agg``, ``plt.show`` shows nothing) and figures
  are closed after each cell, as the inline backend does;
* a hidden-test cell is a *checkpoint*: ``run_to(checkpoint)`` stops there, the grader runs
  that function's checks on the state at that point, then asks to run on. Cells after the
  last checkpoint cannot change a grade and are not run;
* instructor-demo cells arrive with empty source (the grader decided; see
  ``submission/notebook.py``).

What ``get_ipython()`` does here (``Shell``), since the child may not start programs:

* ``%time stmt`` and ``%%time``, ``%%capture``: run the code in the notebook's namespace;
* ``%%writefile [-a] name``: writes the file in the child's own working folder, which is
  first on ``sys.path`` as the notebook's folder is in a kernel;
* ``%env NAME=value`` / ``%set_env``: sets the variable in the child;
* ``%timeit``/``%%timeit``, ``%prun``: nothing (IPython runs them in a private namespace,
  so they leave no names behind; timing student code would only cost time);
* ``!cmd``, ``%%bash``, ``%%sh``, ``%%script``, ``%pip``, ``%conda``: nothing, and ``x = !cmd``
  gives an empty list (the child cannot run programs; an honest notebook's shell lines
  inspect files or install packages that are already there);
* ``obj?``, ``%matplotlib``, ``%load_ext`` and every other IPython magic: nothing;
* a magic IPython does not know raises ``UsageError``, as it does in a kernel.

Part of the child package: standard library only (matplotlib only if the notebook imported it).
"""
import ast
import hashlib
import os
import sys
import time

from . import timing
from .errors import LABELS, error_of
from .timing import GraderTimeout, alarm

DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# IPython's and ipykernel's own magics (lsmagic), plus the common extensions' ones.
LINE_MAGICS = frozenset("""alias alias_magic autoawait autocall automagic bookmark cat cd code_wrap
colors conda config cp debug dhist dirs doctest_mode ed edit env gui hist history killbgscripts
ldir lf lk ll load load_ext loadpy logoff logon logstart logstate logstop ls lsmagic lx macro magic
mamba matplotlib micromamba mkdir mv notebook page pastebin pdb pdef pdoc pfile pinfo pinfo2 pip
popd pprint precision prun psearch psource pushd pwd pycat pylab quickref recall rehashx
reload_ext rep rerun reset reset_selective rm rmdir run save sc set_env sx system tb time timeit
unalias unload_ext uv who who_ls whos xdel xmode clear less more man autosave connect_info
qtconsole autoreload aimport load_ipython_extension""".split())
CELL_MAGICS = frozenset("""! HTML SVG bash capture code_wrap debug file html javascript js latex
markdown perl prun pypy python python2 python3 ruby script sh svg sx system time timeit
writefile""".split())


class UsageError(Exception):
    """What IPython raises for a magic it does not know."""


class _SList(list):
    """The list ``x = !cmd`` gives (IPython's SList, empty here)."""
    s = n = ""
    l = p = property(lambda self: list(self))  # noqa: E741


class _Captured:
    """What ``%%capture name`` stores: nothing was kept."""
    stdout = stderr = ""
    outputs: list = []

    def show(self):
        pass

    __call__ = show


class Shell:
    """The ``get_ipython()`` of a graded notebook (see the module docstring)."""

    def __init__(self, runner):
        self._runner = runner

    @property
    def user_ns(self):
        return self._runner.ns

    def run_line_magic(self, name, line, _stack_depth=1):
        if name not in LINE_MAGICS:
            raise UsageError(f"Line magic function `%{name}` not found.")
        if name == "time":
            return self._runner.run_source(line, "%time", value=True)
        if name in ("env", "set_env") and "=" in line:
            key, _, value = line.partition("=")
            os.environ[key.strip()] = value.strip()
        return None

    def run_cell_magic(self, name, line, cell):
        if name not in CELL_MAGICS:
            raise UsageError(f"Cell magic `%%{name}` not found.")
        if name in ("time", "capture"):
            if name == "capture" and line.split() and not line.split()[-1].startswith("-"):
                self._runner.ns[line.split()[-1]] = _Captured()
            return self._runner.run_source(cell, f"%%{name}")
        if name in ("writefile", "file"):
            args = line.split()
            append = "-a" in args or "--append" in args
            target = next((a for a in args if not a.startswith("-")), None)
            if target:
                with open(os.path.expanduser(target.strip("'\"")), "a" if append else "w", encoding="utf-8") as f:
                    f.write(cell)
        return None

    def system(self, cmd):
        return None

    def getoutput(self, cmd, split=True, depth=0):
        return _SList()

    def __getattr__(self, name):  # anything else a notebook may touch: a harmless no-op
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: None


def _normalize(cell, i):
    """A cell of the ``init`` request: ``{"label", "source", "checkpoint"}``, or the plain
    ``(index, source)`` pairs older callers (and tests) send."""
    if isinstance(cell, dict):
        return {"label": str(cell.get("label") or f"cell {i}"), "source": str(cell.get("source") or ""),
                "checkpoint": cell.get("checkpoint")}
    index, source = cell
    return {"label": f"cell {index}", "source": str(source), "checkpoint": None}


class Runner:
    """Runs ``cells`` in ``ns`` up to a checkpoint, and on from there (see module docstring).

    Args:
        cells: list of cells as sent by the grader (see ``_normalize``).
        ns: the notebook's namespace (``dict``); ``get_ipython`` is put in it.
        cell_timeout: seconds (wall clock) one cell may run.
        cell_cpu_timeout: CPU seconds one cell may use (0: no CPU limit).
        definitions_only: run only imports, ``def`` and ``class`` (the fallback when running
            everything killed the process).
    """

    def __init__(self, cells, ns, cell_timeout=10.0, definitions_only=False, cell_cpu_timeout=0.0,
                 recheck=0.0):
        self.cells = [_normalize(c, i) for i, c in enumerate(cells, start=1)]
        self.ns = ns
        self.cell_timeout = float(cell_timeout)
        self.cell_cpu_timeout = float(cell_cpu_timeout)
        self.recheck = float(recheck)  # CPU seconds granted inside a function that already hung
        self.definitions_only = definitions_only
        self.next = 0  # index of the next cell to run
        self.shell = Shell(self)
        ns["get_ipython"] = lambda: self.shell
        # A kernel imports from the notebook's folder; here that is the child's own working
        # folder, where %%writefile puts modules.
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        self._label = None

    def run_to(self, checkpoint=None, budget=None):
        """Run cells until the checkpoint ``checkpoint`` (``None``: to the end).

        A checkpoint already passed, or absent, runs nothing more, resp. everything left.
        Returns:
            list of error dicts ``{"cell", "type", "message", "where"}``; ``"cell"`` is the label.
        """
        errors = []
        t0 = time.monotonic()
        if checkpoint is not None and not any(c["checkpoint"] == checkpoint for c in self.cells[self.next:]):
            if any(c["checkpoint"] == checkpoint for c in self.cells[:self.next]):
                return errors  # already there (or past it)
        while self.next < len(self.cells):
            cell = self.cells[self.next]
            self.next += 1
            if cell["checkpoint"] is not None:
                if cell["checkpoint"] == checkpoint:
                    break
                continue
            if budget is not None and time.monotonic() - t0 > budget:
                errors.append({"cell": cell["label"], "type": "Timeout", "where": cell["label"],
                               "message": f"not run: running the notebook took more than {budget:g} s"})
                continue
            errors.extend(self.run_cell(cell))
        return errors

    def run_cell(self, cell):
        """Run one cell; returns its errors (at most one: a cell stops at its first error)."""
        label, source = cell["label"], cell["source"]
        if not source.strip():
            return []
        self._label = label
        self._filename = cell_file_name(source, label)
        alarm(self.cell_timeout, self.cell_cpu_timeout, self.recheck)
        try:
            self.run_source(source, label, top=True)
        except GraderTimeout as exc:
            hung = _student_function(exc.__traceback__)
            cut_in = timing.cut_in
            timing.note_hung(exc.__traceback__)
            if cut_in is not None:
                message = (f"cell did not finish within {self.recheck:g} s of CPU time ({cut_in}, "
                           "which it ran into, had already run out of time once)")
            else:
                limit = (f"{self.cell_cpu_timeout:g} s of CPU time" if timing.fired == "cpu"
                         else f"{self.cell_timeout:g} s")
                message = f"cell did not finish within {limit}"
            return [{"cell": label, "type": "Timeout", "where": label, "function": hung,
                     "message": message + (f" (stopped inside {hung})" if hung else "")}]
        except _CellError as err:
            return [dict(err.args[0], cell=label)]
        finally:
            alarm(0)
            _close_figures()
        return []

    def run_source(self, source, label, top=False, value=False):
        """Compile and run ``source`` statement by statement in the namespace.

        The file name is ``cell_file_name`` of the cell being run: a hash of its text, never its
        position (which markdown cells move, and which the digest does not cover); feedback
        maps it back to the label, so a traceback says ``cell 19 (attention_row), line 4``.
        At the top of a cell, an error ends the cell (``_CellError``); inside a magic it
        propagates like any exception of the code that called the magic.
        """
        filename = getattr(self, "_filename", None) or cell_file_name(source, label)
        try:
            tree = ast.parse(source, filename=filename)
        except SyntaxError as exc:
            if not top:
                raise
            raise _CellError({"type": "SyntaxError", "message": f"{exc.msg} (line {exc.lineno})",
                              "where": LABELS.get(filename, filename[1:-1])}) from None
        except (RecursionError, MemoryError, ValueError) as exc:
            if not top:
                raise
            raise _CellError({"type": type(exc).__name__, "where": filename[1:-1],
                              "message": "the cell is too deeply nested or too large to compile"}) from None
        body = tree.body
        if self.definitions_only:
            body = [n for n in body if isinstance(n, DEFINITIONS)]
        result = None
        for i, node in enumerate(body):
            last_expr = i == len(body) - 1 and isinstance(node, ast.Expr)
            try:
                if last_expr:
                    code = compile(ast.Expression(node.value), filename, "eval")
                    result = eval(code, self.ns)
                    if top and result is not None:
                        self.ns["_"] = result
                else:
                    exec(compile(ast.Module(body=[node], type_ignores=[]), filename, "exec"), self.ns)
            except GraderTimeout:
                raise
            except BaseException as exc:  # SystemExit, KeyboardInterrupt included, as in IPython
                if not top:
                    raise
                raise _CellError(error_of(exc)) from None
        return result if value else None


def cell_file_name(source, label):
    """The file name a cell's code is compiled under: ``<cell `` + 16 hex digits of the SHA-256
    of its source + ``>``. Student code can read it (``co_filename``, tracebacks), so it holds
    nothing but the cell's own text, which the seeds' digest covers (``submission/digest.py``);
    ``errors.LABELS`` maps it to the cell's label (``cell 19 (attention_row)``) for feedback."""
    name = "<cell " + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16] + ">"
    LABELS[name] = label
    return name


def _student_function(tb):
    """Name of the outermost notebook function running at ``tb``: the one the cell called
    (``None`` when the cell's own top-level code was running)."""
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename.startswith("<cell ") and code.co_name != "<module>":
            return code.co_name
        tb = tb.tb_next
    return None


class _CellError(Exception):
    """A cell stopped at an error; ``args[0]`` is its error dict."""


def _close_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        try:
            plt.close("all")
        except Exception:
            pass
