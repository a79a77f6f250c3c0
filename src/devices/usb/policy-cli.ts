/**
 * `pickup-station usb-policy [--config FILE | --profile FILE] [--rules FILE] [--proposal FILE]
 * [--udev-rules FILE] [--udev-proposal FILE] [--input-rules FILE] [--input-proposal FILE] [--print]`:
 * writes the USBGuard rules of the board profile (policy.ts) to the station's rules folder, the udev
 * rules that give the station's group the hidraw nodes of the profile's HID devices
 * (hidraw-rules.ts), and those that keep their input event nodes from logind and libinput
 * (input-rules.ts). Run by the installer and by pickup-station-usb-policy.service whenever the
 * config or the profile changes.
 *
 * Exit 0: written, unchanged, or an edited file kept (a warning on stderr names the proposal);
 * 78: a bad config or profile (each problem with its path; nothing written); 1: a file could not
 * be written.
 */
import { parseArgs } from 'node:util';
import { loadBoardProfile } from '../../config/board-profile.js';
import { profileOfConfig } from '../../config/lock-profile.js';
import { ConfigError, EXIT_CONFIG, EXIT_FAILURE, EXIT_OK, errorMessage } from '../../errors.js';
import { isUnchangedHidrawRulesFile, renderHidrawRulesFile } from './hidraw-rules.js';
import { DEFAULT_INPUT_PROPOSAL_FILE, DEFAULT_INPUT_RULES_FILE, isUnchangedInputRulesFile, renderInputRulesFile } from './input-rules.js';
import { isUnchangedPolicyFile, renderPolicyFile, usbPolicyOf } from './policy.js';
import { writeGeneratedFile, type GeneratedFile } from './policy-file.js';

/** The folder the station's usbguard-daemon.conf names as RuleFolder, and the generated file in it. */
export const DEFAULT_RULES_FILE = '/etc/usbguard/pickup-station.d/50-profile.conf';
/** Where a new policy goes while an edited file is kept: outside the rules folder, so USBGuard does not load it. */
export const DEFAULT_PROPOSAL_FILE = '/etc/usbguard/pickup-station-profile.conf.proposed';
/** Before 99-pickup-station.rules, whose examples would otherwise set a named device's group first. */
export const DEFAULT_UDEV_RULES_FILE = '/etc/udev/rules.d/70-pickup-station-profile.rules';
/** Outside rules.d, so udev does not load it. */
export const DEFAULT_UDEV_PROPOSAL_FILE = '/etc/udev/pickup-station-profile.rules.proposed';

export interface UsbPolicyCliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

interface Output extends GeneratedFile {
  /** What its rules are called in a line: "device rule(s)", "hidraw rule(s)". */
  readonly what: string;
  readonly count: number;
}

export async function runUsbPolicy(args: string[], defaultConfigFile: string, io: UsbPolicyCliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      profile: { type: 'string', short: 'p' },
      rules: { type: 'string' },
      proposal: { type: 'string' },
      'udev-rules': { type: 'string' },
      'udev-proposal': { type: 'string' },
      'input-rules': { type: 'string' },
      'input-proposal': { type: 'string' },
      print: { type: 'boolean' },
    },
    strict: true,
  });
  let outputs: Output[];
  try {
    const file = values.profile ?? profileOfConfig(values.config ?? defaultConfigFile);
    if (file === null) {
      io.out('usb-policy: simulated hardware, no USB policy written');
      return EXIT_OK;
    }
    const profile = loadBoardProfile(file);
    const { policy } = usbPolicyOf(profile);
    const source = { file, name: profile.name };
    outputs = [
      {
        file: values.rules ?? DEFAULT_RULES_FILE,
        proposal: values.proposal ?? DEFAULT_PROPOSAL_FILE,
        text: renderPolicyFile(policy, source),
        mode: 0o600,
        isUnchanged: isUnchangedPolicyFile,
        what: 'device rule(s)',
        count: policy.devices.length,
      },
      {
        file: values['udev-rules'] ?? DEFAULT_UDEV_RULES_FILE,
        proposal: values['udev-proposal'] ?? DEFAULT_UDEV_PROPOSAL_FILE,
        text: renderHidrawRulesFile(policy, source),
        mode: 0o644,
        isUnchanged: isUnchangedHidrawRulesFile,
        what: 'hidraw rule(s)',
        count: policy.devices.filter((d) => d.hidraw).length,
      },
      {
        file: values['input-rules'] ?? DEFAULT_INPUT_RULES_FILE,
        proposal: values['input-proposal'] ?? DEFAULT_INPUT_PROPOSAL_FILE,
        text: renderInputRulesFile(policy, source),
        mode: 0o644,
        isUnchanged: isUnchangedInputRulesFile,
        what: 'input rule(s)',
        count: policy.devices.filter((d) => d.hidraw).length,
      },
    ];
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  if (values.print === true) {
    io.out(
      outputs
        .map((o) => `# --- ${o.file}\n${o.text}`)
        .join('\n')
        .trimEnd(),
    );
    return EXIT_OK;
  }
  let code = EXIT_OK;
  for (const o of outputs) {
    try {
      const r = await writeGeneratedFile(o);
      switch (r.kind) {
        case 'written':
          io.out(`usb-policy: ${o.count} ${o.what} written to ${o.file}`);
          break;
        case 'unchanged':
          io.out(`usb-policy: ${o.file} already up to date (${o.count} ${o.what})`);
          break;
        case 'kept-edited':
          io.err(
            `usb-policy: warning: ${o.file} was edited by hand and is kept as it is; the profile's rules are in ${r.proposal} (compare, then move it over ${o.file} or delete ${o.file} to have it written again)`,
          );
          break;
      }
    } catch (e) {
      io.err(`usb-policy: cannot write ${o.file}: ${errorMessage(e)}`);
      code = EXIT_FAILURE;
    }
  }
  return code;
}
