"""A contract's selector or locator object as a Playwright `Locator`, and as a person reads it.

The description is Playwright's own spelling (`getByRole('button', { name: 'Save' })`), so a
reason names the element the way the developer would write it in a Playwright test.
"""

from __future__ import annotations

import json

from playwright.async_api import Locator as PlaywrightLocator
from playwright.async_api import Page

from referee.tools.models.locator import Locator, Target

_METHODS = {
    "label": "getByLabel",
    "placeholder": "getByPlaceholder",
    "text": "getByText",
    "test_id": "getByTestId",
    "alt": "getByAltText",
    "title": "getByTitle",
}


def locate(page: Page, target: Target) -> PlaywrightLocator:
    """The Playwright locator ``target`` stands for on ``page`` (a list: each part inside the
    previous)."""
    parts = target if isinstance(target, list) else [target]
    found: Page | PlaywrightLocator = page
    for part in parts:
        found = _one(page, found, part)
    assert isinstance(found, PlaywrightLocator)  # parts is never empty (the model's min_length)
    return found


def _one(page: Page, within: Page | PlaywrightLocator, part: str | Locator) -> PlaywrightLocator:
    if isinstance(part, str):
        return within.locator(part)
    found = _base(within, part)
    if part.has_text is not None or part.has is not None:
        # `has` is queried inside each candidate; Playwright wants it built from the page.
        has = locate(page, part.has) if part.has is not None else None
        found = found.filter(has_text=part.has_text, has=has)
    if part.nth is not None:
        return found.nth(part.nth)
    return found.first if part.first else found.last if part.last else found


def _base(within: Page | PlaywrightLocator, part: Locator) -> PlaywrightLocator:
    match part.strategy:
        case "role":
            assert part.role is not None
            return within.get_by_role(part.role, name=part.name, exact=part.exact)
        case "label":
            return within.get_by_label(part.label or "", exact=part.exact)
        case "placeholder":
            return within.get_by_placeholder(part.placeholder or "", exact=part.exact)
        case "text":
            return within.get_by_text(part.text or "", exact=part.exact)
        case "test_id":
            return within.get_by_test_id(part.test_id or "")
        case "alt":
            return within.get_by_alt_text(part.alt or "", exact=part.exact)
        case "title":
            return within.get_by_title(part.title or "", exact=part.exact)
    return within.locator(part.css or "")


def describe(target: Target | None) -> str:
    """``target`` as Playwright code reads: a selector string as it is, an object as
    `getByRole('button', { name: 'Save' }).first()`, a chain joined by dots."""
    if target is None:
        return ""
    if isinstance(target, str):
        return target
    parts = target if isinstance(target, list) else [target]
    return ".".join(
        _described(p) if isinstance(p, Locator) else f"locator({_js(p)})" for p in parts
    )


def _described(part: Locator) -> str:
    strategy = part.strategy
    options: dict[str, object] = {"exact": True} if part.exact else {}
    if strategy == "role":
        text = _js(part.role or "")
        options = {**({"name": part.name} if part.name is not None else {}), **options}
    elif strategy == "css":
        text = _js(part.css or "")
    else:
        text = _js(str(getattr(part, strategy)))
    shown = f"{_METHODS.get(strategy, 'getByRole' if strategy == 'role' else 'locator')}({text}"
    shown += f", {_options(options)})" if options else ")"
    if part.has_text is not None or part.has is not None:
        narrowed: dict[str, object] = {}
        if part.has_text is not None:
            narrowed["hasText"] = part.has_text
        has = f", has: {describe(part.has)}" if part.has is not None else ""
        shown += f".filter({{ {_pairs(narrowed)}{has} }})".replace("{ , ", "{ ")
    if part.nth is not None:
        return f"{shown}.nth({part.nth})"
    return shown + (".first()" if part.first else ".last()" if part.last else "")


def _options(options: dict[str, object]) -> str:
    return "{ " + _pairs(options) + " }"


def _pairs(options: dict[str, object]) -> str:
    return ", ".join(f"{k}: {_js(v)}" for k, v in options.items())


def _js(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + json.dumps(value)[1:-1].replace("'", "\\'") + "'"
    return str(value)
