import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Runs every `bench/*.bench.ts` (or the ones named on the command line) one after another, each in
 * its own process so one benchmark's heap and event loop never skew the next.
 * Each benchmark measures its own baseline in the same run and reports ratios against it.
 */
const dir = __dirname;
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, file)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed += 1;
}
if (files.length === 0) console.log('no benchmarks matched');
process.exit(failed ? 1 : 0);
