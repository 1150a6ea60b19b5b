#!/bin/sh
# Installs landwatch for the current user: an isolated environment under the user's data dir and
# the `landwatch` / `git-landwatch` commands in ~/.local/bin, the reviewer under the user's service
# manager (systemd, launchd, or a detached process); run inside a git repository, it also installs
# the hooks there (not in the checkout it lives in). Idempotent; says what it does. `./install.sh --uninstall [--keep-data]` removes
# all of it again.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
caller=$(pwd)
case "$(uname -s)" in
    Darwin) data="$HOME/Library/Application Support/landwatch" ;;
    *) data="${XDG_DATA_HOME:-$HOME/.local/share}/landwatch" ;;
esac
venv="$data/venv"
bin="${LANDWATCH_BIN_DIR:-$HOME/.local/bin}"
python=${PYTHON:-python3}

if [ "${1-}" = --uninstall ]; then
    # landwatch removed for this user: it says what it removes first, and asks.
    shift
    if [ -x "$venv/bin/landwatch" ] && "$venv/bin/landwatch" --version > /dev/null 2>&1; then
        exec "$venv/bin/landwatch" uninstall --all "$@"
    elif [ -x "$venv/bin/landwatch" ]; then
        # Its Python gone (a system or Homebrew upgrade): the shell's own `not found` said
        # nothing of what to do (an audit).
        echo "landwatch: the environment in $venv does not run (its Python is gone?); run" \
            "./install.sh first, which makes it again, then ./install.sh --uninstall" >&2
        exit 1
    fi
    echo "landwatch: no landwatch installed in $venv; nothing to remove" >&2
    exit 1
fi

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "landwatch needs Python 3.11 or newer as '$python' (set PYTHON=... to choose one)" >&2
    exit 1
fi

# pip's launcher of a command starts its Python through sh, from a double-quoted path: under a
# path holding one of these it cannot run ("installed  from", no version, exit 2).
newline='
'
case $venv in
    *[\"\$\`\\]* | *"$newline"*)
        echo "landwatch: cannot install into $venv: pip's command launcher does not run from a" \
            "path holding \", \$, \`, \\ or a newline; set XDG_DATA_HOME to a directory" \
            "without them and run ./install.sh again" >&2
        exit 1
        ;;
esac

# Whether $1 is free for the command $2, or install.sh's own link to it (which it renews).
free_for() {
    [ -e "$1" ] || [ -L "$1" ] || return 0
    "$python" -c 'import os, sys; sys.exit(os.readlink(sys.argv[1]) != sys.argv[2])' \
        "$1" "$venv/bin/$2" 2>/dev/null
}

# A command it did not install is never replaced: in the bin directory that refuses the install
# before anything is written; a directory PATH reaches that holds one is not used.
for command in landwatch git-landwatch; do
    if ! free_for "$bin/$command" "$command"; then
        echo "landwatch: $bin/$command is not landwatch's (not a link to $venv/bin/$command);" \
            "nothing installed. Remove it if it is an old landwatch you no longer want, or" \
            "set LANDWATCH_BIN_DIR to another directory for the commands, and run" \
            "./install.sh again" >&2
        exit 1
    fi
done
reached=
case ":$PATH:" in
    *":$bin:"*) ;;
    *)
        # A directory of the user's own that PATH already reaches: the commands go there too.
        old_ifs=$IFS
        IFS=:
        for dir in $PATH; do
            case $dir in "$HOME"/*) ;; *) continue ;; esac
            if [ -d "$dir" ] && [ -w "$dir" ] && free_for "$dir/landwatch" landwatch &&
                free_for "$dir/git-landwatch" git-landwatch; then
                reached=$dir
                break
            fi
        done
        IFS=$old_ifs
        ;;
esac

# Each slow step is said before it runs, so that seconds of silence are never a hang.
mkdir -p "$data" "$bin"
if [ -x "$venv/bin/python" ]; then
    echo "landwatch: using the environment in $venv"
else
    # Only an environment venv made is cleared (an audit: --clear empties what a link there
    # leads to): a link or a directory with no pyvenv.cfg is refused, as not landwatch's.
    if [ -L "$venv" ] || { [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; }; then
        echo "landwatch: $venv is not an environment landwatch made (a link, or no" \
            "pyvenv.cfg in it); move it away, then run ./install.sh again" >&2
        exit 1
    fi
    echo "landwatch: creating an environment in $venv"
    # --clear: one whose python no longer runs (a system or Homebrew Python removed) keeps its
    # dangling links, and venv stopped on them (an audit): it is made anew, as said.
    "$python" -m venv --clear "$venv"
fi
echo "landwatch: installing landwatch from $here into it with pip (a few seconds)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$here"
# pip's launchers import `re` to tidy argv[0] for Windows (-script.pyw, .exe): 6 ms at every
# shell prompt that runs `landwatch prompt`. Here they start without it (checked just below).
for command in landwatch git-landwatch; do
    sed -e '/^import re$/d' -e '/= re[.]sub(/d' "$venv/bin/$command" > "$venv/bin/.$command.new" &&
        chmod 755 "$venv/bin/.$command.new" && mv -f "$venv/bin/.$command.new" "$venv/bin/$command"
done
if ! version=$("$venv/bin/landwatch" --version 2>&1) || [ -z "$version" ]; then
    echo "landwatch: the command pip installed, $venv/bin/landwatch, does not run" \
        "(${version:-it said nothing}); nothing linked" >&2
    exit 1
fi
echo "landwatch: installed $version from $here"

for command in landwatch git-landwatch; do
    ln -sf "$venv/bin/$command" "$bin/$command"
done
echo "landwatch: linked landwatch and git-landwatch into $bin"
case ":$PATH:" in
    *":$bin:"*) ;;
    *)
        if [ -n "$reached" ]; then
            for command in landwatch git-landwatch; do
                ln -sf "$venv/bin/$command" "$reached/$command"
            done
            echo "landwatch: linked them into $reached too, which your PATH reaches"
        else
            case ${SHELL##*/} in
                zsh) rc="${ZDOTDIR:-$HOME}/.zshrc" line="export PATH=\"$bin:\$PATH\"" ;;
                bash) rc="$HOME/.bashrc" line="export PATH=\"$bin:\$PATH\"" ;;
                fish) rc="$HOME/.config/fish/config.fish" line="fish_add_path $bin" ;;
                *) rc="$HOME/.profile" line="export PATH=\"$bin:\$PATH\"" ;;
            esac
            echo "landwatch: $bin is not on your PATH; to type 'landwatch' and 'git landwatch'," \
                "add this line to $rc and open a new terminal:"
            echo "    $line"
        fi
        ;;
