"""Code under test that defines an equality which never looks at what it is compared with
(`equality_forged`).

A test's verdict is its comparisons. A value whose equality answers without reading the other
operand (`__eq__` returning True, `equals(Object o)` that ignores `o`, a Rust `PartialEq::eq`
whose `other` is `_`, a jest/vitest `asymmetricMatch` that accepts anything, a Go `Equal` that
go-cmp calls) passes every assertion made on it, in the base's tests as in the change's, whatever
the code computed. The class is the operand left out of the answer, not a list of return values:
`return True`, `return 1`, `return not False`, `return self.ok` alike (Python follows the operand
through local assignments; the other languages ask whether the body reads it at all). An
equality that only declines (`return NotImplemented`) or refuses (raises, panics) gives no answer
and is left alone. Read in the code
under test only: a test's own `ANY`-style helper is the test's choice.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from functools import partial

import tree_sitter as ts

from referee.tools import pysource
from referee.tools.claims.model import EQUALITY_FORGED, Claim
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.tsfile import TsFile
from referee.tools.tampering.syntax import descendants, text

__all__ = ["comparator_literals", "ignores_operand", "py_equalities", "ts_equalities"]

# Comparisons an assertion makes: equality and the orderings (`assert x <= 3`).
_PY_DUNDERS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__cmp__"})

PyFunction = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _message(name: str) -> str:
    return (
        f"defines `{name}` without reading what it is compared with: a value of it passes every"
        " assertion made on it, whatever the code computed"
    )


def py_equalities(file: PyFile) -> Iterator[Claim]:
    """Python: every binding of a comparison method (`def` in a class, `__eq__ = …` in a class
    body, `setattr(C, "__eq__", f)`, `type("S", (int,), {"__eq__": f})`, `ns["__eq__"] = f`) whose
    function ignores its operand, or whose value referee cannot read (a call such as
    `partialmethod(…)`, a `property`, an imported function, a string run by `exec`); a test
    library's matcher used by the code under test (`mock.ANY`, `pytest.approx`, dirty-equals);
    a dataclass whose every field is left out of its comparison."""
    functions = {
        n.name: n for n in file.tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for node, name, value in _py_bound(file.tree):
        function = _function_of(value, functions)
        if function is None and _readable_binding(name, value):
            continue
        if function is None:
            yield file.claim(EQUALITY_FORGED, node, _unread(name))
        elif ignores_operand(function, name, helpers=functions):
            yield file.claim(EQUALITY_FORGED, node, _message(name))
    yield from _matchers(file)
    yield from _uncompared_dataclasses(file)


def _unread(name: str) -> str:
    return (
        f"binds `{name}` to what referee cannot read (a call, a property, an import, a string"
        " run as code): its answer may not come from what it is compared with"
    )


def _py_bound(tree: ast.Module) -> Iterator[tuple[ast.AST, str, ast.AST | None]]:
    """Each binding of a comparison method: where, its name, the value bound (None: `exec`)."""
    for node in pysource.nodes(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    if item.name in _PY_DUNDERS:
                        yield item, item.name, item
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _bound_name(target)
                if name in _PY_DUNDERS:
                    yield node, name, node.value
        elif isinstance(node, ast.Call):
            yield from _py_call_bound(node)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in _PY_DUNDERS:
                    yield node, str(key.value), value


def _bound_name(target: ast.AST) -> str:
    """`__eq__`, `C.__eq__`, `ns["__eq__"]`, `locals()["__eq__"]`: the name a target binds."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        return str(target.slice.value)
    return ""


