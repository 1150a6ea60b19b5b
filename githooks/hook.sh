# The body of every landwatch git hook (post-commit, post-merge, post-rewrite, post-applypatch).
# `landwatch install` writes it after a header that sets LANDWATCH_EVENT, LANDWATCH_ENTRY (the
# per-user entry point) and LANDWATCH_HOST. It records what landed as work items in the format of
# docs/queue.md and starts no program but `ln` on the happy path: git stays as fast as without us.
# Whatever goes wrong, it prints at most one line and never changes git's outcome.

# Every name and default shared with the Python side is spelled as in src/landwatch/layout.py
# ($lw_work: the worktree's directory, $lw_repo: the repository's); tests/test_layout.py
# fails when the two disagree.
lw_default_stale_after=600
lw_default_interval=3600
lw_chained="${0%/*}/$LANDWATCH_EVENT.before-landwatch"

# The kill switch makes landwatch absent: the hook it replaced, if any, runs as it would alone,
# and what landed is only marked skipped, so that the reflog sweep leaves it unreviewed too.
lw_skip=
[ "${LANDWATCH-}" = 0 ] && lw_skip=1

# post-rewrite is the only event git gives a stdin to; it is read once and given to both.
lw_input=
if [ "$LANDWATCH_EVENT" = post-rewrite ]; then
    while IFS= read -r lw_line || [ -n "$lw_line" ]; do
        lw_input="$lw_input$lw_line
"
    done
fi

lw_status=0
if [ -x "$lw_chained" ]; then
    if [ "$LANDWATCH_EVENT" = post-rewrite ]; then
        printf '%s' "$lw_input" | "$lw_chained" "$@"
    else
        "$lw_chained" "$@"
    fi
    lw_status=$?
fi

lw_said=
lw_say() {
    # One line at most, whatever happens.
    [ -n "$lw_said" ] && return 0
    lw_said=1
    printf 'landwatch: %s\n' "$*" >&2
}

# Nothing of ours is reached through a link or opened unless it is a regular file: a copied or
# unpacked repository may have planted a link (writes would land elsewhere) or a FIFO (a read
# would wait forever). `[ -L ]` and `[ -f ]` are builtins: the checks cost no process.
lw_readable() { [ -f "$1" ] && [ ! -L "$1" ]; }
lw_writable() { [ ! -L "$1" ] && { [ ! -e "$1" ] || [ -f "$1" ]; }; }
lw_ours() { [ -d "$1" ] && [ ! -L "$1" ]; }

