# The body of every landwatch git hook (post-commit, post-merge, post-rewrite, post-applypatch).
# install writes it after a header (hooks.render_hook) setting LANDWATCH_EVENT, LANDWATCH_ENTRY
# (the per-user entry point), LANDWATCH_HOST, LANDWATCH_REPOSITORY (the common dir installed in;
# in a hooks directory several share, each, a line each) and LANDWATCH_CHAIN (exec or husky).
# What git 2.39 gives each event (`git help hooks`):
#   post-commit      no argument, no stdin; also run for each pick of a rebase
#   post-merge       $1: 1 for a squash merge, else 0; no stdin
#   post-rewrite     $1: amend or rebase; stdin: `<old-oid> SP <new-oid> [SP <extra>] LF` lines
#   post-applypatch  no argument, no stdin; run by git am, and by git rebase --apply
# It records what landed (docs/queue.md) with no process on the happy path, says one line at
# most and never changes git's outcome. The shell parses as it runs, so order is speed: part 1
# has what a common commit needs and ends it before part 2 (which maps the caches) is read.
# shellcheck shell=sh

# ---- 1. Read by every landing -------------------------------------------------------------
# Names and defaults are landwatch.layout's (tests/layout/test_layout.py keeps both equal); $lw_work is
# the worktree's <git-dir>/landwatch, $lw_repo the repository's <common-dir>/landwatch.
lw_default_stale_after=600
lw_default_maintenance=true
lw_default_interval=3600
lw_least_interval=60
lw_longest_setting=4096 # a longer line in the settings cache is none it holds
lw_stale=
lw_kept_as=.before-landwatch
lw_chained="${0%/*}/$LANDWATCH_EVENT$lw_kept_as"
lw_status=0
lw_chain=
lw_mid_rebase=
lw_rebased=
{ [ "${LANDWATCH_CHAIN-}" = husky ] || [ -x "$lw_chained" ]; } && lw_chain=1

# Early exit 1 of 3: a pick of a rebase is no landing (post-rewrite lists them all), before
# anything else is parsed. A submodule's .git file (no GIT_DIR) takes the longer way (exit 3).
lw_rebasing() { [ -d "$1/rebase-merge" ] || [ -d "$1/rebase-apply" ]; }
lw_picked() { [ "$LANDWATCH_EVENT" = post-commit ] && lw_rebasing "${GIT_DIR:-.git}"; }
[ -z "$lw_chain" ] && lw_picked && exit 0

# The kill switch makes landwatch absent: the hook it replaced, if any, runs as it would alone,
# and what landed is only marked skipped, so that the reflog sweep leaves it unreviewed too.
lw_skip=
[ "${LANDWATCH-}" = 0 ] && lw_skip=1

