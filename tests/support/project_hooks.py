"""What the project hooks' tests share: a PATH holding only the hook managers a test wants (the test
environment's real pre-commit, prek and lefthook), a repository whose hooks are committed and
trusted, and the real reviewer run to its end on that PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from landwatch import report_store, work_item
from landwatch.review.project_hooks.results import HooksResult
from support.daemon import reviewer_command, reviewer_env
from support.repos import Files, Repo

BIN = Path(sys.executable).parent  # the test environment's: pre-commit, prek, lefthook
SYSTEM = f"/usr/local/bin{os.pathsep}/usr/bin{os.pathsep}/bin"

# What a person's environment may hold: an index, a proxy, certificates, and credentials of the
# same package managers (to publish, or a private index's).
CREDENTIALS = {
    "UV_PUBLISH_TOKEN": "pypi-publish-token-0123456789",
    "UV_PUBLISH_PASSWORD": "publish-password-0123456789",
    "UV_INDEX_PRIVATE_PASSWORD": "index-password-0123456789",
    "UV_INDEX": "private=https://__token__:uv-index-token-0123456789@private.example/simple",
    "PIP_EXTRA_INDEX_URL": "https://me:pip-index-password-0123456789@private.example/simple",
    "PIP_CLIENT_CERT": "/home/me/.certs/client-0123456789.pem",
    "NPM_CONFIG__AUTH": "bnBtLWF1dGgtMDEyMzQ1Njc4OQ==",
    "npm_config_//registry.example/:_authToken": "npm-auth-token-0123456789",
    "NPM_CONFIG_//registry.example/:_password": "npm-password-0123456789",
    "HTTPS_PROXY": "http://me:proxy-password-0123456789@proxy.example:3128",
    # No scheme: curl and urllib send it as the proxy's credential all the same (an audit).
    "https_proxy": "me:proxy-password-0123456789@proxy.example:3128",
    "PIP_PROXY": "me:proxy-password-0123456789@proxy.example:3128",
    "PIP_FIND_LINKS": "https://pypi.example/links/?token=index-token-0123456789",
    "UV_EXTRA_INDEX_URL": "https://pypi.example/simple/#token=index-token-0123456789",
    # Quoted (docker's --env-file keeps them), without a scheme, in a list (round 3).
    "ALL_PROXY": '"http://me:proxy-password-0123456789@proxy.example:3128"',
    "UV_PYTHON_INSTALL_MIRROR": "//me:mirror-password-0123456789@private.example/python/",
    "npm_config_proxy": "http://proxy.example:3128,http://me:pw-0123456789@proxy.example",
}
REACHING = {
    "PIP_INDEX_URL": "https://pypi.example/simple",
    "UV_DEFAULT_INDEX": "https://pypi.example/simple",
    "NPM_CONFIG_REGISTRY": "https://registry.example/",
    "npm_config_@corp:registry": "https://npm.corp.example/",
    "npm_config_https_proxy": "http://proxy.example:3128",
    "http_proxy": "http://proxy.example:3128",
    "PIP_CERT": "/etc/ssl/certs/ca-certificates.crt",
    # An `@` in a path is no user: Azure Artifacts' feed views (round 1).
    "UV_INDEX_URL": "https://pkgs.dev.azure.com/corp/_packaging/shop@Release/pypi/simple/",
    # Names in a path are no tokens (round 2): Azure's project, a mirror's, a CA bundle's.
    "UV_FIND_LINKS": "https://pkgs.dev.azure.com/ContosoEngineering2/PythonPackages2024/",
    "REQUESTS_CA_BUNDLE": "/usr/local/share/ca-certificates/CorpRootCA2024-G2.crt",
}

# A `repo: local` hook failing on any TODO in the files it is given (`grep`'s `path:line:` lines).
TODO_CHECK = """\
id: no-todo
name: no TODO left
language: system
entry: sh -c 'grep -Hn TODO "$@" && exit 1; exit 0' --
"""


def tools(tmp_path: Path, *names: str) -> str:
    """A PATH with only these hook managers of the test environment, and the system's commands."""
    place = tmp_path / ("bin-" + "-".join(names))
    place.mkdir(exist_ok=True)
    for name in names:
        if not (place / name).exists():
            (place / name).symlink_to(BIN / name)
    return f"{place}{os.pathsep}{SYSTEM}"


def local_hooks(*hooks: str) -> str:
    """A `.pre-commit-config.yaml` of `repo: local` hooks, each given as its YAML mapping."""
    indented = "".join("  - " + hook.strip().replace("\n", "\n    ") + "\n" for hook in hooks)
    return f"repos:\n- repo: local\n  hooks:\n{indented}"


def committed(repo: Repo, files: Files, message: str = "hooks") -> str:
    """`files` committed as a landing nobody reviews, those that start with `#!` executable
    (a `language: script` hook runs its file); the commit."""
    repo.stage(files)
    scripts = [name for name, content in files.items() if str(content).startswith("#!")]
    for name in scripts:
        (repo.path / name).chmod(0o755)
    if scripts:
        repo.git("update-index", "--chmod=+x", "--", *scripts)
    return repo.land(message, {}, hooks=False)


def committed_and_trusted(repo: Repo, files: Files) -> str:
    """The hooks' configuration (and what it runs) committed, and trusted as `landwatch trust
    --yes` trusts; the commit."""
    oid = committed(repo, files)
    trusted = repo.landwatch("trust", "--yes")
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    return oid


def drained(path: str, status: int = 0, /, **env: str) -> subprocess.CompletedProcess[str]:
    """The real reviewer, run until nothing is left, with the hook managers on `path` (and
    `env` besides); it exits `status` (75: it left items waiting)."""
    result = subprocess.run(
        reviewer_command("--once"),
        env={**reviewer_env(), **env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == status, result.stderr
    return result


def hooks_of(repo: Repo, oid: str) -> HooksResult:
    found = report_store.read_hooks(repo.git_dir, oid)
    assert found is not None, f"the project's hooks did not run on {oid[:12]}"
    return found


def settled(repo: Repo, state: str = work_item.DONE) -> list[str]:
    return sorted(
        work_item.id_of_entry(name)
        for name in work_item.entries(repo.git_dir, state)
        if name.startswith("project_hooks-")
    )
