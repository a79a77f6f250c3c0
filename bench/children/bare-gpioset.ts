/**
 * Bare `node` start → one gpioset run that drives a line OFF: the least a Node process can do to
 * make a lock safe. What safe-state's figure is compared with.
 *
 *   node bare-gpioset.js CHIP_PATH OFFSET
 */
import { spawn } from 'node:child_process';

const [chip, offset] = process.argv.slice(2);
if (chip === undefined || offset === undefined) throw new Error('usage: bare-gpioset CHIP_PATH OFFSET');
spawn('gpioset', ['-t', '0', '-c', chip, `${offset}=0`], { stdio: 'ignore' }).once('exit', (code) => process.exit(code ?? 1));
