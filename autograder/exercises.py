"""The course's exercises: one entry per notebook, the single list everything else reads.

Each exercise is one nbgrader assignment holding one notebook. Its text form is
``exercises/<name>.py`` (the one source of truth, jupytext percent format); ``python -m
autograder.build`` generates ``source/<name>/<name>.ipynb``, ``solutions/<name>.py`` and
``assignments/<name>/<name>.ipynb`` from it. Its hidden checks are
``autograder/checks/check_<name>.py``.
"""
import os
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CHECKS_DIR = Path(__file__).resolve().parent / "checks"
# Where the grader reads the student release from, instead of assignments/ (see release_notebook).
RELEASE_DIR_VARIABLE = "AUTOGRADER_RELEASE_DIR"


@dataclass(frozen=True)
class Exercise:
    """One notebook of the course.

    Attributes:
        name: assignment id, notebook name and module name, e.g. "attention".
        title: what the student sees as the notebook's title.
        functions: the student-facing names the checks call (the contract).
        helpers: ``{function: (helper, ...)}``: student functions whose reference calls
            other student functions. When a wrong answer of ``function`` is what the
            reference gives with the student's helpers, the helper alone loses points
            ("one bug, charged once": ``plugin.explained_by_helpers``).
    """
    name: str
    title: str
    functions: tuple
    helpers: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def assignment(self):
        """The nbgrader assignment id (same as ``name``)."""
        return self.name

    @property
    def notebook(self):
        """The notebook file name, e.g. "attention.ipynb"."""
        return f"{self.name}.ipynb"

    @property
    def text_form(self):
        return PROJECT_ROOT / "exercises" / f"{self.name}.py"

    @property
    def source_notebook(self):
        return PROJECT_ROOT / "source" / self.name / self.notebook

    @property
    def release_notebook(self):
        """The student release, ``assignments/<name>/<name>.ipynb``, or under
        ``$AUTOGRADER_RELEASE_DIR`` when set (the test suite points it at a snapshot, so
        ``nbgrader generate_assignment`` rewriting assignments/ cannot race it)."""
        root = os.environ.get(RELEASE_DIR_VARIABLE)
        return (Path(root) if root else PROJECT_ROOT / "assignments") / self.name / self.notebook

    @property
    def solution_module(self):
        return PROJECT_ROOT / "solutions" / f"{self.name}.py"

    @property
    def checks_file(self):
        return CHECKS_DIR / f"check_{self.name}.py"


EXERCISES = {e.name: e for e in [
    Exercise("tokens", "Tokens: byte-pair encoding, and a production tokenizer",
             ("get_pair_counts", "merge_pair", "learn_bpe", "bpe_encode", "tiktoken_pieces"),
             helpers={"learn_bpe": ("get_pair_counts", "merge_pair"), "bpe_encode": ("merge_pair",)}),
    Exercise("embeddings", "Embeddings: meaning as a direction",
             ("cosine_similarity", "cosine_similarity_matrix", "semantic_search")),
    Exercise("attention", "One attention row, and the whole grid",
             ("softmax", "project_qkv", "attention_row", "causal_mask", "attention_matrix"),
             helpers={"attention_row": ("softmax",), "attention_matrix": ("softmax", "causal_mask")}),
    Exercise("next_token", "From the context vector to the next token, and one training step",
             ("forward", "cross_entropy", "grad_logits", "grad_unembedding", "sgd_update", "numerical_gradient"),
             helpers={"grad_unembedding": ("grad_logits",)}),
    Exercise("kv_cache", "Generating text: the KV cache",
             ("KVCache", "decode_step", "causal_self_attention", "kv_cache_size")),
    Exercise("learned_attention", "Attention that learns: position, training, and several heads",
             ("positional_encoding", "model_forward", "attention_backward", "train_step",
              "multi_head_attention")),
]}

ALL_FUNCTIONS = sorted({f for e in EXERCISES.values() for f in e.functions})


def find(name):
    """The ``Exercise`` called ``name``.

    Raises:
        KeyError: with the list of known exercises.
    """
    try:
        return EXERCISES[name]
    except KeyError:
        raise KeyError(f"unknown exercise {name!r}; known: {', '.join(EXERCISES)}") from None
