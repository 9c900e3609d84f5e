// Prints the figures of the floor order of src/ (docs/architecture.md, "Floors"): upward imports
// between rooms, the rooms that stand in a loop, the largest files. Run:
//   node --import tsx scripts/import-graph.ts [--all]
import { importGraph, roomGraph, upwardImports, circles, fileSizes, roomOf } from '../test/architecture/import-graph.js';

const all = process.argv.includes('--all');
const graph = importGraph();
const { rooms, unplaced } = roomGraph(graph);
const up = upwardImports(graph);
const loops = circles(rooms);
const roomPairs = new Set(
  up.map((u) =>
    u
      .split(' -> ')
      .map((f) => roomOf(f))
      .join(' -> '),
  ),
);
const sizes = fileSizes();
const lines = sizes.reduce((s, f) => s + f.lines, 0);

console.log(`files: ${graph.size}, lines: ${lines}, rooms: ${rooms.size}`);
console.log(`upward imports (file -> file): ${up.length}, between ${roomPairs.size} room pair(s)`);
for (const u of all ? up : [...roomPairs]) console.log(`  ${u}`);
console.log(`rooms in a loop: ${loops.reduce((s, l) => s + l.length, 0)} in ${loops.length} loop(s)`);
for (const l of loops) console.log(`  ${l.join(' | ')}`);
console.log(
  `files over 400 lines: ${sizes.filter((s) => s.lines > 400).length}; routes over 150: ${sizes.filter((s) => s.file.startsWith('src/routes/') && s.lines > 150).length}`,
);
console.log('largest files:');
for (const s of sizes.slice(0, all ? 30 : 10)) console.log(`  ${String(s.lines).padStart(5)}  ${s.file}`);
if (unplaced.length) console.log(`files on no floor: ${unplaced.join(', ')}`);
