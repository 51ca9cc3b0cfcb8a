// Decode a gzip-compressed pprof profile with the independent pprof-format
// package (not our protobuf-c code) and print a JSON digest for pprof.sh:
// string_table[0], sample types, per-type totals, functions per stack,
// locations with inline lines, mappings with build-ids.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require(process.env.PPROF_FORMAT || 'pprof-format');

const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
const st = p.stringTable.strings || p.stringTable;
const s = (i) => st[Number(i)];
const funcs = new Map(p.function.map((f) => [Number(f.id), f]));
const locs = new Map(p.location.map((l) => [Number(l.id), l]));
const totals = p.sampleType.map(() => 0);
const stacks = [];
for (const smp of p.sample) {
	smp.value.forEach((v, i) => { totals[i] += Number(v); });
	const names = [];
	for (const id of smp.locationId) {
		const l = locs.get(Number(id));
		if (!l) throw new Error('sample refers to missing location ' + id);
		for (const ln of l.line) names.push(s(funcs.get(Number(ln.functionId)).name));
	}
	stacks.push(names.join(';'));
}
console.log(JSON.stringify({
	string0: st[0],
	types: p.sampleType.map((t) => s(t.type) + '/' + s(t.unit)),
	totals,
	stacks,
	inline: p.location.filter((l) => l.line.length > 1).map((l) =>
		l.line.map((ln) => s(funcs.get(Number(ln.functionId)).name) + ':' + Number(ln.line))),
	mappings: p.mapping.map((m) => ({ file: s(m.filename), build_id: s(m.buildId),
		start: Number(m.memoryStart) })),
	labels: [...new Set(p.sample.flatMap((x) => x.label.map((l) => s(l.key))))],
}));
