# SPDX-License-Identifier: GPL-2.0-only
# bench/damon.sh --- sourced by the benches whose figures depend on the
# page cache keeping what a run read (emuloop, run, scale)
#
# Some virtual machines' kernels run a kdamond with DAMON's "pageout"
# action (proactive reclaim): it drops page-cache pages a few seconds
# after their last use, so a long run reads again, minutes later, what an
# admin's machine keeps, and a "warm" run finds its image partly cold.
#
#   damon_pause LIST    switch off every kdamond that pages out; each one
#                       switched off is listed in the file LIST
#   damon_resume LIST   switch on again the kdamonds LIST names
#
# A kdamond already off (another bench paused it) is left to whoever
# switched it off.

damon_pause() {
	local k
	: >"$1"
	for k in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
		[ "$(cat "$k/state" 2>/dev/null)" = on ] || continue
		grep -qsx pageout "$k"/contexts/*/schemes/*/action || continue
		echo off >"$k/state" 2>/dev/null || continue
		echo "$k" >>"$1"
		echo "${0##*/}: paused DAMON's pageout ($k)" >&2
	done
}

damon_resume() {
	local k
	[ -f "$1" ] || return 0
	while read -r k; do
		echo on >"$k/state" 2>/dev/null ||
			echo "${0##*/}: could not restart $k" >&2
	done <"$1"
	rm -f "$1"
}
