#!/usr/bin/env bash
# Imports every Coze Studio canvas under a directory as POST
# /api/workflows/import does (conversion, then the engine's validation;
# the workflows a canvas runs mapped to stand-ins as a manifest would) and
# prints what became of each, with a summary by reason. Coze Studio's own
# examples are in its repository, under
# backend/domain/workflow/internal/canvas/examples; nothing of them is kept
# in this repository.
#
#   scripts/coze-survey.sh path/to/coze-studio/backend/domain/workflow/internal/canvas/examples
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
exec go run ./scripts/cozesurvey "$1"
