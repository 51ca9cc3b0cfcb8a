#!/bin/sh
# Every manual page is valid mdoc (mandoc -T lint, warnings and up).
[ -n "${MANDOC:-}" ] || { echo "1..0 # SKIP mandoc is absent"; exit 0; }
n=0 failed=0
for page in "$GX_SRCDIR"/man/*.[1-9]; do
	n=$((n + 1))
	if out=$("$MANDOC" -T lint -W warning "$page" 2>&1) && [ -z "$out" ]; then
		echo "ok $n - $(basename "$page")"
	else
		echo "not ok $n - $(basename "$page")"
		echo "$out" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" = 0 ]
