#!/usr/bin/env bash
# #11's duplicates figure: pairs in apps/ as `duplicates` reports them, with and without the
# generated migrations (Django's output, left out of the comparison). Needs the `duplicates`
# command of the tool library on PATH.
#   bench/duplicates.sh            # both counts
#   bench/duplicates.sh models.py  # and the pairs (migrations left out) matching a pattern
set -euo pipefail
cd "$(dirname "$0")/.."
echo "with migrations:    $(duplicates --repo apps --seconds 120 --most 1 | head -1)"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git ls-files -co --exclude-standard apps | grep -v '/migrations/' | grep -v '\.mo$' | while read -r f; do
  if [ -f "$f" ]; then mkdir -p "$copy/$(dirname "$f")" && cp "$f" "$copy/$f"; fi
done
(cd "$copy" && duplicates --repo apps --seconds 120 --most 200 > out.txt)
echo "without migrations: $(head -1 "$copy/out.txt")"
if [ $# -gt 0 ]; then grep -E "$1" "$copy/out.txt" | sed 's/apps\///g' || true; fi
