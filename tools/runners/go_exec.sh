#!/bin/sh
# referee's `go test -exec` wrapper: runs one test binary, then says on the binary's own output
# stream (the go command files it under the binary's package) how that binary ended. Read by
# tools/runners/account.py; see docs/safety.md.
#
# The testing package writes -test.memprofile in M.Run's deferred after(), once every test has
# run. So a binary that exits 0 without having written it ended outside the testing package's own
# run (os.Exit in TestMain or init, syscall.Exit in a test, exec, a signal handler): whatever it
# printed is not the runner's account. The file's name is drawn here, afresh for every binary, so
# no test can create it ahead of the run by a known name.
bin=$1
shift
folder=${REFEREE_ACCOUNT:-${TMPDIR:-/tmp}}
mark=$(mktemp -u "$folder/go-mark.XXXXXXXXXXXX") || mark=
case " $* " in
*" -test.memprofile="*) mark= ;; # the command asked for a profile of its own: no mark of ours
esac
if [ -n "$mark" ]; then
	"$bin" "-test.memprofile=$mark" "$@"
else
	"$bin" "$@"
fi
status=$?
if [ -z "$mark" ]; then
	done=-
elif [ -s "$mark" ]; then
	done=1
else
	done=0
fi
rm -f "$mark"
# A leading newline: a binary that left a line unfinished cannot glue this one onto it.
printf '\nreferee-account go %s %s\n' "$status" "$done"
exit "$status"