# The functions both ways share: the quick way runs them before part 2 is read, stderr on
# /dev/null (a missing /proc or a race prints nothing) and the person's terminal on fd 3.
lw_said=
lw_nl='
'
lw_unsaid= # a line the quick way left to the whole hook, to be escaped: lw_say
lw_escaping=
lw_replaced= # 1: the notice's stdin (fd 5) holds the pairs a rewrite replaced; 0: it cannot
lw_say() {
    # One line at most, whatever happens. What is not printable ASCII is shown as text.safe
    # shows it, by lw_escaped in part 2: the quick way leaves such a line to the whole hook.
    [ -n "$lw_said" ] && return 0
    lw_said=1
    # Printable ASCII spelt out: [:print:] is the locale's (bash takes U+202E for printable
    # under UTF-8) and so is a range (a collation's order).
    lw_ascii=' !"#$%&'\''()*+,-./:;<=>?@[\]^_`{|}~0123456789'
    lw_ascii=${lw_ascii}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz
    case "$*" in
        *[!"$lw_ascii"]*) [ -n "$lw_escaping" ] || { lw_unsaid="$*"; return 0; } ;;
    esac
    # On a terminal, from the left edge of a cleared line: git's progress (`Rebasing (7/7)`)
    # may have left the cursor mid-line.
    if [ -t 3 ]; then printf '\r\033[K' >&3; fi
    case "$*" in
        *[!"$lw_ascii"]*) lw_escaped "landwatch: $*" >&3 ;;
        *) printf 'landwatch: %s\n' "$*" >&3 ;;
    esac
}

# Nothing of ours is reached through a link (a planted one would send writes elsewhere) or read
# unless a regular file (a FIFO would wait forever); `[ ]` is a builtin.
lw_readable() { [ -f "$1" ] && [ ! -L "$1" ]; }
lw_writable() { lw_readable "$1" || { [ ! -e "$1" ] && [ ! -L "$1" ]; }; }
lw_ours() { [ -d "$1" ] && [ ! -L "$1" ]; }
# A directory of ours, or nothing yet (made on first use).
lw_usable() { lw_ours "$1" || { [ ! -e "$1" ] && [ ! -L "$1" ]; }; }
lw_has_entries() {
    # Whether the directory $1 (given with its slash) holds anything.
    for lw_entry in "$1"*; do
        [ -e "$lw_entry" ] && return 0
        break
    done
    return 1
}

lw_none_old_yet() {
    # Whether oldest-waiting shows that no item waiting can be older than the bound yet: then
    # none is looked at (2,000 waiting made each landing 4 times as slow, 20,000 24 times).
    lw_oldest=$((lw_now - lw_bound * 1000000))
    lw_waiting_since=
    lw_cache=$lw_work/oldest-waiting
    lw_readable "$lw_cache" && [ ! "$lw_work/pending" -nt "$lw_cache" ] &&
        read -r lw_waiting_since < "$lw_cache"
    case $lw_waiting_since in '' | *[!0-9]* | ???????????????????*) return 1 ;; esac
    [ "$lw_waiting_since" -ge "$lw_oldest" ]
}

lw_create() {
    # $1 made exclusively (set -C: O_EXCL, no link followed); `true`, as a failed redirection
    # of the special builtin `:` would exit the shell. Whatever is there already is never
    # opened: with set -C a shell still opens an existing FIFO or device (no O_EXCL), and
    # would wait on a FIFO, and git with it.
    [ -e "$1" ] || [ -L "$1" ] && return 1
    set -C
    true > "$1"
    lw_created=$?
    set +C
    return "$lw_created"
}

lw_valid_oid() {
    case $1 in '' | *[!0-9a-f]*) return 1 ;; esac
    [ ${#1} -eq 40 ] || [ ${#1} -eq 64 ]
}

lw_places() {
    # The repository's directory and ours from $lw_git_dir (a linked worktree's commondir).
    lw_common=$lw_git_dir
    if [ -f "$lw_git_dir/commondir" ] && read -r lw_common < "$lw_git_dir/commondir"; then
        case $lw_common in /*) ;; *) lw_common=$lw_git_dir/$lw_common ;; esac
    fi
    lw_work=$lw_git_dir/landwatch
    lw_repo=$lw_common/landwatch
}

lw_head() {
    # HEAD and the branch's loose ref, as git just wrote them; else git (packed ref, reftable).
    lw_oid=
    read -r lw_ref < "$lw_git_dir/HEAD" || lw_ref=
    case $lw_ref in
        "ref: refs/"*)
            lw_ref=${lw_ref#ref: }
            case $lw_ref in *..* | *[!A-Za-z0-9/._-]*) lw_ref= ;; esac
            [ -n "$lw_ref" ] && [ -f "$lw_common/$lw_ref" ] && read -r lw_oid < "$lw_common/$lw_ref"
            ;;
        *) lw_oid=$lw_ref ;;
    esac
    lw_valid_oid "$lw_oid" && return 0
    lw_oid=$(git rev-parse --verify --quiet "HEAD^{commit}")
    lw_valid_oid "$lw_oid"
}

lw_clock() {
    # µs since the epoch, no process: boot-time (the map, part 2) plus the uptime; 1 when the
    # cache is another boot's or newer than /proc/$$ (the clock went back).
    lw_boot_cache=$lw_work/boot-time
    read -r lw_up _ < /proc/uptime && read -r lw_boot < /proc/sys/kernel/random/boot_id &&
        lw_readable "$lw_boot_cache" && read -r lw_cached_boot lw_btime < "$lw_boot_cache" &&
        [ "$lw_cached_boot" = "$lw_boot" ] && [ ! "$lw_boot_cache" -nt "/proc/$$" ] || return 1
    lw_since_boot
}

lw_since_boot() {
    lw_seconds=${lw_up%.*}
    lw_centis=${lw_up#*.}
    lw_centis=${lw_centis#0}
    case $lw_btime$lw_seconds$lw_centis in '' | *[!0-9]*) return 1 ;; esac
    case $lw_btime in ????????????*) return 1 ;; esac
    lw_now=$(((lw_btime + lw_seconds) * 1000000 + lw_centis * 10000))
}

lw_after_last() {
    # Every stamp after the worktree's last (last-stamp): two landings may come in one tick.
    lw_last=
    lw_readable "$lw_work/last-stamp" && read -r lw_last < "$lw_work/last-stamp"
    case $lw_last in '' | *[!0-9]* | ???????????????????*) lw_last=0 ;; esac
    [ "$lw_now" -gt "$lw_last" ] || lw_now=$((lw_last + 1))
    lw_first=$lw_now
}

lw_remember_last() {
    # In place (1<>), not truncated: see last-stamp in the map.
    [ "${lw_now:-0}" -gt "${lw_first:-0}" ] && lw_writable "$lw_work/last-stamp" &&
        printf '%s\n' "$((lw_now - 1))" 1<> "$lw_work/last-stamp"
}

lw_directories() {
    # pending/ too, which the reviewer makes: a file there would leave what is recorded unclaimed.
    [ ! -L "$lw_repo" ] && [ ! -L "$lw_work" ] && lw_ours "$lw_work/known" &&
        lw_ours "$lw_work/ready" && lw_usable "$lw_work/pending"
}

lw_enqueue() {
    # $1 kind, $2 oid, $3 base or empty, $4 the commits it rewrote (spaces between) or none.
    # known/<id> made exclusively fails when the id is known in any state.
    [ -n "$lw_skip" ] && { lw_mark_skipped "$@"; return 0; }
    lw_id=$1-$2
    lw_marker=$lw_work/known/$lw_id
    if ! lw_create "$lw_marker"; then
        lw_readable "$lw_marker" && return 0
        if [ -e "$lw_marker" ] || [ -L "$lw_marker" ]; then
            lw_say "$lw_marker is no file of landwatch's; ${2%"${2#???????}"} not recorded"
        else
            lw_say "could not record ${2%"${2#???????}"} in $lw_work (read-only or full?)"
        fi
        return 1
    fi
    # The optional lines first, so that the record is one write.
    lw_lines=
    [ -z "$3" ] || lw_lines="base $3
"
    if [ -n "${4-}" ]; then
        # The first on `rewritten`, as a record has always had it; the rest of a squash on one
        # `also-rewritten` line, which a reader before it passes over (docs/queue.md).
        lw_lines="${lw_lines}rewritten ${4%% *}
"
        case $4 in *" "*) lw_lines="${lw_lines}also-rewritten ${4#* }
" ;; esac
    fi
    case $PWD in *"
"*) ;; *) lw_lines="${lw_lines}work-tree $PWD
" ;; esac
    if ! printf 'landwatch-work-item 1\nkind %s\noid %s\nenqueued %s\nproducer %s %s %s\n%send\n' \
        "$1" "$2" "$lw_now" "$LANDWATCH_HOST" "$lw_boot" "$$" "$lw_lines" >> "$lw_marker"; then
        rm -f "$lw_marker" # ours, created above: a torn marker would block the id
        lw_say "could not record ${2%"${2#???????}"} in $lw_work (disk full?)"
        return 1
    fi
    # One µs apart: items of one batch keep their order.
    lw_stamp=$lw_now
    lw_now=$((lw_now + 1))
    # Whole: an empty ready/<id>.<stamp> says so; the reviewer links it into pending/ (no `ln`).
    lw_create "$lw_work/ready/$lw_id.$lw_stamp" && return 0
    # The marker stays: recovery publishes it once this hook is gone, so nothing is lost.
    lw_say "could not publish ${2%"${2#???????}"} in $lw_work; the reviewer will pick it up"
    return 1
}

lw_settings() {
    # landwatch.* of git config from `settings` (the map); 1 when a config file is newer, or it
    # is not what lw_refresh_settings writes (lw_stale: the whole hook does not read it again).
    lw_cache=$lw_repo/settings
    [ -z "$lw_stale" ] && lw_readable "$lw_cache" && [ ! "$lw_common/config" -nt "$lw_cache" ] &&
        [ ! "${HOME:-/}/.gitconfig" -nt "$lw_cache" ] &&
        [ ! "${XDG_CONFIG_HOME:-${HOME:-/}/.config}/git/config" -nt "$lw_cache" ] || return 1
    if [ -s "$lw_cache" ]; then
        lw_fresh=1
        lw_read_settings < "$lw_cache"
        [ -n "$lw_fresh" ] || lw_stale=1
        [ -n "$lw_fresh" ] && lw_usable_settings
    else
        lw_default_settings
    fi
}

lw_default_settings() {
    lw_bound=$lw_default_stale_after
    lw_push_remote=
    lw_maintenance=$lw_default_maintenance
    lw_interval=$lw_default_interval
}

lw_read_settings() {
    # As layout.raw_settings: `KEY VALUE` lines, raw (a key alone is true); `file PATH` lines
    # clear lw_fresh when PATH is newer than the cache, and so does a line lw_cache_settings
    # never writes (garbage, read at every landing until made again).
    lw_default_settings
    while IFS= read -r lw_line; do
        lw_key=${lw_line%%" "*}
        lw_value=true
        case $lw_line in *" "*) lw_value=${lw_line#*" "} ;; esac
        case $lw_key in
            file)
                case $lw_value in /*) ;; *) lw_fresh= ;; esac
                [ -n "$lw_fresh" ] && [ "$lw_value" -nt "$lw_cache" ] && lw_fresh=
                ;;
            landwatch.staleafter) lw_bound=$lw_value ;;
            landwatch.push.remote) lw_push_remote=$lw_value ;;
            landwatch.maintenance) lw_maintenance=$lw_value ;;
            landwatch.maintenance.interval) lw_interval=$lw_value ;;
            landwatch.?*) ;;
            *) lw_fresh= ;;
        esac
        [ ${#lw_line} -le "$lw_longest_setting" ] || lw_fresh=
    done
    [ -z "$lw_line" ] || lw_fresh= # a last line without its line end
}

lw_usable_settings() {
    # layout.SETTINGS' rules (tests/layout/test_layout.py runs these against them): a value that
    # breaks one is its default, told once by lw_check_settings.
    lw_seconds "$lw_bound" || lw_bound=$lw_default_stale_after
    lw_seconds "$lw_interval" || lw_interval=$lw_default_interval
    [ "$lw_interval" -ge "$lw_least_interval" ] || lw_interval=$lw_least_interval
    lw_boolean "$lw_maintenance" || lw_boolean "$lw_default_maintenance"
    lw_maintenance=$lw_on
}

lw_seconds() {
    # 1 to 9 digits (as µs they fit the arithmetic), no leading zero (the arithmetic's octal).
    case $1 in '' | *[!0-9]* | 0?* | ??????????*) return 1 ;; esac
}

lw_boolean() {
    # As git spells one, in any case; lw_on is 1 for true, empty for false.
    case $1 in
        [Tt][Rr][Uu][Ee] | [Yy][Ee][Ss] | [Oo][Nn] | 1) lw_on=1 ;;
        '' | [Ff][Aa][Ll][Ss][Ee] | [Nn][Oo] | [Oo][Ff][Ff] | 0) lw_on= ;;
        *) return 1 ;;
    esac
}

lw_also() {
    # $1 the landed commit, $2 its base: the other kinds of work a landing may ask for.
    [ -n "$lw_skip" ] && return 0
    [ -n "$lw_push_remote" ] && lw_enqueue push "$1" "$2"
    [ -n "$lw_maintenance" ] || return 0
    lw_next=
    lw_readable "$lw_repo/maintenance-after" && read -r lw_next < "$lw_repo/maintenance-after"
    case $lw_next in '' | *[!0-9]* | ???????????????????*) lw_next=0 ;; esac
    # More than an interval ahead (and a minute: this clock counts from btime's whole seconds):
    # written by a clock that has gone back since, so it says nothing of when maintenance is due.
    [ "$lw_next" -le $(((lw_interval + 60) * 1000000 + lw_now)) ] || lw_next=0
    [ "$lw_now" -ge "$lw_next" ] || return 0
    lw_enqueue maintenance "$1" "" && lw_writable "$lw_repo/maintenance-after" &&
        printf '%s\n' $((lw_now + lw_interval * 1000000)) > "$lw_repo/maintenance-after"
    return 0
}

lw_untold() {
    # Given up and not told (told's mtime is failed/'s when told), findings unread, linters
    # held back: the one line's causes but an item waiting too long (lw_something_to_tell).
    if [ "$lw_work/failed" -nt "$lw_work/told" ] || [ "$lw_work/failed" -ot "$lw_work/told" ] ||
        { [ -d "$lw_work/failed" ] && [ ! -e "$lw_work/told" ]; }; then
        lw_has_entries "$lw_work/failed/" && return 0
    fi
    lw_ours "$lw_repo/unread" && lw_has_entries "$lw_repo/unread/" && return 0
    lw_readable "$lw_repo/untrusted"
}

lw_in_place() {
    # The repository install was made for, or one of those a shared hooks directory serves (a
    # line each): one moved or copied since is drained by nobody.
    [ -z "${LANDWATCH_REPOSITORY-}" ] || [ "$lw_common" -ef "$LANDWATCH_REPOSITORY" ] && return 0
    lw_rest=$LANDWATCH_REPOSITORY$lw_nl
    while [ -n "$lw_rest" ]; do
        [ "$lw_common" -ef "${lw_rest%%"$lw_nl"*}" ] && return 0
        lw_rest=${lw_rest#*"$lw_nl"}
    done
    return 1
}

# Early exit 2 of 3, the quick way: lw_record's steps for a commit with nothing to chain or
# tell, a second copy kept in step by hand (tests/githooks/test_events.py compares records).
lw_record_quickly() {
    # Returns 1, recording nothing, when another step is needed: skipped, chained, a .git file,
    # moved, a first landing, settings or clock changed, something to say, or items waiting
    # that oldest-waiting does not show are all younger than the bound (a running reviewer
    # keeps pending/ and ready/ empty; the whole hook judges their age).
    [ "$LANDWATCH_EVENT" = post-commit ] && [ "${0##*/}" = post-commit ] &&
        [ -z "$lw_skip$lw_chain" ] && [ -x "$LANDWATCH_ENTRY" ] || return 1
    umask 077
    lw_git_dir=${GIT_DIR:-.git}
    [ -d "$lw_git_dir" ] && lw_places && [ -d "$lw_repo" ] || return 1
    lw_in_place || return 1
    lw_directories && lw_clock && lw_settings || return 1
    lw_after_last
    ! lw_untold && { lw_none_old_yet ||
        { ! lw_has_entries "$lw_work/pending/" && ! lw_has_entries "$lw_work/ready/"; }; } &&
        lw_head || return 1
    lw_enqueue review "$lw_oid" "" && lw_also "$lw_oid" ""
    lw_remember_last && [ -z "$lw_unsaid" ]
}

lw_record_quickly "$@" 3>&2 2>/dev/null && exit 0

# ---- 2. Read only by a landing the quick way left: the hook we chain, then lw_record --------
lw_find_git_dir() {
    if [ -n "${GIT_DIR-}" ]; then
        lw_git_dir=$GIT_DIR
    elif [ -d .git ]; then
        lw_git_dir=.git
    elif [ -f .git ] && read -r lw_key lw_git_dir < .git && [ "$lw_key" = gitdir: ]; then
        : # a linked worktree or a submodule: the path is relative to the worktree
    else
        lw_git_dir=$(git rev-parse --git-dir) || return 1
    fi
    lw_places
}

# A hook we chain may commit in turn (a version bump, a changelog): what this landing brought is
# read before it runs, so that the commit recorded is the person's, not the one the hook left.
lw_what_landed() {
    # HEAD (lw_oid) and, valid, ORIG_HEAD (lw_base: what a merge moved from) as git left them.
    lw_base=
    [ -f "$lw_git_dir/ORIG_HEAD" ] && read -r lw_base < "$lw_git_dir/ORIG_HEAD"
    lw_valid_oid "$lw_base" || lw_base=
    lw_head
}

lw_landed=
lw_landed_base=
if [ -n "$lw_chain" ]; then
    case $LANDWATCH_EVENT in
        post-commit | post-applypatch | post-merge)
            if lw_find_git_dir 2> /dev/null && lw_what_landed 2> /dev/null; then
                lw_landed=$lw_oid
                lw_landed_base=$lw_base
            fi
            ;;
    esac
fi

# Long comments cost the common landing nothing from here on: it never reads them.
#
# The caches: what each holds, who writes it, who makes it stale and when (docs/hooks.md has the
# same map; docs/queue.md lists every file).
#   $lw_work/boot-time  `BOOT_ID BTIME`: the boot's start, so that the time is /proc/uptime
#       plus it (btime from /proc/stat costs ~0.5 ms). Written by lw_clock_anew when lw_clock
#       finds it another boot's, or newer than /proc/$$ (the clock went back since: the kernel's
#       btime moved with it); the reviewer deletes it when a step of the clock made it wrong
#       (hooks.renew_clock_cache, at its start and whenever its clock jumps).
#   $lw_work/oldest-waiting  the oldest stamp in pending/ and ready/ when the hook last looked
#       at each, 64 or more (lw_something_to_tell), and found none older than the bound. Until
#       that stamp is older than the bound, no item can be: those there then are no older, and
#       every landing since is stamped later (a backoff's due stamp, ahead of the clock, is kept
#       as now). Written by the hook in place (1<>, as last-stamp). Stale when pending/ is
#       newer: the reviewer puts items back there with their landing's stamp.
#   $lw_work/last-stamp  the newest stamp given here: the clock ticks every 10 ms, and a
#       cherry-pick and a revert can land in one tick. Written by lw_remember_last in place
#       (1<>), not truncated: ext4 flushes a file truncated and written again (auto_da_alloc,
#       ~0.2 ms a landing); stamps keep 16 digits until 2286, and what a shorter one would leave
#       comes after the line `read` takes. Never stale: a stamp behind the clock is passed by.
#   $lw_repo/settings  `git config --get-regexp ^landwatch[.]` and `file PATH` for each config
#       file git read but the three lw_settings always looks at (the repository's, ~/.gitconfig
#       and the XDG one: so it is most often empty and not read, `read` taking a byte a call).
#       Written by lw_refresh_settings when one of them is newer, or a line is none it writes
#       (garbage, read at every landing until then); a bad value is told then, so once per
#       change. Written by nobody else.
#   $lw_work/told  the names in failed/ the person was told of, its mtime failed/'s then.
#       Written by `landwatch notice` when it tells, and by install (empty, so that failed/ is
#       not listed until something is given up); stale as soon as failed/ changes (its mtime).
#   $lw_repo/unread/  a <commit> per review with findings nobody was told of: made by
#       report_store, removed by notice once told.
#   $lw_repo/held/  a <commit> per review whose line waits for its project hooks: made and
#       removed by report_store; looked at only for the commits a rewrite replaced (lw_waiting).
#   $lw_repo/untrusted  committed linters a review held back: written by trust, removed once
#       the line told of them (trust.mark_told) or they are trusted.
#   $lw_repo/maintenance-after  the µs stamp before which no landing asks for maintenance.
#       Written by lw_also when it asks (now plus the interval) and by kinds.maintenance when
#       maintenance ran or git's own maintenance is in charge; moved by the reviewer when
#       the clock steps, and read as due when it is more than an interval ahead.
#   $lw_repo/moved-told, displaced-told, gone-told  a line said once: the repository moved, the
#       hook moved aside by another manager, the entry point gone. Made by the hook as it says
#       so; removed by `landwatch install`, so that it is said again if it happens again.

# The hook we chain runs first, as it ran before landwatch, and its status is this hook's.
# post-rewrite is the only event git gives a stdin to. When a hook we chain needs it too, it is
# read once, by one `cat` (a shell loop appending to a string is quadratic: 20,000 lines took
# 13 s), and given to both; otherwise the recording loop reads it straight from stdin.
lw_input=
lw_buffered=
if [ "$LANDWATCH_EVENT" = post-rewrite ] && [ -n "$lw_chain" ]; then
    lw_input=$(cat && echo .) # the dot keeps the trailing line ends $(...) would strip
    lw_input=${lw_input%.}
    lw_buffered=1
fi

lw_generated_by() {
    # Whether the hook $2 is a script generated by $1 (its second line says so).
    lw_line=
    { read -r lw_line && read -r lw_line; } 2>/dev/null < "$2"
    case $lw_line in "# File generated by $1"*) return 0 ;; esac
    return 1
}

lw_husky_hook() {
    # Whether the kept hook is husky 1 to 4's: `#!/bin/sh`, then its mark on a line of its own
    # (hooks.whose's). Not read unless a regular file: a FIFO would wait forever. The mark is
    # spelt in two halves: husky 4 takes a hook that holds it anywhere for its own (render_hook).
    [ -f "$lw_chained" ] || return 1
    { read -r lw_line && [ "$lw_line" = '#!/bin/sh' ] && read -r lw_line &&
        [ "$lw_line" = '#'' husky' ]; } 2>/dev/null < "$lw_chained"
}

