/**
 * Which tags are in a reader's field, from inventory rounds. A tag counts as present from the
 * first round that sees it and as gone only after `absentRounds` rounds in a row without it: a
 * label at the edge of the antenna's field, or one the anticollision missed once, must not "leave"
 * and "arrive" again (the station would report the item twice). Pure; the reader device feeds it.
 */
export interface RoundChange {
  readonly arrived: readonly string[];
  readonly left: readonly string[];
}

export class FieldTracker {
  /** Present UIDs with the number of rounds in a row that have missed them. */
  private readonly missed = new Map<string, number>();

  constructor(private readonly absentRounds: number) {}

  round(seen: readonly string[]): RoundChange {
    const now = new Set(seen);
    const arrived: string[] = [];
    const left: string[] = [];
    for (const uid of now) {
      if (!this.missed.has(uid)) arrived.push(uid);
      this.missed.set(uid, 0);
    }
    for (const [uid, n] of this.missed) {
      if (now.has(uid)) continue;
      if (n + 1 >= this.absentRounds) {
        this.missed.delete(uid);
        left.push(uid);
      } else this.missed.set(uid, n + 1);
    }
    return { arrived, left };
  }

  present(): string[] {
    return [...this.missed.keys()];
  }

  /** Seen in the last round (not only still counted present). */
  seenLastRound(uid: string): boolean {
    return this.missed.get(uid) === 0;
  }
}
