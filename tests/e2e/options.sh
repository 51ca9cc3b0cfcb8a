#!/bin/sh
# Every command's options, as its option table declares them (what
# `gexplore CMD --help` prints), are the options of its manual page, and
# every option the manual names is accepted by the parser. The manual's
# options are the `Fl` flags of its own SYNOPSIS forms and of its `.It`
# items; version and help have no page: their `.It Cm NAME` items in
# gexplore(1) count. -h/--help is every command's and not listed per page.
. "$GX_SRCDIR/tests/e2e/lib.sh"

MAN="$GX_SRCDIR/man"

# The flags of mdoc lines on stdin, one per line ("-o", "--output").
mdoc_flags() {
	awk '{
		for (i = 1; i <= NF; i++) {
			if ($i != "Fl")
				continue
			for (j = i + 1; j <= NF; j++) {
				w = $j
				if (w ~ /^[A-Z][a-z][a-z]?$/)	# the next macro
					break
				gsub(/\\-/, "-", w)
				gsub(/\\&/, "", w)
				if (w ~ /^[|,.;:()\[\]]+$/ || w == "-")	# delimiters, "--"
					continue
				if (w ~ /^-/)
					print "-" w
				else
					for (k = 1; k <= length(w); k++)
						print "-" substr(w, k, 1)
			}
			i = j - 1
		}
	}'
}

# The man page's options of command $1.
man_opts() {
	local page="$MAN/gexplore-$1.1"
	if [ ! -f "$page" ]; then
		grep "^\.It Cm $1\( \|$\)" "$MAN/gexplore.1" | mdoc_flags
		return
	fi
	{
		# its own SYNOPSIS forms: `.Nm gexplore CMD`, `.Nm gexplore` + `.Cm CMD`,
		# and `.Nm gexplore` alone (gexplore -- CMD: record's)
		awk -v cmd="$1" '
			/^\.Sh / { syn = ($2 == "SYNOPSIS"); next }
			!syn { next }
			/^\.Nm/ { owner = ($3 != "") ? $3 : "record"; pending = ($3 == ""); next }
			pending && /^\.Cm / { owner = $2; pending = 0; next }
			{ pending = 0 }
			owner == cmd { print }' "$page"
		grep '^\.It .*Fl ' "$page"
	} | mdoc_flags
}

# The options `gexplore CMD --help` lists, less -h/--help: "NAME ARG" per
# name, ARG 1 when it takes an argument, 0 when not ("-o, --output DIR": two).
help_spec() {
	"$GX_BIN" "$1" --help | grep -E '^ +-' | awk '{
		sub(/^ +/, "")
		n = index($0, "  ")
		spec = n ? substr($0, 1, n - 1) : $0
		k = split(spec, w, / /)
		arg = (w[k] !~ /^-/ || w[k] ~ /\[=/) ? 1 : 0
		for (i = 1; i <= k; i++) {
			x = w[i]
			sub(/,$/, "", x)
			sub(/\[=.*/, "", x)
			if (x ~ /^-/ && x != "-h" && x != "--help")
				print x, arg
		}
	}'
}
help_opts() {
	help_spec "$1" | cut -d' ' -f1
}

cmds=$("$GX_BIN" help | awk '/^Record/ { on = 1; next } on && /^  [a-z]+ / { print $1 }')
[ -n "$cmds" ]
ok $? "gexplore help lists the commands"

for c in $cmds; do
	h=$(help_opts "$c" | sort -u)
	m=$(man_opts "$c" | sort -u)
	only_help=$(printf '%s\n' "$h" | grep -vxF -e "$m" -e '' || true)
	only_man=$(printf '%s\n' "$m" | grep -vxF -e "$h" -e '' || true)
	if [ -z "$only_help" ] && [ -z "$only_man" ]; then
		ok 0 "$c: --help and the manual list the same options ($(echo $h))"
	else
		ok 1 "$c: --help and the manual list the same options"
		[ -n "$only_help" ] && diag "  only in '$c --help':" $only_help
		[ -n "$only_man" ] && diag "  only in the manual:" $only_man
	fi

	# every option of the manual is accepted: "OPT [x] --help" parses
	# OPT first; an unknown one stops there with "unknown option"
	bad=""
	spec=$(help_spec "$c")
	for o in $m; do
		# with a dummy argument where it takes one
		if printf '%s\n' "$spec" | grep -qxF -- "$o 1"; then
			set -- "$o" x
		else
			set -- "$o"
		fi
		if "$GX_BIN" "$c" "$@" --help 2>&1 >/dev/null | grep -q 'unknown option'; then
			bad="$bad $o"
		fi
	done
	is "$bad" "" "$c: the parser accepts every option of the manual"

	is "$("$GX_BIN" help "$c" | cksum)" "$("$GX_BIN" "$c" --help | cksum)" \
		"$c: 'gexplore help $c' is '$c --help'"
done

# gexplore(1) lists every command of the table (an `.It Cm NAME` item) and
# no other, and names each command's own page under SEE ALSO.
items=$(awk '/^\.Sh DESCRIPTION/ { on = 1 } /^\.Sh / && !/DESCRIPTION/ { on = 0 }
	on && /^\.It Cm / { print $3 }' "$MAN/gexplore.1" | sort -u)
missing="" extra="" nosee=""
for c in $cmds; do
	printf '%s\n' "$items" | grep -qxF "$c" || missing="$missing $c"
	if [ -f "$MAN/gexplore-$c.1" ] && ! grep -q "^\.Xr gexplore-$c 1" "$MAN/gexplore.1"; then
		nosee="$nosee $c"
	fi
done
for c in $items; do
	printf '%s\n' $cmds | grep -qxF "$c" || extra="$extra $c"
done
is "$missing" "" "gexplore(1) lists every command of the table"
is "$extra" "" "gexplore(1) lists no command the table lacks"
is "$nosee" "" "gexplore(1) refers to every command's own page"

# The parser's errors name the command and the option, and exit 2.
"$GX_BIN" record --slice x -- true 2>err
is "$?" 2 "a bad number: exit 2"
is "$(head -1 err)" "gexplore record: --slice: expected a number of milliseconds from 1 to 10000, got 'x'" \
	"a bad number: the option, the range and the value"
"$GX_BIN" report --no-such-option 2>err
is "$?" 2 "an unknown option: exit 2"
is "$(head -1 err)" "gexplore report: unknown option '--no-such-option'" "an unknown option: named"

# `gexplore --help` lists the record options `gexplore -- CMD` takes
"$GX_BIN" --help >top 2>&1
check "gexplore --help lists record's options (--model, -g, -e)" \
	sh -c "grep -q '^      --model' top && grep -q '^  -g ' top && grep -q '^  -e, --event' top"
check "... and says how to read the manual before installing" grep -qF 'man ./man/gexplore.1' top

done_testing
