#!/bin/bash
# gexplore report --format pprof: a gzip-compressed profile.proto, decoded
# here by an independent reader: protoc --decode (protobuf-compiler) against
# upstream's profile.proto (golang-github-google-pprof-dev), read by
# pprof-decode.py. Both packages are installed by ./bootstrap.
. "${GX_SRCDIR}/tests/e2e/lib.sh"
command -v jq >/dev/null || skip_all "jq is absent (Debian package jq)"
X="$GX_BIN"

"$X" version --build-options 2>/dev/null | grep -q 'pprof=yes' ||
	skip_all "this build has no pprof export (libprotobuf-c-dev, zlib1g-dev absent)"

command -v protoc >/dev/null ||
	skip_all "no independent pprof decoder: protoc is absent (Debian package protobuf-compiler)"
command -v python3 >/dev/null || skip_all "python3 is absent (Debian package python3)"
# Upstream's schema where Debian ships it; otherwise ours (the schema only:
# the decoding is still protoc's, not our protobuf-c encoder's).
PROTO_DIR=/usr/share/gocode/src/github.com/google/pprof/proto
if [ ! -f "$PROTO_DIR/profile.proto" ]; then
	diag "upstream profile.proto absent (golang-github-google-pprof-dev): using src/report/profile.proto"
	PROTO_DIR="$GX_SRCDIR/src/report"
fi
decode() { python3 "$GX_SRCDIR/tests/e2e/pprof-decode.py" "$1" "$PROTO_DIR"; }

# synthetic Skylake result: one sample type per event, totals exact
"$GEN" -o skl -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
process 1000 backend
function hot_inner
CPU_CLK_UNHALTED.THREAD 1000000000
INST_RETIRED.ANY 800000000
process 2000 other
function hot_outer
CPU_CLK_UNHALTED.THREAD 500000000
SPEC
"$X" report --format pprof -o skl.pb.gz skl 2>err
ok $? "synthetic: exported"
is "$(od -An -tx1 -N2 skl.pb.gz | tr -d ' ')" 1f8b "gzip-compressed"
decode skl.pb.gz >skl.json
ok $? "protoc decodes it against profile.proto"
is "$(jq -r '.string0 | length' skl.json)" 0 'string_table[0] is ""'
is "$(jq -c .types skl.json)" '["CPU_CLK_UNHALTED.THREAD/count","INST_RETIRED.ANY/count"]' "one sample type per event"
is "$(jq -c .totals skl.json)" '[1500000000,800000000]' "values: the summed periods of each event"
is "$(jq -r '.labels | sort | join(",")' skl.json)" "comm,pid" "samples carry pid and comm labels"
is "$(jq -r '[.mappings[].file] | unique | join(",")' skl.json)" "$WL/wl-spin" "the mapping names the binary"
check "locations resolve to the workload's functions" sh -c "jq -r '.stacks[]' skl.json | grep -q hot_inner && jq -r '.stacks[]' skl.json | grep -q hot_outer"

# per-function samples (gen-perfdata's function lines) symbolize to them
"$GEN" -o fn -b "$WL/wl-spin" <<'SPEC'
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD 600000000
function hot_outer
CPU_CLK_UNHALTED.THREAD 400000000
SPEC
"$X" report --format pprof -o fn.pb.gz fn && decode fn.pb.gz >fn.json
is "$(jq -r '.stacks | unique | join(",")' fn.json)" "hot_inner,hot_outer" "function samples land in their functions"

# --symfs reaches the exporter: the binary moved away after recording
mkdir -p bin && cp "$WL/wl-spin" bin/wl-spin
"$GEN" -o moved -b "$TMP/bin/wl-spin" <<'SPEC'
model skl
smt off
process 1000 app
function hot_inner
CPU_CLK_UNHALTED.THREAD 100000000
SPEC
mkdir -p "symfs$TMP/bin" && mv bin/wl-spin "symfs$TMP/bin/"
"$X" report --format pprof -o m1.pb.gz moved && decode m1.pb.gz >m1.json
"$X" report --format pprof --symfs "$TMP/symfs" -o m2.pb.gz moved && decode m2.pb.gz >m2.json
is "$(jq -r '.stacks | unique | join(",")' m1.json),$(jq -r '.stacks | unique | join(",")' m2.json)" \
	"[unknown],hot_inner" "--symfs: the moved binary symbolizes only with it"

# the other formats are the report's renderers, to a file
"$X" report --format folded -o f.txt fn
is "$(sort f.txt | tr '\n' ' ')" "app;hot_inner 100 app;hot_outer 100 " "--format folded -o FILE"
"$X" report --format csv -o c.csv fn
check "--format csv -o FILE" grep -q '^hot_inner,' c.csv
"$X" report --json --format csv fn >/dev/null 2>&1
is $? 2 "--json with --format csv: usage error"

"$X" report --format pprof skl >/dev/null 2>&1
is $? 2 "--format pprof without -o: usage error"
"$X" report --format nonsense -o x skl >/dev/null 2>&1
is $? 2 "unknown format: usage error"
"$X" report --format json -o r.json skl && jq -e .topdown r.json >/dev/null
ok $? "--format json -o FILE writes the JSON report"

# live recordings: call chains, inline frames, build-ids
if can_sample; then
	"$X" record -q -o spin -e cpu-clock -g -- "$WL/wl-spin" 150 >/dev/null 2>&1
	"$X" report --format pprof -o spin.pb.gz spin && decode spin.pb.gz >spin.json
	ok $? "live -g recording: exported and decoded"
	is "$(jq -c .types spin.json)" '["cpu-clock/nanoseconds"]' "cpu-clock is in nanoseconds"
	check "stacks leaf first: the hot functions, called from main" \
		sh -c "jq -r '.stacks[]' spin.json | grep -qE '^hot_(inner|outer);(.*;)?main'"
	bid=$(jq -r --arg f "$WL/wl-spin" '.mappings[] | select(.file == $f) | .build_id' spin.json | head -1)
	if command -v readelf >/dev/null; then
		want=$(readelf -n "$WL/wl-spin" | sed -n 's/.*Build ID: *//p')
		is "$bid" "$want" "the binary's mapping carries its GNU build-id"
	else
		check "the binary's mapping carries a build-id" test -n "$bid"
	fi
	if "$X" version --build-options | grep -q 'libunwind=yes'; then
		"$X" record -q -o dw -e cpu-clock --call-graph dwarf -- "$WL/wl-spin" 150 >/dev/null 2>&1
		"$X" report --format pprof -o dw.pb.gz dw && decode dw.pb.gz >dw.json
		check "--call-graph dwarf: stacks unwound offline down to main" \
			sh -c "jq -r '.stacks[]' dw.json | grep -qE '^hot_inner;hot_outer;main'"
	else
		skip 1 "no libunwind in this build"
	fi
	"$X" record -q -o inl -e cpu-clock -- "$WL/wl-sym-inline" 300000000 >/dev/null 2>&1
	"$X" report --format pprof -o inl.pb.gz inl && decode inl.pb.gz >inl.json
	check "inline frames: hot_inner inlined into outer is one location, innermost first" \
		sh -c "jq -r '.inline[] | join(\" \")' inl.json | grep -qE '^hot_inner:[0-9]+ outer:[0-9]+'"
else
	skip 6 "cannot sample cpu-clock here"
fi
done_testing
