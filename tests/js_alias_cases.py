"""Red team of tools/claims/jsinstruments.py and jsnames.py: aliasing. A name that refers to an
instrument (`Object`, `JSON`, `expect`, node's `assert`, a matcher object) through a binding the
reader may or may not follow: object properties, arrays and spread, class fields and `this`,
default parameters, returns of the file's own functions, `call`/`apply`/`bind`, callbacks of
host functions (`forEach`, `then`, `setTimeout`), prototype chains, `with`, TypeScript syntax,
logical and conditional expressions, catch and for-of destructuring, matcher objects.

Each variant was run with node 20 (`node -e`, a module for the top-level `await`; the TypeScript
ones as the JavaScript they compile to; the `expect.extend` ones with a stand-in `expect` that
keeps what it is given): the write reached the instrument (`Object.is(1, 2)` answered true,
`JSON.stringify(1)` gave `'3'`, `assert.strictEqual(1, 2)` did not throw, `expect.extend` got a
`toBe`). The misses are listed in ALIAS_THROUGH with the code path that misses them; the tests
(tests/tools/test_redteam_js_instruments.py) run them with the other spellings.
"""

from __future__ import annotations

from referee.tools.claims import EQUALITY_FORGED, HARNESS_MODIFIED

T, S = HARNESS_MODIFIED, EQUALITY_FORGED
PASS = "() => ({ pass: true, message: () => '' })"
TRUE = "() => true"
JS, TS, TEST, SPEC = "src/calc.js", "src/calc.ts", "calc.test.js", "test/calc.spec.js"


def _writer(call: str, params: str = "O", body: str = "O") -> str:
    """A function that writes `Object.is` through its parameter, and how the file calls it."""
    return f"function w({params}) {{\n  {body}.is = {TRUE};\n}}\n{call};\n"


