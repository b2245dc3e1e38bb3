#!/bin/bash
# Lists exports of src/ that no file outside test/ names (besides the file that declares them):
# candidates to remove, to make private, or to reach through a public path in the tests.
# Public all the same, so never listed: what a package entry point (package.json `exports`)
# declares itself, every export of a module an entry point re-exports whole with
# `export * from` (src/api/errors.ts, src/api/schemas/*, ...), followed from module to module, and
# the types and interfaces of a module a public module re-exports with `export type * from`.
# The local engine (test/support/local-engine) is a tool people run (`npm run local-engine`,
# `npm start` without the Pulumi CLI), so what it names counts as used.
# Usage: scripts/test-only-exports.sh   (from the repository root; reads the git index)
set -euo pipefail

# The source module of each entry point: "./dist/api/index.js" -> src/api/index.ts.
mapfile -t public < <(
  node -e '
    const { exports } = require("./package.json");
    for (const target of Object.values(exports)) {
      const js = typeof target === "string" ? target : target.default;
      if (/^\.\/dist\/.*\.js$/.test(js)) console.log(js.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
    }'
)
# Modules re-exported whole by a public module are public too, to any depth; those re-exported
# with `export type *` only for their types.
public_types=()
queue=("${public[@]}")
while [ "${#queue[@]}" -gt 0 ]; do
  module=${queue[0]}
  queue=("${queue[@]:1}")
  while read -r how spec; do
    [ -n "$spec" ] || continue
    base="$(dirname "$module")/${spec#./}"
    for candidate in "$base.ts" "$base/index.ts"; do
      [ -f "$candidate" ] || continue
      if [ "$how" = "type" ]; then
        public_types+=("$candidate")
      elif ! printf '%s\n' "${public[@]}" | grep -qx "$candidate"; then
        public+=("$candidate")
        queue+=("$candidate")
      fi
    done
  done < <(sed -nE 's/^export (type )?\* from "(\.[^"]*)";.*/\1 \2/p' "$module" | sed -E 's/^ /value /')
done

pattern='^export (async )?(abstract )?(function|const|class|type|interface|enum|let) [A-Za-z_][A-Za-z0-9_]*'
git grep -nE "$pattern" -- 'src/*.ts' | while IFS=: read -r file line rest; do
  printf '%s\n' "${public[@]}" | grep -qx "$file" && continue
  if [[ "$rest" =~ ^export\ (type|interface)\  ]] && [ "${#public_types[@]}" -gt 0 ] &&
    printf '%s\n' "${public_types[@]}" | grep -qx "$file"; then
    continue
  fi
  name=$(sed -E "s/^export (async )?(abstract )?(function|const|class|type|interface|enum|let) ([A-Za-z_][A-Za-z0-9_]*).*/\4/" <<<"$rest")
  outside=$(git grep -lw "$name" -- src examples bench scripts test/support/local-engine \
    | grep -vx "$file" | head -1 || true)
  [ -n "$outside" ] && continue
  if git grep -qw "$name" -- test; then
    echo "$file:$line $name (named $(git grep -cw "$name" -- "$file" | cut -d: -f2) times in its own file)"
  fi
done