esac

# The secret rules compiled now (seconds, once) into landwatch's state, so that the first review
# reads them back; one that cannot be compiled here is no failed install (a review compiles them).
"$venv/bin/python" -c 'from landwatch.cli import keep_secret_rules
from landwatch.commands.install import compile_secret_rules
keep_secret_rules()
compile_secret_rules()' ||
    echo "landwatch: the secret rules were not compiled now; a review compiles them when it needs them"

# Whether $1 is in the repository this script lives in (a worktree of it too): landwatch's own
# source, where the README runs it from, is not where the person's work lands.
in_this_checkout() {
    here_common=$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) &&
        [ "$(git -C "$1" rev-parse --path-format=absolute --git-common-dir)" = "$here_common" ]
}

if ! git -C "$caller" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    [ "$(git -C "$caller" rev-parse --is-bare-repository)" != false ]; then
    echo "landwatch: run 'landwatch install' inside a repository to record its landings"
elif in_this_checkout "$caller"; then
    echo "landwatch: no hooks installed in landwatch's own checkout ($here); run" \
        "'landwatch install' inside a repository of yours to record its landings"
else
    (cd "$caller" && "$venv/bin/landwatch" install)
fi

# The entry point the service runs is written by `landwatch install`; make sure it exists even
# when no repository was installed yet.
"$venv/bin/python" -c 'from landwatch.commands.install import write_entry_point; write_entry_point()'
# The hooks are copies: those an older landwatch wrote in your other repositories are written
# again, or the fixes in them since would not run there. A failure here is said, not fatal.
"$venv/bin/python" -c 'from landwatch.commands.install import rewrite_older_hooks as r; r()' ||
    echo "landwatch: the hooks of your other repositories were not rewritten; run" \
        "'landwatch doctor --fix'"
# An upgrade restarts the reviewer on the new code.
echo "landwatch: starting the reviewer (stopping the one running first, if any)"
"$venv/bin/landwatch" service stop >/dev/null 2>&1 || true
"$venv/bin/landwatch" service install
# Says whether it runs; a reviewer that is not running yet is not an install that failed.
"$venv/bin/landwatch" service status || true
