# SPDX-License-Identifier: GPL-2.0-only
# kill-sweep.sh --- fault injection under strace, for t0400 and t0410  -*- sh -*-
#
# Sourced after lib.sh:
#
#	. "${0%/*}/lib.sh"
#	. "${0%/*}/kill-sweep.sh"
#
# strace -P IMG -e inject=SYSCALL:...:when=J makes the J-th SYSCALL that
# touches IMG fail (error=EIO) or kills the tool on entry to it
# (signal=SIGKILL: the kernel then skips the call, so writes 1..K-1 are
# on the image and the K-th is not).  The unix I/O manager reads the
# image with pread64 and writes it with pwrite64; a superblock updated
# field range by field range (io_channel_write_byte, which the tool
# avoids: see open.c) would be written with lseek + write.  "The K-th
# write" below counts both, in the order the tool makes them; strace
# counts each syscall on its own, so ks_count records which syscall the
# K-th write is.
#
# unix_io retries a failed pread64 (pwrite64) once with lseek + read
# (write), so "EIO on the K-th write" makes that retry fail too; a lone
# pwrite64:error=EIO never reaches the tool (the retry succeeds).
#
# The tool is deterministic on a given image (the tests export
# E2FSPROGS_FAKE_TIME, so not even s_wtime changes from run to run), so
# the K-th write of a counting run is the K-th write of every run; each
# injected run checks that again from its own trace.
#
# Functions (all keep their files in $RUN_DIR):
#   ks_cases kill|eio       the case table, KS_CASES, as that sweep runs it
#   ks_need_strace          skip (77) unless strace can trace and inject
#   ks_base_manifest IMG OUT  the manifest of IMG after e2fsck -fy
#   ks_count IMG [ARGS...]  one clean traced run on a copy of IMG; sets
#                           KS_NW (writes), KS_NR (pread64s), KS_NR0
#                           (pread64s before the first write), KS_BS
#   ks_spread N COUNT       COUNT values spread evenly over [1, N]
#                           (all of 1..N when COUNT >= N or COUNT = all)
#   ks_write_syscall K      "pwrite64 J" or "write J" for the K-th write
#   ks_write_where K        "block B (+C more)" / "superblock field(s)"
#   ks_kill_spec K          inject spec: SIGKILL on entry to write K
#   ks_eio_write_spec K     inject specs: EIO on write K (and its retry)
#   ks_eio_read_spec K      inject specs: EIO on pread64 K (and retry)
#   ks_inject IMG WORK "SPEC..." [ARGS...]
#                           copy IMG to WORK, run the tool on WORK with
#                           -z WORK.e2undo under strace with -e inject=SPEC
#                           for each SPEC; sets KS_RC, KS_TRACE, KS_OUT,
#                           KS_ERR, KS_UNDO
#   ks_injected_blocks TRACE  "FIRST LAST" blocks of the failed I/O
#   ks_done_writes TRACE    how many image writes TRACE shows completed
#   ks_check_undo ORIG KILLED UNDO
#                           e2undo UNDO on a copy of KILLED must give ORIG
#                           byte for byte; on failure KS_WHY says why
#   ks_check_fsck MANIFEST KILLED
#                           e2fsck -fy on a copy of KILLED, then e2fsck -fn
#                           clean and the manifest equal to MANIFEST; on
#                           failure KS_WHY says why; KS_FIXED lists what
#                           e2fsck -fy repaired
#   ks_fsck_n IMG           e2fsck -fn IMG; KS_FSCK_N_RC, KS_FIXED
#
# Environment:
#   E3MP_STRACE   the strace to use (strace)