lw_run_kept() {
    # The kept hook, run by its own path as git ran it: a link's target, BASH_SOURCE and a re-run
    # of "$0" (`exec bash "$0"`) are its own. husky 1 to 4's finds its event by its own name and
    # its husky.sh beside it, so it alone is sourced by sh as <hooks dir>/<event>.
    if lw_husky_hook; then
        /bin/sh -c ". \"\$0$lw_kept_as\"" "${0%/*}/$LANDWATCH_EVENT" "$@"
    else
        "$lw_chained" "$@"
    fi
}

if [ "${LANDWATCH_CHAIN-}" = husky ]; then
    # The shim husky wrote had this name; its `h` finds the user's .husky/<event> by this hook's
    # name, so it runs here, as this hook ($0), in a subshell.
    if [ -f "${0%/*}/h" ]; then
        # The file is husky's own, there only at run time: shellcheck is not to look for it.
        if [ "$LANDWATCH_EVENT" = post-rewrite ]; then
            # shellcheck source=/dev/null
            printf '%s' "$lw_input" | (. "${0%/*}/h")
        else
            # shellcheck source=/dev/null
            (. "${0%/*}/h")
        fi
        lw_status=$?
    fi
elif [ -x "$lw_chained" ]; then
    # Run as pre-commit's (or prek's) legacy hook, a copy of their own script kept aside by an
    # older landwatch would run them twice (and pre-commit calls that a bug): it is skipped.
    if { [ -n "${PRE_COMMIT_RUNNING_LEGACY-}" ] && lw_generated_by pre-commit "$lw_chained"; } ||
        { [ -n "${PREK_RUNNING_LEGACY-}" ] && lw_generated_by prek "$lw_chained"; }; then
        :
    elif [ "$LANDWATCH_EVENT" = post-rewrite ]; then
        printf '%s' "$lw_input" | lw_run_kept "$@"
        lw_status=$?
    else
        lw_run_kept "$@"
        lw_status=$?
    fi
