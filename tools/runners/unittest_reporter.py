"""Run unittest's own command line and write every test's outcome as JUnit XML.

Usage: python SCRIPT REPORT [unittest arguments]. referee copies this file into its scratch folder
and the project's own interpreter runs it, so it uses the standard library only.
"""

from __future__ import annotations

import os
import sys
import time
import unittest
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # annotations only: the project's interpreter may be older than referee's
    from types import TracebackType

    from referee.tools.runners.instruments_watch import Watch

    _Error = tuple[type[BaseException], BaseException, TracebackType] | tuple[None, None, None]
else:
    try:  # the copy beside this file in a run's folder (the script's folder is on sys.path)
        from referee_instruments import Watch
    except ImportError:  # referee's own package
        from referee.tools.runners.instruments_watch import Watch

# A case the report always carries when the tests' instruments were replaced: its failure is
# the run's, whatever the tests said.
INSTRUMENTS_CASE = "referee.instruments"


class _Result(unittest.TextTestResult):
    cases: ClassVar[list[tuple[str, str, str, float]]] = []
    report: ClassVar[str] = ""
    watch: ClassVar[Watch] = Watch()
    replaced: ClassVar[list[str]] = []

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        self.replaced.extend(f"{name} after {test.id()}" for name in self.watch.replaced())

    def startTest(self, test: unittest.TestCase) -> None:
        self._started = time.perf_counter()
        super().startTest(test)

    def _case(self, test: unittest.TestCase, tag: str = "", text: str = "") -> None:
        seconds = time.perf_counter() - getattr(self, "_started", time.perf_counter())
        self.cases.append((test.id(), tag, text, seconds))

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self._case(test)

    def addFailure(self, test: unittest.TestCase, err: _Error) -> None:
        super().addFailure(test, err)
        self._case(test, "failure", _text(self, err, test))

    def addError(self, test: unittest.TestCase, err: _Error) -> None:
        super().addError(test, err)
        self._case(test, "error", _text(self, err, test))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self._case(test, "skipped", reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: _Error) -> None:
        super().addExpectedFailure(test, err)
        self._case(test, "skipped", "expected failure")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._case(test, "failure", "unexpected success")

    def addSubTest(
        self, test: unittest.TestCase, subtest: unittest.TestCase, err: _Error | None
    ) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None and err[0] is not None:
            tag = "failure" if issubclass(err[0], test.failureException) else "error"
            self._case(subtest, tag, _text(self, err, test))

    def stopTestRun(self) -> None:
        super().stopTestRun()
        self.replaced.extend(f"{name} at the end" for name in self.watch.replaced(deep=True))
        if self.replaced:
            text = (
                "what the tests judge with was replaced during the run: "
                + "; ".join(self.replaced)
                + "\nthe outcomes were decided by the replacement, not by the tests"
            )
            self.cases.append((INSTRUMENTS_CASE, "error", text, 0.0))
        _write(self.report, self.cases)


def _write(report: str, cases: list[tuple[str, str, str, float]]) -> None:
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name="unittest", tests=str(len(cases)))
    for name, tag, text, seconds in cases:
        case = ET.SubElement(suite, "testcase", name=name, time=f"{seconds:.3f}")
        if tag:
            lines = text.strip().splitlines()
            ET.SubElement(case, tag, message=lines[-1] if lines else "").text = text
    ET.ElementTree(root).write(report, encoding="utf-8", xml_declaration=True)


def _text(result: unittest.TestResult, err: _Error, test: unittest.TestCase) -> str:
    # The traceback as unittest itself prints it (a private helper, present since Python 2.7).
    text: str = getattr(result, "_exc_info_to_string")(err, test)  # noqa: B009
    return text


class _Runner(unittest.TextTestRunner):
    resultclass = _Result  # type: ignore[assignment]  # a TextTestResult, as unittest expects


def main() -> None:
    _Result.report = sys.argv.pop(1)
    # `python -m unittest` puts the working directory first on sys.path; a script puts its own.
    sys.path[0] = os.getcwd()
    sys.argv[0] = "python -m unittest"
    _Result.watch.start()  # before unittest imports the tests (and the code they import)
    unittest.main(module=None, testRunner=_Runner)


if __name__ == "__main__":
    main()
