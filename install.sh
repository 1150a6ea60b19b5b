#!/bin/sh
# Installs landwatch for the current user: an isolated environment under the user's data dir and
# the `landwatch` / `git-landwatch` commands in ~/.local/bin, the reviewer under the user's service
# manager (systemd, launchd, or a detached process); run inside a git repository, it also installs
# the hooks there. Idempotent; says what it did. `./install.sh --uninstall [--keep-data]` removes
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
    if [ -x "$venv/bin/landwatch" ]; then
        exec "$venv/bin/landwatch" uninstall --all "$@"
    fi
    echo "landwatch: no landwatch installed in $venv; nothing to remove" >&2
    exit 1
fi

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "landwatch needs Python 3.11 or newer as '$python' (set PYTHON=... to choose one)" >&2
    exit 1
fi

mkdir -p "$data" "$bin"
if [ -x "$venv/bin/python" ]; then
    echo "landwatch: using the environment in $venv"
else
    "$python" -m venv "$venv"
    echo "landwatch: created an environment in $venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$here"
echo "landwatch: installed $("$venv/bin/landwatch" --version) from $here"

for command in landwatch git-landwatch; do
    ln -sf "$venv/bin/$command" "$bin/$command"
done
echo "landwatch: linked landwatch and git-landwatch into $bin"
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "landwatch: add $bin to your PATH to type 'landwatch' and 'git landwatch'" ;;
esac

if git -C "$caller" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
    [ "$(git -C "$caller" rev-parse --is-bare-repository)" = false ]; then
    (cd "$caller" && "$venv/bin/landwatch" install)
else
    echo "landwatch: run 'landwatch install' inside a repository to record its landings"
fi

# The entry point the service runs is written by `landwatch install`; make sure it exists even
# when no repository was installed yet.
"$venv/bin/python" -c 'from landwatch import install; install.write_entry_point()'
# An upgrade restarts the reviewer on the new code.
"$venv/bin/landwatch" service stop >/dev/null 2>&1 || true
"$venv/bin/landwatch" service install
"$venv/bin/landwatch" service status
