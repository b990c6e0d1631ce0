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