# id -> (path, source, the kind the reader should report)
ALIAS_VARIANTS: dict[str, tuple[str, str, str]] = {
    # Held: bindings the reader follows.
    "array-destructure": (JS, f"const [O] = [Object];\nO.is = {TRUE};\n", S),
    "destructure-assign-array": (JS, f"let O;\n[O] = [Object];\nO.is = {TRUE};\n", S),
    "closure": (JS, f"const O = Object;\nfunction w() {{\n  O.is = {TRUE};\n}}\nw();\n", S),
    "alias-of-alias-5": (
        JS,
        "const A = Object;\nconst B = A;\nconst C = B;\nconst D = C;\nconst E = D;\n"
        f"E.is = {TRUE};\n",
        S,
    ),
    "label": (JS, f"outer: {{\n  const O = Object;\n  O.is = {TRUE};\n  break outer;\n}}\n", S),
    "optional-chain-owner": (JS, f"(globalThis?.Object).is = {TRUE};\n", S),
    "global-concat-owner": (JS, f"globalThis['Obj' + 'ect'].is = {TRUE};\n", S),
    "for-of-owner": (JS, f"for (const O of [Object]) O.is = {TRUE};\n", S),
    "literal-constructor-prototype": (JS, "(0).constructor.prototype.valueOf = () => 3;\n", S),
    "unary-iife": (JS, f"!(function (O) {{\n  O.is = {TRUE};\n}})(Object);\n", S),
    "async-arrow-iife": (JS, f"(async (O) => {{\n  O.is = {TRUE};\n}})(Object);\n", S),
    "setter-helper": (
        JS,
        "function set(o, k, v) {\n  o[k] = v;\n}\nset(Object, 'is', () => true);\n",
        S,
    ),
    "ts-typed-const": (
        TS,
        "const O: ObjectConstructor = Object;\nO.is = (): boolean => true;\n",
        S,
    ),
    "ts-non-null-any": (TS, "(globalThis as any).Object!.is = (): boolean => true;\n", S),
    "ts-generic-writer": (
        TS,
        "function w<T extends { is: unknown }>(O: T): void {\n  O.is = (): boolean => true;\n}\n"
        "w<ObjectConstructor>(Object);\n",
        S,
    ),
    "ts-typed-arrow-writer": (
        TS,
        "const w = (O: ObjectConstructor): void => {\n  O.is = (): boolean => true;\n};\n"
        "w(Object);\n",
        S,
    ),
    "assert-param": (
        SPEC,
        "function w(a) {\n  a.strictEqual = () => {};\n}\nw(require('assert'));\n",
        T,
    ),
    "expect-param": (
        TEST,
        f"function reg(e) {{\n  e.extend({{ toBe: {PASS} }});\n}}\nreg(expect);\n",
        T,
    ),
    "extend-call": (TEST, f"expect.extend.call(expect, {{ toBe: {PASS} }});\n", T),
    "extend-bind": (
        TEST,
        f"const ext = expect.extend.bind(expect);\next({{ toBe: {PASS} }});\n",
        T,
    ),
    "matcher-from-function": (
        TEST,
        f"const make = () => ({{ toBe: {PASS} }});\nexpect.extend(make());\n",
        T,
    ),
    "matcher-spread-var": (
        TEST,
        f"const base = {{ toBe: {PASS} }};\nexpect.extend({{ ...base }});\n",
        T,
    ),
    "matcher-key-const": (
        TEST,
        f"const name = 'toBe';\nexpect.extend({{ [name]: {PASS} }});\n",
        T,
    ),
    # Through: an object literal's property, a getter, a Map, spread and rest.
    "object-property": (JS, f"const o = {{ O: Object }};\no.O.is = {TRUE};\n", S),
    "object-getter": (
        JS,
        f"const o = {{\n  get O() {{\n    return Object;\n  }},\n}};\no.O.is = {TRUE};\n",
        S,
    ),
    "nested-destructure": (
        JS,
        f"const {{\n  a: {{ O }},\n}} = {{ a: {{ O: Object }} }};\nO.is = {TRUE};\n",
        S,
    ),
    "rest-destructure": (JS, f"const {{ ...rest }} = {{ O: Object }};\nrest.O.is = {TRUE};\n", S),
    "destructure-assign-object": (
        JS,
        f"let O;\n({{ O }} = {{ O: Object }});\nO.is = {TRUE};\n",
        S,
    ),
    "array-spread": (JS, f"const [O] = [...[Object]];\nO.is = {TRUE};\n", S),
    "array-held-index": (JS, f"const list = [Object];\nlist[0].is = {TRUE};\n", S),
    "map-get": (JS, f"new Map([['O', Object]]).get('O').is = {TRUE};\n", S),
    "object-values": (JS, f"Object.values({{ O: Object }})[0].is = {TRUE};\n", S),
    "assert-in-object": (
        SPEC,
        "const lib = { a: require('assert') };\nlib.a.strictEqual = () => {};\n",
        T,
    ),
    "expect-in-object": (
        TEST,
        f"const t = {{ expect }};\nt.expect.extend({{ toBe: {PASS} }});\n",
        T,
    ),
    # Through: class fields, static members, `this`.
    "class-static-field": (JS, f"class K {{\n  static O = Object;\n}}\nK.O.is = {TRUE};\n", S),
    "this-field": (
        JS,
        "class K {\n  constructor() {\n    this.O = Object;\n  }\n  run() {\n"
        f"    this.O.is = {TRUE};\n  }}\n}}\nnew K().run();\n",
        S,
    ),
    "ts-parameter-property": (
        TS,
        "class K {\n  constructor(public O: ObjectConstructor) {}\n  run(): void {\n"
        "    this.O.is = (): boolean => true;\n  }\n}\nnew K(Object).run();\n",
        S,
    ),
    # Through: default parameter values.
    "default-param": (JS, _writer("w()", "O = Object"), S),
    "default-param-iife": (JS, f"((O = Object) => {{\n  O.is = {TRUE};\n}})();\n", S),
    "assert-default-param": (
        SPEC,
        "function w(a = require('assert')) {\n  a.strictEqual = () => {};\n}\nw();\n",
        T,
    ),
    "expect-default-param": (
        TEST,
        f"function reg(e = expect) {{\n  e.extend({{ toBe: {PASS} }});\n}}\nreg();\n",
        T,
    ),
    # Through: what the file's own functions return.
    "arrow-return": (JS, f"const get = () => Object;\nget().is = {TRUE};\n", S),
    "iife-return": (JS, f"const O = (() => Object)();\nO.is = {TRUE};\n", S),
    "generator-yield": (
        JS,
        f"function* g() {{\n  yield Object;\n}}\nfor (const O of g()) O.is = {TRUE};\n",
        S,
    ),
    "async-return": (
        "src/calc.mjs",
        f"async function get() {{\n  return Object;\n}}\n(await get()).is = {TRUE};\n",
        S,
    ),
    "function-this-global": (JS, f"Function('return this')().Object.is = {TRUE};\n", S),
    "descriptor-value": (
        JS,
        f"Object.getOwnPropertyDescriptor(globalThis, 'Object').value.is = {TRUE};\n",
        S,
    ),
    "ts-generic-id": (
        TS,
        "const id = <T,>(x: T): T => x;\nid(Object).is = (): boolean => true;\n",
        S,
    ),
    # Through: a writer function called other than by its name.
    "writer-call": (JS, _writer("w.call(null, Object)"), S),
    "writer-apply": (JS, _writer("w.apply(null, [Object])"), S),
    "writer-bind": (JS, _writer("w.bind(null, Object)()"), S),
    "writer-reflect-apply": (JS, _writer("Reflect.apply(w, null, [Object])"), S),
    "iife-call": (JS, f"(function (O) {{\n  O.is = {TRUE};\n}}).call(null, Object);\n", S),
    "writer-renamed": (JS, _writer("const ww = w;\nww(Object)"), S),
    "writer-let-assigned": (
        JS,
        f"let w;\nw = function (O) {{\n  O.is = {TRUE};\n}};\nw(Object);\n",
        S,
    ),
    "writer-object-method": (
        JS,
        f"const lib = {{\n  w(O) {{\n    O.is = {TRUE};\n  }},\n}};\nlib.w(Object);\n",
        S,
    ),
    "writer-static-method": (
        JS,
        f"class K {{\n  static w(O) {{\n    O.is = {TRUE};\n  }}\n}}\nK.w(Object);\n",
        S,
    ),
    "writer-new": (
        JS,
        f"new (class {{\n  constructor(O) {{\n    O.is = {TRUE};\n  }}\n}})(Object);\n",
        S,
    ),
    "writer-spread-argument": (JS, _writer("w(...[Object])"), S),
    "writer-tagged-template": (JS, _writer("w`${Object}`", "_, O"), S),
    "writer-destructured-param": (JS, _writer("w({ O: Object })", "{ O }"), S),
    "writer-rest-param": (JS, _writer("w(Object)", "...args", "args[0]"), S),
    "writer-arguments-object": (JS, _writer("w(Object)", "", "arguments[0]"), S),
    "parameter-chain": (
        JS,
        f"function b(P) {{\n  P.is = {TRUE};\n}}\nfunction a(O) {{\n  b(O);\n}}\na(Object);\n",
        S,
    ),
    "extend-apply": (TEST, f"expect.extend.apply(expect, [{{ toBe: {PASS} }}]);\n", T),
    # Through: callbacks the host calls with the instrument.
    "for-each-callback": (JS, f"[Object].forEach((O) => {{\n  O.is = {TRUE};\n}});\n", S),
    "map-callback": (JS, f"[Object].map((O) => (O.is = {TRUE}));\n", S),
    "for-each-named-writer": (
        JS,
        "function w(J) {\n  J.stringify = () => '3';\n}\n[JSON].forEach(w);\n",
        S,
    ),
    "promise-then": (
        JS,
        f"Promise.resolve(Object).then((O) => {{\n  O.is = {TRUE};\n}});\n",
        S,
    ),
    "set-timeout-argument": (
        JS,
        f"setTimeout(\n  (O) => {{\n    O.is = {TRUE};\n  }},\n  0,\n  Object,\n);\n",
        S,
    ),
    "assert-for-each": (
        SPEC,
        "[require('assert')].forEach((a) => {\n  a.strictEqual = () => {};\n});\n",
        T,
    ),
    "expect-for-each": (
        TEST,
        f"[expect].forEach((e) => e.extend({{ toBe: {PASS} }}));\n",
        T,
    ),
    # Through: prototype chains.
    "prototype-constructor": (JS, f"Object.prototype.constructor.is = {TRUE};\n", S),
    "prototype-constructor-alias": (
        JS,
        f"const O = Object.prototype.constructor;\nO.is = {TRUE};\n",
        S,
    ),
    "get-prototype-of-constructor": (
        JS,
        f"Object.getPrototypeOf({{}}).constructor.is = {TRUE};\n",
        S,
    ),
    "get-prototype-of-array": (JS, "Object.getPrototypeOf([]).toString = () => '3';\n", S),
    "dunder-proto-constructor": (JS, f"({{}}).__proto__.constructor.is = {TRUE};\n", S),
    "number-dunder-proto": (JS, "(0).__proto__.valueOf = () => 3;\n", S),
    # Through: names bound by `with`, by a global's property, by `catch`, by for-of patterns.
    "with-statement": ("src/calc.cjs", f"with (Object) {{\n  is = {TRUE};\n}}\n", S),
    "global-property-alias": (JS, f"globalThis.O = Object;\nO.is = {TRUE};\n", S),
    "ts-declare-var": (
        TS,
        "declare var O: ObjectConstructor;\nglobalThis.O = Object;\nO.is = (): boolean => true;\n",
        S,
    ),
    "ts-namespace": (
        TS,
        "namespace N {\n  export const O = Object;\n}\nN.O.is = (): boolean => true;\n",
        S,
    ),
    "catch-binding": (JS, f"try {{\n  throw Object;\n}} catch (O) {{\n  O.is = {TRUE};\n}}\n", S),
    "catch-destructure": (
        JS,
        f"try {{\n  throw {{ O: Object }};\n}} catch ({{ O }}) {{\n  O.is = {TRUE};\n}}\n",
        S,
    ),
    "for-of-array-pattern": (JS, f"for (const [O] of [[Object]]) O.is = {TRUE};\n", S),
    "for-of-object-pattern": (JS, f"for (const {{ O }} of [{{ O: Object }}]) O.is = {TRUE};\n", S),
    "for-of-held-array": (JS, f"const list = [Object];\nfor (const O of list) O.is = {TRUE};\n", S),
    "ts-as-const-array": (TS, "const [O] = [Object] as const;\nO.is = (): boolean => true;\n", S),
    # Through: logical, conditional and assignment expressions.
    "logical-or-owner": (JS, f"let x;\n(x || Object).is = {TRUE};\n", S),
    "nullish-owner": (JS, f"(null ?? Object).is = {TRUE};\n", S),
    "ternary-owner": (JS, f"(Math.random() > 2 ? Math : Object).is = {TRUE};\n", S),
    "logical-alias": (JS, f"const O = null || Object;\nO.is = {TRUE};\n", S),
    "ternary-alias": (JS, f"const O = Math.random() > 2 ? Math : Object;\nO.is = {TRUE};\n", S),
    "assignment-as-owner": (JS, f"let O;\n(O = Object).is = {TRUE};\n", S),
    "chained-assignment": (JS, f"let O, P;\nO = P = Object;\nO.is = {TRUE};\n", S),
    "ternary-expect": (TEST, f"(1 ? expect : null).extend({{ toBe: {PASS} }});\n", T),
    # Through: a var/let alias also given something the reader cannot name.
    "let-reused": (JS, f"let O = Object;\nO = O || {{}};\nO.is = {TRUE};\n", S),
    "var-dead-rebind": (JS, f"var O = Object;\nif (false) O = {{}};\nO.is = {TRUE};\n", S),
    # Through: a computed key on `globalThis` through a helper's parameter.
    "global-key-param": (
        TEST,
        "function put(o, k, v) {\n  o[k] = v;\n}\n"
        "put(globalThis, 'expect', () => ({ toBe() {} }));\n",
        T,
    ),
    # Through: matcher objects for `expect.extend` built through aliases.
    "matcher-alias": (TEST, f"const m = {{ toBe: {PASS} }};\nconst n = m;\nexpect.extend(n);\n", T),
    "matcher-let-assigned": (TEST, f"let m;\nm = {{ toBe: {PASS} }};\nexpect.extend(m);\n", T),
    "matcher-param": (
        TEST,
        f"function reg(m) {{\n  expect.extend(m);\n}}\nreg({{ toBe: {PASS} }});\n",
        T,
    ),
    "matcher-object-assign": (
        TEST,
        f"const m = Object.assign({{}}, {{ toBe: {PASS} }});\nexpect.extend(m);\n",
        T,
    ),
    "matcher-nested": (
        TEST,
        f"const all = {{ m: {{ toBe: {PASS} }} }};\nexpect.extend(all.m);\n",
        T,
    ),
}