lw_valid_oid() {
    case $1 in '' | *[!0-9a-f]*) return 1 ;; esac
    [ ${#1} -eq 40 ] || [ ${#1} -eq 64 ]
}

lw_find_git_dir() {
    if [ -n "${GIT_DIR-}" ]; then
        lw_git_dir=$GIT_DIR
    elif [ -d .git ]; then
        lw_git_dir=.git
    elif [ -f .git ] && read -r lw_key lw_git_dir 2>/dev/null < .git && [ "$lw_key" = gitdir: ]; then
        : # a linked worktree or a submodule: the path is relative to the worktree
    else
        lw_git_dir=$(git rev-parse --git-dir 2>/dev/null) || return 1
    fi
    lw_common=$lw_git_dir
    if [ -f "$lw_git_dir/commondir" ] && read -r lw_common 2>/dev/null < "$lw_git_dir/commondir"; then
        case $lw_common in /*) ;; *) lw_common=$lw_git_dir/$lw_common ;; esac
    fi
    lw_work=$lw_git_dir/landwatch
    lw_repo=$lw_common/landwatch
}

lw_rev_parse() {
    git rev-parse --verify --quiet "$1^{commit}" 2>/dev/null
}

lw_head() {
    # What git has just written: HEAD and the branch's loose ref; git itself when the ref store
    # is not plain files (packed-only ref, reftable).
    lw_oid=
    read -r lw_ref 2>/dev/null < "$lw_git_dir/HEAD" || lw_ref=
    case $lw_ref in
        "ref: refs/"*)
            lw_ref=${lw_ref#ref: }
            case $lw_ref in *..* | *[!A-Za-z0-9/._-]*) lw_ref= ;; esac
            [ -n "$lw_ref" ] && [ -f "$lw_common/$lw_ref" ] && read -r lw_oid 2>/dev/null < "$lw_common/$lw_ref"
            ;;
        *) lw_oid=$lw_ref ;;
    esac
    lw_valid_oid "$lw_oid" || lw_oid=$(lw_rev_parse HEAD)
    lw_valid_oid "$lw_oid"
}

lw_clock() {
    # Microseconds since the epoch without starting a process where /proc allows: the boot time
    # (cached per boot and clock step, as reading it costs ~0.5 ms) plus the uptime.
    lw_boot=-
    if read -r lw_up _ 2>/dev/null < /proc/uptime; then
        read -r lw_boot 2>/dev/null < /proc/sys/kernel/random/boot_id || lw_boot=-
        lw_btime=
        lw_cached_boot=
        lw_readable "$lw_work/boot-time" &&
            read -r lw_cached_boot lw_btime 2>/dev/null < "$lw_work/boot-time"
        case $lw_btime in '' | *[!0-9]* | ????????????*) lw_cached_boot= ;; esac
        # A cache written "in the future" (/proc/$$ was made just now): the clock went back
        # since, and the boot time the kernel gives moved with it. The reviewer drops a cache
        # the clock left behind the other way.
        if [ "$lw_cached_boot" != "$lw_boot" ] || [ "$lw_boot" = - ] ||
            [ "$lw_work/boot-time" -nt "/proc/$$" ]; then
            lw_btime=
            while read -r lw_key lw_value _; do
                [ "$lw_key" = btime ] && lw_btime=$lw_value && break
            done < /proc/stat
            case $lw_btime in '' | *[!0-9]* | ????????????*) lw_btime= ;; esac
            [ -n "$lw_btime" ] && [ "$lw_boot" != - ] && lw_writable "$lw_work/boot-time" &&
                { printf '%s %s\n' "$lw_boot" "$lw_btime" > "$lw_work/boot-time"; } 2>/dev/null
        fi
        lw_seconds=${lw_up%.*}
        lw_centis=${lw_up#*.}
        lw_centis=${lw_centis#0}
        case $lw_seconds$lw_centis in '' | *[!0-9]*) lw_btime= ;; esac
        if [ -n "$lw_btime" ]; then
            lw_now=$(((lw_btime + lw_seconds) * 1000000 + lw_centis * 10000))
            return 0
        fi
    fi
    lw_now=$(date +%s 2>/dev/null) || return 1
    case $lw_now in '' | *[!0-9]*) return 1 ;; esac
    lw_now=$((lw_now * 1000000))
}

lw_after_last() {
    # The clock ticks every 10 ms, and two landings (a cherry-pick and a revert) can come within
    # one tick: every stamp is after the worktree's last, so items keep their landing order.
    lw_last=
    lw_readable "$lw_work/last-stamp" && read -r lw_last 2>/dev/null < "$lw_work/last-stamp"
    case $lw_last in '' | *[!0-9]* | ???????????????????*) lw_last=0 ;; esac
    [ "$lw_now" -gt "$lw_last" ] || lw_now=$((lw_last + 1))
    lw_first=$lw_now
}

lw_remember_last() {
    [ "${lw_now:-0}" -gt "${lw_first:-0}" ] && lw_writable "$lw_work/last-stamp" &&
        { printf '%s\n' "$((lw_now - 1))" > "$lw_work/last-stamp"; } 2>/dev/null
}

lw_directories() {
    for lw_entry in "$lw_repo" "$lw_work" "$lw_work/pending" "$lw_work/known"; do
        if [ -L "$lw_entry" ] || { [ -e "$lw_entry" ] && [ ! -d "$lw_entry" ]; }; then
            lw_say "$lw_entry is not a directory of landwatch's; not following it, nothing recorded"
            return 1
        fi
    done
    lw_ours "$lw_work/pending" && lw_ours "$lw_work/known" && return 0
    # A worktree added after the install: its work directory is made on its first landing.
    mkdir -p "$lw_work/pending" "$lw_work/known" 2>/dev/null || {
        lw_say "cannot create the work directory $lw_work"
        return 1
    }
}

lw_enqueue() {
    # $1 kind, $2 oid, $3 base or empty, $4 the commit it rewrote or none. The marker known/<id> is created exclusively (set -C
    # opens with O_EXCL and refuses a symlink): that fails when the id is known in any state.
    if [ -n "$lw_skip" ]; then
        [ "$1" = review ] || return 0
        set -C
        { true > "$lw_work/skipped/$2"; } 2>/dev/null
        set +C
        return 0
    fi
    lw_id=$1-$2
    lw_marker=$lw_work/known/$lw_id
    set -C
    # `true`, not `:`: a failed redirection on a special builtin would exit the shell.
    { true > "$lw_marker"; } 2>/dev/null
    lw_created=$?
    set +C
    if [ "$lw_created" -ne 0 ]; then
        [ -e "$lw_marker" ] && return 0
        lw_say "could not record ${2%"${2#???????}"} in $lw_work (read-only or full?)"
        return 1
    fi
    if ! {
        printf 'landwatch-work-item 1\nkind %s\noid %s\nenqueued %s\nproducer %s %s %s\n' \
            "$1" "$2" "$lw_now" "$LANDWATCH_HOST" "$lw_boot" "$$" &&
            { [ -z "$3" ] || printf 'base %s\n' "$3"; } &&
            { [ -z "${4-}" ] || printf 'rewritten %s\n' "$4"; } &&
            case $PWD in *"
"*) : ;; *) printf 'work-tree %s\n' "$PWD" ;; esac &&
            printf 'end\n'
    } >> "$lw_marker" 2>/dev/null; then
        rm -f "$lw_marker" 2>/dev/null # ours, created above: a torn marker would block the id
        lw_say "could not record ${2%"${2#???????}"} in $lw_work (disk full?)"
        return 1
    fi
    # One microsecond apart: items of one batch keep their landing order (the clock ticks 10 ms).
    lw_stamp=$lw_now
    lw_now=$((lw_now + 1))
    ln "$lw_marker" "$lw_work/pending/$lw_id.$lw_stamp" 2>/dev/null && return 0
    # The marker stays: recovery publishes it once this hook is gone, so nothing is lost.
    lw_say "could not publish ${2%"${2#???????}"} in $lw_work; the reviewer will pick it up"
    return 1
}

lw_settings() {
    # landwatch.* of git config, cached in the repository's work directory with the config
    # files git read (included ones too); git config is asked again only when one is newer.
    lw_cache=$lw_repo/settings
    lw_bound=$lw_default_stale_after
    lw_push_remote=
    lw_maintenance=true
    lw_interval=$lw_default_interval
    if ! lw_writable "$lw_cache"; then
        lw_say "$lw_cache is not a regular file; not following it"
        lw_read_settings <<EOF
$(git config --get-regexp '^landwatch[.]' 2>/dev/null)
EOF
    else
        lw_fresh=
        if [ -f "$lw_cache" ] && [ ! "$lw_common/config" -nt "$lw_cache" ] &&
            [ ! "${HOME:-/}/.gitconfig" -nt "$lw_cache" ] &&
            [ ! "${XDG_CONFIG_HOME:-${HOME:-/}/.config}/git/config" -nt "$lw_cache" ]; then
            lw_fresh=1
            while read -r lw_key lw_value; do
                [ "$lw_key" = file ] && [ "$lw_value" -nt "$lw_cache" ] && lw_fresh= && break
            done 2>/dev/null < "$lw_cache"
        fi
        [ -n "$lw_fresh" ] || { lw_cache_settings > "$lw_cache"; } 2>/dev/null
        lw_read_settings 2>/dev/null < "$lw_cache"
    fi
    # Ten digits of seconds or more (317 years) would not fit the arithmetic as microseconds.
    case $lw_bound in '' | *[!0-9]* | ??????????*) lw_bound=$lw_default_stale_after ;; esac
    case $lw_interval in '' | *[!0-9]* | ??????????*) lw_interval=$lw_default_interval ;; esac
    case $lw_maintenance in [Ff]alse | [Nn]o | [Oo]ff | 0) lw_maintenance= ;; esac
}

lw_cache_settings() {
    git config --get-regexp '^landwatch[.]'
    # `file PATH` for each config file git read; relative ones are relative to this worktree.
    lw_previous=
    lw_tab='	' # a literal tab: the separator of --show-origin
    git config --list --show-origin --name-only | while IFS= read -r lw_line; do
        case $lw_line in file:*) ;; *) continue ;; esac
        lw_line=${lw_line#file:}
        lw_line=${lw_line%%"$lw_tab"*}
        case $lw_line in /*) ;; *) lw_line=$PWD/$lw_line ;; esac
        [ "$lw_line" = "$lw_previous" ] && continue
        lw_previous=$lw_line
        printf 'file %s\n' "$lw_line"
    done
    return 0
}

lw_read_settings() {
    while read -r lw_key lw_value; do
        case $lw_key in
            landwatch.staleafter) lw_bound=$lw_value ;;
            landwatch.push.remote) lw_push_remote=$lw_value ;;
            landwatch.maintenance) lw_maintenance=$lw_value ;;
            landwatch.maintenance.interval) lw_interval=$lw_value ;;
        esac
    done
}

lw_also() {
    # $1 the landed commit, $2 its base: the other kinds of work a landing may ask for.
    [ -n "$lw_skip" ] && return 0
    [ -n "$lw_push_remote" ] && lw_enqueue push "$1" "$2"
    [ -n "$lw_maintenance" ] || return 0
    lw_next=
    lw_readable "$lw_repo/maintenance-after" && read -r lw_next 2>/dev/null < "$lw_repo/maintenance-after"
    case $lw_next in '' | *[!0-9]* | ???????????????????*) lw_next=0 ;; esac
    [ "$lw_now" -ge "$lw_next" ] || return 0
    lw_enqueue maintenance "$1" "" && lw_writable "$lw_repo/maintenance-after" &&
        { printf '%s\n' $((lw_now + lw_interval * 1000000)) \
            > "$lw_repo/maintenance-after"; } 2>/dev/null
    return 0
}

lw_check_displaced() {
    # Running as <event>.legacy (pre-commit, prek) or <event>.old: another hook manager moved
    # this hook aside. Said once, until landwatch is installed again.
    case ${0##*/} in *.legacy | *.old) ;; *) return 0 ;; esac
    lw_writable "$lw_repo/displaced-told" && [ ! -e "$lw_repo/displaced-told" ] || return 0
    { true > "$lw_repo/displaced-told"; } 2>/dev/null
    lw_say "another hook manager moved landwatch's hooks aside (${0##*/}); what still covers" \
        "this repository: landwatch doctor"
}

