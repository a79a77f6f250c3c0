/** The checkout this bench (or test) runs from: found upwards from here, so it works from bench/lib (source, tests) and dist/bench/lib (built). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function find(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'pickup-station') return dir;
  }
  throw new Error('no pickup-station checkout above bench/lib');
}

export const REPO = find();
