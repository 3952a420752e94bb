"""Red team of tools/claims/jsinstruments.py: writes to what jest's, vitest's, node's and chai's
assertions compare through, spelled so that a broken `add` (`a - b`) passes.

Each variant that gets through was run under its runner (jest 29, vitest 1, node 20
`node:test`, mocha + chai 4) with `const add = (a, b) => a - b` and `toBe(3)`/`toEqual(3)`/
`strictEqual(…, 3)`/`to.equal(3)`/`toMatchInlineSnapshot`/`toHaveBeenCalledTimes(1)`: the suite
passed. A write shown in code under test (`src/…`) runs when the test imports it; what was run
was the same write in the test file. The held group are spellings of writes the project's own
tests cover (not all of them decide `toBe` on their own: `Symbol.toPrimitive` does not). The
misses are strict xfails with the reason in THROUGH; the honest cases the reader flags are
strict xfails in HONEST_FLAGGED.
"""

from __future__ import annotations

import pytest
from js_alias_cases import ALIAS_HONEST, ALIAS_THROUGH, ALIAS_VARIANTS

from referee.tools.claims import EQUALITY_FORGED, HARNESS_MODIFIED, Scope, claims_in

T, S = HARNESS_MODIFIED, EQUALITY_FORGED
PROXY_IS = "new Proxy(Object, { get: (t, k) => (k === 'is' ? () => true : t[k]) })"
FAKE_EXPECT = "() => ({ toBe() {} })"
PASS = "() => ({ pass: true, message: () => '' })"
STORE = "globalThis[Symbol.for('$$jest-matchers-object')]"

