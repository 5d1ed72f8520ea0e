#!/bin/sh
# Keeps only the target platform's onnxruntime-node binaries in a worker image. The npm package
# ships prebuilt libraries for every platform it supports (bin/napi-v*/{linux,darwin,win32}/
# {x64,arm64}, DirectML DLLs included); a Linux image loads one of them.
#
#   sh docker/prune-onnxruntime.sh <node_modules directory> <TARGETARCH: amd64 or arm64>
#
# Run by docker/Dockerfile's worker-deps stage with BuildKit's TARGETARCH; test/e2e/deploy runs it
# on a copy of the package's layout.
set -eu

modules=${1:?usage: prune-onnxruntime.sh <node_modules directory> <amd64|arm64>}
target=${2:?usage: prune-onnxruntime.sh <node_modules directory> <amd64|arm64>}

# Docker's architecture names → onnxruntime-node's.
case "$target" in
  amd64) arch=x64 ;;
  arm64) arch=arm64 ;;
  *)
    echo "prune-onnxruntime: onnxruntime-node has no Linux binaries for TARGETARCH=$target (amd64 or arm64)" >&2
    exit 1
    ;;
esac

bin="$modules/onnxruntime-node/bin"
if [ ! -d "$bin" ]; then
  echo "prune-onnxruntime: $bin does not exist: is onnxruntime-node installed?" >&2
  exit 1
fi

for dir in "$bin"/napi-v*/*/*; do
  case "$dir" in
    */linux/"$arch") ;;
    *) rm -rf "$dir" ;;
  esac
done
# The platform directories left empty.
for dir in "$bin"/napi-v*/*; do
  if [ -z "$(ls -A "$dir")" ]; then rmdir "$dir"; fi
done

found=0
for binding in "$bin"/napi-v*/linux/"$arch"/onnxruntime_binding.node; do
  if [ -f "$binding" ]; then
    found=1
    echo "prune-onnxruntime: kept $(dirname "$binding")"
  fi
done
if [ "$found" -eq 0 ]; then
  echo "prune-onnxruntime: no onnxruntime_binding.node for linux/$arch under $bin" >&2
  exit 1
fi
