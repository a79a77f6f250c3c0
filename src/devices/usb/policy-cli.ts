/**
 * `pickup-station usb-policy [--config FILE | --profile FILE] [--rules FILE] [--proposal FILE] [--print]`:
 * writes the USBGuard rules of the board profile (policy.ts) to the station's rules folder. Run by
 * the installer and by pickup-station-usb-policy.service whenever the config or the profile changes.
 *
 * Exit 0: written, unchanged, or an edited file kept (a warning on stderr names the proposal);
 * 78: a bad config or profile (each problem with its path; nothing written); 1: the file could not
 * be written.
 */
import { parseArgs } from 'node:util';
import { loadBoardProfile } from '../../config/board-profile.js';
import { profileOfConfig } from '../../config/lock-profile.js';
import { ConfigError, EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, errorMessage } from '../../errors.js';
import { renderPolicyFile, usbPolicyOf } from './policy.js';
import { writePolicyFile } from './policy-file.js';

/** The folder the station's usbguard-daemon.conf names as RuleFolder, and the generated file in it. */
export const DEFAULT_RULES_FILE = '/etc/usbguard/pickup-station.d/50-profile.conf';
/** Where a new policy goes while an edited file is kept: outside the rules folder, so USBGuard does not load it. */
export const DEFAULT_PROPOSAL_FILE = '/etc/usbguard/pickup-station-profile.conf.proposed';

export interface UsbPolicyCliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export async function runUsbPolicy(args: string[], defaultConfigFile: string, io: UsbPolicyCliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      profile: { type: 'string', short: 'p' },
      rules: { type: 'string' },
      proposal: { type: 'string' },
      print: { type: 'boolean' },
    },
    strict: true,
  });
  let text: string;
  let count: number;
  try {
    const file = values.profile ?? profileOfConfig(values.config ?? defaultConfigFile);
    if (file === null) {
      io.out('usb-policy: simulated hardware, no USB policy written');
      return EXIT_OK;
    }
    const profile = loadBoardProfile(file);
    const { policy } = usbPolicyOf(profile);
    count = policy.devices.length;
    text = renderPolicyFile(policy, { file, name: profile.name });
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  if (values.print === true) {
    io.out(text.trimEnd());
    return EXIT_OK;
  }
  const rules = values.rules ?? DEFAULT_RULES_FILE;
  try {
    const r = await writePolicyFile(rules, values.proposal ?? DEFAULT_PROPOSAL_FILE, text);
    switch (r.kind) {
      case 'written':
        io.out(`usb-policy: ${count} device rule(s) written to ${rules}`);
        break;
      case 'unchanged':
        io.out(`usb-policy: ${rules} already up to date (${count} device rule(s))`);
        break;
      case 'kept-edited':
        io.err(
          `usb-policy: warning: ${rules} was edited by hand and is kept as it is; the profile's policy is in ${r.proposal} (compare, then move it over ${rules} or delete ${rules} to have it written again)`,
        );
        break;
    }
    return EXIT_OK;
  } catch (e) {
    io.err(`usb-policy: cannot write ${rules}: ${errorMessage(e)}`);
    return EXIT_FAILURE;
  }
}
