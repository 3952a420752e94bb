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
# The command's trailing `--logfile DOC_LOG` is for rustdoc, which bakes it into a merged doc-test
# binary; every binary run here gets a log of its own instead.
skip=0
for arg do
	shift
	if [ "$skip" = 1 ]; then
		skip=0
		continue
	fi
	case $arg in
	--logfile) skip=1 && continue ;;
	--logfile=*) continue ;;
	esac
	set -- "$@" "$arg"
done
log=$(mktemp -u "$folder/libtest.XXXXXXXXXXXX")
# libtest's own option texts: a binary without them has a harness of its own (harness = false, a
# doc test rustdoc built as a program), which may not know --list or --logfile.
if grep -q -a -F 'Write logs to the specified file' "$bin" &&
	grep -q -a -F 'Forces tests to run in-process' "$bin"; then
	harness=libtest
else
	harness=other
fi
case "$bin" in
*/deps/*) ;; # cargo's test targets
*)
	# A doc test. Edition 2024 merges them into one libtest binary, which ignores its arguments
	# (rustdoc baked them in, the doc log among them): its log is moved aside once it is done,
	# and none left by an earlier doc-test run can stand for it.
	rm -f "$folder/doc.log"
	"$bin" "$@"
	status=$?
	if [ "$harness" = libtest ]; then
		mv -f "$folder/doc.log" "$log" 2>/dev/null
		printf '\nreferee-account libtest %s - %s\n' "$status" "${log##*/}"
	else
		printf '\nreferee-account doc %s\n' "$status"
	fi
	exit "$status"
	;;
esac
if [ "$harness" != libtest ]; then
	"$bin" "$@"
	status=$?
	printf '\nreferee-account harness %s\n' "$status"
	exit "$status"
fi
listed=$("$bin" --list "$@" 2>/dev/null | grep -c -E ': (test|benchmark)$')
"$bin" "$@" --logfile "$log"
status=$?
printf '\nreferee-account libtest %s %s %s\n' "$status" "${listed:-0}" "${log##*/}"
exit "$status"