# The image types both sweeps run (t0400: kill -9, t0410: EIO), so that
# a type added here is swept both ways.  Each case is an image (see
# mkimg.sh) and:
#   ARGS            extra e3metapack arguments
#   KILLS           t0400's kill points in the default run (12)
#   WRITES, READS   t0410's write and read error points in the default
#                   run (6 and 6)
#   SLOW=1          in both sweeps only with E3MP_SLOW=1
#   SLOW=eio        in t0410 only with E3MP_SLOW=1 (t0400 samples it in
#                   the default run too)
#   SLOW_KILLS      t0400's points with E3MP_SLOW=1 (every write)
#   SLOW_WRITES, SLOW_READS  t0410's points with E3MP_SLOW=1 (every write
#                   and 60 reads)
# With E3MP_SLOW=1 every case runs in both sweeps, at every write
# (SLOW_KILLS, SLOW_WRITES where set: a sample for the layout-rule
# variants, which share the mover with the case they vary, swept whole).
KS_CASES='
name=ext2-1k-tind        BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M
name=ext2-1k-full        BS=1024 FSTYPE=ext2           PROFILE=full  SIZE=32M
name=ext3-4k-mixed       BS=4096 FSTYPE=ext3           PROFILE=mixed SIZE=128M GPB=8192
name=ext2-1k-tind-data   BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M  ARGS=--home=data   KILLS=3 SLOW=eio SLOW_WRITES=24 SLOW_READS=12
name=ext2-1k-tind-inline BS=1024 FSTYPE=ext2           PROFILE=tind  SIZE=32M  ARGS=--home=inline KILLS=4 SLOW=eio SLOW_WRITES=24 SLOW_READS=12
name=ext3-1k-tind-delete BS=1024 FSTYPE=ext3           PROFILE=tind  SIZE=32M  ARGS=--order=delete KILLS=3 SLOW=eio SLOW_WRITES=24 SLOW_READS=12
name=ext3-1k-mixed-span  BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  INODES=1024 ARGS=--mc-span=3 KILLS=3 SLOW=eio SLOW_WRITES=24 SLOW_READS=12
name=ext3-1k-dirs        BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=pack   KILLS=4 WRITES=3 READS=2
name=ext3-1k-dirs-volume BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=volume KILLS=4 WRITES=3 READS=2 SLOW_KILLS=48 SLOW_WRITES=48 SLOW_READS=12
name=ext3-1k-dirs-roots  BS=1024 FSTYPE=ext3           PROFILE=dirs  SIZE=64M  ARGS=--dirs=roots  KILLS=4 WRITES=3 READS=2 SLOW=1 SLOW_KILLS=24 SLOW_WRITES=24 SLOW_READS=12
name=ext3-4k-full        BS=4096 FSTYPE=ext3           PROFILE=full  SIZE=64M  GPB=4096 SLOW=1
name=e4csum-1k-aged      BS=1024 FSTYPE=ext4noext-flex PROFILE=aged  SIZE=64M  SLOW=1
name=ext3-1k-homedata    BS=1024 FSTYPE=ext3           PROFILE=mixed SIZE=64M  ARGS=--home=data   SLOW=1 SLOW_WRITES=24 SLOW_READS=12
'

# ks_cases kill|eio: KS_CASES for run_cases, a case marked SLOW=SWEEP
# made slow (SLOW=1) for that sweep only.
ks_cases() {
	local line
	while IFS= read -r line; do
		case " $line " in
		*" SLOW=$1 "*) line=${line/ SLOW=$1/ SLOW=1} ;;
		esac
		printf '%s\n' "$line"
	done <<<"$KS_CASES"
}

