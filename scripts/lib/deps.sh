# Shared by scripts/demo.sh and scripts/test.sh: install what is missing.
# Debian packages come from apt-get (as root, which CI and the project
# machines are; otherwise through sudo). Rust comes from rustup (the official
# installer, https://sh.rustup.rs, when rustup is missing), because the crate
# needs Rust >= 1.88 (cudarc pulls libloading 0.9) and Debian's rustc is older
# (bookworm 1.63, trixie 1.85).

DUALVIEW_MIN_RUST="1.88.0"

apt_updated=""
apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    if [ -z "$apt_updated" ]; then
        $sudo apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# True when `rustc` is at least $DUALVIEW_MIN_RUST.
rust_is_new_enough() {
    command -v cargo >/dev/null 2>&1 && command -v rustc >/dev/null 2>&1 || return 1
    local have
    have="$(rustc --version 2>/dev/null | awk '{print $2}')"
    [ -n "$have" ] || return 1
    [ "$(printf '%s\n%s\n' "$DUALVIEW_MIN_RUST" "${have%%-*}" | sort -V | head -n 1)" = "$DUALVIEW_MIN_RUST" ]
}

# A Rust toolchain >= 1.88 with clippy on PATH (rustup's ~/.cargo/bin first).
need_rust() {
    [ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
    rust_is_new_enough && return 0
    if ! command -v rustup >/dev/null 2>&1; then
        # gcc: the linker rustc calls; curl and certificates: rustup's downloads.
        apt_install gcc libc6-dev ca-certificates curl
        echo "installing: rustup (https://sh.rustup.rs; Debian's rustc is older than $DUALVIEW_MIN_RUST)"
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
            sh -s -- -y --profile minimal --default-toolchain none --no-modify-path >/dev/null
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
    echo "installing: Rust stable (rustup, profile minimal, with clippy)"
    rustup toolchain install stable --profile minimal --component clippy >/dev/null
    rustup default stable >/dev/null
    rust_is_new_enough || { echo "need Rust >= $DUALVIEW_MIN_RUST, have: $(rustc --version 2>&1)" >&2; return 1; }
}

# nvcc from NVIDIA's Python wheels (13.0.x) in a virtual environment: enough to
# compile CUDA C++ on a machine without a GPU. Prints the nvcc path.
need_nvcc() {
    local venv="${DUALVIEW_NVCC_VENV:-$HOME/.cache/dualview/nvcc-venv}"
    local nvcc
    nvcc="$(find "$venv" -path '*/bin/nvcc' -type f 2>/dev/null | head -n 1)"
    if [ -z "$nvcc" ]; then
        python3 -m venv "$venv" >&2 || return 1
        "$venv/bin/pip" install -q "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-runtime==13.0.*" \
            "nvidia-cuda-cccl==13.0.*" "nvidia-cuda-crt==13.0.*" "nvidia-nvvm==13.0.*" >&2 || return 1
        nvcc="$(find "$venv" -path '*/bin/nvcc' -type f | head -n 1)"
    fi
    [ -n "$nvcc" ] && echo "$nvcc"
}
