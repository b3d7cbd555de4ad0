# Sourced by the benchmark scripts that work on a copy of a store the harness kept
# (`--keep`): reads BIN STORE DIR from the script's arguments (`usage` names them) into
# `bin`, `store` and `dir`, the first two made absolute, and makes DIR anew.
bin=$(realpath "${1:?$usage}")
store=$(realpath "${2:?$usage}")
dir=${3:?$usage}
rm -rf "$dir" && mkdir -p "$dir" && dir=$(realpath "$dir")