# (KS_* variables are results for the sourcing test)
# shellcheck disable=SC2034
E3MP_STRACE=${E3MP_STRACE:-strace}
# LeakSanitizer stops the process with ptrace at exit, which strace holds
KS_ASAN=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# ks_need_strace: strace must be able to trace us, kill on a syscall and
# fail one with EIO; otherwise the test is skipped (containers often
# forbid ptrace).
ks_need_strace() {
	local rc probe=$RUN_DIR/strace-probe
	command -v "$E3MP_STRACE" >/dev/null 2>&1 ||
		skip "needs strace ($E3MP_STRACE)"
	need cmp e2undo
	rc=0
	"$E3MP_STRACE" -qq -o /dev/null -e trace=getpid true \
		>"$probe.log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] ||
		skip "strace cannot trace here (ptrace not permitted?):" \
		     "$(head -n 1 "$probe.log")"
	rc=0
	{ "$E3MP_STRACE" -qq -o /dev/null -e trace=write \
		-e inject=write:signal=SIGKILL:when=1 /bin/echo x \
		>"$probe.log" 2>&1; } 2>/dev/null || rc=$?
	[ "$rc" -eq 137 ] ||
		skip "strace cannot inject SIGKILL (exit $rc):" \
		     "$(head -n 1 "$probe.log")"
	rc=0
	"$E3MP_STRACE" -qq -o /dev/null -e trace=write \
		-e inject=write:error=EIO:when=1 /bin/echo x \
		>"$probe.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -qi 'input/output' "$probe.log"; then
		skip "strace cannot inject EIO (exit $rc)"
	fi
	rm -f "$probe.log"
}

# ks_base_manifest IMG OUT: the manifest of IMG after e2fsck -fy.  The
# sweeps compare with what e2fsck -fy makes of the untouched original:
# on ext3 (dir_index) it indexes the big directories mke2fs -d left
# unindexed (pass 3A), which changes their size and the free count.
ks_base_manifest() {
	local b=$RUN_DIR/base.img rc=0
	cp --sparse=always "$1" "$b"
	e2fsck -fy "$b" >"$b.log" 2>&1 || rc=$?
	if [ "$rc" -gt 1 ]; then
		cat "$b.log" >&2
		fail "e2fsck -fy of the original exited $rc"
	fi
	make_manifest "$b" "$2"
	rm -f "$b" "$b.log"
}

# The image-write lines of an strace -o file: pwrite64 and write calls.
_ks_writes() {
	grep -E '^[0-9]+ +(pwrite64|write)\(' "$1" || true
}

