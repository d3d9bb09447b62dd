#!/usr/bin/env bash
# Regenerates docs/man/docver.1 from the command definitions with swift-argument-parser's
# generate-manual plugin (run it after changing a command, its options or their help).
# Install it with: install -Dm644 docs/man/docver.1 ~/.local/share/man/man1/docver.1
set -euo pipefail
cd "$(dirname "$0")/.."
swift package plugin generate-manual --configuration debug --date "${DOCVER_MAN_DATE:-$(date -u +%Y-%m-%d)}" >/dev/null
install -m644 .build/plugins/GenerateManual/outputs/docver/docver.1 docs/man/docver.1
echo "docs/man/docver.1 regenerated; read it with: man -l docs/man/docver.1"
