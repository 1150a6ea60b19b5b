"""What recording alone costs a commit: beside bare, `exit 0` and landwatch's hook, a hook that only
records (HEAD, the ref, the clock, the marker and its ready/ entry), and the quick way tersely.

Run by hand (`python bench/bench_hook_bound.py`). It bounds issue 16's first target from below: no
hook that writes the record of docs/queue.md costs less than "record only", whatever else it
keeps; "every check, terse" is landwatch's quick way as one function of short names (the common
commit only, no line said), so that what the checks cost, written as tightly as they can be, is
measured too. Interleaved like bench_hooks.py, ratios to the bare commit of the same run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench_hooks import drain, scratch_root, setups, timed_commit
from benchlib import isolated_home, new_repo

# The record of docs/queue.md and nothing else: no chained hook, no place or link check, no
# settings, no line, no push or maintenance, no ordering stamp. Not a hook to install.
RECORD_ONLY = r"""#!/bin/sh
[ -d .git/rebase-merge ] || [ -d .git/rebase-apply ] && exit 0
umask 077
w=.git/landwatch
read -r r < .git/HEAD; read -r o < ".git/${r#ref: }"
read -r u _ < /proc/uptime; read -r b < /proc/sys/kernel/random/boot_id
read -r cb bt < $w/boot-time
s=${u%.*}; c=${u#*.}; c=${c#0}
n=$(((bt + s) * 1000000 + c * 10000))
set -C
true > $w/known/review-$o &&
    printf 'landwatch-work-item 1\nkind review\noid %s\nenqueued %s\nproducer %s %s %s\n' \
        "$o" "$n" "$LANDWATCH_HOST" "$b" "$$" >> $w/known/review-$o &&
    printf 'work-tree %s\nend\n' "$PWD" >> $w/known/review-$o &&
    true > $w/ready/review-$o.$n
exit 0
"""

# After the header `landwatch install` writes: the steps of lw_record_quickly for a commit, each
# check of it kept, none of the other paths (it records nothing when one would be needed).
EVERY_CHECK_TERSE = r"""
c=${0%/*}/$LANDWATCH_EVENT.before-landwatch
k=
{ [ "${LANDWATCH_CHAIN-}" = husky ] || [ -x "$c" ]; } && k=1
[ -z "$k" ] && [ "$LANDWATCH_EVENT" = post-commit ] &&
    { [ -d "${GIT_DIR:-.git}/rebase-merge" ] || [ -d "${GIT_DIR:-.git}/rebase-apply" ]; } && exit 0
q() {
    [ "$LANDWATCH_EVENT" = post-commit ] && [ "${0##*/}" = post-commit ] &&
        [ "${LANDWATCH-}" != 0 ] && [ -z "$k" ] || return 1
    umask 077
    g=${GIT_DIR:-.git}
    w=$g/landwatch
    [ -d "$g" ] && [ ! -f "$g/commondir" ] && [ -d "$w" ] && [ ! -L "$w" ] || return 1
    [ -z "${LANDWATCH_REPOSITORY-}" ] || [ "$g" -ef "$LANDWATCH_REPOSITORY" ] || return 1
    [ -d "$w/known" ] && [ ! -L "$w/known" ] && [ -d "$w/ready" ] && [ ! -L "$w/ready" ] ||
        return 1
    c=$w/settings
    [ -f "$c" ] && [ ! -L "$c" ] && [ ! -s "$c" ] && [ ! "$g/config" -nt "$c" ] &&
        [ ! "${HOME:-/}/.gitconfig" -nt "$c" ] &&
        [ ! "${XDG_CONFIG_HOME:-${HOME:-/}/.config}/git/config" -nt "$c" ] || return 1
    [ -e "$w/told" ] && [ ! "$w/failed" -nt "$w/told" ] && [ ! "$w/failed" -ot "$w/told" ] ||
        return 1
    for e in "$w/unread/"* "$w/pending/"* "$w/ready/"*; do [ -e "$e" ] && return 1; break; done
    [ ! -e "$w/untrusted" ] || return 1
    read -r u _ < /proc/uptime && read -r b < /proc/sys/kernel/random/boot_id &&
        [ -f "$w/boot-time" ] && [ ! -L "$w/boot-time" ] && read -r cb bt < "$w/boot-time" &&
        [ "$cb" = "$b" ] && [ ! "$w/boot-time" -nt "/proc/$$" ] || return 1
    s=${u%.*}; cs=${u#*.}; cs=${cs#0}
    case $bt$s$cs in '' | *[!0-9]*) return 1 ;; esac
    case $bt in ????????????*) return 1 ;; esac
    n=$(((bt + s) * 1000000 + cs * 10000))
    read -r r < "$g/HEAD" || return 1
    case $r in "ref: refs/"*) r=${r#ref: } ;; *) return 1 ;; esac
    case $r in *..* | *[!A-Za-z0-9/._-]*) return 1 ;; esac
    [ -f "$g/$r" ] && read -r o < "$g/$r" || return 1
    case $o in '' | *[!0-9a-f]*) return 1 ;; esac
    [ ${#o} -eq 40 ] || [ ${#o} -eq 64 ] || return 1
    l=
    [ -f "$w/last-stamp" ] && [ ! -L "$w/last-stamp" ] && read -r l < "$w/last-stamp"
    case $l in '' | *[!0-9]* | ???????????????????*) l=0 ;; esac
    [ "$n" -gt "$l" ] || n=$((l + 1))
    m=$w/known/review-$o
    set -C
    true > "$m" || return 0
    set +C
    printf 'landwatch-work-item 1
kind review
oid %s
enqueued %s
producer %s %s %s
'         "$o" "$n" "$LANDWATCH_HOST" "$b" "$$" >> "$m" || return 0
    printf 'work-tree %s
end
' "$PWD" >> "$m" || return 0
    set -C
    true > "$w/ready/review-$o.$n"
    set +C
    x=
    [ -f "$w/maintenance-after" ] && read -r x < "$w/maintenance-after"
    case $x in '' | *[!0-9]* | ???????????????????*) x=0 ;; esac
    [ "$n" -ge "$x" ] && return 1
    printf '%s
