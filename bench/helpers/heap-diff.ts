// Compares two heap snapshots of one process (v8.writeHeapSnapshot; bench:soak --snapshots
// writes them after warm-up and at the end):
//
//   node bench/helpers/heap-diff.ts after-warmup.heapsnapshot end.heapsnapshot [--top 30]
//
// Prints, per node type and name (a constructor, "(closure)", "(string)", ...), how the count and
// the self size changed, largest growth first, and how many of the second snapshot's objects were
// not in the first (ids are stable within one process): what survived from the later load.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  size: number;
}

function load(file: string): { groups: Map<string, Group>; ids: Set<number>; fresh: (earlier: Set<number>) => Map<string, Group> } {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const idAt = fields.indexOf('id');
  const sizeAt = fields.indexOf('self_size');
  const types = snapshot.snapshot.meta.node_types[0];
  const { nodes, strings } = snapshot;
  const keyOf = (i: number): string => {
    const type = types[nodes[i + typeAt]!]!;
    const name = strings[nodes[i + nameAt]!]!;
    if (type === 'object' || type === 'closure' || type === 'native') return `${type} ${name.slice(0, 80)}`;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return `(${type})`;
    return `(${type}) ${name.slice(0, 60)}`;
  };
  const groups = new Map<string, Group>();
  const ids = new Set<number>();
  for (let i = 0; i < nodes.length; i += width) {
    const key = keyOf(i);
    const group = groups.get(key) ?? { count: 0, size: 0 };
    group.count += 1;
    group.size += nodes[i + sizeAt]!;
    groups.set(key, group);
    ids.add(nodes[i + idAt]!);
  }
  return {
    groups,
    ids,
    fresh(earlier) {
      const result = new Map<string, Group>();
      for (let i = 0; i < nodes.length; i += width) {
        if (earlier.has(nodes[i + idAt]!)) continue;
        const key = keyOf(i);
        const group = result.get(key) ?? { count: 0, size: 0 };
        group.count += 1;
        group.size += nodes[i + sizeAt]!;
        result.set(key, group);
      }
      return result;
    },
  };
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' } } });
if (positionals.length !== 2) {
  console.error('usage: node bench/helpers/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
  process.exit(2);
}
const top = Number(values.top);
const before = load(positionals[0]!);
const after = load(positionals[1]!);
const total = (groups: Map<string, Group>) => [...groups.values()].reduce((sum, g) => ({ count: sum.count + g.count, size: sum.size + g.size }), { count: 0, size: 0 });
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const b = total(before.groups);
const a = total(after.groups);
console.log(`nodes ${b.count} -> ${a.count} (${a.count - b.count >= 0 ? '+' : ''}${a.count - b.count}), self size ${kb(b.size)} -> ${kb(a.size)}`);

const rows = [...new Set([...before.groups.keys(), ...after.groups.keys()])].map((key) => {
  const x = before.groups.get(key) ?? { count: 0, size: 0 };
  const y = after.groups.get(key) ?? { count: 0, size: 0 };
  return { key, count: y.count - x.count, size: y.size - x.size, now: y.count };
});
console.log(`\ngrowth by count (top ${top}):`);
for (const r of [...rows].sort((p, q) => q.count - p.count).slice(0, top)) {
  console.log(`  ${String(r.count >= 0 ? `+${r.count}` : r.count).padStart(8)}  ${kb(r.size).padStart(12)}  (now ${r.now})  ${r.key}`);
}
console.log(`\ngrowth by size (top ${top}):`);
for (const r of [...rows].sort((p, q) => q.size - p.size).slice(0, top)) {
  console.log(`  ${kb(r.size).padStart(12)}  ${String(r.count >= 0 ? `+${r.count}` : r.count).padStart(8)}  (now ${r.now})  ${r.key}`);
}
const fresh = after.fresh(before.ids);
const freshTotal = total(fresh);
console.log(`\nobjects in the second snapshot that were not in the first: ${freshTotal.count}, ${kb(freshTotal.size)} (top ${top} by count)`);
for (const [key, g] of [...fresh.entries()].sort((p, q) => q[1].count - p[1].count).slice(0, top)) {
  console.log(`  ${String(g.count).padStart(8)}  ${kb(g.size).padStart(12)}  ${key}`);
}
