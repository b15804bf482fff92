# Helpers for the tests that open exports in the real viewers; source it
# after lib.sh.  The npm packages go into the build directory, never into
# the source tree.
SPEEDSCOPE_VERSION=1.25.0
PLAYWRIGHT_VERSION=1.65.1
NPM_DIR=$CT_BUILD/npm

# need_speedscope: installs speedscope and playwright-core (once) or skips.
need_speedscope() {
    command -v node >/dev/null || skip "node is not installed"
    [ -x /usr/bin/chromium ] || skip "chromium is not installed"
    if [ ! -f "$NPM_DIR/node_modules/speedscope/package.json" ] ||
       [ ! -f "$NPM_DIR/node_modules/playwright-core/package.json" ]; then
        command -v npm >/dev/null || skip "npm is not installed"
        mkdir -p "$NPM_DIR"
        npm install --prefix "$NPM_DIR" --no-audit --no-fund --silent \
            "speedscope@$SPEEDSCOPE_VERSION" \
            "playwright-core@$PLAYWRIGHT_VERSION" >"$T/npm.log" 2>&1 ||
            skip "cannot install speedscope from npm: $(tail -n 1 "$T/npm.log")"
    fi
}

# open_in_speedscope PROFILE PNG [strict]: speedscope imports it without an
# error (strict: nor a warning that it repaired a stack)
# and the screenshot is saved.
open_in_speedscope() {
    NODE_PATH=$NPM_DIR/node_modules timeout 180 node \
        "$CT_ROOT/tests/e2e/tools/speedscope_open.js" \
        "$NPM_DIR/node_modules/speedscope/dist/release" "$1" "$2" ${3:-} ||
        fail "speedscope could not import $1"
    [ "$(stat -c %s "$2")" -gt 5000 ] || fail "empty screenshot $2"
}