# ks_count IMG [ARGS...]: count the writes and reads of a full run.
ks_count() {
	local img=$1 work=$RUN_DIR/count.img rc=0
	shift
	cp --sparse=always "$img" "$work"
	rm -f "$work.e2undo"
	KS_COUNT_TRACE=$RUN_DIR/count.trace
	ASAN_OPTIONS=$KS_ASAN timeout -k 10 "$E3MP_TIMEOUT" \
		"$E3MP_STRACE" -f -qq -P "$work" \
		-e trace=pread64,pwrite64,read,write \
		-o "$KS_COUNT_TRACE" "$E3MP" -z "$work.e2undo" "$@" "$work" \
		>"$RUN_DIR/count.out" 2>"$RUN_DIR/count.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$RUN_DIR/count.err" >&2
		fail "the counting run (no fault injected) exited $rc"
	fi
	_ks_writes "$KS_COUNT_TRACE" |
		awk '{ split($2, a, "("); n[a[1]]++; print a[1], n[a[1]] }' \
		>"$RUN_DIR/count.seq"
	KS_NW=$(wc -l <"$RUN_DIR/count.seq")
	KS_NR=$(grep -cE '^[0-9]+ +pread64\(' "$KS_COUNT_TRACE" || true)
	KS_NR0=$(awk '/^[0-9]+ +(pwrite64|write)\(/ { exit }
		/^[0-9]+ +pread64\(/ { n++ } END { print n + 0 }' \
		"$KS_COUNT_TRACE")
	KS_BS=$(sb_field "$img" 'Block size')
	[ "$KS_NW" -gt 0 ] || fail "the counting run wrote nothing"
	rm -f "$work" "$work.e2undo"
	info "a full run makes $KS_NW writes to the image" \
	     "($(grep -c '^pwrite64' "$RUN_DIR/count.seq" || true) pwrite64," \
	     "$(grep -c '^write' "$RUN_DIR/count.seq" || true) write)" \
	     "and $KS_NR pread64s ($KS_NR0 before the first write)"
}

# ks_spread N COUNT: COUNT points spread evenly over [1, N], 1 and N
# included, in increasing order.
ks_spread() {
	local n=$1 count=$2
	if [ "$count" = all ] || [ "$count" -ge "$n" ]; then
		seq 1 "$n"
		return 0
	fi
	[ "$count" -ge 2 ] || { echo 1; return 0; }
	awk -v n="$n" -v c="$count" 'BEGIN {
		for (i = 0; i < c; i++) {
			k = 1 + int(i * (n - 1) / (c - 1) + 0.5)
			if (k != last) print k
			last = k
		}
	}'
}

# ks_write_syscall K: which syscall, and which of its kind, the K-th
# write of the counting run is.
ks_write_syscall() {
	sed -n "${1}p" "$RUN_DIR/count.seq"
}

# ks_write_where K: what the K-th write of the counting run writes.
ks_write_where() {
	_ks_writes "$KS_COUNT_TRACE" | sed -n "${1}p" | awk -v bs="$KS_BS" '
		/pwrite64\(/ {
			n = split($0, f, ", ")
			off = f[n]; sub(/\).*/, "", off)
			len = f[n - 1]
			b = int(off / bs); c = int((len + bs - 1) / bs)
			printf "block %d", b
			if (c > 1) printf " (+%d more)", c - 1
			exit
		}
		{ print "superblock field(s)"; exit }'
}

# ks_inject IMG WORK "INJ..." [ARGS...]: INJ are strace inject specs
# (SYSCALL:error=EIO:when=J or SYSCALL:signal=SIGKILL:when=J), space
# separated.
ks_inject() {
	local img=$1 work=$2 inj=$3 i
	local -a iargs=()
	shift 3
	for i in $inj; do
		iargs+=(-e "inject=$i")
	done
	cp --sparse=always "$img" "$work"
	KS_UNDO=$work.e2undo
	rm -f "$KS_UNDO"
	KS_TRACE=$work.trace KS_OUT=$work.out KS_ERR=$work.err
	KS_RC=0
	# (the braces keep bash from reporting "Killed" on stderr)
	{ ASAN_OPTIONS=$KS_ASAN timeout -k 10 "$E3MP_TIMEOUT" \
		"$E3MP_STRACE" -f -qq -P "$work" \
		-e trace=pread64,pwrite64,read,write,lseek "${iargs[@]}" \
		-o "$KS_TRACE" "$E3MP" -z "$KS_UNDO" "$@" "$work" \
		>"$KS_OUT" 2>"$KS_ERR" </dev/null; } 2>/dev/null || KS_RC=$?
	[ "$KS_RC" -ne 124 ] || fail "timed out: strace -e inject=$inj"
}

# ks_kill_spec K: the inject spec that kills the tool on entry to the
# K-th write.
ks_kill_spec() {
	local sc j
	read -r sc j <<<"$(ks_write_syscall "$1")"
	echo "$sc:signal=SIGKILL:when=$j"
}

# The unix I/O manager retries a failed pread64/pwrite64 once with
# lseek + read/write (raw_read_blk/raw_write_blk in unix_io.c), so an
# I/O error that the tool sees must fail that retry too: the next read
# (write) call on the image after the K-th pread64 (pwrite64).

# ks_eio_write_spec K: EIO for the K-th write (and its retry).
ks_eio_write_spec() {
	local sc j w
	read -r sc j <<<"$(ks_write_syscall "$1")"
	if [ "$sc" = write ]; then
		echo "write:error=EIO:when=$j"
		return 0
	fi
	w=$(head -n "$1" "$RUN_DIR/count.seq" | grep -c '^write ' || true)
	echo "pwrite64:error=EIO:when=$j write:error=EIO:when=$((w + 1))"
}

# ks_eio_read_spec K: EIO for the K-th pread64 (and its retry).
ks_eio_read_spec() {
	local r
	r=$(awk -v k="$1" '
		/^[0-9]+ +pread64\(/ { if (++p == k) { print r + 0; exit } }
		/^[0-9]+ +read\(/ { r++ }' "$KS_COUNT_TRACE")
	[ -n "$r" ] || fail "there is no pread64 #$1 in the counting run"
	echo "pread64:error=EIO:when=$1 read:error=EIO:when=$((r + 1))"
}

# ks_injected_blocks TRACE: "FIRST LAST" blocks of the first I/O that
# strace made fail; a superblock field write gives the superblock's
# block.
ks_injected_blocks() {
	awk -v bs="$KS_BS" '
		/^[0-9]+ +lseek\(/ {
			o = $0; sub(/^[^,]*, /, "", o); sub(/,.*/, "", o)
			pos = o + 0
		}
		/INJECTED/ && /p(read|write)64\(/ {
			n = split($0, f, ", ")
			off = f[n]; sub(/\).*/, "", off)
			len = f[n - 1]
			b = int(off / bs)
			print b, int((off + len - 1) / bs)
			exit
		}
		/INJECTED/ && / (read|write)\(/ {
			print int(pos / bs), int(pos / bs)
			exit
		}' "$1"
}

# ks_done_writes TRACE: image writes that completed (killed: "= ?").
ks_done_writes() {
	_ks_writes "$1" | grep -vcE '= \?$' || true
}

# Name the superblock fields that cover byte offsets 1024..2047.
_ks_sb_field() {
	local o=$(($1 - 1024))
	case $o in
	12|13|14|15)	echo s_free_blocks_count ;;
	16|17|18|19)	echo s_free_inodes_count ;;
	44|45|46|47)	echo s_mtime ;;
	48|49|50|51)	echo s_wtime ;;
	52|53)		echo s_mnt_count ;;
	58|59)		echo s_state ;;
	64|65|66|67)	echo s_lastcheck ;;
	*)	if [ "$o" -ge 248 ] && [ "$o" -lt 316 ]; then
			echo s_jnl_blocks
		elif [ "$o" -ge 376 ] && [ "$o" -lt 384 ]; then
			echo s_kbytes_written
		elif [ "$o" -ge 1020 ] && [ "$o" -lt 1024 ]; then
			echo s_checksum
		else
			echo "superblock+$o"
		fi ;;
	esac
}

