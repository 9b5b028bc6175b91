// This machine is a shared VM: one 10 s run can land on a burst of hypervisor steal and read half
// of what the next one does. So the figures a target is judged on are measured in rounds, each
// round running the subject and its reference back to back, and reported round by round plus the
// median of each figure over the rounds.
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

/** Runs `measure` ROUNDS times, one after another. */
export async function inRounds<T>(measure: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await measure());
  return results;
}

/** The median of one figure over the rounds (the lower middle one for an even count). */
export function median<T>(results: T[], figure: (result: T) => number): number {
  const values = results.map(figure).sort((a, b) => a - b);
  return values[(values.length - 1) >> 1];
}