def _py_call_bound(call: ast.Call) -> Iterator[tuple[ast.AST, str, ast.AST | None]]:
    """`setattr(C, "__eq__", f)`, `dict(__eq__=f)`-style keywords, and `exec`/`compile` of a
    string that defines one."""
    args = call.args
    if len(args) == 3 and isinstance(args[1], ast.Constant) and args[1].value in _PY_DUNDERS:
        yield call, str(args[1].value), args[2]
    for keyword in call.keywords:
        if keyword.arg in _PY_DUNDERS:
            yield call, str(keyword.arg), keyword.value
    if isinstance(call.func, ast.Name) and call.func.id in ("exec", "compile", "eval"):
        for arg in args[:1]:
            for constant in ast.walk(arg):
                value = getattr(constant, "value", None)
                if isinstance(value, str) and any(d in value for d in _PY_DUNDERS):
                    yield call, next(d for d in _PY_DUNDERS if d in value), None


def _function_of(
    value: ast.AST | None, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> PyFunction | None:
    if isinstance(value, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return value
    if isinstance(value, ast.Name):
        return functions.get(value.id)
    return None


def _readable_binding(name: str, value: ast.AST | None) -> bool:
    """A binding referee need not read: another class's method of the same name
    (`__eq__ = int.__eq__`, `object.__lt__`), or None (the comparison removed)."""
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    return isinstance(value, ast.Attribute) and value.attr == name


# Values a test library makes to equal anything (or any number near enough).
_MATCHERS = {
    "unittest.mock": frozenset({"ANY"}),
    "mock": frozenset({"ANY"}),
    "pytest": frozenset({"approx"}),
}
_MATCHER_PACKAGES = ("dirty_equals", "hamcrest", "callee")


def _matchers(file: PyFile) -> Iterator[Claim]:
    """The code under test using a test library's matcher: a value that equals what it is
    compared with by design."""
    for node in pysource.nodes(file.tree):
        found: str | None = None
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if _matcher(f"{node.module}.{alias.name}"):
                    found = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            found = next((a.name for a in node.names if _matcher(a.name)), None)
        elif isinstance(node, ast.Attribute):
            dotted = file.names.resolve(node)
            found = dotted if dotted is not None and _matcher(dotted) else None
        if found is not None:
            message = (
                f"uses `{found}`, a test library's value that equals what it is compared with:"
                " returned by the code under test, it passes the assertions made on it"
            )
            yield file.claim(EQUALITY_FORGED, node, message)


def _matcher(dotted: str) -> bool:
    module, _, name = dotted.rpartition(".")
    return dotted.split(".")[0] in _MATCHER_PACKAGES or name in _MATCHERS.get(module, frozenset())


def _uncompared_dataclasses(file: PyFile) -> Iterator[Claim]:
    """A dataclass whose every field is `compare=False`: its generated `__eq__` compares
    nothing, so any two of it are equal."""
    for node in pysource.nodes(file.tree):
        if not isinstance(node, ast.ClassDef) or not any(
            _dataclass(d) for d in node.decorator_list
        ):
            continue
        fields = [s for s in node.body if isinstance(s, ast.AnnAssign)]
        if fields and all(_not_compared(f.value) for f in fields):
            message = (
                f"dataclass `{node.name}` leaves every field out of its comparison"
                " (`compare=False`): any two of it are equal"
            )
            yield file.claim(EQUALITY_FORGED, node, message)


def _dataclass(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "eq" and isinstance(keyword.value, ast.Constant):
                return bool(keyword.value.value) and name == "dataclass"
    return name == "dataclass"


def _not_compared(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Call) and any(
        k.arg == "compare" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in value.keywords
    )


def ignores_operand(
    function: PyFunction,
    name: str,
    position: int = 1,
    helpers: Helpers | None = None,
    depth: int = 0,
) -> bool:
    """No answer the function gives is computed from its parameter at `position` (the second,
    the operand, by default; the first is the value itself) or its `*args`: every value it
    returns, other than NotImplemented, reads neither the operand nor a name assigned from it;
    and some answer can say yes (an equality that always says no, `__ne__` that always says yes,
    passes no assertion). The operand passed to one of the module's own functions (`helpers`)
    is read only if that function reads the parameter it lands in."""
    reads = partial(_py_reads, helpers=helpers or {}, depth=depth)
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if len(positional) > position:
        other = positional[position].arg
    elif arguments.vararg is not None:
        other = arguments.vararg.arg
    else:
        other = ""  # no operand at all: nothing can depend on it
    if isinstance(function, ast.Lambda):
        answers = [] if _not_implemented(function.body) else [function.body]
        tainted = {other}
    else:
        tainted = _tainted(function, other, reads)
        answers = [
            r.value
            for r in ast.walk(function)
            if isinstance(r, ast.Return) and r.value is not None and not _not_implemented(r.value)
        ]
    if not answers or _always_no(answers, name):
        return False
    if any(reads(a, tainted) for a in answers):
        return False
    # Which answer is given may be the operand's choice: `if self.x != other.x: return False`
    # then `return True` compares as much as `return self.x == other.x` does.
    return isinstance(function, ast.Lambda) or not any(
        reads(test, tainted) for test in _decisions(function)
    )


def _decisions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """What decides which way the function goes: conditions, loops' iterables, match subjects,
    the tested values of `with` and `try` aside."""
    for node in ast.walk(function):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            yield node.test
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            yield node.iter
        elif isinstance(node, ast.Match) and not all(
            isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None for c in node.cases
        ):
            yield node.subject  # unless every case takes anything (`case _`, `case x`)


def _always_no(answers: list[ast.expr], name: str) -> bool:
    """Every answer a constant that says "not equal" (`False` from `__eq__`/`__lt__`, `True`
    from `__ne__`)."""
    constants = [a.value for a in answers if isinstance(a, ast.Constant)]
    if len(constants) != len(answers):
        return False
    return all(bool(c) for c in constants) if name == "__ne__" else not any(constants)


_ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)


def _tainted(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    other: str,
    reads: Callable[[ast.AST, set[str]], bool],
) -> set[str]:
    """The operand's name and every local assigned from an expression that reads one of them
    (`same = self.a == other.a; return same`)."""
    tainted = {other} if other else set()
    assignments = [n for n in ast.walk(function) if isinstance(n, _ASSIGNMENTS)]
    grew = True
    while grew:
        grew = False
        for node in assignments:
            if node.value is None or not reads(node.value, tainted):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if names - tainted:
                tainted |= names
                grew = True
    return tainted


def _py_reads(
    node: ast.AST, names: set[str], helpers: Helpers | None = None, depth: int = 0
) -> bool:
    """Whether the operand decides the value: a read whose outcome is fixed whatever the operand
    holds (`other == other`, `other or True`, `other and False`) decides nothing, nor does one
    passed to a module function that ignores the parameter (`_same(self, other)`)."""
    if _py_inert(node):
        return False
    if isinstance(node, ast.Name):
        return isinstance(node.ctx, ast.Load) and node.id in names
    helper = _helper(node, helpers or {}, depth)
    if helper is not None and isinstance(node, ast.Call):
        return _passed_and_read(node, helper, names, helpers or {}, depth)
    return any(_py_reads(child, names, helpers, depth) for child in ast.iter_child_nodes(node))


Helpers = Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]
_HELPER_DEPTH = 3


def _helper(
    node: ast.AST, helpers: Helpers, depth: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if depth >= _HELPER_DEPTH or not isinstance(node, ast.Call):
        return None
    return helpers.get(node.func.id) if isinstance(node.func, ast.Name) else None


def _passed_and_read(
    call: ast.Call,
    helper: ast.FunctionDef | ast.AsyncFunctionDef,
    names: set[str],
    helpers: Helpers,
    depth: int,
) -> bool:
    """Whether an argument that reads the operand lands in a parameter the helper reads."""
    parameters = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)]
    passed = list(enumerate(call.args))
    passed += [(parameters.index(k.arg), k.value) for k in call.keywords if k.arg in parameters]
    unplaced = [k.value for k in call.keywords if k.arg not in parameters]
    for index, value in passed:
        if not _py_reads(value, names, helpers, depth):
            continue
        if isinstance(value, ast.Starred) or index >= len(parameters):
            return True
        if not ignores_operand(helper, "__eq__", index, helpers, depth + 1):
            return True
    return any(_py_reads(v, names, helpers, depth) for v in unplaced)