# _ks_bytes_diff A B: where A and B differ, as "N bytes: OFF(field) ..."
_ks_bytes_diff() {
	local n offs o list=''
	offs=$(cmp -l "$1" "$2" 2>/dev/null | awk '{ print $1 - 1 }' || true)
	n=$(printf '%s\n' "$offs" | grep -c . || true)
	for o in $(printf '%s\n' "$offs" | head -n 6); do
		if [ "$o" -ge 1024 ] && [ "$o" -lt 2048 ]; then
			list="$list $o($(_ks_sb_field "$o"))"
		else
			list="$list $o"
		fi
	done
	[ "$n" -le 6 ] || list="$list ..."
	echo "$n bytes differ:$list"
}

# ks_check_undo ORIG KILLED UNDO: plain e2undo restores ORIG exactly.
ks_check_undo() {
	local orig=$1 killed=$2 undo=$3 u=$RUN_DIR/undone.img rc=0 msg
	KS_WHY=''
	[ -s "$undo" ] || { KS_WHY="no undo file"; return 1; }
	cp --sparse=always "$killed" "$u"
	e2undo "$undo" "$u" >"$u.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && cmp -s "$orig" "$u"; then
		rm -f "$u" "$u.log"
		return 0
	fi
	msg=$({ grep -v -e '^Overwriting' -e '^ *e2undo ' -e '^$' \
		"$u.log" || true; } | tr '\n' ' ' | sed 's/ *$//')
	if [ "$rc" -ne 0 ]; then
		KS_WHY="e2undo exited $rc: $msg"
		# what e2undo -f would have given, for the diagnosis
		cp --sparse=always "$killed" "$u"
		rc=0
		e2undo -f "$undo" "$u" >"$u.log" 2>&1 || rc=$?
		KS_WHY="$KS_WHY; e2undo -f: exit $rc, $(_ks_bytes_diff "$orig" "$u")"
	else
		KS_WHY="e2undo exited 0${msg:+ ($msg)} but $(_ks_bytes_diff "$orig" "$u")"
	fi
	rm -f "$u" "$u.log"
	return 1
}

