#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# acc_wrap1.sh CMD [ARGS...]: the outer of the two wrapper shells of the accuracy suite's
# `wrappers` scenario, shaped like `npm run bench` or a pyenv shim: a shell that forks a few
# helper processes (dirname, uname), then runs the next stage (acc_wrap2.sh) as its child and
# waits for it (no exec), passing its exit status on. While it waits, its child runs: that is not
# blocking. The scorer lists these helpers' names among the benchmark's own comms.
here=$(dirname "$0")
kernel=$(uname -r)
[ -n "$kernel" ] || exit 3
"$here/acc_wrap2.sh" "$@"
status=$?
exit "$status"
