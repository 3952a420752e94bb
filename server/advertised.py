"""What `tools/list` advertises: each tool's schemas, derived from its models and compacted.

An MCP client puts every tool definition into the model's context on every turn, so the
advertised schemas say each thing once. The models stay the one definition: these are views of
their JSON Schemas, never hand-written. What changes on the way:

- titles go (they restate property names); so do the descriptions of output schemas (the prose
  is in the tool's description and in the `schema://` resources) and their
  `additionalProperties: false` (a promise the server makes about its own output);
- the contract's nested shapes (the check union, the browser steps, `serve`) are advertised as
  loosely typed objects, with their discriminator and a pointer to `schema://contract`; the core
  still validates them fully and reports every problem with a JSON pointer;
- in an output, a document with a schema resource of its own (a contract, the draft scorecard,
  the strategic assessment) is an object naming that resource, and a code enum a string naming
  its codes:// table;
- in an input, an optional field whose default is null is advertised without null (leaving it
  out says the same);
- spellings that say the same thing shorter: no null or empty defaults, `type: [X, "null"]` for
  nullable values, no `type: string` beside a string enum.

Otherwise output schemas stay exact (every field, type, enum and required list), so a client that
validates structured content against them still can.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any, get_args

from referee.tools.models import BrowserStep, Check

__all__ = ["advertised_input", "advertised_output", "size"]

Schema = dict[str, Any]

# The contract's nested unions, advertised by reference: (union, its description).
_LOOSE: dict[str, tuple[Any, str]] = {
    "Check": (
        Check,
        "How referee verifies the criterion; each kind's fields: schema://contract"
        " ($defs TestsCheck, CommandCheck, BrowserCheck, StaticCheck)",
    ),
    "BrowserStep": (
        BrowserStep,
        "A Playwright step (goto, click, fill, …); each action's fields: schema://contract",
    ),
}
# Unions whose tags are not listed: the browser's actions grow with Playwright's vocabulary, and
# every tag would be paid for on every turn of every client.
_UNLISTED = {"BrowserStep"}


def _members(union: Any) -> tuple[type[Any], ...]:
    """The member models of a discriminated union (`Annotated[A | B, Field(discriminator=…)]`)."""
    return get_args(get_args(union)[0])


def _discriminator(union: Any) -> str:
    return str(get_args(union)[1].discriminator)


def _loose_def(union: Any, description: str, listed: bool = True) -> Schema:
    """A discriminated union as one object type: only its discriminator is spelled out (with
    its values, when ``listed``)."""
    key = _discriminator(union)
    values = [v for m in _members(union) for v in get_args(m.model_fields[key].annotation)]
    return {
        "type": "object",
        "required": [key],
        "properties": {key: {"enum": values} if listed else {"type": "string"}},
        "description": description,
    }


# Documents with a schema resource of their own: in an output, they are named, not inlined.
# So are the results' rarer parts (the perturbed copy at depth deep, project health, baseline
# findings, gaming indicators, dimension changes): exact in their schema resource, named here.
_DOCUMENTS = {
    "Contract": "a contract: schema://contract",
    "DraftScorecard": "a canonical scorecard pre-filled by referee: schema://draft-scorecard",
    "StrategicAssessment": "the strategic assessment: schema://strategic-assessment",
    "AddHoldoutFilesResult": "the stored files and warnings: schema://add-holdout-files-result",
    "Perturbation": "schema://evaluation ($defs Perturbation)",
    "ProjectHealth": "schema://evaluation ($defs ProjectHealth)",
    "BaselineFindings": "schema://evaluation ($defs BaselineFindings)",
    "TestAdequacy": "diff coverage, mutants, repeats: schema://evaluation ($defs TestAdequacy)",
    "GamingIndicator": "schema://aggregate ($defs GamingIndicator)",
    "DimensionChange": "schema://aggregate ($defs DimensionChange)",
    "Budget": "cost per iteration, total, solo baseline: schema://aggregate ($defs Budget)",
    "JudgeReliability": "canary recall, stability, humans: schema://judge-reliability",
}
# Code enums, in an output: a string naming its family's table (the codes:// resource lists
# every code with its meaning and fix, which an enum of bare names never said).
_CODES = {"ReasonCode": "codes://reason"}
# The contract's other nested shapes, in an input: named, their fields checked by the core.
_INPUT_SHAPES = {
    "Serve": "its fields: schema://contract ($defs Serve)",
    "Usage": "tokens, cost_usd, seconds: schema://aggregate-input ($defs Usage)",
}


@cache
def _groups() -> dict[frozenset[str], str]:
    return {
        frozenset(m.__name__ for m in _members(union)): name for name, (union, _) in _LOOSE.items()
    }


@cache
def _group_defs() -> dict[str, Schema]:
    return {
        name: _loose_def(union, text, name not in _UNLISTED)
        for name, (union, text) in _LOOSE.items()
    }


def advertised_input(schema: Schema) -> Schema:
    """A tool's input schema as advertised: loose contract shapes, no titles, no null defaults."""
    return _compact(schema, keep_prose=True)


def advertised_output(schema: Schema) -> Schema:
    """A tool's output schema as advertised: exact types, no prose."""
    return _compact(schema, keep_prose=False)


