"""Code under test that replaces what a runner's worker reports through, or walks every key of the
global object where the runners keep their state (tools/claims/javascript.py `_CHANNELS`,
tools/claims/jssituation.py `_enumerated`), in several spellings; and honest code of the same
shape that is left alone."""

from __future__ import annotations

import pytest

from referee.tools.claims import CODE_DETECTS_TESTS, HARNESS_MODIFIED, Scope, claims_in

F = "(chunk, ...rest) => true"

CHANNELS = {
    "assigned": f"process.stdout.write = {F};\n",
    "stderr": f"process.stderr.write = {F};\n",
    "ipc-send": "process.send = () => true;\n",
    "aliased-owner": f"const out = process.stdout;\nout.write = {F};\n",
    "destructured-owner": f"const {{ stdout }} = process;\nstdout.write = {F};\n",
    "subscripted": f"process['stdout']['write'] = {F};\n",
    "computed-key": f"process.stdout['wr' + 'ite'] = {F};\n",
    "global-process": f"globalThis.process.stdout.write = {F};\n",
    "define-property": f"Object.defineProperty(process.stdout, 'write', {{ value: {F} }});\n",
    "reflect-set": f"Reflect.set(process.stdout, 'write', {F});\n",
    "underscore-write": f"process.stdout._write = {F};\n",
}

GLOBAL_KEYS = {
    "symbols-of-globalThis": (
        "for (const k of Object.getOwnPropertySymbols(globalThis)) use(globalThis[k]);\n"
    ),
    "own-keys-of-global": "Reflect.ownKeys(global).forEach((k) => use(global[k]));\n",
    "names-of-window": "const all = Object.getOwnPropertyNames(window);\nuse(all);\n",
    "descriptors-of-self": "const d = Object.getOwnPropertyDescriptors(self);\nuse(d);\n",
}

HONEST_SOURCE = {
    "writes-output": "process.stdout.write('done\\n');\n",
    "binds-writer": "const write = process.stdout.write.bind(process.stdout);\nwrite('x');\n",
    "keys-of-own-object": "const keys = Object.getOwnPropertyNames(options);\nuse(keys);\n",
    "symbols-of-target": "const own = Object.getOwnPropertySymbols(target);\nuse(own);\n",
    "exit-code-on-error": "if (failed) process.exitCode = 1;\n",
}


def _kinds(path: str, source: str) -> list[str]:
    return [c.kind for c in claims_in(path, None, source, Scope())]


@pytest.mark.parametrize("key", sorted(CHANNELS))
def test_code_under_test_that_replaces_a_runner_channel_is_harness(key: str) -> None:
    assert HARNESS_MODIFIED in _kinds("src/calc.js", CHANNELS[key]), key


@pytest.mark.parametrize("key", sorted(CHANNELS))
def test_a_test_capturing_its_output_is_not_read_as_one(key: str) -> None:
    # A test's own doings are checked by the base tests' run without it.
    assert HARNESS_MODIFIED not in _kinds("test/calc.test.js", CHANNELS[key]), key


@pytest.mark.parametrize("key", sorted(GLOBAL_KEYS))
def test_code_under_test_walking_the_global_object_asks_about_the_runner(key: str) -> None:
    assert CODE_DETECTS_TESTS in _kinds("src/calc.js", GLOBAL_KEYS[key]), key


@pytest.mark.parametrize("key", sorted(HONEST_SOURCE))
def test_honest_source_of_the_same_shape_is_left_alone(key: str) -> None:
    assert _kinds("src/calc.js", HONEST_SOURCE[key]) == [], key