fi

# Early exit 3 of 3: a pick of a rebase, once the hook we chain has had it.
lw_picked && exit "$lw_status"

# The whole hook: lw_record, at the end, and what only it needs.
# A line holding what is not printable ASCII (a path, a setting's text: a copied repository's)
# carries no terminal escape, bidirectional control or character that hides: shown as text.safe
# shows it, in one od. Parsed only here.
# What text.safe shows as an escape past the C1 controls, in ranges of hex code points: every
# format character (Unicode's category Cf: bidirectional controls, zero-width spaces, tags...) of
# Unicode 15.1 (Python 3.13's; 3.11's Unicode 14 has U+13439-1343F unassigned yet), and its
# _INVISIBLE and ignorable plane; in order, as lw_hidden_code stops at the first range past the
# code point. tests/githooks/test_escaping.py holds them equal for every code point.
lw_hidden='ad 34f 600-605 61c 6dd 70f 890-891 8e2 115f-1160 17b4-17b5 180b-180f 200b 200e-200f
2028-202e 2060-206f 3164 fe00-fe0e feff ffa0 fff0-fffb 110bd 110cd 13430-1343f 1bca0-1bca3
1d173-1d17a e0000-e0fff'
# text.safe's _JOINERS: kept after a character past Latin-1 (a script's, an emoji's), else hidden.
lw_joiners='200c 200d fe0f'

