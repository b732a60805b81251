"""The canonical form the near-copy comparison reads (``reports/normalise.py``): what does nothing is
taken out, what does something stays, independent statements meet in one order, names and layout
do not count, and code that does not parse is compared as handed in."""
from autograder.reports.normalise import normalise

F = ["f"]


def _same(a: str, b: str, functions=F) -> bool:
    return normalise({functions[0]: a}, functions) == normalise({functions[0]: b}, functions)


BASE = "def f(x, n=2):\n    y = x * n\n    z = y + 1\n    return z\n"


def test_statements_without_effect_are_taken_out():
    padded = ('def f(x, n=2):\n    """Doc."""\n    _z3 = len(str(3)) and None\n    y = x * n\n    pass\n'
              "    'a note'\n    42\n    unused = abs(-7) + max(1, 2)\n    z = y + 1\n    w = z * 2\n"
              "    return z\n    print('never')\n")
    assert _same(BASE, padded)


def test_a_chain_of_unused_values_goes_to_the_end():
    # b is read only by c, c by nothing: both go (the second only once the first is gone)
    assert _same(BASE, "def f(x, n=2):\n    y = x * n\n    b = y * 3\n    c = b - 1\n    z = y + 1\n    return z\n")


def test_branches_on_constants_loops_that_never_turn_and_unreached_helpers():
    dead = ("def _helper(v):\n    return v * v\n\nclass _Unused:\n    size = 3\n\n"
            "def f(x, n=2):\n    if False:\n        x = 0\n    while 0:\n        break\n"
            "    if len('ab') > 5:\n        print('no')\n    else:\n        y = x * n\n"
            "    for _i in range(0):\n        _t = _i\n    try:\n        pass\n    except ValueError:\n"
            "        print('never')\n    if True:\n        z = y + 1\n    return z\n")
    assert _same(BASE, dead)


def test_what_has_an_effect_stays():
    for kept in ("    print(x)\n", "    x.append(1)\n", "    log = open('f.txt', 'w')\n", "    global SEEN\n    SEEN = x\n",
                 "    rng.shuffle(x)\n", "    np.random.seed(0)\n", "    helper(x)\n"):
        code = BASE.replace("    return z\n", kept + "    return z\n")
        assert not _same(BASE, code), kept
    # a helper a graded function calls stays
    assert not _same(BASE, "def g(v):\n    return v\n\n" + BASE.replace("return z", "return g(z)"))


def test_names_layout_and_quoting_do_not_count():
    other = "def f(value, times = 2):\n    prod = (value *\n            times)\n    out = prod + 1\n    return out\n"
    assert _same(BASE, other)
    assert _same("def f(x):\n    return x + 'a'\n", 'def f(y):\n    return y + "a"\n')


def test_independent_statements_meet_in_one_order_dependent_ones_keep_theirs():
    a = "def f(x, n=2):\n    p = x * 2\n    q = n - 1\n    return p + q\n"
    b = "def f(x, n=2):\n    q = n - 1\n    p = x * 2\n    return p + q\n"
    assert _same(a, b)
    # y is read by the second statement: they cannot swap, so the swapped code is other code
    c = "def f(x, n=2):\n    y = x * n\n    x = y + 1\n    return x\n"
    d = "def f(x, n=2):\n    x = y + 1\n    y = x * n\n    return x\n"
    assert not _same(c, d)
    # a call that may have any effect keeps its place
    e = "def f(x, n=2):\n    print(x)\n    q = n - 1\n    return q\n"
    g = "def f(x, n=2):\n    q = n - 1\n    print(x)\n    return q\n"
    h = "def f(x, n=2):\n    x.append(n)\n    q = len(x)\n    return q\n"
    i = "def f(x, n=2):\n    q = len(x)\n    x.append(n)\n    return q\n"
    assert not _same(e, g) and not _same(h, i)


def test_augmented_assignment_reads_as_the_plain_one():
    assert _same("def f(x):\n    t = x\n    t += 1\n    return t\n", "def f(x):\n    t = x\n    t = t + 1\n    return t\n")


def test_different_code_stays_different():
    assert not _same(BASE, BASE.replace("y + 1", "y - 1"))
    assert not _same(BASE, BASE.replace("return z", "return y"))


def test_code_that_does_not_parse_is_compared_as_handed_in_and_magics_are_left_out():
    broken = "def f(x):\n    return x +\n"
    both = normalise({"f": broken, "g": BASE.replace("def f", "def g")}, ["f", "g"])
    assert both.startswith(broken) and both.endswith("    return v3")  # each cell on its own, in order
    magic = "%matplotlib inline\n!pip list\n" + BASE
    assert _same(BASE, magic)
    assert normalise({"f": "def f(:\n" * 3}, F) == "def f(:\n" * 3


def test_deep_nesting_falls_back_instead_of_failing():
    deep = "def f(x):\n    return " + "-" * 20000 + "x\n"   # deeper than the parser or printer goes
    assert normalise({"f": deep}, F) == deep
    huge = "def f(x):\n    y = " + " + ".join(["x"] * 5000) + "\n    return y\n"
    assert normalise({"f": huge}, F)


def test_a_cell_defining_no_graded_function_keeps_its_functions():
    code = "def other(x):\n    return x * 2\n"
    assert "return v0 * 2" in normalise({"f": code}, F)


def test_a_tuple_assignment_reads_as_its_parts_and_self_assignments_go():
    split = "def f(x, n=2):\n    y, k = x * n, 1\n    z = y + k\n    return z\n"
    plain = "def f(x, n=2):\n    k = 1\n    y = x * n\n    z = y + k\n    return z\n"
    assert _same(split, plain)
    noise = "def f(x, n=2):\n    y = x * n\n    y = y\n    _t = 3\n    del _t\n    assert True\n    z = y + 1\n    return z\n"
    assert _same(BASE, noise)
    swap = "def f(x, n=2):\n    x, n = n, x\n    return x - n\n"   # reads what it assigns: not split
    assert not _same(swap, "def f(x, n=2):\n    x = n\n    n = x\n    return x - n\n")


def test_annotations_and_else_after_return_do_not_count():
    typed = "def f(x: float, n: int = 2) -> float:\n    y: float = x * n\n    z = y + 1\n    return z\n"
    assert _same(BASE, typed)
    a = "def f(x):\n    if x > 0:\n        return x\n    else:\n        y = -x\n        return y\n"
    b = "def f(x):\n    if x > 0:\n        return x\n    y = -x\n    return y\n"
    assert _same(a, b)
