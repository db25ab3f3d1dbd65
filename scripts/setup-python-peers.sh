#!/usr/bin/env bash
# Installs the real peer programs the tests talk to into .venv/ inside the repository: the
# official MCP Python SDK, and the official OpenAI, Anthropic and Google GenAI SDKs whose types
# judge our provider traffic, and opentelemetry-proto with grpcio, which decode our OTLP export
# (over HTTP, and over gRPC through the service stubs opentelemetry-proto ships), and the Python
# Agent Client Protocol SDK, a second real editor-side client of `pi-tool acp`.
# Idempotent: does nothing when they are already there.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=("mcp==2.3.0" "openai==3.57.0" "anthropic==2.15.0" "google-genai==3.6.1" "opentelemetry-proto==1.45.2" "grpcio==1.85.3" "agent-client-protocol==0.12.1")
if [ -x .venv/bin/python ] && .venv/bin/python - "${PACKAGES[@]}" <<'PY' 2>/dev/null
import importlib.metadata as metadata, sys
sys.exit(0 if all(metadata.version(name) == version for name, version in (p.split("==") for p in sys.argv[1:])) else 1)
PY
then
  exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check "${PACKAGES[@]}"
