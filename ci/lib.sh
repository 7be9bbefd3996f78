# Shared by the ci/ scripts: progress lines and Debian package installs.

qp_say() { printf '\n== %s\n' "$*"; }

# qp_need_packages PKG...: installs the missing ones with apt-get when run as
# root (apt-get update once first); otherwise says what to install and fails.
qp_need_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "quietpoll needs these Debian packages: ${missing[*]}" >&2
        echo "install them with: sudo apt-get install ${missing[*]}" >&2
        return 1
    fi
    qp_say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# qp_setup DIR [meson options...]: configures DIR, reconfiguring if it exists.
qp_setup() {
    local dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

# The fuzz targets: every corpus/fuzz_<name>/ has one.
qp_targets() {
    local d
    for d in corpus/fuzz_*/; do
        d=${d%/}
        printf '%s\n' "${d#corpus/}"
    done
}

# The machines, as the built quietpoll command lists them: qp_machines BUILD_DIR
qp_machines() {
    "$1"/quietpoll list --machines
}