# _ks_fixed LOG yes|no: what an e2fsck -y (-n) log says it repaired
# (would repair), one short phrase per kind, numbers left out.
_ks_fixed() {
	awk -v a="$2" '
	$0 ~ ("\\? " a "$") {
		m = $0
		sub("[A-Z][a-z]*( [a-z]+)*\\? " a "$", "", m)
		sub(/[ :.]*$/, "", m)
		if (m == "") m = prev
		gsub(/\(.*\)/, "", m); gsub(/[-+]?[0-9]+/, "", m)
		gsub(/#/, "", m); gsub(/  +/, " ", m); sub(/[ :.+-]*$/, "", m)
		if (!(m in seen)) {
			seen[m] = 1
			out = out (out == "" ? "" : "; ") m
		}
	}
	/Superblock invalid, trying backup blocks/ && !sb++ {
		out = out (out == "" ? "" : "; ") \
			"primary superblock invalid, used a backup"
	}
	NF { prev = $0 }
	END { print out }' "$1" 2>/dev/null || true
}

# ks_fsck_n IMG: e2fsck -fn; sets KS_FSCK_N_RC and KS_FIXED (what it
# would repair).
ks_fsck_n() {
	local img=$1 log=$RUN_DIR/fsck-n.log
	KS_FSCK_N_RC=0
	e2fsck -fn "$img" >"$log" 2>&1 || KS_FSCK_N_RC=$?
	KS_FIXED=$(_ks_fixed "$log" no)
}

# ks_check_fsck MANIFEST KILLED: e2fsck -fy repairs KILLED (a copy) into
# a clean volume whose every file is as before.
ks_check_fsck() {
	local man=$1 killed=$2 f=$RUN_DIR/fscked.img rc=0 rc2=0
	KS_WHY='' KS_FIXED=''
	cp --sparse=always "$killed" "$f"
	e2fsck -fy "$f" >"$f.y.log" 2>&1 || rc=$?
	KS_FIXED=$(_ks_fixed "$f.y.log" yes)
	if [ "$rc" -gt 1 ]; then
		KS_WHY="e2fsck -fy exited $rc: $(tail -n 3 "$f.y.log" |
			tr '\n' ' ')"
		cp "$f.y.log" "$RUN_DIR/fsck-y.failed.log"
		return 1
	fi
	e2fsck -fn "$f" >"$f.n.log" 2>&1 || rc2=$?
	if [ "$rc2" -ne 0 ] || grep -Eq '\? (no|yes)$' "$f.n.log"; then
		KS_WHY="e2fsck -fn after e2fsck -fy exited $rc2"
		cp "$f.y.log" "$RUN_DIR/fsck-y.failed.log"
		cp "$f.n.log" "$RUN_DIR/fsck-n.failed.log"
		return 1
	fi
	if ! "$MANIFEST" "$f" >"$f.man" 2>&1; then
		KS_WHY="manifest failed: $(head -n 1 "$f.man")"
		return 1
	fi
	if ! diff "$man" "$f.man" >"$f.diff"; then
		KS_WHY="after e2fsck -fy, the files differ from the original:"
		KS_WHY="$KS_WHY $(grep -c '^[<>]' "$f.diff" || true) manifest"
		KS_WHY="$KS_WHY lines, first: $({ grep -m 1 '^[<>]' "$f.diff" ||
			true; } | cut -c1-100)"
		cp "$f.y.log" "$RUN_DIR/fsck-y.failed.log"
		cp "$f.diff" "$RUN_DIR/manifest.failed.diff"
		return 1
	fi
	rm -f "$f" "$f".*
	return 0
}
