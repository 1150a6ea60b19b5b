"""What each manifest asks for (review.dependencies.manifests): its dependencies by name with the
range the lockfile must satisfy, path, git and workspace dependencies asking nothing of it, and
whatever is not a dependency (scripts, metadata, the language's own version) left out; None for a
file it cannot read."""

from __future__ import annotations

import json
import textwrap

from landwatch.review.dependencies import manifests


def test_package_json() -> None:
    manifest = {
        "name": "shop",
        "version": "1.0.0",
        "scripts": {"test": "jest"},
        "dependencies": {"left-pad": "^1.3.0", "local": "file:../local", "fork": "user/repo"},
        "devDependencies": {"jest": "~29.1", "tool": "workspace:*"},
        "optionalDependencies": {"fsevents": "2.3.3"},
        "peerDependencies": {"react": "^18"},
    }
    assert manifests.package_json(json.dumps(manifest).encode()) == {
        "left-pad": "^1.3.0",
        "local": None,
        "fork": None,
        "jest": "~29.1",
        "tool": None,
        "fsevents": "2.3.3",
    }


def test_pyproject_in_every_tool_s_tables() -> None:
    pyproject = textwrap.dedent("""\
        [project]
        name = "tool"
        dependencies = ["Requests>=2", "rich ; python_version > '3.8'"]
        [project.optional-dependencies]
        web = ["Flask_SQLAlchemy[async]"]
        [dependency-groups]
        lint = ["ruff==0.6"]
        [tool.uv]
        dev-dependencies = ["pytest"]
        [tool.poetry.dependencies]
        python = "^3.11"
        httpx = "^0.27"
        mine = { path = "../mine" }
        [tool.poetry.group.docs.dependencies]
        Sphinx = "*"
        """).encode()
    assert list(manifests.pyproject(pyproject) or {}) == [
        "requests",
        "rich",
        "flask-sqlalchemy",
        "ruff",
        "pytest",
        "httpx",
        "sphinx",
    ]


def test_pipfile() -> None:
    pipfile = textwrap.dedent("""\
        [[source]]
        url = "https://pypi.org/simple"
        [packages]
        Requests = "*"
        mine = { path = "." }
        [dev-packages]
        pytest = ">=8"
        [scripts]
        serve = "python -m app"
        [requires]
        python_version = "3.12"
        """).encode()
    assert manifests.pipfile(pipfile) == {"requests": None, "pytest": None}


def test_cargo_toml() -> None:
    cargo = textwrap.dedent("""\
        [package]
        name = "c"
        version = "0.1.0"
        [dependencies]
        serde = "1.0"
        tokio = { version = "1.38", features = ["full"] }
        renamed = { package = "real-name", version = "2" }
        member = { path = "../member", version = "9" }
        forked = { git = "https://example.org/forked" }
        [target.'cfg(unix)'.dependencies]
        libc = "0.2"
        [workspace.dependencies]
        anyhow = { workspace = true }
        """).encode()
    assert manifests.cargo_toml(cargo) == {
        "serde": "1.0",
        "tokio": "1.38",
        "real-name": "2",
        "member": None,
        "forked": None,
        "libc": "0.2",
        "anyhow": None,
    }


def test_go_mod() -> None:
    go_mod = textwrap.dedent("""\
        module example.com/m

        go 1.22

        require golang.org/x/sys v0.20.0

        require (
        \tgolang.org/x/text v0.14.0 // indirect
        \tgithub.com/pkg/errors v0.9.1
        )
        """).encode()
    assert manifests.go_mod(go_mod) == {
        "golang.org/x/sys": "v0.20.0",
        "golang.org/x/text": "v0.14.0",
        "github.com/pkg/errors": "v0.9.1",
    }


def test_gemfile() -> None:
    gemfile = textwrap.dedent("""\
        source 'https://rubygems.org'
        gem 'rails', '~> 7.1'
        gem "puma"
        gem 'mine', path: '../mine'
        gem 'forked', git: 'https://example.org/forked.git'
        # gem 'commented'
        """).encode()
    assert manifests.gemfile(gemfile) == {"rails": None, "puma": None}


def test_composer_json() -> None:
    composer = {
        "require": {"php": ">=8.1", "ext-json": "*", "Monolog/Monolog": "^3"},
        "require-dev": {"phpunit/phpunit": "^10"},
    }
    assert manifests.composer_json(json.dumps(composer).encode()) == {
        "monolog/monolog": None,
        "phpunit/phpunit": None,
    }


def test_a_manifest_that_cannot_be_read_is_none() -> None:
    for read in manifests.READERS.values():
        assert read(b"\xff\xfe\x00 not a manifest {[") is None, read
    assert manifests.package_json(b"[1, 2]") is None  # JSON, but no manifest
    assert set(manifests.ECOSYSTEM) <= set(manifests.READERS)


def test_what_a_whole_lockfile_must_lock_leaves_out_what_a_lock_may() -> None:
    pyproject = b"""
[project]
name = "Shop_App"
dependencies = ["requests>=2", "tomli; python_version < '3.11'"]
[project.optional-dependencies]
all = ["shop-app[test]"]
test = ["pytest"]
"""
    assert manifests.declared("pyproject.toml", pyproject) == {"requests", "pytest"}
    assert manifests.declared("pyproject.toml", b"[project\n") is None
    go = b"module m\nrequire a.b/c v1.0.0\nrequire (\n\td.e/f v1.0.0\n)\n"
    go += b"replace (\n\ta.b/c v1.0.0 => ./c\n)\n"
    assert manifests.declared("go.mod", go) == {"d.e/f"}