lw_escaped() {
    # $1 as text.safe shows it (one od): C0, DEL and C1 controls, and bytes that are not UTF-8,
    # as \xNN, what lw_hidden_code names as \uNNNN or \UNNNNNNNN; the rest as it was, each byte
    # an octal escape of printf's format.
    lw_format=
    lw_held=
    lw_previous=0
    for lw_byte in $(printf %s "$1" | od -An -v -to1); do
        lw_n=$((0$lw_byte))
        if [ -n "$lw_held" ] && [ "$lw_n" -ge 128 ] && [ "$lw_n" -lt 192 ]; then
            lw_held="$lw_held $lw_byte"
            lw_code=$((lw_code * 64 + lw_n - 128))
            lw_need=$((lw_need - 1))
            [ "$lw_need" -gt 0 ] || lw_decoded
            continue
        fi
        lw_escape_held
        if [ "$lw_n" -gt 31 ] && [ "$lw_n" -lt 127 ]; then
            lw_format="$lw_format\\$lw_byte"
            lw_previous=$lw_n
        elif [ "$lw_n" -gt 193 ] && [ "$lw_n" -lt 245 ]; then
            lw_held=$lw_byte
            lw_need=$(((lw_n > 223) + (lw_n > 239) + 1))
            lw_code=$((lw_n & (63 >> lw_need)))
        else
            lw_hex "$lw_n"
            lw_previous=$lw_n
        fi
    done
    lw_escape_held
    # shellcheck disable=SC2059 # the format is the text, each byte escaped above
    printf "$lw_format\\n"
}

