# Sourced by .ci/setup and .ci/run: runs a command quietly when all goes well; when it fails,
# prints the last 80 lines of what it said on stderr (meson and ninja print their errors on
# stdout, which a plain >/dev/null would lose: a failed set-up or build would say nothing).
quietly() {
    local log status=0
    log=$(mktemp)
    "$@" >"$log" 2>&1 || status=$?
    [ "$status" -eq 0 ] || tail -n 80 "$log" >&2
    rm -f "$log"
    return "$status"
}
