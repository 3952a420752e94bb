#!/bin/sh
# referee's cargo target runner (CARGO_TARGET_<TRIPLE>_RUNNER): runs one test binary, then says on
# the binary's own output stream how it ended. Read by tools/runners/account.py; see
# docs/safety.md.
#
# A libtest binary is asked to list its tests first (`--list`, libtest's own listing: no test
# runs) and then runs with `--logfile`, which libtest writes one line to as each test finishes.
# A binary that exits 0 with fewer entries than it listed, with a failed entry, or with no log at
# all ended outside libtest's own run; a result line on stdout that its log does not hold was
# printed by someone else. The log's name is drawn here, afresh for every binary.
bin=$1
shift
folder=${REFEREE_ACCOUNT:-${TMPDIR:-/tmp}}
case "$bin" in
*/deps/*) ;; # cargo's test targets; anything else is a doc test rustdoc built
*)
	"$bin" "$@"
	status=$?
	printf '\nreferee-account doc %s\n' "$status"
	exit "$status"
	;;
esac
# libtest's own option texts: a binary without them has a harness of its own (harness = false),
# which may not know --list or --logfile.
if ! grep -q -a -F 'Write logs to the specified file' "$bin" ||
	! grep -q -a -F 'Forces tests to run in-process' "$bin"; then
	"$bin" "$@"
	status=$?
	printf '\nreferee-account harness %s\n' "$status"
	exit "$status"
fi
log=$(mktemp -u "$folder/libtest.XXXXXXXXXXXX")
listed=$("$bin" --list "$@" 2>/dev/null | grep -c -E ': (test|benchmark)$')
"$bin" "$@" --logfile "$log"
status=$?
printf '\nreferee-account libtest %s %s %s\n' "$status" "${listed:-0}" "${log##*/}"
exit "$status"
