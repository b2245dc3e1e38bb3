#!/bin/bash
# Lists exports of src/ that no file outside test/ names (besides the file that declares them):
# candidates to remove, to make private, or to reach through a public path in the tests.
# Names re-exported with `export *` (src/api/errors.ts, src/api/schemas/) are public all the same.
# Usage: scripts/test-only-exports.sh   (from the repository root; reads the git index)
set -euo pipefail
pattern='^export (async )?(abstract )?(function|const|class|type|interface|enum|let) [A-Za-z_][A-Za-z0-9_]*'
git grep -nE "$pattern" -- 'src/*.ts' | while IFS=: read -r file line rest; do
  name=$(sed -E "s/^export (async )?(abstract )?(function|const|class|type|interface|enum|let) ([A-Za-z_][A-Za-z0-9_]*).*/\4/" <<<"$rest")
  outside=$(git grep -lw "$name" -- src examples bench scripts ':!test' | grep -vx "$file" | head -1 || true)
  [ -n "$outside" ] && continue
  if git grep -qw "$name" -- test; then
    echo "$file:$line $name (named $(git grep -cw "$name" -- "$file" | cut -d: -f2) times in its own file)"
  fi
done