' "$n" 1<> "$w/last-stamp"
}
q "$@" 3>&2 2>/dev/null
exit 0
"""
HOOK_BODY_STARTS = "# The body of every landwatch git hook"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-", dir=scratch_root()) as scratch:
        root = Path(scratch)
        isolated_home(root)
        repos = {
            **setups(root, "commit"),
            "record only": new_repo(root / "record-only", hooks=True),
            "every check, terse": new_repo(root / "terse", hooks=True),
        }
        for name in ("record only", "every check, terse", "landwatch"):
            timed_commit(repos[name], -1)  # landwatch's hook caches the boot time, the settings
            drain(repos[name])
        (repos["record only"] / ".git/hooks/post-commit").write_text(RECORD_ONLY)
        terse = repos["every check, terse"] / ".git/hooks/post-commit"
        header = terse.read_text()
        terse.write_text(header[: header.index(HOOK_BODY_STARTS)] + EVERY_CHECK_TERSE)
        times: dict[str, list[float]] = {name: [] for name in repos}
        recorded = dict.fromkeys(repos, 0)
        for number in range(args.commits):
            for name, repo in repos.items():
                times[name].append(timed_commit(repo, number))
                recorded[name] += drain(repo)
        bare = statistics.median(times["bare"])
        print(f"git commit, median of {args.commits} interleaved: bare {bare * 1000:.1f} ms")
        for name in ("exit 0", "record only", "every check, terse", "landwatch"):
            ratio = statistics.median(times[name]) / bare
            print(f"  {name:18} {ratio:.2f}x  (reviews recorded and drained: {recorded[name]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
