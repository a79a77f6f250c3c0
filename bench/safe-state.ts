/**
 * safe-state as the unit runs it (its ExecStartPre: app/main.js safe-state --config FILE, the
 * unit's environment) → every lock output of the board profile driven OFF, beside bare `node`
 * start → one gpioset (bench/children/bare-gpioset.ts), same node binary. The board is the
 * Raspberry Pi 4 profile of hardware/ (12 locks) on the character-device backend; its libgpiod
 * tools are stand-ins (bench/lib/fake-gpiod.ts) whose gpioset reports when it is run, so the clock
 * stops when the tool that drives the 12 lines OFF starts. After a crash, this time is how long a
 * solenoid may stay energized beyond systemd noticing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeGpiod } from './lib/fake-gpiod.js';
import type { NodeUnderTest } from './lib/node.js';
import { childScript, spawnNode } from './lib/proc.js';
import { summarize, type Summary } from './lib/stats.js';
import { REPO } from './lib/repo.js';
import { placeCommand, readUnit } from './lib/unit.js';

export interface SafeStateResult {
  readonly safeState: Summary;
  readonly bare: Summary;
  readonly locks: number;
}

const PROFILE = join(REPO, 'hardware/rpi4-12-boxes.json');

export async function benchSafeState(dir: string, release: string, node: NodeUnderTest, runs: number): Promise<SafeStateResult> {
  const profile = JSON.parse(readFileSync(PROFILE, 'utf8')) as { gpio: { backend: string }; boxes: { lock: { chip: string; offset: number } }[] };
  profile.gpio.backend = 'cdev';
  const profileFile = join(dir, 'safe-state-profile.json');
  writeFileSync(profileFile, JSON.stringify(profile));
  const configFile = join(dir, 'safe-state-config.json');
  writeFileSync(configFile, JSON.stringify({ hardware: { kind: 'board', profile: profileFile } }));
  const chips = [...new Set(profile.boxes.map((b) => b.lock.chip)), 'mcp23017'];
  const gpio = fakeGpiod(dir, chips);
  const unit = readUnit();
  const cmd = placeCommand(unit.execStartPre, unit, { node: node.path, release, configFile, cacheDir: join(dir, `cache-${node.version}`) });
  const path = `${gpio.binDir}:${process.env['PATH'] ?? ''}`;
  const allOff = (line: string): boolean => profile.boxes.every((b) => line.includes(`${b.lock.offset}=0`));

  const run = async (args: string[], env: Record<string, string>, match: (l: string) => boolean): Promise<number> => {
    const arrived = gpio.next(match, 15_000);
    const t0 = performance.now();
    const p = spawnNode(args, { node: node.path, env: { ...env, PATH: path }, stdio: 'ignore' });
    const at = await arrived;
    const code = await p.exited;
    if (code !== 0) throw new Error(`bench safe-state: ${args.join(' ')} exited ${code}`);
    return at - t0;
  };
  const station = (): Promise<number> => run([...cmd.nodeFlags, ...cmd.args], cmd.env, allOff);
  const bare = (): Promise<number> => run([childScript('bare-gpioset'), '/dev/gpiochip0', '4'], {}, (l) => l.endsWith('4=0'));
  const s: number[] = [];
  const b: number[] = [];
  try {
    await station();
    await bare();
    for (let i = 0; i < runs; i++) {
      if (i % 2 === 0) {
        s.push(await station());
        b.push(await bare());
      } else {
        b.push(await bare());
        s.push(await station());
      }
    }
  } finally {
    gpio.close();
  }
  return { safeState: summarize(s), bare: summarize(b), locks: profile.boxes.length };
}
