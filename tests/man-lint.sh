#!/bin/sh
# Every manual page is valid mdoc (mandoc -T lint, warnings and up), renders
# under groff without a warning (groff -ww -mandoc), and shows no run of
# quote marks (a quoting macro nested in another on one line renders as
# ‘a, ‘b’’ in both formatters).
[ -n "${MANDOC:-}" ] || { echo "1..0 # SKIP mandoc is absent (Debian package mandoc)"; exit 0; }
GROFF=$(command -v groff || true)
n=0 failed=0
result() {	# result DESCRIPTION OUTPUT
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "$2" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}
for page in "$GX_SRCDIR"/man/*.[1-9]; do
	name=$(basename "$page")
	out=$("$MANDOC" -T lint -W warning "$page" 2>&1) || [ -n "$out" ] || out="mandoc failed"
	result "$name: mandoc -T lint" "$out"
	result "$name: no run of quote marks" \
		"$("$MANDOC" -T utf8 "$page" 2>/dev/null | sed "s/.\x08//g" | grep -n "’’\|‘‘\|\"\"\"")"
	if [ -n "$GROFF" ]; then
		result "$name: groff -ww -mandoc" "$("$GROFF" -ww -mandoc -Tutf8 -z "$page" 2>&1)"
	else
		n=$((n + 1))
		echo "ok $n - $name: groff -ww -mandoc # SKIP groff is absent (Debian package groff-base)"
	fi
done
echo "1..$n"
[ "$failed" = 0 ]