lw_check_place() {
    # The install wrote down the repository it was made for: a repository moved or copied since
    # is one the reviewer does not drain. Said once here (no process), the items kept for later.
    [ -z "${LANDWATCH_REPOSITORY-}" ] || [ "$lw_common" -ef "$LANDWATCH_REPOSITORY" ] && return 0
    lw_writable "$lw_repo/moved-told" && [ ! -e "$lw_repo/moved-told" ] || return 0
    { true > "$lw_repo/moved-told"; } 2>/dev/null
    lw_say "this repository is not the one landwatch was installed in ($LANDWATCH_REPOSITORY):" \
        "moved or copied, nothing reviews what lands here; run: landwatch install"
}

lw_notice() {
    # Python (and rich) start only when there is something to say: items given up since the
    # person was last told, reviews with findings not yet told, or an item waiting too long.
    [ -n "$lw_said$lw_skip" ] && return 0 # one line at most: it has been said
    lw_tell=
    # told takes failed/'s mtime when the person is told: any change since makes them differ.
    if [ "$lw_work/failed" -nt "$lw_work/told" ] || [ "$lw_work/failed" -ot "$lw_work/told" ] ||
        { [ -d "$lw_work/failed" ] && [ ! -e "$lw_work/told" ]; }; then
        for lw_entry in "$lw_work/failed/"*; do
            [ -e "$lw_entry" ] && lw_tell=1
            break
        done
    fi
    if [ -z "$lw_tell" ] && lw_ours "$lw_repo/unread"; then
        for lw_entry in "$lw_repo/unread/"*; do
            [ -e "$lw_entry" ] && lw_tell=1
            break
        done
    fi
    # Committed linters held back for want of trust, not told yet.
    [ -z "$lw_tell" ] && lw_readable "$lw_repo/untrusted" && lw_tell=1
    if [ -z "$lw_tell" ]; then
        lw_oldest=$((lw_now - lw_bound * 1000000))
        for lw_entry in "$lw_work/pending/"*; do
            lw_stamp=${lw_entry##*.}
            # 19 digits may not fit the shell's arithmetic; none is old (that is year 2286).
            case $lw_stamp in '' | *[!0-9]* | ???????????????????*) continue ;; esac
            [ "$lw_stamp" -lt "$lw_oldest" ] && lw_tell=1 && break
        done
    fi
    [ -n "$lw_tell" ] || return 0
    if [ -x "$LANDWATCH_ENTRY" ]; then
        "$LANDWATCH_ENTRY" notice --git-dir "$lw_git_dir" < /dev/null
    else
        lw_say "items wait in $lw_work but $LANDWATCH_ENTRY is gone: reinstall landwatch"
    fi
}