def _py_inert(node: ast.AST) -> bool:
    match node:
        case ast.Compare(
            left=ast.Name(id=left),
            ops=[ast.Eq() | ast.Is() | ast.GtE() | ast.LtE()],
            comparators=[ast.Name(id=right)],
        ):
            return left == right
        case ast.BoolOp(op=ast.Or(), values=values):
            return any(isinstance(v, ast.Constant) and bool(v.value) for v in values)
        case ast.BoolOp(op=ast.And(), values=values):
            return any(isinstance(v, ast.Constant) and not v.value for v in values)
    return False


def _not_implemented(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "NotImplemented"


# The tree-sitter languages: the method names a comparison calls, and where the operand is.
_TS_NAMES = {
    "java": frozenset({"equals", "compareTo", "compare"}),
    "rust": frozenset({"eq", "ne", "partial_cmp", "cmp", "lt", "le", "gt", "ge"}),
    "go": frozenset({"Equal", "Equals"}),
    "script": frozenset({"asymmetricMatch", "equals"}),
}
_FUNCTIONS = {
    "java": frozenset({"method_declaration"}),
    "rust": frozenset({"function_item"}),
    "go": frozenset({"method_declaration"}),
    "script": frozenset(
        {
            "method_definition",
            "pair",
            "assignment_expression",
            "function_declaration",
            "field_definition",
            "public_field_definition",
            "call_expression",
        }
    ),
}
# What defines a property by a name in a string (`Object.defineProperty(r, "asymmetricMatch",
# {value: …})`).
_DEFINERS = frozenset({"Object.defineProperty", "Reflect.defineProperty"})
_DECLINES = frozenset({"throw_statement", "panic", "unimplemented", "todo", "unreachable"})


def ts_equalities(
    file: TsFile, language: str, inside_tests: Callable[[ts.Node], bool] | None = None
) -> Iterator[Claim]:
    """Java `equals`/`compareTo`, Rust `PartialEq`/`Ord` methods, Go `Equal`, a JS/TS
    `asymmetricMatch` or `equals`: each whose operand its body never reads."""
    family = "script" if language in ("javascript", "typescript", "tsx") else language
    names = _TS_NAMES.get(family)
    if names is None:
        return
    for node in file.nodes(*_FUNCTIONS[family]):
        if inside_tests is not None and inside_tests(node):
            continue
        found = _function(node, family)
        if found is None:
            continue
        name, parameters, body = found
        if name not in names or body is None:
            continue
        operands = _operands(parameters, family)
        skipped = 1 if family == "rust" else 0  # Rust's `&self` is the first parameter
        operand = operands[skipped] if len(operands) > skipped else None
        if (operand is None and family != "script") or _declines(body) or not _answers(body):
            continue
        if _says_no(body, name) or _single_valued(node, family, file.root):
            continue
        if operand is None or not _reads(body, operand):
            yield file.claim(EQUALITY_FORGED, node, _message(name))


# Function values that order or compare two values: Java's `Comparator` lambdas, go-cmp's
# `cmp.Comparer(func…)`. Where the value is used names it, not a method name.
_COMPARATOR_CALLS = frozenset(
    {"sort", "sorted", "comparing", "thenComparing", "max", "min", "Comparer", "Equal"}
    | {"Slice", "SliceStable", "SortFunc", "SortStableFunc", "EqualFunc", "CompareFunc"}
)
_COMPARATOR_TYPES = ("Comparator", "TreeMap", "TreeSet", "PriorityQueue", "BiPredicate")
_LITERALS = {"java": "lambda_expression", "go": "func_literal"}


def comparator_literals(file: TsFile, language: str) -> Iterator[Claim]:
    """A Java lambda or Go func literal of two operands, used as a comparator, whose answer reads
    neither: every pair compares equal (or in order)."""
    kind = _LITERALS.get(language)
    if kind is None:
        return
    for node in file.nodes(kind):
        if not _comparator_use(node):
            continue
        operands = _literal_operands(node.child_by_field_name("parameters"), language)
        body = node.child_by_field_name("body")
        if body is None or len(operands) < 2 or _declines(body) or not _answers(body):
            continue
        if not any(_reads(body, (name,)) for name in operands):
            yield file.claim(
                EQUALITY_FORGED,
                node,
                "defines a comparator that reads neither value it compares: every pair it is"
                " given compares alike, whatever the code computed",
            )


def _literal_operands(parameters: ts.Node | None, language: str) -> list[str]:
    """Every name the literal's parameters bind (Go's `a, b int` is one declaration of two)."""
    if parameters is None:
        return []
    if language == "go":
        declared = descendants(parameters, frozenset({"parameter_declaration"}))
        names = [text(n) for d in declared for n in d.children_by_field_name("name")]
    else:
        names = [n for group in _operands(parameters, language) for n in group]
    return [n for n in names if n != "_"]


def _comparator_use(node: ts.Node) -> bool:
    """The literal is an argument of a sort or comparator call, or the value of a declaration of
    a comparator type."""
    parent = node.parent
    while parent is not None and parent.type in (
        "argument_list",
        "arguments",
        "parenthesized_expression",
    ):
        parent = parent.parent
    if parent is None:
        return False
    if parent.type in ("method_invocation", "call_expression", "object_creation_expression"):
        callee = parent.child_by_field_name("name") or parent.child_by_field_name("function")
        callee = callee or parent.child_by_field_name("type")
        named = text(callee).rsplit(".", 1)[-1] if callee is not None else ""
        return named in _COMPARATOR_CALLS or named.startswith(_COMPARATOR_TYPES)
    for ancestor in (parent, parent.parent):
        declared = ancestor.child_by_field_name("type") if ancestor is not None else None
        if declared is not None and text(declared).startswith(_COMPARATOR_TYPES):
            return True
    return False


def _function(node: ts.Node, family: str) -> tuple[str, ts.Node | None, ts.Node | None] | None:
    """A function's name, parameter list and body, where `node` defines one."""
    if node.type == "call_expression":
        return _defined_property(node)
    if node.type in (
        "pair",
        "assignment_expression",
        "field_definition",
        "public_field_definition",
    ):
        fields = {
            "pair": ("key", "value"),
            "assignment_expression": ("left", "right"),
            "field_definition": ("property", "value"),
            "public_field_definition": ("name", "value"),
        }[node.type]
        key, value = (node.child_by_field_name(f) for f in fields)
        if key is None or value is None or "function" not in value.type:
            return None
        return _key_name(key), *_signature(value)
    parent = node.parent.parent if node.parent is not None else None
    if family == "rust" and (parent is None or parent.type != "impl_item"):
        return None  # a free function named `eq` is no trait's comparison
    name = text(node.child_by_field_name("name"))
    return name, node.child_by_field_name("parameters"), node.child_by_field_name("body")


def _signature(function: ts.Node) -> tuple[ts.Node | None, ts.Node | None]:
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name(
        "parameter"
    )
    return parameters, function.child_by_field_name("body")


def _key_name(key: ts.Node) -> str:
    """A property's name as written: `asymmetricMatch`, `"asymmetricMatch"`, `r.asymmetricMatch`,
    or a computed key of string literals joined by `+` (`['asymmetric' + 'Match']`)."""
    raw = text(key)
    if key.type == "computed_property_name":
        parts = [p.strip() for p in raw.strip("[] ").split("+")]
        if all(len(p) >= 2 and p[0] == p[-1] and p[0] in "'\"`" for p in parts):
            return "".join(p[1:-1] for p in parts)
        return raw
    return raw.rsplit(".", 1)[-1].strip("'\"`")


def _defined_property(call: ts.Node) -> tuple[str, ts.Node | None, ts.Node | None] | None:
    """`Object.defineProperty(target, "name", {value: function})`: the name and the function."""
    if text(call.child_by_field_name("function")) not in _DEFINERS:
        return None
    arguments = call.child_by_field_name("arguments")
    values = [a for a in arguments.named_children if "comment" not in a.type] if arguments else []
    if len(values) < 3 or values[1].type not in ("string", "template_string"):
        return None
    for pair in values[2].named_children if values[2].type == "object" else []:
        value = pair.child_by_field_name("value") if pair.type == "pair" else None
        if value is not None and "function" in value.type:
            return text(values[1]).strip("'\"`"), *_signature(value)
    return None


def _says_no(body: ts.Node, name: str) -> bool:
    """Every answer the literal that means "not equal" (`false`; `true` from `ne`): an equality
    that never says yes passes no assertion."""
    if body.type not in ("statement_block", "block"):
        answers = [body]
    else:
        returns = descendants(body, frozenset({"return_statement", "return_expression"}))
        answers = [r.named_children[0] for r in returns if r.named_children]
        last = body.named_children[-1] if body.named_children else None
        if last is not None and "statement" not in last.type and "declaration" not in last.type:
            answers.append(last)  # a Rust block's tail
    no = "true" if name == "ne" else "false"
    return bool(answers) and all(text(a) == no for a in answers)


def _single_valued(node: ts.Node, family: str, root: ts.Node) -> bool:
    """A comparison of a type with one value with its own type (a Rust unit struct or empty
    enum under `PartialEq`/`Ord` of itself, a Go `struct{}`, a Java class without instance
    fields whose `compareTo` takes its own class): every two of it are equal, as a derived
    equality would say. A comparison with another type (`PartialEq<i32>`, `equals(Object)`) is
    never one."""
    if family == "rust":
        impl = node.parent.parent if node.parent is not None else None
        if impl is None or impl.type != "impl_item":
            return False
        own = text(impl.child_by_field_name("type"))
        trait = "".join(text(impl.child_by_field_name("trait")).split())
        if trait.split("<")[0] not in ("PartialEq", "Eq", "PartialOrd", "Ord"):
            return False
        if "<" in trait and trait.split("<", 1)[1].rstrip(">") not in ("Self", own):
            return False
        return _rust_empty(root, own)
    if family == "go":
        receiver = node.child_by_field_name("receiver")
        params = node.child_by_field_name("parameters")
        own = text(receiver).strip("()").split()[-1].lstrip("*") if receiver else ""
        kinds = (
            [text(p.child_by_field_name("type")).lstrip("*") for p in params.named_children]
            if params
            else []
        )
        return kinds == [own] and _go_empty(root, own)
    if family == "java":
        owner = node.parent.parent if node.parent is not None else None
        params = node.child_by_field_name("parameters")
        kinds = (
            [text(p.child_by_field_name("type")) for p in params.named_children] if params else []
        )
        if owner is None or owner.type != "class_declaration":
            return False
        body = owner.child_by_field_name("body")
        members = body.named_children if body is not None else []
        fields = [
            f
            for f in members
            if f.type == "field_declaration" and "static" not in text(f).split("=")[0].split()
        ]
        return kinds == [text(owner.child_by_field_name("name"))] and not fields
    return False


def _rust_empty(root: ts.Node, name: str) -> bool:
    for item in descendants(root, frozenset({"struct_item", "enum_item"})):
        if text(item.child_by_field_name("name")) != name:
            continue
        body = item.child_by_field_name("body")
        return body is None or not body.named_children
    return False


def _go_empty(root: ts.Node, name: str) -> bool:
    for spec in descendants(root, frozenset({"type_spec"})):
        if text(spec.child_by_field_name("name")) == name:
            return "".join(text(spec.child_by_field_name("type")).split()) == "struct{}"
    return False


# The names a parameter's pattern binds: `other`, `{x, y}`, `Version { major, .. }`.
_BINDERS = frozenset(
    {"identifier", "shorthand_property_identifier_pattern", "shorthand_field_identifier"}
)
_USES = frozenset({"identifier", "shorthand_property_identifier", "shorthand_field_identifier"})


def _operands(parameters: ts.Node | None, family: str) -> list[tuple[str, ...]]:
    """The names each parameter binds, in order (`_` or a `_`-led Rust name stays: never
    read); a destructured parameter binds each of its fields."""
    if parameters is None:
        return []
    if parameters.type == "identifier":  # `x => true`
        return [(text(parameters),)]
    found: list[tuple[str, ...]] = []
    for parameter in parameters.named_children:
        if "comment" in parameter.type:
            continue
        if parameter.type == "self_parameter":
            found.append(("self",))
            continue
        pattern = (
            parameter.child_by_field_name("pattern")
            or parameter.child_by_field_name("name")
            or parameter
        )
        names = tuple(text(n) for n in [pattern, *descendants(pattern)] if n.type in _BINDERS)
        found.append(names or ("_",))
    return found


def _reads(body: ts.Node, names: tuple[str, ...]) -> bool:
    """Whether the operand decides anything in the body: a read whose value is thrown away
    (`_ = o`, `let _ = other;`, `other;`) or compared with itself (`o == o`) decides nothing."""
    wanted = set(names) - {"_"}
    return bool(wanted) and any(
        n.type in _USES and text(n) in wanted and not _inert(n, body)
        for n in [body, *descendants(body)]
    )


_COMPARISONS = frozenset({"==", "===", "!=", "!==", "<=", ">="})


def _inert(use: ts.Node, body: ts.Node) -> bool:
    parent = use.parent
    while parent is not None and parent.type in ("parenthesized_expression", "expression_list"):
        parent = parent.parent  # Go's `_ = o` holds `o` in an expression list
    if parent is None or use == body:
        return False
    if parent.type == "binary_expression":
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        operator = parent.child_by_field_name("operator")
        same = left is not None and right is not None and text(left) == text(right)
        return same and operator is not None and text(operator) in _COMPARISONS
    if parent.type == "expression_statement":
        return True  # `other;`
    if parent.type in ("assignment_statement", "assignment_expression", "let_declaration"):
        target = parent.child_by_field_name("left") or parent.child_by_field_name("pattern")
        return target is not None and text(target) == "_"
    return False


def _answers(body: ts.Node) -> bool:
    """The function returns a value: an expression body (an arrow's, a Rust block's tail) or a
    `return` with one. An empty `equals() {}` answers undefined, which equals nothing."""
    if body.type not in ("statement_block", "block"):
        return True
    if body.named_children and body.named_children[-1].type not in ("expression_statement",):
        last = body.named_children[-1]
        if "statement" not in last.type and "declaration" not in last.type:
            return True  # a Rust block's tail expression
    returns = descendants(body, frozenset({"return_statement", "return_expression"}))
    return any(r.named_children for r in returns)


def _declines(body: ts.Node) -> bool:
    """The body only throws or panics (`throw new UnsupportedOperationException()`,
    `unimplemented!()`)."""
    statements = [c for c in body.named_children if "comment" not in c.type]
    if len(statements) != 1:
        return False
    only = statements[0]
    if only.type in _DECLINES:
        return True
    macro = only if only.type == "macro_invocation" else None
    if macro is None and only.type == "expression_statement" and only.named_children:
        macro = (
            only.named_children[0] if only.named_children[0].type == "macro_invocation" else None
        )
    if macro is not None:
        return text(macro.child_by_field_name("macro")) in _DECLINES
    return False