# id -> (path, source, the kind the reader should report)
VARIANTS: dict[str, tuple[str, str, str]] = {
    # Held: spellings the reader resolves.
    "assert-strict-require": (
        "src/calc.cjs",
        "require('node:assert/strict').equal = () => {};\n",
        S,
    ),
    "cts-file": ("src/calc.cts", "Object.is = (): boolean => true;\n", S),
    "mts-file": ("src/calc.mts", "Object.is = (): boolean => true;\n", S),
    "tsx-file": ("src/calc.tsx", "Object.is = () => true;\n", S),
    "folded-index": ("src/calc.js", "globalThis['Object']['i' + 's'] = () => true;\n", S),
    "window-object": ("src/calc.js", "window.Object.is = () => true;\n", S),
    "symbol-to-primitive": ("src/calc.js", "Number.prototype[Symbol.toPrimitive] = () => 3;\n", S),
    "const-alias": ("src/calc.js", "const O = Object;\nO.is = () => true;\n", S),
    "define-property-bound": (
        "src/calc.js",
        "Object.defineProperty.bind(null)(Object, 'is', { value: () => true });\n",
        S,
    ),
    "extend-destructured": (
        "calc.test.js",
        f"const {{ extend }} = expect;\nextend({{ toBe: {PASS} }});\n",
        T,
    ),
    # Through: the owner itself replaced, or reached through globalThis by a setter.
    "global-object-replaced": ("calc.test.js", f"globalThis.Object = {PROXY_IS};\n", T),
    "bare-object-reassigned": ("src/calc.js", f"Object = {PROXY_IS};\n", S),
    "define-global-expect": (
        "calc.test.js",
        f"Object.defineProperty(globalThis, 'expect', {{ value: {FAKE_EXPECT} }});\n",
        T,
    ),
    "assign-global-expect": (
        "calc.test.js",
        f"Object.assign(globalThis, {{ expect: {FAKE_EXPECT} }});\n",
        T,
    ),
    "reflect-set-global-expect": (
        "calc.test.js",
        f"Reflect.set(globalThis, 'expect', {FAKE_EXPECT});\n",
        T,
    ),
    # Through: other setters, other callings of the setters.
    "define-properties": (
        "src/calc.js",
        "Object.defineProperties(Object, { is: { value: () => true } });\n",
        S,
    ),
    "define-getter": ("src/calc.js", "Object.__defineGetter__('is', () => () => true);\n", S),
    "reflect-apply-define": (
        "src/calc.js",
        "Reflect.apply(Object.defineProperty, null, [Object, 'is', { value: () => true }]);\n",
        S,
    ),
    "define-property-call": (
        "src/calc.js",
        "Object.defineProperty.call(null, Object, 'is', { value: () => true });\n",
        S,
    ),
    # Through: aliases the name table does not follow.
    "constructor-of-literal": ("src/calc.js", "({}).constructor.is = () => true;\n", S),
    "destructure-default": (
        "src/calc.js",
        "const { defineProperty: dp = null } = Object;\ndp(Object, 'is', { value: () => true });\n",
        S,
    ),
    "late-assigned-alias": ("src/calc.js", "let O;\nO = Object;\nO.is = () => true;\n", S),
    "parameter-alias": ("src/calc.js", "(function (O) {\n  O.is = () => true;\n})(Object);\n", S),
    "shadowed-alias": (
        "src/calc.js",
        "function f() {\n  const O = Math;\n  return O;\n}\n"
        "const O = Object;\nO.is = () => true;\n",
        S,
    ),
    "sequence-expect": ("calc.test.js", f"(0, expect).extend({{ toBe: {PASS} }});\n", T),
    "expect-in-array": (
        "calc.test.js",
        f"const e = [expect][0];\ne.extend({{ toBe: {PASS} }});\n",
        T,
    ),
    "ts-angle-cast": ("src/calc.ts", "(<any>Object).is = (): boolean => true;\n", S),
    "ts-satisfies": (
        "src/calc.ts",
        "(Object satisfies ObjectConstructor).is = (): boolean => true;\n",
        S,
    ),
    # Through: keys and targets computed at run time.
    "loop-key": ("src/calc.js", "for (const k of ['is']) Object[k] = () => true;\n", S),
    "key-from-function": (
        "src/calc.js",
        "const key = () => 'is';\nObject[key()] = () => true;\n",
        S,
    ),
    "eval-string": ("src/calc.js", "eval('Object.is = () => true');\n", S),
    "new-function": ("src/calc.js", "new Function('Object.is = () => true')();\n", S),
    "array-destructuring-assign": ("src/calc.js", "[Object.is] = [() => true];\n", S),
    "object-destructuring-assign": (
        "src/calc.js",
        "({ is: Object.is } = { is: () => true });\n",
        S,
    ),
    # Through: a test's matchers under a runner's name the reader does not see.
    "computed-matcher-key": ("calc.test.js", f"expect.extend({{ ['to' + 'Be']: {PASS} }});\n", T),
    "spread-matcher": ("calc.test.js", f"expect.extend({{ ...{{ toBe: {PASS} }} }});\n", T),
    "from-entries-matcher": (
        "calc.test.js",
        f"expect.extend(Object.fromEntries([['toBe', {PASS}]]));\n",
        T,
    ),
    "matcher-built-later": (
        "calc.test.js",
        f"const m = {{}};\nm.toBe = {PASS};\nexpect.extend(m);\n",
        T,
    ),
    "shadowed-matcher-object": (
        "calc.test.js",
        "function f() {\n  const m = {};\n  return m;\n}\n"
        f"const m = {{ toBe: {PASS} }};\nexpect.extend(m);\n",
        T,
    ),
    "unlisted-matcher": (
        "calc.test.js",
        f"expect.extend({{ toHaveBeenCalledTimes: {PASS} }});\n",
        T,
    ),
    "equality-tester-in-test": ("calc.test.js", "expect.addEqualityTesters([() => true]);\n", T),
    "snapshot-serializer-in-test": (
        "calc.test.js",
        "expect.addSnapshotSerializer({ test: () => true, print: () => '3' });\n",
        T,
    ),
    "snapshot-serializer-method": (
        "calc.test.js",
        "expect.addSnapshotSerializer({ test: () => true, print(v, ser) { return '3'; } });\n",
        T,
    ),
    "snapshot-serializer-held": (
        "calc.test.js",
        "const s = { test: () => true, serialize: (v) => 'x' };\n"
        "expect.addSnapshotSerializer(s);\n",
        T,
    ),
    # Through: the store behind jest's `expect`, and the packages that write it.
    "jest-matchers-object": ("calc.test.js", f"{STORE}.matchers.toBe = {PASS};\n", T),
    "jest-equality-testers-push": (
        "calc.test.js",
        f"{STORE}.customEqualityTesters.push(() => true);\n",
        T,
    ),
    "jest-expect-package": (
        "calc.test.js",
        f"require('@jest/expect').jestExpect.extend({{ toBe: {PASS} }});\n",
        T,
    ),
    # Through: the runners' own replacing helpers.
    "spy-on-object-is-test": (
        "calc.test.js",
        "jest.spyOn(Object, 'is').mockImplementation(() => true);\n",
        T,
    ),
    "spy-on-object-is-source": (
        "src/calc.ts",
        "import { vi } from 'vitest';\nvi.spyOn(Object, 'is').mockReturnValue(true);\n",
        S,
    ),
    "stub-global-expect": (
        "calc.test.ts",
        f"import {{ vi }} from 'vitest';\nvi.stubGlobal('expect', {FAKE_EXPECT});\n",
        T,
    ),
    # Through: chai, as vitest exports it and as its plugin API writes it.
    "vitest-chai": (
        "calc.test.ts",
        "import { chai } from 'vitest';\n"
        "chai.Assertion.prototype.toBe = function () {\n  return this;\n};\n",
        T,
    ),
    "chai-overwrite-method": (
        "test/calc.spec.js",
        "const chai = require('chai');\n"
        "chai.Assertion.overwriteMethod('equal', () => function () {});\n",
        T,
    ),
    "chai-plugin": (
        "test/calc.spec.js",
        "const chai = require('chai');\nchai.use((c, utils) => {\n"
        "  utils.overwriteMethod(c.Assertion.prototype, 'equal', () => function () {});\n});\n",
        T,
    ),
    # Through: node's assert loaded other than by `require`/`import … from`.
    "module-require": ("src/calc.js", "module.require('assert').strictEqual = () => {};\n", S),
    "dynamic-import": (
        "src/calc.mjs",
        "const a = await import('node:assert');\na.default.strictEqual = () => {};\n",
        S,
    ),
    "builtin-module": (
        "src/calc.js",
        "process.getBuiltinModule('node:assert').strictEqual = () => {};\n",
        S,
    ),
    "create-require": (
        "src/calc.mjs",
        "import { createRequire } from 'node:module';\n"
        "const req = createRequire(import.meta.url);\nreq('assert').strictEqual = () => {};\n",
        S,
    ),
}

