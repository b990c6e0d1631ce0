# Shared by scripts/demo.sh and scripts/test.sh: install what is missing.
# Debian packages are installed with apt-get (as root, which CI and the
# project machines are); nothing is downloaded from anywhere else.

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

need_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        apt_install cargo rustc
    fi
}