def size(document: Any) -> int:
    """Bytes of a JSON document as it travels (compact separators, UTF-8)."""
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _compact(schema: Schema, keep_prose: bool) -> Schema:
    if not keep_prose and schema.get("title") in _DOCUMENTS:
        return {"type": "object", "description": _DOCUMENTS[schema["title"]]}
    groups = _groups()
    defs = dict(schema.get("$defs", {}))
    named = _INPUT_SHAPES if keep_prose else _DOCUMENTS
    body = {k: v for k, v in schema.items() if k != "$defs"}
    used: set[str] = set()

    def visit(node: Any) -> Any:
        if isinstance(node, list):
            return [visit(item) for item in node]
        if not isinstance(node, dict):
            return node
        group = _union_group(node, groups)
        if group is not None:
            used.add(group)
            return {"$ref": f"#/$defs/{group}"}
        name = str(node.get("$ref", "")).rpartition("/")[2]
        if name in named:
            return {"type": "object", "description": named[name]}
        if name in _CODES and not keep_prose:
            return {"type": "string", "description": _CODES[name]}
        if "discriminator" in node and not keep_prose:
            return _named_union(node, defs, named, visit)
        out = {
            k: ({n: visit(s) for n, s in v.items()} if k in _MAPPINGS else visit(v))
            for k, v in node.items()
            if k != "title"
        }
        if not keep_prose:
            out.pop("description", None)
            if out.get("additionalProperties") is False:
                del out["additionalProperties"]  # a promise the server makes to itself
        return _simplify(out, keep_prose)

    compacted: Schema = visit(body)
    new_defs = {name: visit(d) for name, d in defs.items()}
    new_defs.update({name: _group_defs()[name] for name in used})
    reachable = _reachable(compacted, new_defs)
    if reachable:
        compacted["$defs"] = {name: new_defs[name] for name in new_defs if name in reachable}
    if "oneOf" in compacted and "type" not in compacted:
        compacted["type"] = "object"  # a union of objects: MCP wants an object schema
    return compacted


def _named_union(
    node: Schema, defs: dict[str, Schema], named: dict[str, str], visit: Callable[[Any], Any]
) -> Schema:
    """A discriminated union in an output whose named members keep only their discriminator (so
    `oneOf` still tells the members apart); `discriminator` itself is OpenAPI, not JSON Schema."""
    key = str(node["discriminator"]["propertyName"])
    members = []
    for option in node["oneOf"]:
        name = str(option.get("$ref", "")).rpartition("/")[2]
        if name in named:
            value = defs[name]["properties"][key]
            members.append(
                {
                    "type": "object",
                    "required": [key],
                    "properties": {
                        key: _simplify({k: v for k, v in value.items() if k != "title"}, False)
                    },
                    "description": named[name],
                }
            )
        else:
            members.append(visit(option))
    return {"oneOf": members}


def _union_group(node: Schema, groups: dict[frozenset[str], str]) -> str | None:
    options = node.get("oneOf") or node.get("anyOf")
    if not isinstance(options, list) or "discriminator" not in node:
        return None
    names = frozenset(str(o.get("$ref", "")).rpartition("/")[2] for o in options)
    return groups.get(names)


def _simplify(node: Schema, keep_prose: bool) -> Schema:
    default = node.get("default", 0)
    optional = "default" in node and default is None
    if default is None or default == [] or default == {} or (not keep_prose and "default" in node):
        del node["default"]  # omitted is the same as null or empty
    if node.get("additionalProperties") is True:
        del node["additionalProperties"]  # JSON Schema's own default
    if node.get("type") == "string" and _all_strings(node.get("enum", [node.get("const")])):
        del node["type"]  # an enum (or const) of strings says the type already
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = options[1 - options.index({"type": "null"})]
        if isinstance(other.get("type"), str) and not set(other) & _NOT_MERGED:
            # The other keywords of `other` apply to its type only, so null joins the type list.
            del node["anyOf"]
            node.update({k: v for k, v in other.items() if k not in node})
            node["type"] = [other["type"], "null"]
        elif set(other) == {"enum"}:
            del node["anyOf"]
            node["enum"] = [*other["enum"], None]
    if keep_prose and optional:
        _not_null(node)
    return node


def _not_null(node: Schema) -> None:
    """An optional input whose default is null is advertised without null: leaving it out says
    the same, and a client never needs to send null (the core still accepts one)."""
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [t for t in kind if t != "null"]
        node["type"] = rest[0] if len(rest) == 1 else rest
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        node["enum"] = [v for v in node["enum"] if v is not None]
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        if len(rest) == 1:
            del node["anyOf"]
            node.update({k: v for k, v in rest[0].items() if k not in node})
        else:
            node["anyOf"] = rest


_NOT_MERGED = frozenset({"$ref", "anyOf", "oneOf", "allOf", "enum", "const", "not"})
# Keywords whose value maps names to schemas: the names are not schema keywords.
_MAPPINGS = frozenset({"properties", "patternProperties", "$defs"})


def _all_strings(values: Any) -> bool:
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _reachable(root: Any, defs: dict[str, Schema]) -> set[str]:
    found: set[str] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        for ref in _refs(node):
            if ref not in found and ref in defs:
                found.add(ref)
                pending.append(defs[ref])
    return found


def _refs(node: Any) -> list[str]:
    if isinstance(node, list):
        return [r for item in node for r in _refs(item)]
    if not isinstance(node, dict):
        return []
    here = [node["$ref"].rpartition("/")[2]] if isinstance(node.get("$ref"), str) else []
    return here + [r for key, value in node.items() if key != "$ref" for r in _refs(value)]