lw_decoded() {
    # A whole UTF-8 sequence: a C1 control or what lw_hidden_code names escaped; overlong, a
    # surrogate or past U+10FFFF, a byte at a time; anything else as it was.
    lw_least=$((${#lw_held} < 8 ? 128 : ${#lw_held} < 12 ? 2048 : 65536))
    if [ "$lw_code" -lt 160 ] && [ "$lw_code" -ge 128 ]; then
        lw_hex "$lw_code"
        lw_code=0 # shown as an escape: a joiner after it stands after ASCII, as in text.safe
    elif [ "$lw_code" -lt "$lw_least" ] || [ "$lw_code" -gt 1114111 ] ||
        { [ "$lw_code" -ge 55296 ] && [ "$lw_code" -lt 57344 ]; }; then
        lw_escape_held
        return
    elif lw_hidden_code; then
        lw_hex "$lw_code"
        lw_code=0
    else
        for lw_each in $lw_held; do lw_format="$lw_format\\$lw_each"; done
    fi
    lw_previous=$lw_code
    lw_held=
}

lw_hidden_code() {
    # Whether text.safe escapes $lw_code, a character past the C1 controls after $lw_previous.
    for lw_each in $lw_joiners; do
        [ "$lw_code" -eq $((0x$lw_each)) ] && { [ "$lw_previous" -lt 256 ]; return; }
    done
    for lw_each in $lw_hidden; do
        [ "$lw_code" -lt $((0x${lw_each%-*})) ] && return 1
        [ "$lw_code" -gt $((0x${lw_each#*-})) ] || return 0
    done
    return 1
}

lw_escape_held() {
    # Each byte held \xNN: a joiner after one is hidden, as text.safe hides it after an escape.
    for lw_each in $lw_held; do
        lw_previous=$((0$lw_each))
        lw_hex "$lw_previous"
    done
    lw_held=
}

lw_hex() {
    # The code point $1 as text.safe spells it: \xNN below 256, else \uNNNN, past U+FFFF
    # \UNNNNNNNN; lower-case digits.
    lw_bits=8
    lw_letter=x
    [ "$1" -lt 256 ] || { lw_bits=16 && lw_letter=u; }
    [ "$1" -lt 65536 ] || { lw_bits=32 && lw_letter=U; }
    lw_format="$lw_format\\\\$lw_letter"
    while [ "$lw_bits" -gt 0 ]; do
        lw_bits=$((lw_bits - 4))
        lw_digit=$(($1 >> lw_bits & 15))
        case $lw_digit in 10) lw_digit=a ;; 11) lw_digit=b ;; 12) lw_digit=c ;; 13) lw_digit=d ;;
            14) lw_digit=e ;; 15) lw_digit=f ;; esac
        lw_format=$lw_format$lw_digit
    done
}

lw_escaping=1

lw_make_directories() {
    for lw_entry in "$lw_repo" "$lw_work" "$lw_work/known" "$lw_work/ready"; do
        if [ -L "$lw_entry" ] || { [ -e "$lw_entry" ] && [ ! -d "$lw_entry" ]; }; then
            lw_say "$lw_entry is not a directory of landwatch's; not following it, nothing recorded"
            return 1
        fi
    done
    # A worktree added after the install (or a work directory of an older landwatch): made on
    # its first landing.
    mkdir -p "$lw_work/known" "$lw_work/ready" || {
        lw_cannot_make
        return 1
    }
    # Recorded all the same (ready/ keeps it until pending/ is mended), and said at each landing.
    lw_usable "$lw_work/pending" || lw_say "$lw_work/pending is not a directory of landwatch's:" \
        "what lands here is recorded but not reviewed; run: landwatch doctor"
}

lw_cannot_make() {
    # A shared repository's work directory is the one of whoever installed landwatch there:
    # there, but not to be written by this person (two processes, on this failure only).
    lw_owner=
    [ -d "$lw_work" ] && read -r _ _ lw_owner _ <<EOF
$(ls -nd "$lw_work")
EOF
    if [ -n "$lw_owner" ] && [ "$lw_owner" != "$(id -u)" ]; then
        lw_say "the work directory $lw_work is another user's (uid $lw_owner): nothing of" \
            "yours is recorded here"
    else
        lw_say "cannot create the work directory $lw_work"
    fi
}

lw_clock_anew() {
    # The boot time from the kernel, cached in boot-time; `date` where there is no /proc.
    lw_boot=-
    if read -r lw_up _ < /proc/uptime; then
        read -r lw_boot < /proc/sys/kernel/random/boot_id || lw_boot=-
        lw_btime=
        while read -r lw_key lw_value _; do
            [ "$lw_key" = btime ] && lw_btime=$lw_value && break
        done < /proc/stat
        lw_since_boot && {
            [ "$lw_boot" = - ] || ! lw_writable "$lw_work/boot-time" ||
                printf '%s %s\n' "$lw_boot" "$lw_btime" > "$lw_work/boot-time"
            return 0
        }
    fi
    lw_now=$(date +%s) || return 1
    case $lw_now in '' | *[!0-9]*) return 1 ;; esac
    lw_now=$((lw_now * 1000000))
}

lw_refresh_settings() {
    # `settings` made anew from git config, and a value the hook cannot use told: once per
    # change of the configuration, the cache being made only then. A cache that cannot be
    # made (a link, a read-only work directory: the record's line says so) leaves them read
    # from git itself, and a bad value untold until it can be.
    lw_fresh=
    if lw_writable "$lw_cache" && lw_cache_settings > "$lw_cache"; then
        lw_read_settings < "$lw_cache"
        lw_check_settings
    else
        lw_writable "$lw_cache" || lw_say "$lw_cache is not a regular file; not following it"
        lw_read_settings <<EOF
$(git config --get-regexp '^landwatch[.]')
EOF
    fi
    lw_usable_settings
}

lw_check_settings() {
    # The values lw_usable_settings will not use, with layout.SETTINGS' words and in its order
    # (lw_say keeps the first). The settings the hook does not read are the Python side's.
    lw_seconds "$lw_bound" ||
        lw_not_seconds landwatch.staleAfter "$lw_bound" "$lw_default_stale_after"
    lw_boolean "$lw_maintenance" ||
        lw_say "git config landwatch.maintenance = '$lw_maintenance' is not true or false;" \
            "landwatch keeps maintenance on"
    if ! lw_seconds "$lw_interval"; then
        lw_not_seconds landwatch.maintenance.interval "$lw_interval" "$lw_default_interval"
    elif [ "$lw_interval" -lt "$lw_least_interval" ]; then
        lw_say "git config landwatch.maintenance.interval = '$lw_interval' is less than" \
            "$lw_least_interval seconds; landwatch uses $lw_least_interval"
    fi
}

lw_not_seconds() {
    lw_say "git config $1 = '$2' is not a whole number of seconds (1 to 9 digits, no leading" \
        "zero); landwatch uses $3"
}

lw_cache_settings() {
    # A value's line ends (git prints them as they are) left out: the cache holds KEY lines only.
    git config --get-regexp '^landwatch[.]' | while IFS= read -r lw_line; do
        case $lw_line in landwatch.?*) printf '%s\n' "$lw_line" ;; esac
    done
    # `file PATH` for each config file git read but the three lw_settings always looks at;
    # relative ones are relative to this worktree.
    lw_previous=
    lw_tab='	' # a literal tab: the separator of --show-origin
    git config --list --show-origin --name-only | while IFS= read -r lw_line; do
        case $lw_line in file:*) ;; *) continue ;; esac
        lw_line=${lw_line#file:}
        lw_line=${lw_line%%"$lw_tab"*}
        case $lw_line in /*) ;; *) lw_line=$PWD/$lw_line ;; esac
        [ "$lw_line" = "$lw_previous" ] && continue
        lw_previous=$lw_line
        [ "$lw_line" -ef "$lw_common/config" ] || [ "$lw_line" -ef "${HOME:-/}/.gitconfig" ] ||
            [ "$lw_line" -ef "${XDG_CONFIG_HOME:-${HOME:-/}/.config}/git/config" ] ||
            printf 'file %s\n' "$lw_line"
    done
    return 0
}

lw_check_displaced() {
    # Running as <event>.legacy or <event>.old other than where pre-commit or prek run it (they
    # say so in their environment): something moved this hook aside. Said once, until landwatch
    # is installed again.
    case ${0##*/} in
        *.legacy) [ -z "${PRE_COMMIT_RUNNING_LEGACY-}${PREK_RUNNING_LEGACY-}" ] || return 0 ;;
        *.old) ;;
        *) return 0 ;;
    esac
    lw_writable "$lw_repo/displaced-told" && [ ! -e "$lw_repo/displaced-told" ] || return 0
    true > "$lw_repo/displaced-told"
    lw_say "another hook manager moved landwatch's hooks aside (${0##*/}); what still covers" \
        "this repository: landwatch doctor"
}

