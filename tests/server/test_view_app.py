"""`referee view` through its interfaces: the CLI (`--bundle`, refusing an open bind without a
token) and the HTTP app (token, Host check, form secret, Origin, headers)."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

import pytest
from viewed import Viewed, browser_run, filled_view

from referee.server.cli import main
from referee.server.http import TokenRequired
from referee.server.view import CSP, TRACE_CSP, ViewServer
from referee.tools.store.calibration import calibration_rows


@pytest.fixture(scope="module")
def viewed(tmp_path_factory: pytest.TempPathFactory, data_home: Path) -> Iterator[Viewed]:
    yield from filled_view(tmp_path_factory, data_home)


@pytest.fixture
def served(viewed: Viewed) -> Iterator[ViewServer]:
    server = ViewServer(viewed.store, "127.0.0.1", 0)
    server.start()
    yield server
    server.close()


class Reply(NamedTuple):
    status: int
    headers: dict[str, str]
    body: str
    raw: bytes = b""

    def getheader(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def _call(server: ViewServer, method: str, path: str, body: str | None, **headers: str) -> Reply:
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        found = {k.lower(): v for k, v in response.getheaders()}
        raw = response.read()
        return Reply(response.status, found, raw.decode("utf-8", "replace"), raw)
    finally:
        conn.close()


def _get(server: ViewServer, path: str, **headers: str) -> Reply:
    return _call(server, "GET", path, None, **headers)


def _post(server: ViewServer, path: str, form: dict[str, str], **headers: str) -> Reply:
    kind = {"Content-Type": "application/x-www-form-urlencoded"}
    return _call(server, "POST", path, urlencode(form), **{**kind, **headers})


def test_view_bundle_writes_every_page_with_relative_links(
    viewed: Viewed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    code = main(["--home", str(viewed.store.home), "view", "--bundle", str(out)])
    assert code == 0
    assert str(out / "index.html") in capsys.readouterr().out
    names = {p.name for p in out.iterdir()}
    assert f"contract-{viewed.contract_id}.html" in names and f"run-{viewed.runs[1]}.html" in names
    for page in out.iterdir():
        for href in re.findall(r'(?:href|src|action)="(?!data:)([^"#]+)', page.read_text("utf-8")):
            assert "/" not in href and href in names, f"{page.name}: {href}"


def test_view_bundle_json_lists_the_pages(
    viewed: Viewed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert main(["--home", str(viewed.store.home), "view", "--bundle", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["index"] == str((out / "index.html").resolve())
    assert sorted(printed["pages"]) == sorted(p.name for p in out.iterdir())


def test_view_bundle_of_the_generator_view_has_no_scorecard(viewed: Viewed, tmp_path: Path) -> None:
    out = tmp_path / "gen"
    home = str(viewed.store.home)
    assert main(["--home", home, "view", "--bundle", str(out), "--view", "generator"]) == 0
    assert not list(out.glob("scorecard-*.html")) and not (out / "calibration.html").exists()


def test_view_refuses_an_open_bind_without_a_token(
    viewed: Viewed, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--home", str(viewed.store.home), "view", "--host", "0.0.0.0", "--port", "0"])
    assert code == 2 and "--token" in capsys.readouterr().err
    with pytest.raises(TokenRequired):
        ViewServer(viewed.store, "0.0.0.0", 0)


def test_pages_are_served_with_a_policy_that_runs_no_script(served: ViewServer) -> None:
    response = _get(served, "/")
    assert response.status == 200
    assert response.getheader("Content-Security-Policy") == CSP and "script-src" not in CSP
    assert "Contracts" in response.body
    assert _get(served, "/nothing.html").status == 404


def test_a_foreign_host_header_is_refused(served: ViewServer) -> None:
    # DNS rebinding: a page of evil.example resolving its name to 127.0.0.1
    assert _get(served, "/", Host="evil.example").status == 421
    assert _get(served, "/", Host=f"localhost:{served.server_address[1]}").status == 200


def test_with_a_token_every_request_needs_it_once_then_the_cookie(viewed: Viewed) -> None:
    server = ViewServer(viewed.store, "127.0.0.1", 0, token="s3cret-token")
    server.start()
    try:
        assert _get(server, "/").status == 401
        assert _get(server, "/?token=wrong").status == 401
        first = _get(server, "/?token=s3cret-token")
        assert first.status == 303 and first.getheader("Location") == "/index.html"
        cookie = first.getheader("Set-Cookie") or ""
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert _get(server, "/", Cookie=cookie.split(";")[0]).status == 200
        assert _get(server, "/", Authorization="Bearer s3cret-token").status == 200
        # No open redirect: the address after the token is a page of this server.
        away = _get(server, "//evil.example/x?token=s3cret-token")
        assert away.status == 303 and away.getheader("Location") == "/"
        # With a token, the name the machine was reached by does not matter; the token does.
        named = _get(server, "/", Host="viewer.lan:8766", Authorization="Bearer s3cret-token")
        assert named.status == 200
    finally:
        server.close()


def _csrf(server: ViewServer, card: int) -> str:
    body = _get(server, f"/scorecard-{card}.html").body
    found = re.search(r'name="csrf" value="([^"]+)"', body)
    assert found is not None
    return found.group(1)


def test_a_verdict_posted_from_the_page_is_stored(served: ViewServer, viewed: Viewed) -> None:
    card = viewed.cards[2]
    form = {"csrf": _csrf(served, card), "choice": "agree", "verdict": "", "note": "fine"}
    response = _post(served, f"/scorecard-{card}.html", form)
    assert response.status == 200 and "Recorded ACCEPT" in response.body
    assert calibration_rows(viewed.store)[-1].note == "fine"


@pytest.mark.parametrize(
    ("csrf", "origin"), [("forged", None), (None, "http://evil.example"), ("", None)]
)
def test_a_verdict_from_another_site_is_refused(
    served: ViewServer, viewed: Viewed, csrf: str | None, origin: str | None
) -> None:
    card = viewed.cards[2]
    before = len(calibration_rows(viewed.store))
    form = {"csrf": csrf if csrf is not None else _csrf(served, card), "choice": "agree"}
    headers = {"Origin": origin} if origin else {}
    assert _post(served, f"/scorecard-{card}.html", form, **headers).status == 403
    assert len(calibration_rows(viewed.store)) == before


def test_the_generator_view_takes_no_verdict(viewed: Viewed) -> None:
    server = ViewServer(viewed.store, "127.0.0.1", 0, audience="generator")
    server.start()
    try:
        assert _get(server, f"/scorecard-{viewed.cards[1]}.html").status == 404
        form = {"csrf": server.csrf, "choice": "agree"}
        assert _post(server, f"/scorecard-{viewed.cards[1]}.html", form).status == 404
    finally:
        server.close()


def _traced_run(viewed: Viewed, folder: Path, criterion: str = "AC-F-001") -> tuple[str, bytes]:
    trace = folder / f"{criterion}.trace.zip"
    trace.write_bytes(b"PK\x03\x04 a trace as Playwright writes one")
    run_id = browser_run(viewed.store, viewed.runs[2], folder, criterion, trace=trace)
    return run_id, trace.read_bytes()


def _trace_link(body: str) -> str:
    found = re.search(r'href="(/trace/viewer/index\.html\?trace=(/trace/[^"]+))"', body)
    assert found, "no trace link on the run page"
    return found.group(2)


def test_a_kept_trace_opens_in_playwrights_viewer_served_by_the_app(
    served: ViewServer, viewed: Viewed, tmp_path: Path
) -> None:
    run_id, kept = _traced_run(viewed, tmp_path)
    page = _get(served, f"/run-{run_id}.html")
    assert "open the trace of AC-F-001</a> in Playwright's trace viewer" in page.body
    trace = _get(served, _trace_link(page.body))
    assert (trace.status, trace.raw) == (200, kept)
    assert trace.getheader("Content-Type") == "application/zip"
    viewer = _get(served, "/trace/viewer/index.html")
    assert viewer.status == 200 and "Playwright Trace Viewer" in viewer.body
    assert viewer.getheader("Content-Security-Policy") == TRACE_CSP
    worker = _get(served, "/trace/viewer/sw.bundle.js")
    assert worker.getheader("Content-Type") == "text/javascript"
    # The pages themselves still run no script.
    assert page.getheader("Content-Security-Policy") == CSP


@pytest.mark.parametrize(
    "path",
    [
        "/trace/viewer/../../../../etc/passwd",
        "/trace/viewer/%2e%2e/%2e%2e/index.html",
        "/trace/viewer/assets/../../../pyvenv.cfg",
        "/trace/viewer/.hidden",
        "/trace/viewer/",
        "/trace/R1/E1.zip",
        "/trace/../../etc/passwd.zip",
        "/trace/R20991231000000-001x/E999.zip",
    ],
)
def test_a_trace_name_reads_nothing_but_a_kept_trace_or_a_viewer_file(
    served: ViewServer, path: str
) -> None:
    assert _get(served, path).status == 404


def test_a_trace_artifact_leading_out_of_its_run_folder_is_not_served(
    served: ViewServer, viewed: Viewed, tmp_path: Path
) -> None:
    run_id, _ = _traced_run(viewed, tmp_path)
    link = _trace_link(_get(served, f"/run-{run_id}.html").body)
    [kept] = (viewed.store.artifacts / run_id).glob("*.trace.zip")
    outside = tmp_path / "secret.trace.zip"
    outside.write_bytes(b"not the run's")
    kept.unlink()
    kept.symlink_to(outside)
    reply = _get(served, link)
    assert reply.status == 404 and b"not the run's" not in reply.raw


def test_the_generator_view_serves_no_trace_of_a_hold_out(viewed: Viewed, tmp_path: Path) -> None:
    run_id, _ = _traced_run(viewed, tmp_path, criterion="AC-F-002")
    evaluator = ViewServer(viewed.store, "127.0.0.1", 0)
    generator = ViewServer(viewed.store, "127.0.0.1", 0, audience="generator")
    evaluator.start(), generator.start()
    try:
        link = _trace_link(_get(evaluator, f"/run-{run_id}.html").body)
        assert _get(evaluator, link).status == 200
        assert "/trace/" not in _get(generator, f"/run-{run_id}.html").body
        assert _get(generator, link).status == 404
    finally:
        evaluator.close(), generator.close()


def test_the_app_compares_any_two_runs_it_is_asked_for(served: ViewServer, viewed: Viewed) -> None:
    from referee.tools.view import links

    # The running app links every other run, the bundle only the previous one.
    later, earlier = viewed.runs[2], viewed.runs[1]
    page = _get(served, "/" + links.run(earlier))
    assert page.status == 200 and links.compare_runs(later, earlier) in page.body
    shown = _get(served, "/" + links.compare_runs(later, earlier))
    assert shown.status == 200 and shown.getheader("Content-Security-Policy") == CSP
    assert _get(served, "/runs-R1--R2.html").status == 404