lw_nothing_landed() {
    # Decided first, before any file is read: most pick steps of a rebase stop here.
    case $LANDWATCH_EVENT in
        post-commit)
            # During a rebase post-rewrite gives the authoritative list; a pick is not a landing.
            [ -d "$lw_git_dir/rebase-merge" ] || [ -d "$lw_git_dir/rebase-apply" ]
            ;;
        post-merge) [ "${1-}" != 0 ] ;;     # 1: a squash merge committed nothing
        post-rewrite) [ "${1-}" != rebase ] ;; # amend: post-commit recorded the new commit
        # git am, not git rebase --apply (whose post-rewrite gives the list).
        post-applypatch) [ ! -f "$lw_git_dir/rebase-apply/applying" ] ;;
        *) true ;;
    esac
}

lw_record() {
    umask 077
    lw_find_git_dir || return 0
    lw_nothing_landed "$@" && return 0
    # Not installed in this repository (a shared hooks dir, or removed): stay silent.
    [ -d "$lw_repo" ] || return 0
    lw_directories || return 0
    if [ -n "$lw_skip" ]; then
        lw_ours "$lw_work/skipped" || mkdir "$lw_work/skipped" 2>/dev/null || return 0
    else
        lw_clock || {
            lw_say "cannot read the clock; nothing recorded"
            return 0
        }
        lw_after_last
        lw_settings
        lw_check_place
        lw_check_displaced
    fi
    case $LANDWATCH_EVENT in
        post-commit | post-applypatch)
            lw_head && lw_enqueue review "$lw_oid" "" && lw_also "$lw_oid" ""
            ;;
        post-merge)
            lw_base=
            [ -f "$lw_git_dir/ORIG_HEAD" ] && read -r lw_base 2>/dev/null < "$lw_git_dir/ORIG_HEAD"
            lw_valid_oid "$lw_base" || lw_base=
            lw_head && [ "$lw_oid" != "$lw_base" ] && lw_enqueue review "$lw_oid" "$lw_base" &&
                lw_also "$lw_oid" "$lw_base"
            ;;
        post-rewrite)
            printf '%s' "$lw_input" | {
                lw_tip=
                while read -r lw_old lw_new _; do
                    lw_valid_oid "$lw_old" || lw_old=
                    lw_valid_oid "$lw_new" && lw_enqueue review "$lw_new" "" "$lw_old" &&
                        lw_tip=$lw_new
                done
                # One push and one maintenance for the whole rewrite: its tip carries the rest.
                [ -z "$lw_tip" ] || lw_also "$lw_tip" ""
                lw_remember_last
                lw_notice
            }
            return 0
            ;;
    esac
    lw_remember_last
    lw_notice
}

lw_record "$@"
exit "$lw_status"