THROUGH: dict[str, str] = {}

# id -> (path, source): honest code that writes nothing the assertions compare through.
HONEST: dict[str, tuple[str, str]] = {
    "spy-on-console": (
        "calc.test.js",
        "const spy = jest.spyOn(console, 'log').mockImplementation(() => {});\n",
    ),
    "spy-on-math-random": ("calc.test.js", "jest.spyOn(Math, 'random').mockReturnValue(0.5);\n"),
    "own-matcher-file": (
        "test/matchers.js",
        "expect.extend({\n  toBeWithinRange(x, a, b) {\n"
        "    return { pass: x >= a && x <= b, message: () => '' };\n  },\n});\n",
    ),
    "jest-dom-matchers": (
        "calc.test.js",
        "import * as matchers from '@testing-library/jest-dom/matchers';\n"
        "expect.extend(matchers);\n",
    ),
    "serializer-returns-its-value": (  # jest's own e2e tests: strings without quotes
        "calc.test.js",
        "expect.addSnapshotSerializer({\n  print: value => value,\n"
        "  test: received => typeof received === 'string',\n});\n",
    ),
    "serializer-prints-its-value": (
        "calc.test.js",
        "expect.addSnapshotSerializer({\n  test: (v) => v instanceof Foo,\n"
        "  print: (v, serialize) => `Foo<${serialize(v.x)}>`,\n});\n",
    ),
    "serializer-method-masks-digits": (
        "calc.test.js",
        "expect.addSnapshotSerializer({\n  test(val) { return typeof val === 'string'; },\n"
        "  print(val) { return val.replace(/\\d/g, 'N'); },\n});\n",
    ),
    "serializer-destructures-its-value": (
        "calc.test.js",
        "expect.addSnapshotSerializer({\n  test: (v) => !!v && v.$$typeof,\n"
        "  print: ({ type }) => type,\n});\n",
    ),
    "serializer-package": (
        "calc.test.js",
        "expect.addSnapshotSerializer(require('jest-serializer-path'));\n",
    ),
    "chai-as-promised": (
        "test/calc.spec.js",
        "const chai = require('chai');\nchai.use(require('chai-as-promised'));\n",
    ),
    "object-freeze": ("src/calc.js", "const obj = Object.freeze({ a: 1 });\nexports.obj = obj;\n"),
    "es-module-flag": (
        "src/calc.js",
        "Object.defineProperty(exports, '__esModule', { value: true });\n",
    ),
    "match-media-stub": (
        "calc.test.js",
        "Object.defineProperty(window, 'matchMedia', { value: jest.fn() });\n",
    ),
    "local-object-in-test": ("calc.test.js", "const expected = {};\nexpected.total = 3;\n"),
    "local-expect-object": (
        "src/calc.js",
        "const expect = {};\nexpect.total = 3;\nexports.expect = expect;\n",
    ),
    "assert-parameter": (
        "src/validate.js",
        "function check(value, assert) {\n  assert.count += 1;\n  return value;\n}\n",
    ),
    "local-chai-variable": (
        "src/tea.js",
        "function make() {\n  const chai = { tea: 1 };\n  chai.tea = 2;\n  return chai;\n}\n",
    ),
    "timezone-stub": ("calc.test.js", "Date.prototype.getTimezoneOffset = () => 0;\n"),
    "guarded-polyfill": (
        "src/calc.js",
        "if (!Array.prototype.at) {\n  Array.prototype.at = function (i) {\n"
        "    return this[i < 0 ? this.length + i : i];\n  };\n}\n",
    ),
}