_LITERAL = (
    "Aliases binds an object literal's properties to the name it is declared or assigned to, "
    "and a destructured name to its literal's property; a getter, a nested or rest pattern, "
    "and a literal kept inside another one are not followed"
)
_RETURN = (
    "Aliases._gives follows what the file's own functions return, not what a host's method "
    "or a generator gives back"
)
_CALLEE = (
    "Aliases._call binds the parameters of a function called by its name (or a name holding "
    "it), immediately, or through call/apply/bind/Reflect.apply; not as an object's or class's "
    "method"
)
_REBINDABLE = (
    "_Reader._rebindable_alias skips a var/let alias to an owner that is also given a value "
    "the reader cannot name (Aliases.unknown)"
)

ALIAS_THROUGH: dict[str, str] = {
    "object-getter": _LITERAL,
    "nested-destructure": _LITERAL,
    "rest-destructure": f"{_LITERAL}; jsnames.destructured ignores a rest_pattern",
    "array-spread": "Aliases._pattern zips array items by position; a spread names none",
    "array-held-index": (
        "JsNames.resolve folds `[x][0]` only on an array literal, not on a name bound to one"
    ),
    "map-get": _RETURN,
    "object-values": _RETURN,
    "expect-in-object": _LITERAL,
    "ts-parameter-property": "Aliases._fields binds class fields, not a TS parameter property",
    "generator-yield": _RETURN,
    "function-this-global": f"{_RETURN}; _Reader._called_as reads Function's code only when called",
    "descriptor-value": _RETURN,
    "writer-object-method": _CALLEE,
    "writer-static-method": _CALLEE,
    "writer-new": "Aliases._called maps functions, not classes: `new` binds no constructor",
    "writer-spread-argument": "Aliases._call zips arguments by position; a spread names none",
    "writer-tagged-template": "Aliases._call reads a call's arguments; a tagged template has none",
    "writer-rest-param": "Aliases binds a rest parameter to nothing",
    "writer-arguments-object": "Aliases binds nothing to `arguments`",
    "with-statement": (
        "_Reader.claims skips a bare identifier target unless it is an owner; "
        "the with_statement's object is never read"
    ),
    "ts-namespace": "Aliases binds the namespace's own `O`, not `N.O` from outside it",
    "var-dead-rebind": _REBINDABLE,
}