lw_check_place() {
    # Not in place (lw_in_place): said once here (no process), the items kept for later.
    lw_in_place && return 0
    lw_writable "$lw_repo/moved-told" && [ ! -e "$lw_repo/moved-told" ] || return 0
    true > "$lw_repo/moved-told"
    case $LANDWATCH_REPOSITORY in
        *"$lw_nl"*)
            lw_hooks_dir
            lw_say "this repository is none of those the shared hooks in $lw_hooks were installed" \
                "for: moved or copied, nothing reviews what lands here; run: landwatch install" \
                "--hooks-path $lw_hooks"
            ;;
        *) lw_say "this repository is not the one landwatch was installed in" \
            "($LANDWATCH_REPOSITORY): moved or copied, nothing reviews what lands here; run:" \
            "landwatch install" ;;
    esac
}

lw_hooks_dir() {
    # The directory this hook is in, whole: git runs it from the top of the worktree.
    lw_hooks=${0%/*}
    case $lw_hooks in /*) ;; *) lw_hooks=$PWD/$lw_hooks ;; esac
}

lw_something_to_tell() {
    # What the one line would say: lw_untold, or an item waiting longer than the bound.
    lw_untold && return 0
    lw_none_old_yet && return 1
    lw_first_waiting=
    set -- "$lw_work/pending/"* "$lw_work/ready/"*
    for lw_entry; do
        lw_stamp=${lw_entry##*.}
        # 19 digits may not fit the shell's arithmetic; none is old (that is year 2286).
        case $lw_stamp in '' | *[!0-9]* | ???????????????????*) continue ;; esac
        [ "$lw_stamp" -lt "$lw_oldest" ] && return 0
        [ "${lw_first_waiting:-$lw_stamp}" -lt "$lw_stamp" ] || lw_first_waiting=$lw_stamp
    done
    # Kept where looking at each costs more than the write (a landing's own item alone, as a
    # hook chaining another's leaves, would write it at every commit: 0.2 ms). A backoff's
    # stamp is when it is due, ahead of the clock; each landing from now on is stamped at now
    # or later, so now bounds what is kept. In place (1<>), as last-stamp: see oldest-waiting
    # in the map.
    [ $# -ge "$lw_worth_keeping" ] || return 1
    [ "${lw_first_waiting:-0}" -gt "$lw_now" ] && lw_first_waiting=$lw_now
    [ -n "$lw_first_waiting" ] && lw_writable "$lw_work/oldest-waiting" &&
        printf '%s\n' "$lw_first_waiting" 1<> "$lw_work/oldest-waiting"
    return 1
}

lw_mark_skipped() {
    # A landing made with LANDWATCH=0: skipped/<oid> for its review, nothing else.
    [ "$1" = review ] || return 0
    lw_create "$lw_work/skipped/$2"
}

lw_notice() {
    # Python (and rich) start only when there is something to say.
    [ -n "$lw_said$lw_skip" ] && return 0 # one line at most: it has been said
    if [ ! -x "$LANDWATCH_ENTRY" ]; then
        # Said once, at the first landing after: landwatch was removed for this user, its hooks
        # left here; silent after. Its `landwatch uninstall` went with it.
        lw_writable "$lw_repo/gone-told" && [ ! -e "$lw_repo/gone-told" ] || return 0
        true > "$lw_repo/gone-told"
        lw_hooks_dir
        lw_say "$LANDWATCH_ENTRY is gone, so nothing reviews what lands here: reinstall" \
            "landwatch (./install.sh), or delete the hooks marked '# landwatch-hook' in $lw_hooks"
        return 0
    fi
    if [ -n "$lw_mid_rebase" ]; then
        # Nothing said mid-rebase (the rebase's own post-rewrite speaks); what the amend
        # replaced is set aside all the same.
        [ "$lw_replaced" = 1 ] || return 0
        "$LANDWATCH_ENTRY" notice --git-dir "$lw_git_dir" --set-aside - <&5 5<&- 2>&3
        return 0
    fi
    lw_something_to_tell || [ "$lw_replaced" = 1 ] || return 0
    if [ "$lw_replaced" = 1 ]; then
        "$LANDWATCH_ENTRY" notice --git-dir "$lw_git_dir" --replaced - <&5 5<&- 2>&3
    else
        "$LANDWATCH_ENTRY" notice --git-dir "$lw_git_dir" < /dev/null 2>&3
    fi
}

lw_by_exec() {
    # Whether a rebase is running one of its `exec` lines (the last of its done list): an amend
    # then is the command's. The rebase's own squashes and fixups amend too, mid-rebase, and
    # its list names every commit they fold in. One `tail`, only for an amend mid-rebase.
    lw_rebasing "$lw_git_dir" && [ -f "$lw_git_dir/rebase-merge/done" ] || return 1
    case $(tail -n 1 -- "$lw_git_dir/rebase-merge/done" 2>/dev/null) in
        'exec '* | 'x '*) return 0 ;;
    esac
    return 1
}

lw_nothing_landed() {
    case $LANDWATCH_EVENT in
        post-commit)
            # During a rebase post-rewrite gives the authoritative list; a pick is not a landing.
            lw_rebasing "$lw_git_dir"
            ;;
        post-merge) [ "${1-}" != 0 ] ;;     # 1: a squash merge committed nothing
        # amend: post-commit recorded the new commit; not one a rebase's exec made, whose pick
        # is all the rebase's list names (post-commit records nothing mid-rebase).
        post-rewrite) [ "${1-}" != rebase ] && { [ "${1-}" != amend ] || ! lw_by_exec; } ;;
        # git am, not git rebase --apply (whose post-rewrite gives the list).
        post-applypatch) [ ! -f "$lw_git_dir/rebase-apply/applying" ] ;;
        *) true ;;
    esac
}

# The most commits one record names as replaced (work_item.MAX_REWRITTEN): the record's bound.
lw_most_rewritten=256
# Items waiting past which the oldest stamp is kept in oldest-waiting (lw_something_to_tell).
lw_worth_keeping=64

lw_rewritten() {
    # post-rewrite's `old new` lines on stdin, in the current shell (no pipe, no subshell). A
    # squash or fixup gives one new commit for several old ones, on lines in a row: its record
    # names each (at most lw_most_rewritten), so that its review knows what was seen of them.
    lw_tip=
    lw_into=
    while read -r lw_old lw_new _ || [ -n "$lw_old" ]; do
        lw_valid_oid "$lw_new" || continue
        lw_valid_oid "$lw_old" || lw_old=
        if [ "$lw_new" != "$lw_into" ]; then
            [ -z "$lw_into" ] || lw_rewrote
            lw_into=$lw_new
            lw_olds=$lw_old
            lw_count=1
        elif [ -n "$lw_old" ] && [ "$lw_count" -lt "$lw_most_rewritten" ]; then
            lw_olds=${lw_olds:+$lw_olds }$lw_old # one more folded into the same new commit
            lw_count=$((lw_count + 1))
        fi
        # A line waiting to tell of a commit this rewrite replaced: set aside by the notice.
        [ -n "$lw_old" ] && lw_waiting "$lw_old" && lw_replacing "$lw_old" "$lw_new"
    done
    [ "$lw_replaced" = 1 ] && exec 4>&- # written whole: only the notice reads it, on fd 5
    [ -z "$lw_into" ] || lw_rewrote
    # One push and one maintenance for the whole rewrite: its tip carries the rest. A rebase's
    # is HEAD as it ends, for its list names a pick its last exec may have amended since, which
    # no branch holds. None for an amend mid-rebase: the rebase's post-rewrite asks for its tip's.
    [ -z "$lw_tip" ] || [ -n "$lw_mid_rebase" ] && return 0
    [ -n "$lw_rebased" ] && lw_head && lw_tip=$lw_oid
    lw_also "$lw_tip" ""
}

lw_replacing() {
    # `$1:$2` for the notice to set aside, a line in a file it reads on its stdin: in one
    # argument, ~1,600 rewritten commits passed Linux's 128 KiB (MAX_ARG_STRLEN) and the shell
    # said `Argument list too long`, and a string grown a pair at a time is quadratic. The file
    # is made at the first pair (exclusively, 0600), held open on fd 4 to write and fd 5 to read,
    # and removed at once: nothing of it outlives the hook but what one killed right here left.
    # Whatever is there then (that, or a directory, a link, a FIFO planted) is removed as it is,
    # never followed nor opened (rm -r follows no link), and the file made again: once, left
    # there, it stopped every rewrite's pairs. `command` keeps a failed `exec` from ending the
    # shell; what cannot be written is left to the notice's check of the commits nobody has.
    if [ -z "$lw_replaced" ]; then
        lw_replaced=0
        lw_pairs=$lw_work/rewrite-pairs
        [ -z "$lw_skip" ] || return 0
        lw_create "$lw_pairs" || { rm -rf -- "$lw_pairs" && lw_create "$lw_pairs"; } || return 0
        # shellcheck disable=SC2094 # fd 5 reads it once fd 4 has written it whole (the notice)
        command exec 4>> "$lw_pairs" 5< "$lw_pairs" && lw_replaced=1
        rm -f "$lw_pairs"
    fi
    [ "$lw_replaced" = 1 ] && printf '%s:%s\n' "$1" "$2" >&4
}

lw_waiting() {
    # Whether a line waits to tell of the commit $1: unread, or held for its project hooks.
    [ -f "$lw_repo/unread/$1" ] || [ -f "$lw_repo/held/$1" ]
}

lw_amended() {
    # post-rewrite of an amend: post-commit recorded the new commit, and its notice set aside
    # an unread line of the old one (from HEAD's reflog), but none is started for a line held
    # for the old one's project hooks, told of a commit gone once they end. Set aside here, by
    # a notice that says nothing (post-commit's line spoke for the landing); no process when
    # no line waits at all.
    [ "$LANDWATCH_EVENT" = post-rewrite ] && [ "${1-}" = amend ] && [ -z "$lw_skip" ] &&
        { lw_has_entries "$lw_repo/held/" || lw_has_entries "$lw_repo/unread/"; } &&
        lw_in_place && [ -x "$LANDWATCH_ENTRY" ] || return 0
    lw_old=
    if [ -n "$lw_buffered" ]; then
        read -r lw_old lw_new _ <<EOF
$lw_input
EOF
    else
        read -r lw_old lw_new _
    fi
    lw_valid_oid "$lw_old" && lw_valid_oid "$lw_new" && lw_waiting "$lw_old" || return 0
    "$LANDWATCH_ENTRY" notice --git-dir "$lw_git_dir" --set-aside "$lw_old:$lw_new" \
        < /dev/null 2>&3
}

lw_rewrote() {
    # The record of $lw_into, naming the commits it replaced ($lw_olds).
    lw_enqueue review "$lw_into" "" "$lw_olds" && lw_tip=$lw_into
}

lw_landed() {
    # lw_what_landed as this landing left them: read before the hook we chain ran, where one ran.
    if [ -z "$lw_landed" ]; then
        lw_what_landed
        return
    fi
    lw_oid=$lw_landed
    lw_base=$lw_landed_base
}

lw_record() {
    umask 077
    [ -z "$lw_unsaid" ] || { lw_said= && lw_say "$lw_unsaid"; } # the quick way's, escaped now
    lw_find_git_dir || return 0
    if lw_nothing_landed "$@"; then
        lw_amended "$@"
        return 0
    fi
    # Not installed in this repository, stay silent: a shared hooks directory runs here too
    # (no work directory, or one `uninstall --keep-data` kept: no hooks-dir), or it was removed.
    # One moved or copied keeps its hooks-dir, and lw_check_place says so.
    [ -d "$lw_repo" ] && { lw_in_place || [ -f "$lw_repo/hooks-dir" ]; } || return 0
    lw_directories || lw_make_directories || return 0
    if [ -n "$lw_skip" ]; then
        lw_ours "$lw_work/skipped" || mkdir "$lw_work/skipped" || return 0
    else
        lw_clock || lw_clock_anew || {
            lw_say "cannot read the clock; nothing recorded"
            return 0
        }
        lw_after_last
        lw_settings || lw_refresh_settings
        lw_check_place
        lw_check_displaced
    fi
    case $LANDWATCH_EVENT in
        post-commit | post-applypatch)
            lw_landed && lw_enqueue review "$lw_oid" "" && lw_also "$lw_oid" ""
            ;;
        post-merge)
            lw_landed && [ "$lw_oid" != "$lw_base" ] && lw_enqueue review "$lw_oid" "$lw_base" &&
                lw_also "$lw_oid" "$lw_base"
            ;;
        post-rewrite)
            [ "${1-}" = amend ] && lw_mid_rebase=1 # an amend by a rebase's exec (lw_nothing_landed)
            [ "${1-}" = rebase ] && lw_rebased=1
            if [ -n "$lw_buffered" ]; then
                lw_rewritten <<EOF
$lw_input
EOF
            else
                lw_rewritten
            fi
            ;;
    esac
    lw_remember_last
    lw_notice
}

lw_record "$@" 3>&2 2>/dev/null
exit "$lw_status"
