// The clock rate-limit windows are counted on. Both halves of the count read it: admit_keys in
// PostgreSQL (now() plus the offset, so the windows stay on the database's clock) and this
// process's admission leases and headers (Date.now() plus the same offset). The service runs on
// the real clock (offset 0); a test moves its clock to the start of a minute instead of waiting
// for one. A clock only ever moves forward, as time does.

export interface WindowClock {
  /** Milliseconds this clock runs ahead of the real one; read at each admission. */
  offsetMs(): number;
}

/** The real clock. */
export const REAL_TIME: WindowClock = { offsetMs: () => 0 };

/** A clock `offsetMs` ahead of the real one, for a whole process (RATE_LIMIT_CLOCK_OFFSET_MS). */
export function clockAhead(offsetMs: number): WindowClock {
  return offsetMs === 0 ? REAL_TIME : { offsetMs: () => offsetMs };
}

/** The time on `clock`, in milliseconds since the epoch. */
export function timeOn(clock: WindowClock): number {
  return Date.now() + clock.offsetMs();
}
