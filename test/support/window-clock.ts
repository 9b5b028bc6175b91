// A rate-limit clock a test moves forward (billing/window-clock.ts): to the start of a minute, so
// that the requests of a test fall in one window without waiting for the next real minute.
import type { WindowClock } from '../../billing/window-clock.ts';

const MINUTE_MS = 60_000;
/** How far into the minute a move lands: past the start, so the clock cannot read the minute before. */
const INTO_MINUTE_MS = 500;

export interface MovableClock extends WindowClock {
  /** The time on this clock (ms since the epoch). */
  now(): number;
  /**
   * Moves the clock forward to just after the start of the next minute, which leaves a test almost
   * a minute in one window. Returns that minute's start.
   */
  toNextMinute(): number;
  /** Moves the clock forward to `msBeforeEnd` before the end of the minute it reads now (or the next). */
  toMinuteEnd(msBeforeEnd: number): void;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** The UTC day the clock reads, as YYYY-MM-DD. */
  day(): string;
}

export function movableClock(): MovableClock {
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  return {
    offsetMs: () => offsetMs,
    now,
    toNextMinute() {
      const start = (Math.floor(now() / MINUTE_MS) + 1) * MINUTE_MS;
      offsetMs += start + INTO_MINUTE_MS - now();
      return start;
    },
    toMinuteEnd(msBeforeEnd) {
      const t = now();
      let target = (Math.floor(t / MINUTE_MS) + 1) * MINUTE_MS - msBeforeEnd;
      if (target < t) target += MINUTE_MS;
      offsetMs += target - t;
    },
    advance(ms) {
      if (ms < 0) throw new Error('a clock only moves forward');
      offsetMs += ms;
    },
    day: () => new Date(now()).toISOString().slice(0, 10),
  };
}

/** How far ahead of the real clock a process must start so that its clock reads just after a minute's start. */
export function offsetToNextMinute(): number {
  const clock = movableClock();
  clock.toNextMinute();
  return clock.offsetMs();
}
