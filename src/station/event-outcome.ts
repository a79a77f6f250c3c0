/** How a finished protocol event is named in its record: the closed kind (for metrics) and the text (for technicians). */
import type { SendOutcome } from '../protocol/client.js';
import { commandProblem } from './core.js';
import type { CoreConfig } from './core-types.js';
import type { FailureKind, OutcomeKind } from './runtime-types.js';

export function outcomeKindOf(outcome: SendOutcome): OutcomeKind {
  if (outcome.result.kind !== 'answered') return 'unanswered';
  const a = outcome.result.answer;
  return a.kind === 'command' ? a.command.type : a.kind;
}

/** Why the event was not carried out, or null; the same judgement as describeAnswer's text. */
export function failureOf(core: CoreConfig, outcome: SendOutcome): FailureKind | null {
  if (outcome.result.kind !== 'answered') return 'unanswered';
  const a = outcome.result.answer;
  switch (a.kind) {
    case 'command':
      return commandProblem(core, outcome.endpoint, a.command) === null ? null : 'refused';
    case 'exception':
    case 'invalid':
      return a.kind;
  }
}

export function describeAnswer(core: CoreConfig, outcome: SendOutcome): string {
  if (outcome.result.kind !== 'answered') return 'unanswered';
  const a = outcome.result.answer;
  switch (a.kind) {
    case 'command': {
      const problem = commandProblem(core, outcome.endpoint, a.command);
      return problem === null ? a.command.type : `refused: ${problem}`;
    }
    case 'exception':
      return `exception ${a.status} ${a.exceptionType}`;
    case 'invalid':
      return `invalid: ${a.reason}`;
  }
}