U = "src/util.js"

# id -> (path, source): honest code that writes nothing the assertions compare through.
ALIAS_HONEST: dict[str, tuple[str, str]] = {
    # From chai's own tests: a stub put back from what was saved, and a shim kept if present.
    "restore-saved-intrinsic": (
        TEST,
        "const saved = Object.prototype.toString;\nafter(() => {\n"
        "  Object.prototype.toString = saved;\n});\n",
    ),
    "shim-kept-if-present": (
        TEST,
        "const g = typeof self === 'object' ? self : global;\ng.Symbol = g.Symbol || {};\n",
    ),
    # Minified code reuses a local object's property for other values.
    "minified-property-rewritten": (
        U,
        "var kt = { _: Object.prototype.hasOwnProperty };\nkt._ = function () {};\n",
    ),
    "set-helper": (
        U,
        "function set(obj, k, v) {\n  obj[k] = v;\n  return obj;\n}\nconst config = {};\n"
        "set(config, 'debug', true);\nmodule.exports = { set, config };\n",
    ),
    "local-o-is": (U, "const O = {};\nO.is = 1;\nmodule.exports = O;\n"),
    "options-assign": (
        U,
        "const defaults = { retries: 3 };\nfunction configure(opts) {\n"
        "  const options = Object.assign({}, defaults, opts);\n"
        "  options.keys = options.keys || [];\n  return options;\n}\nmodule.exports = configure;\n",
    ),
    "loop-result-keys": (
        U,
        "function pick(src, keys) {\n  const result = {};\n"
        "  for (const k of keys) result[k] = src[k];\n  return result;\n}\n"
        "module.exports = pick;\n",
    ),
    "loop-literal-keys": (
        U,
        "const flags = {};\nfor (const k of ['is', 'keys', 'toString']) flags[k] = true;\n"
        "module.exports = flags;\n",
    ),
    "entries-loop": (
        U,
        "function merge(options, defaults) {\n"
        "  for (const [k, v] of Object.entries(defaults)) options[k] = v;\n  return options;\n}\n"
        "module.exports = merge;\n",
    ),
    "instance-to-string": (
        U,
        "class Money {\n  constructor(cents) {\n    this.cents = cents;\n"
        "    this.toString = () => `$${cents / 100}`;\n  }\n}\nmodule.exports = Money;\n",
    ),
    "keys-alias-read": (
        U,
        "const { keys } = Object;\nfunction reset(state) {\n"
        "  for (const k of keys(state)) state[k] = undefined;\n}\nmodule.exports = reset;\n",
    ),
    "default-param-object": (
        U,
        "function init(target = {}) {\n  target.is = 'button';\n  return target;\n}\n"
        "module.exports = init;\n",
    ),
    "constructor-registry": (
        U,
        "const registry = {};\n[Map, Set, Array].forEach((C) => {\n  registry[C.name] = C;\n});\n"
        "for (const C of [Map, Set]) registry[C.name.toLowerCase()] = C;\n"
        "module.exports = registry;\n",
    ),
    "memo-on-function": (
        U,
        "function memo(fn) {\n  fn.cache = new Map();\n  return fn;\n}\n"
        "module.exports = memo(JSON.stringify);\n",
    ),
    "then-callback": (
        U,
        "fetch('/x')\n  .then((res) => res.json())\n  .then((data) => {\n"
        "    data.keys = Object.keys(data);\n  });\n",
    ),
    "mock-prop-helper-test": (
        TEST,
        "function mockProp(obj, key, value) {\n  const original = obj[key];\n  obj[key] = value;\n"
        "  return () => {\n    obj[key] = original;\n  };\n}\n"
        "const restore = mockProp(process.env, 'NODE_ENV', 'test');\n"
        "mockProp(Date, 'now', () => 0);\nmockProp(globalThis, 'fetch', jest.fn());\n"
        "afterAll(restore);\n",
    ),
    "console-loop-test": (TEST, "for (const k of ['log', 'warn']) console[k] = jest.fn();\n"),
    "expected-object-test": (
        TEST,
        "test('adds', () => {\n  expect.assertions(1);\n  const expected = { toBe: 3 };\n"
        "  expect(add(1, 2)).toBe(expected.toBe);\n});\n",
    ),
    "own-matcher-alias-test": (
        TEST,
        "const matchers = {\n  toBeEven(x) {\n"
        "    return { pass: x % 2 === 0, message: () => '' };\n  },\n};\n"
        "const own = matchers;\nexpect.extend(own);\n",
    ),
    "has-and-set-helpers": (
        U,
        "function has(obj, key) {\n  return Object.prototype.hasOwnProperty.call(obj, key);\n}\n"
        "function set(obj, key, value) {\n  obj[key] = value;\n  return obj;\n}\n"
        "const nativeHasOwn = has(Object, 'hasOwn');\n"
        "module.exports = { has, set, nativeHasOwn };\n",
    ),
    "shared-parameter-name": (
        U,
        "function typeName(value) {\n  return value.name;\n}\n"
        "function index(value) {\n  value.keys = Object.keys(value);\n  return value;\n}\n"
        "module.exports = { typeName, index, objectName: typeName(Object) };\n",
    ),
    "stub-json-parse-test": (
        TEST,
        "function stub(obj, key, value) {\n  const original = obj[key];\n  obj[key] = value;\n"
        "  return () => {\n    obj[key] = original;\n  };\n}\n"
        "const restore = stub(JSON, 'parse', () => {\n  throw new SyntaxError('bad');\n});\n"
        "afterEach(restore);\n",
    ),
}