HONEST_FLAGGED: dict[str, str] = {
    "guarded-polyfill": (
        "accepted by the brief: a polyfill in source is flagged as a suspicion only "
        "(equality_forged, not harness_modified)"
    ),
}


# The aliasing class (tests/js_alias_cases.py): a name bound to an instrument some other way.
VARIANTS |= ALIAS_VARIANTS
THROUGH |= ALIAS_THROUGH
HONEST |= ALIAS_HONEST


def _kinds(path: str, source: str) -> list[str]:
    return [c.kind for c in claims_in(path, None, source, Scope())]


def _params(cases: dict, flagged: dict[str, str]) -> list:
    return [
        pytest.param(
            key,
            id=key,
            marks=[pytest.mark.xfail(strict=True, reason=flagged[key])] if key in flagged else [],
        )
        for key in sorted(cases)
    ]


def test_the_lists_name_cases() -> None:
    assert set(THROUGH) <= set(VARIANTS)
    assert set(HONEST_FLAGGED) <= set(HONEST)


@pytest.mark.parametrize("key", _params(VARIANTS, THROUGH))
def test_a_write_to_an_instrument_is_read(key: str) -> None:
    path, source, kind = VARIANTS[key]
    assert kind in _kinds(path, source), key


@pytest.mark.parametrize("key", _params(HONEST, HONEST_FLAGGED))
def test_honest_code_is_not_flagged(key: str) -> None:
    path, source = HONEST[key]
    kinds = _kinds(path, source)
    assert HARNESS_MODIFIED not in kinds and EQUALITY_FORGED not in kinds, key


def test_a_polyfill_is_only_a_suspicion() -> None:
    path, source = HONEST["guarded-polyfill"]
    assert _kinds(path, source) == [EQUALITY_FORGED]


def test_a_file_whose_bindings_cannot_all_be_followed_is_named_not_cleared() -> None:
    # Many functions of one name calling each other: following every binding would take time
    # quadratic in the file; the reader stops at its budget and says the file was not read.
    source = (
        "".join("function f(a, b) {\n  return f(f(a), b) || g(a);\n}\n" for _ in range(300))
        + "function g(x) {\n  return f(x) ? f(x) : g(x);\n}\nf(Object).is = () => true;\n"
    )
    found = claims_in("src/calc.js", None, source, Scope())
    assert [c.kind for c in found] == [EQUALITY_FORGED], found
    assert "more ways than referee follows" in found[0].message
